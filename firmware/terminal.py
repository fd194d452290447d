"""Keyboard buttons and an ANSI board for ``landsend serve --sim`` run in a terminal.

Keys: ``1`` ``2`` ``3`` press the side buttons, shifted (``!`` ``@`` ``#``)
hold them (undo); ``m`` presses the menu button (brightness), ``M`` holds it
(new game), ``R`` holds it 5 s (release the table); ``b`` draws the board;
``q`` quits. The board is drawn again after every key.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

#: key -> (button, press keyword arguments)
KEYS: dict[str, tuple[str, dict]] = {
    "1": ("p1", {}), "2": ("p2", {}), "3": ("p3", {}),
    "!": ("p1", {"hold": True}), "@": ("p2", {"hold": True}), "#": ("p3", {"hold": True}),
    "m": ("menu", {}), "M": ("menu", {"hold": True}), "R": ("menu", {"seconds": 5.5}),
}
HELP = "keys: 1/2/3 peg, !/@/# (shift) undo, m brightness, M new game, R release, b board, q quit"


class Terminal:
    """Reads single keys from a TTY on stdin and presses simulated buttons.

    :param daemon: a :class:`firmware.daemon.Daemon` built with ``sim=True``.
    :param stop: set when ``q`` is pressed.
    """

    def __init__(self, daemon: Any, stop: threading.Event, *, stdin: Any = None, stdout: Any = None):
        self.daemon = daemon
        self.stop = stop
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self._saved = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Put the TTY in cbreak mode and start reading keys."""
        import termios
        import tty
        fd = self.stdin.fileno()
        self._saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self.stdout.write(HELP + "\n")
        self.draw()
        self._thread = threading.Thread(target=self._read, name="terminal-keys", daemon=True)
        self._thread.start()

    def draw(self) -> None:
        """Write the board as ANSI text."""
        from firmware.drivers.sim import board_ansi
        loop = self.daemon.loop
        self.stdout.write(board_ansi(loop.frame, gamma=loop.settings.gamma) + "\n")
        self.stdout.flush()

    def handle(self, key: str) -> None:
        """Act on one key."""
        if key == "q":
            self.stop.set()
            return
        if key == "b":
            self.draw()
            return
        if key not in KEYS or self.daemon.buttons is None:
            return
        name, kwargs = KEYS[key]
        before = self.daemon.loop.frames
        command = self.daemon.buttons.press(name, **kwargs)
        deadline = time.monotonic() + 0.5
        while self.daemon.loop.frames == before and time.monotonic() < deadline:
            time.sleep(0.01)
        self.stdout.write(f"{name}{' (hold)' if kwargs else ''}: {command or 'no command'}\n")
        self.draw()

    def _read(self) -> None:
        fd = self.stdin.fileno()
        while not self.stop.is_set():
            try:
                key = os.read(fd, 1).decode(errors="ignore")
            except OSError:
                return
            if not key:
                return
            try:
                self.handle(key)
            except Exception:
                log.exception("key %r", key)

    def close(self) -> None:
        """Give the TTY its settings back."""
        if self._saved is not None:
            import termios
            termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None
