"""systemd's notify protocol as a plain datagram write to ``$NOTIFY_SOCKET`` (no libsystemd)."""

from __future__ import annotations

import logging
import os
import socket
from typing import MutableMapping

log = logging.getLogger(__name__)


SYSTEMD_ONLY = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")
"""What systemd gives the service's main process alone: where to send its notifications, and its watchdog."""


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1``... to systemd; does nothing outside systemd.

    :param env: the environment to read ``NOTIFY_SOCKET`` and ``WATCHDOG_USEC`` from (``os.environ``).
    :param unset_environment: take :data:`SYSTEMD_ONLY` out of ``env`` once read (as ``sd_notify(3)``'s
        argument of that name), so that no program the daemon starts inherits them. systemd's own tools
        (``busctl``, ``timedatectl``) send ``ERRNO=`` to ``$NOTIFY_SOCKET`` when they fail, which systemd
        refused and logged ("Got notification message from PID …, but reception only permitted for main
        PID"): a ``busctl`` of the name watch at shutdown did, in the update check. :attr:`environment` keeps
        them, for a daemon that starts itself again in the same process.
    """

    def __init__(self, env: MutableMapping[str, str] | None = None, *, unset_environment: bool = False):
        env = os.environ if env is None else env
        self.environment = {name: env[name] for name in SYSTEMD_ONLY if name in env}
        if unset_environment:
            for name in self.environment:
                del env[name]
        env = self.environment
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
