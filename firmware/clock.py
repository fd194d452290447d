"""The board's clock, set from the phones when the board has no other way to know the time.

A Raspberry Pi 3, Zero 2 W or 4 has no real-time clock: after a power cut it starts on the time
``systemd-timesyncd`` last saved (the image keeps it moving forward across boots) or, without that,
systemd's build date; at a pub there is no network time either. The phones know the time. So the page
offers its phone's clock (``POST /api/clock``, joined phones only, :mod:`web.clock`) and the board takes it
when it is **ahead** of its own by more than :data:`MIN_AHEAD` and no further ahead of the last time the
board knew (its clock, or the newest event it stored) than :data:`MAX_AHEAD`: a phone whose clock is behind,
or wildly ahead (years off), never moves the board's. The host may set it to their phone's time whatever it
is (the More tab's Board panel), within :data:`EARLIEST` and :data:`LATEST`.

The daemon holds no capability for the clock (``systemd/landsend.service``): it asks systemd's ``timedated``
over D-Bus (``timedatectl set-time``), which polkit allows the user ``landsend`` and no one else
(``systemd/landsend-wifi.rules``: ``org.freedesktop.timedate1.set-time`` and ``set-ntp``, the latter because
timedated refuses a set time while network time is switched on: it is switched off for that moment and on
again, so ``systemd-timesyncd`` keeps the clock moving forward across boots and takes over when a network
has time). With network time synchronised the board keeps it and refuses phones. Events are never stamped before the newest stored event whatever
the clock says (:meth:`companion.table.Table._now`), so a night is never dated before the one it follows.
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

MIN_AHEAD = 120.0
"""Seconds a phone's clock must be ahead of the board's before it sets it (phones and boards drift a little)."""

MAX_AHEAD = 400 * 86400.0
"""A phone's clock further ahead than this of the last time the board knew is taken for a wrong phone."""

EARLIEST = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc).timestamp()
LATEST = _dt.datetime(2100, 1, 1, tzinfo=_dt.timezone.utc).timestamp()

TIMEDATECTL_S = 60.0
"""Seconds one ``timedatectl`` call may take: under emulation on qemu's Pi 3, timedated's start by D-Bus took
more than 20 s (a real board answers in about one)."""

SYNCED = Path("/run/systemd/timesync/synchronized")
"""``systemd-timesyncd`` touches this file once network time has set the clock."""


def iso(seconds: float) -> str:
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).isoformat(timespec="seconds")


class BoardClock:
    """Set the board's clock from a phone's (see the module's docstring for the rules).

    :param now: the board's clock (``time.time``).
    :param settime: sets the system clock to a POSIX time (:func:`timedatectl`); raises ``OSError`` with why not.
    :param known: the newest time the board knew other than its clock (the newest stored event), or None.
    :param synced: whether network time has set the clock (then phones are not needed).
    """

    def __init__(self, *, now: Callable[[], float] = time.time,
                 settime: Callable[[float], None] | None = None,
                 known: Callable[[], "float | None"] = lambda: None,
                 synced: Callable[[], bool] = SYNCED.exists) -> None:
        self.now = now
        self.settime = settime or timedatectl
        self.known = known
        self.synced = synced
        self.last: dict | None = None
        """The last time a phone set the clock: ``{"from", "to", "by"}`` (shown on the host's Board panel)."""
        self._lock = threading.Lock()

    def state(self) -> dict:
        return {"board": iso(self.now()), "synced": bool(self.synced()), "last": self.last}

    def offer(self, phone_ms: int, *, by: str = "a phone", force: bool = False) -> dict:
        """Take a phone's clock (milliseconds since 1970) if the rules allow; return what happened
        (``"set"``, and the ``"reason"`` when it did not: the system's refusal included).

        :raises ValueError: a time out of range (a phone's clock from before this software, or after 2100).
        """
        phone = phone_ms / 1000.0
        if not EARLIEST <= phone <= LATEST:
            raise ValueError(f"a phone's time must lie between {iso(EARLIEST)[:10]} and {iso(LATEST)[:10]}")
        with self._lock:
            board = self.now()
            ahead = phone - board
            if not force:
                if self.synced():
                    return {**self.state(), "set": False, "reason": "the board has its time from the network"}
                if ahead < MIN_AHEAD:
                    return {**self.state(), "set": False, "reason": "the board's clock is not behind this phone's"}
                known = max(board, self.known() or board)
                if phone - known > MAX_AHEAD:
                    return {**self.state(), "set": False,
                            "reason": "this phone's clock is more than a year ahead of the board's: the host "
                                      "can set the board's time on the More tab"}
            try:
                self.settime(phone)
            except OSError as exc:
                log.error("clock: cannot set it: %s", exc)
                return {**self.state(), "set": False, "reason": f"the board could not set its clock: {exc}"}
            self.last = {"from": iso(board), "to": iso(phone), "by": by}
            log.info("clock: set by %s, %s -> %s (%+.0f s)", by, iso(board), iso(phone), ahead)
            return {**self.state(), "set": True, "reason": None}


