#!/usr/bin/env bash
# Run the companion: the Pi daemon with the simulator backend (no hardware),
# an embedded SQLite store, and the page at http://localhost:8000.
# Extra arguments go to `landsend serve` (e.g. --port 8080, --db FILE).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/scripts/bootstrap.sh"
# the C allocator as the board's unit sets it (systemd/landsend.service: memory flat over a long match)
export GLIBC_TUNABLES="${GLIBC_TUNABLES:-glibc.malloc.tcache_count=0}"
exec "${LANDSEND_VENV:-$here/.venv}/bin/landsend" serve --sim --host 0.0.0.0 --port 8000 "$@"
