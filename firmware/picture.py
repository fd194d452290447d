"""Writes a PNG of the simulated board in the middle of a game (the picture in the README).

    .venv/bin/python -m firmware.picture docs/img/board.png

The game is real: a three-hand casino match on an in-memory table, its first
hand entered card by card (turn-up, the matching phase, the three shows and
Ann's pocket), then the second hand's turn-up and three cards of its matching
phase. The board then shows a back and a front peg on every lane, whose turn
it is (Ann, lane 1, white), who deals (the house, lane 2, amber) and who owns
the pocket this hand (Bob, lane 3, blue), with the phase LED green. The frame
comes from the same renderer and light stage as the strip (default config),
drawn by the simulator's picture code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware.config import DEFAULTS
from firmware.drivers.sim import board_png
from firmware.geometry import Geometry
from firmware.render import Light, render

#: The commands played before the picture is taken.
SCRIPT = (
    {"type": "new_match", "game": "lands-end-casino-3", "players": ["Ann", "Bob"], "stake": 5},
    # hand 1: the house deals, Ann leads; matching points go to the next player
    {"type": "turnup", "card": "7H"},
    *({"type": "play", "card": card} for card in ("10S", "5D", "KC", "4H", "2S", "AD", "3C", "JD", "9S", "8D",
                                                   "6C", "QH")),
    {"type": "show"}, {"type": "show"}, {"type": "show"},
    {"type": "pocket", "cards": ["2H", "5C", "6D", "KH"]},
    # hand 2: Bob owns the pocket; three cards into the matching phase, Ann to play at 25
    {"type": "turnup", "card": "4S"},
    *({"type": "play", "card": card} for card in ("9H", "6S", "JC")),
)


def mid_game_snapshot() -> dict:
    """Return the table snapshot after :data:`SCRIPT` on a fresh in-memory table."""
    from companion.table import Table
    table = Table.memory()
    for command in SCRIPT:
        table.submit(command)
    return table.snapshot()


def main(argv: list[str] | None = None) -> int:
    """Write the picture; return 0."""
    ap = argparse.ArgumentParser(prog="python -m firmware.picture", description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--scale", type=int, default=2, help="picture size multiplier (default 2)")
    args = ap.parse_args(argv)
    frame = render(mid_game_snapshot(), Geometry.from_config(DEFAULTS.board), settings=Light.from_config(DEFAULTS.strip))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(board_png(frame, gamma=DEFAULTS.strip.gamma, scale=args.scale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
