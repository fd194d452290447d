#!/usr/bin/env bash
# Install Debian packages some tests need, with apt-get, when a command is missing and we are root; otherwise
# say which tests will skip (each skip names its reason in pytest's summary).
#
#   scripts/ensure-debian.sh "WHAT THEY ARE FOR" COMMAND=PACKAGE ...
#   scripts/ensure-debian.sh "the image tests" sfdisk=fdisk dtc=device-tree-compiler
set -euo pipefail
what="$1"; shift
missing=()
for pair in "$@"; do
  cmd="${pair%%=*}" pkg="${pair#*=}"
  command -v "$cmd" >/dev/null 2>&1 && continue
  [[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
done
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing ${missing[*]} for $what" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "==> ${missing[*]} not installed and we are not root: $what will be skipped" >&2
fi
