"""A small table database counted by hand (tests/test_season.py, the console, the API and the page).

Three nights, each a day apart, every game checked by hand against the rules:

Night 1 (2026-11-20), Ann and Bob, stake 1:
  * a hand played out: Ann shows 5H 5S 5D JC on a 5C turn-up, 29, and pegs out at 31 (L5) while Bob
    is still at 0 (his pegging points went to Ann, L2): Ann pays Bob x4 (L6): Ann -4, Bob +4.
  * a hand played out: Bob shows 2H 4S 6D 8C on KD, nothing, so the zero-hand bonus 5 (L3); Ann shows
    4 and her pocket 6 (9H 9S JD QH: a pair, a run of three, nobs); then Ann pegs 5 by hand and reaches
    16 with Bob at 6: Ann pays Bob x2: Ann -2, Bob +2.
Night 2 (2026-11-21), stake 2 then 1; Cy leaves after the first game:
  * three-hand, "ann", "BOB " and Cy (one person each, whatever the spelling): Bob pegs 3, Cy pegs 16:
    Cy pays ann x4 = 8 and Bob x3 = 6.
  * two-hand, Ann 12, Bob pegs 16: Bob pays Ann x1 = 1.
Night 3 (2026-11-22):
  * four-hand casino, Ann & Cy against Bob & Dee, stake 2: the house pegs 16 and wins (H4): it collects
    each side's stake once (H5): each player -1, the house +4.
  * cribbage, stake 1: Ann pegs 121 with Bob at 50, under 61: a double skunk, x3 (S1): Ann +3, Bob -3.

Nights: 1: Ann -6, Bob +6 (one payment); 2: Ann +9, Bob +5, Cy -14 (two payments);
3: Ann +2, Bob -4, Cy -1, Dee -1, House +4: Bob pays the house 4 and Cy and Dee pay Ann 1 each
(three payments: the two groups that sum to zero).
"""

from __future__ import annotations

import datetime as dt

from companion.replay import import_record
from companion.table import Table

T0 = dt.datetime(2026, 11, 20, 19, 0, tzinfo=dt.timezone.utc)

HAND_29 = {"game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob", "hands": [
    {"turnup": "5C", "held": {"Ann": ["5H", "5S", "5D", "JC"], "Bob": ["AH", "2S", "9C", "8D"]},
     "pocket": ["KS", "QS", "7H", "6H"], "plays": ["5H", "AH", "5S", "2S", "5D", "9C", "JC", "8D"]}]}
HAND_ZERO = {"game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Ann", "hands": [
    {"turnup": "KD", "held": {"Bob": ["2H", "4S", "6D", "8C"], "Ann": ["AS", "AD", "3C", "7C"]},
     "pocket": ["9H", "9S", "JD", "QH"], "plays": ["2H", "AS", "4S", "AD", "6D", "3C", "8C", "7C"]}]}


class Clock:
    """A clock that moves a minute at every reading; :meth:`next_day` jumps to 19:00 the next day."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(minutes=1)
        return self.now

    def next_day(self) -> None:
        self.now = dt.datetime.combine(self.now.date() + dt.timedelta(days=1), dt.time(19),
                                       tzinfo=dt.timezone.utc)


def pegs(table: Table, *steps) -> None:
    for side, points in steps:
        table.submit({"type": "peg", "side": side, "points": points})


def build(table: Table | None = None, clock: Clock | None = None) -> Table:
    """Return ``table`` (default a new one in memory) holding the three nights."""
    clock = clock or Clock()
    t = table or Table.memory(clock=clock, default_match=None)
    t.clock = clock
    import_record(t, HAND_29)
    import_record(t, HAND_ZERO)
    pegs(t, ("p1", 5))
    clock.next_day()
    t.submit({"type": "new_match", "game": "lands-end-3", "players": ["ann", "BOB ", "Cy"], "stake": 2,
              "first_dealer": "Cy"})
    pegs(t, ("p2", 3), ("p3", 16))
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    pegs(t, ("p1", 12), ("p2", 16))
    clock.next_day()
    t.submit({"type": "new_match", "game": "lands-end-casino-4", "players": ["Ann", "Bob", "Cy", "Dee"],
              "teams": [["Ann", "Cy"], ["Bob", "Dee"]], "stake": 2})
    pegs(t, ("house", 16))
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    pegs(t, ("p2", 29), ("p2", 21), ("p1", 29), ("p1", 29), ("p1", 29), ("p1", 29), ("p1", 5))
    return t
