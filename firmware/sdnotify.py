"""systemd's notify protocol as a plain datagram write to ``$NOTIFY_SOCKET`` (no libsystemd)."""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1``... to systemd; does nothing outside systemd.

    :param env: the environment to read ``NOTIFY_SOCKET`` and ``WATCHDOG_USEC`` from (``os.environ``).
    """

    def __init__(self, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        addr = env.get("NOTIFY_SOCKET") or None
        if addr and addr.startswith("@"):
            addr = "\0" + addr[1:]          # abstract namespace socket
        self.address = addr
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        ours = not pid or pid == str(os.getpid())
        self.watchdog_s: float | None = int(usec) / 1e6 if usec.isdigit() and int(usec) > 0 and ours else None

    @property
    def enabled(self) -> bool:
        """Return True when running under systemd with a notify socket."""
        return self.address is not None

    @property
    def ping_interval(self) -> float | None:
        """Return the seconds between watchdog pings (half of ``WatchdogSec``), or None without a watchdog."""
        return self.watchdog_s / 2 if self.watchdog_s else None

    def notify(self, message: str) -> bool:
        """Send ``message`` (e.g. ``"READY=1"``); return True when it was sent."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                s.setblocking(False)          # a reader that stopped reading must never block the main loop
                s.connect(self.address)
                s.sendall(message.encode())
            return True
        except OSError as exc:
            log.warning("sd_notify %r failed: %s", message, exc)
            return False
