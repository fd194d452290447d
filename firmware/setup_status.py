"""What the boot's setup unit (:mod:`firmware.firstboot`) left for the daemon: its status file, and the fault it means.

Kept apart from :mod:`firmware.firstboot` so that the daemon reads one small
JSON file at start-up without importing what applying the settings file needs
(the Wi-Fi and settings modules, ``subprocess``, ``uuid``: issue 25's start-up).
"""

from __future__ import annotations

import json
from pathlib import Path

STATUS = Path("/run/landsend-setup/status.json")


def setup_faults(path: Path = STATUS) -> list[str]:
    """Return the page's fault for a refused settings file, from the setup unit's status (none: [])."""
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if isinstance(status, dict) and status.get("settings") == "refused":
        return [f"settings file refused, nothing of it applied (the board keeps its previous settings): "
                f"{status.get('error')}"]
    return []
