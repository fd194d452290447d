#!/usr/bin/env bash
# The voice tests render announcements with Debian's espeak-ng and measure the
# audio with sox (`sox FILE -n stat`). Install both with apt-get when missing
# and we are root; otherwise the voice tests skip with the reason.
set -euo pipefail
missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing ${missing[*]} for the voice tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "==> ${missing[*]} not installed and we are not root: the voice tests will be skipped" >&2
fi
