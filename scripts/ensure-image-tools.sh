#!/usr/bin/env bash
# The image's fast tests (tests/test_image.py) write a partition table with sfdisk (Debian's fdisk) and compile
# and apply the SPI overlay with dtc and fdtoverlay (device-tree-compiler). Install both with apt-get when
# missing and we are root; otherwise those tests skip with the reason.
set -euo pipefail
missing=()
command -v sfdisk >/dev/null 2>&1 || missing+=(fdisk)
{ command -v dtc >/dev/null 2>&1 && command -v fdtoverlay >/dev/null 2>&1; } || missing+=(device-tree-compiler)
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing ${missing[*]} for the image tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
else
  echo "==> ${missing[*]} not installed and we are not root: two image tests will be skipped" >&2
fi
