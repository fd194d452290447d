#!/usr/bin/env bash
# Browser tests drive Debian's chromium through Playwright (never a downloaded
# browser). Install it with apt-get when it is missing and we are root.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing Debian's chromium for the browser tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq chromium >&2
else
  echo "==> chromium is not installed and we are not root: browser tests will be skipped" >&2
fi
