#!/usr/bin/env bash
# Run the whole test suite. Creates/reuses .venv with the test tools and
# installs Debian's chromium (browser tests) and espeak-ng + sox (voice tests) when missing.
# Extra arguments go to pytest (e.g. ./test.sh tests/test_scoring.py -x).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/scripts/bootstrap.sh" test
"$here/scripts/ensure-chromium.sh"
"$here/scripts/ensure-speech.sh"
cd "$here"
exec "${LANDSEND_VENV:-$here/.venv}/bin/python" -m pytest -n 2 "$@"