RETRIED = ("Previous request is not finished", "Connection timed out")
"""What timedatectl says when the same request should be made again (see :func:`timedatectl`)."""
BUSY_TRIES, BUSY_WAIT_S = 10, 2.0
"""timedated refuses a set while the last one's switch of network time is under way ("Previous request is not
finished, refusing": the host set the board's clock back seconds after a phone set it, on qemu's Pi 3): the set
is tried again this many times, this long apart."""


def timedatectl(seconds: float, *, run: Callable[..., "subprocess.CompletedProcess"] | None = None,
                clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
    """Set the system clock to ``seconds`` (POSIX time, as of the call) through systemd-timedated, as the user
    ``landsend`` may.

    timedated refuses a set time while network time is on ("Automatic time synchronization is enabled"):
    it is switched off for the moment of the set, and on again. Each try sets the time the phone's clock reads
    at that moment (``seconds`` plus what the tries before took on ``clock``): on qemu's Pi 3 the refusal and
    the switch took seconds, and the board was set that far behind the phone.

    :raises OSError: timedatectl is missing or refused (its message).
    """
    run = run or subprocess.run
    start = clock()

    def ctl(*args: "str | Callable[[], str]") -> None:
        for attempt in range(BUSY_TRIES):
            argv = ["timedatectl", *(a() if callable(a) else a for a in args)]     # the time as of this try
            try:
                out = run(argv, capture_output=True, text=True, timeout=TIMEDATECTL_S)
            except FileNotFoundError:
                raise OSError("timedatectl is not installed (systemd)") from None
            except subprocess.TimeoutExpired:
                raise OSError(f"timedatectl did not answer within {TIMEDATECTL_S:.0f} s") from None
            said = (out.stderr or out.stdout or f"timedatectl exited {out.returncode}").strip()
            if out.returncode == 0:
                return
            # timedated refuses a set while it is still switching network time back on after the last one; and
            # a switch that takes longer than D-Bus's 25 s call timeout ("Connection timed out": timedated waits
            # for systemd to stop or start timesyncd; on qemu's Pi 3 under load it did) goes on regardless, so
            # the same request is made again, which is harmless (the switch and the set are idempotent)
            if not any(m in said for m in RETRIED) or attempt == BUSY_TRIES - 1:
                raise OSError(said)
            sleep(BUSY_WAIT_S)

    def when() -> str:
        return f"@{round(seconds + clock() - start)}"
    try:
        ctl("set-time", when)
    except OSError as exc:
        if "Automatic time synchronization is enabled" not in str(exc):
            raise
        ctl("set-ntp", "false")
        try:
            ctl("set-time", when)
        finally:
            ctl("set-ntp", "true")


def make_clock(*, sim: bool, table: object = None) -> BoardClock | None:
    """Return the board's clock control, or None in ``--sim`` (the computer keeps its own time)."""
    if sim and not os.environ.get("LANDSEND_CLOCK_FILE"):
        return None
    known: Callable[[], "float | None"] = lambda: None
    if table is not None and hasattr(table, "last_at"):
        def known() -> "float | None":
            at = table.last_at()
            return at.timestamp() if at is not None else None
    stand_in = os.environ.get("LANDSEND_CLOCK_FILE")
    if stand_in:                        # trying the page off a Pi: the "clock" is an offset kept in a file
        path = Path(stand_in)

        def offset() -> float:
            try:
                return float(path.read_text())
            except (OSError, ValueError):
                return 0.0
        return BoardClock(now=lambda: time.time() + offset(),
                          settime=lambda t: path.write_text(str(t - time.time())), known=known,
                          synced=lambda: False)
    return BoardClock(known=known)
