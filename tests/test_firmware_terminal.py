"""firmware.terminal: the --sim keyboard presses the simulated buttons and draws the board."""

import io
import threading

from companion.table import Table
from firmware.config import DEFAULTS
from firmware.daemon import build
from firmware.terminal import Terminal


def test_keys_press_buttons_and_q_stops():
    d = build(DEFAULTS, sim=True, table=Table.memory(), web=False)
    out, stop = io.StringIO(), threading.Event()
    term = Terminal(d, stop, stdout=out)
    try:
        for key in "113x":
            term.handle(key)
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [2, 1]
        term.handle("!")
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [2, 0]
        text = out.getvalue()
        assert "p1: {'type': 'peg', 'side': 'p1', 'points': 1}" in text
        assert "p1 (hold): {'type': 'undo'}" in text
        assert text.count("lane 3") == 4                  # the board after each of the four button keys
        assert not stop.is_set()
        term.handle("q")
        assert stop.is_set()
    finally:
        d.close()
