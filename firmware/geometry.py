"""Where things are on the board: lane/hole -> strip index, side -> lane, score -> hole and lap.

The strip starts at lane 1 hole 1. With the default ``serpentine`` wiring it
runs up lane 1, comes back down lane 2 (hole 16 first) and up lane 3, so the
data wire never has to cross the board; the status LEDs are chained after the
last lane. Lanes and holes are numbered from 1, strip indices from 0.

>>> g = Geometry.from_config(BoardConfig())
>>> g.index(1, 1), g.index(1, 16), g.index(2, 16), g.index(2, 1), g.index(3, 1), g.status_index(0)
(0, 15, 16, 31, 32, 48)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from firmware.config import BoardConfig


@dataclass(frozen=True, kw_only=True)
class Geometry:
    """The strip layout of a board with ``lanes`` x ``holes`` LEDs and ``status`` LEDs after them."""

    lanes: int = 3
    holes: int = 16
    reversed_lanes: frozenset[int] = frozenset({2})
    status: int = 4

    @classmethod
    def from_config(cls, board: BoardConfig) -> "Geometry":
        """Return the geometry for a ``[board]`` config section."""
        rev = frozenset(range(2, board.lanes + 1, 2)) if board.wiring == "serpentine" else frozenset()
        return cls(lanes=board.lanes, holes=board.holes, reversed_lanes=rev, status=board.status_leds)

    @property
    def count(self) -> int:
        """Return the number of LEDs on the strip (lanes x holes + status)."""
        return self.lanes * self.holes + self.status

    @property
    def per_lap(self) -> int:
        """Return the points one lap covers: every hole but the last (the edge of the world)."""
        return self.holes - 1

    def index(self, lane: int, hole: int) -> int:
        """Return the strip index (0-based) of ``hole`` (1..holes) in ``lane`` (1..lanes).

        :raises ValueError: lane or hole off the board.
        """
        if not 1 <= lane <= self.lanes:
            raise ValueError(f"lane {lane} is not on the board (1..{self.lanes})")
        if not 1 <= hole <= self.holes:
            raise ValueError(f"hole {hole} is not on the board (1..{self.holes})")
        offset = self.holes - hole if lane in self.reversed_lanes else hole - 1
        return (lane - 1) * self.holes + offset

    def status_index(self, n: int) -> int:
        """Return the strip index of status LED ``n`` (0-based).

        :raises ValueError: no such status LED.
        """
        if not 0 <= n < self.status:
            raise ValueError(f"status LED {n} does not exist (0..{self.status - 1})")
        return self.lanes * self.holes + n

    def place(self, score: int, target: int) -> tuple[int, int] | None:
        """Return ``(hole, lap)`` where a peg for ``score`` sits, or None for score 0 (off the board).

        Holes 1..holes-1 are one point each; a longer game goes round in laps
        (lap 0 is the first). A score at or past ``target`` sits in the last
        hole, the edge of the world, in the colour of the last lap.

        >>> g = Geometry()
        >>> g.place(15, 16), g.place(16, 16), g.place(19, 16), g.place(16, 121), g.place(121, 121)
        ((15, 0), (16, 0), (16, 0), (1, 1), (16, 7))
        """
        if score <= 0:
            return None
        if score >= target:
            return self.holes, max(0, target - 2) // self.per_lap
        return (score - 1) % self.per_lap + 1, (score - 1) // self.per_lap


def side_lanes(sides: Sequence[Mapping[str, Any]], *, lanes: int = 3) -> list[int]:
    """Return the lane (1..3) of each side, in the order of ``sides``.

    The house, or else a third side, plays on the middle lane 2; the other
    sides take the outer lanes 1 and 3 in seating order. A partnership is one
    side and so shares one lane.

    >>> side_lanes([{"id": "p1"}, {"id": "p2"}])
    [1, 3]
    >>> side_lanes([{"id": "p1"}, {"id": "p2"}, {"id": "p3"}])
    [1, 3, 2]
    >>> side_lanes([{"id": "team1"}, {"id": "house", "house": True}, {"id": "team2"}])
    [1, 2, 3]

    :raises ValueError: more sides than lanes, or more than one house.
    """
    if len(sides) > lanes:
        raise ValueError(f"{len(sides)} sides do not fit on {lanes} lanes")
    houses = [i for i, s in enumerate(sides) if s.get("house")]
    if len(houses) > 1:
        raise ValueError("more than one side is the house")
    middle = houses[0] if houses else (2 if len(sides) == 3 else None)
    outer = iter((1, 3))
    return [2 if i == middle else next(outer) for i in range(len(sides))]
