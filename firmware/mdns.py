"""The board's name on the network (``landsend.local``), kept from avahi's spurious renames.

avahi answers ``landsend.local`` for the board (mDNS): a phone on a home network opens the page by that
name. When avahi thinks another device answers for its name while it probes, it takes the next one
(``landsend-2.local``) and keeps it until it is restarted. It can think so wrongly: its own probe, looped
back while its records change (an interface coming up at boot, the board moving between its own Wi-Fi and a
home network), counts as a conflict (avahi issue #117, open upstream). The boot check caught the image's
first boot named ``landsend-2.local`` after avahi had probed on ``lo`` alone, with no other device on
the network; a phone then never finds the board by name.

:class:`NameWatch` (started by the daemon on an installed board, never in ``--sim``) asks avahi for its host name over
D-Bus (``busctl``) every :data:`NAME_POLL_S` seconds. When avahi runs under another name than this
machine's own host name, the watch asks it for that name again (``SetHostName``; the service user may,
by ``systemd/landsend-avahi.conf``), at most :data:`NAME_TRIES` times in a row, :data:`NAME_RETRY_S`
seconds apart: a spurious conflict is gone at the next probe, while a real one (a second board called
``landsend`` at the same pub) renames avahi again every time. After the last try the watch says once,
on the page and in the journal, which name the board answers to, and stops asking until the name is
right again.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

AVAHI_SERVICE = Path("/etc/avahi/services/landsend.service")
"""The page's mDNS service (systemd/install.sh): the daemon watches the name only on a board that has it."""
NAME_POLL_S = 15.0
"""How often the watch asks avahi for its name (one ``busctl`` call)."""
NAME_RETRY_S = 60.0
"""The least time between two requests for the name."""
NAME_TRIES = 3
"""Requests in a row before a conflict is taken as real."""

AVAHI = ("org.freedesktop.Avahi", "/", "org.freedesktop.Avahi.Server")
RUNNING = 2
"""avahi's server state once its names are probed and announced (``AVAHI_SERVER_RUNNING``)."""


class AvahiError(Exception):
    """avahi could not be asked (not installed, not running, or the request refused)."""


class Avahi:
    """avahi's server over D-Bus through systemd's ``busctl`` (no Python D-Bus library on the board).

    :param busctl: the command (tests pass a fake program).
    :param run: ``subprocess.run``.
    """

    def __init__(self, busctl: Sequence[str] = ("busctl",), run: Callable[..., Any] = subprocess.run):
        self.busctl = list(busctl)
        self._run = run

    def _call(self, method: str, *args: str) -> list:
        cmd = [*self.busctl, "--system", "--json=short", "call", *AVAHI, method, *args]
        try:
            out = self._run(cmd, capture_output=True, text=True, timeout=10, env={**os.environ, "LC_ALL": "C"})
        except FileNotFoundError:
            raise AvahiError("busctl is not installed (systemd)") from None
        except subprocess.TimeoutExpired:
            raise AvahiError(f"avahi did not answer {method} within 10 s") from None
        if out.returncode != 0:
            raise AvahiError(f"avahi {method}: {(out.stderr or out.stdout).strip() or out.returncode}")
        if not out.stdout.strip():
            return []
        try:
            return list(json.loads(out.stdout).get("data", []))
        except (ValueError, AttributeError):
            raise AvahiError(f"avahi {method}: not busctl's JSON: {out.stdout.strip()[:80]!r}") from None

    def state(self) -> tuple[int, str]:
        """Return avahi's server state and the host name it answers to (without ``.local``)."""
        state = self._call("GetState")
        name = self._call("GetHostName")
        if not state or not name:
            raise AvahiError("avahi answered without a state or a name")
        return int(state[0]), str(name[0])

    def set_name(self, name: str) -> None:
        """Ask avahi to answer to ``name`` (it probes the name again)."""
        self._call("SetHostName", "s", name)


class NameWatch:
    """Ask avahi for this machine's own name again when it has taken another (see the module's text).

    :param avahi: what :class:`Avahi` does (``state()``, ``set_name(name)``).
    :param want: the name the board should answer to (this machine's host name).
    :param on_conflict: called once as ``on_conflict(sentence, name)`` when a conflict looks real (the
        daemon shows the sentence on the page and lets phones use ``name.local``), and as
        ``on_conflict(None, name)`` when the name is right again.
    """

    def __init__(self, avahi: Any = None, *, want: str | None = None,
                 on_conflict: Callable[[str | None], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, retry_after: float = NAME_RETRY_S,
                 tries: int = NAME_TRIES):
        self.avahi = avahi if avahi is not None else Avahi()
        self.want = want or socket.gethostname().split(".")[0]
        self.on_conflict = on_conflict
        self.clock, self.retry_after, self.tries = clock, retry_after, tries
        self.name: str | None = None
        """The name avahi answered to at the last look (None: not asked yet, or it could not be asked)."""
        self._asked = 0                             # requests since the name was last right
        self._last: float | None = None             # when the last request was made
        self._told = False                          # the conflict was reported
        self._failing = False                       # avahi could not be asked at the last look (said once)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> str | None:
        """Look once; return what was done (a line for the journal), or None."""
        try:
            state, name = self.avahi.state()
        except AvahiError as exc:
            self.name = None
            if self._failing:
                return None
            self._failing = True
            return f"mdns: {exc} (the board's name on the network is not watched until avahi answers)"
        self._failing = False
        self.name = name
        if state != RUNNING:
            return None                             # probing: look again when it is done
        if name == self.want:
            said = None
            if self._asked:
                said = f"mdns: the board answers as {name}.local again"
            if self._told and self.on_conflict is not None:
                self.on_conflict(None, name)
            self._asked, self._last, self._told = 0, None, False
            return said
        now = self.clock()
        if self._asked >= self.tries:
            if self._told:
                return None
            self._told = True
            line = (f"another device on this network answers as {self.want}.local: this board is {name}.local "
                    f"(avahi took it {self._asked} times after being asked for {self.want}.local)")
            if self.on_conflict is not None:
                self.on_conflict(line, name)
            return f"mdns: {line}"
        if self._last is not None and now - self._last < self.retry_after:
            return None
        try:
            self.avahi.set_name(self.want)
        except AvahiError as exc:
            return f"mdns: avahi answers as {name}.local and refused {self.want}: {exc}"
        self._asked += 1
        self._last = now
        return (f"mdns: avahi had renamed the board {name}.local (a name conflict; its own probe can cause one): "
                f"asked it for {self.want}.local again ({self._asked} of {self.tries})")

    def start(self, period: float = NAME_POLL_S) -> None:
        from firmware.watch import every
        self._thread = every(period, self.check, name="mdns-name-watch", stop=self._stop, first_now=True)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
