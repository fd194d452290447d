#!/usr/bin/env bash
# Run the whole test suite. Creates/reuses .venv with the test tools and
# installs Debian's chromium (browser tests), espeak-ng + sox (voice tests), fdisk + device-tree-compiler
# (image tests) and axe-core from npm (accessibility tests, into .cache/axe) when missing.
# Extra arguments go to pytest (e.g. ./test.sh tests/test_scoring.py -x).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/scripts/bootstrap.sh" test
"$here/scripts/ensure-chromium.sh"
"$here/scripts/ensure-speech.sh"
# the image's fast tests: sfdisk writes a partition table, dtc and fdtoverlay compile and apply the SPI overlay
"$here/scripts/ensure-debian.sh" "the image tests" sfdisk=fdisk dtc=device-tree-compiler fdtoverlay=device-tree-compiler
"$here/scripts/ensure-axe.sh"
cd "$here"
exec "${LANDSEND_VENV:-$here/.venv}/bin/python" -m pytest -n 2 "$@"
