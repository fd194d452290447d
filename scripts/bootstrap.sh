#!/usr/bin/env bash
# Create or reuse the project's virtual environment and install what it needs.
# Usage: scripts/bootstrap.sh [EXTRA]   (EXTRA = "test" installs the test tools too)
# Re-installs only when pyproject.toml, the compiled play-out's sources (native/) or the extra asked for changed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${LANDSEND_VENV:-$here/.venv}"
extra="${1:-}"
py="${PYTHON:-python3}"

if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "landsend needs Python >= 3.11 (found: $("$py" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "==> creating virtual environment in $venv" >&2
  "$py" -m venv "$venv"
fi
stamp="$venv/.landsend-installed${extra:+-$extra}"
want="$(cat "$here/pyproject.toml" "$here/native/pyproject.toml" "$here/native/setup.py" "$here/native/pegwalk.c" \
  | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "==> installing landsend${extra:+[$extra]} into $venv (rpi-ws281x compiles from source off a Pi)" >&2
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q -e "$here${extra:+[$extra]}" >&2
  # the three- and four-hand play-out compiled (native/: a C compiler and the Python headers; the tests fail
  # without it, tests/test_pegging_multi_fast.py); built afresh whenever its sources change (the stamp above)
  echo "==> compiling the play-out (native/, pegwalk) into $venv" >&2
  "$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$here/native" >&2
  echo "$want" > "$stamp"
fi
