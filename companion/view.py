"""What the rules read from the match: the small :class:`MatchView` the rule functions are typed against.

The rule modules (``companion.deal``, ``companion.grid``, ``companion.claims``,
``companion.steps``) judge a command or fold an event by reading a few things
of the match they belong to: its rules, its seating and sides, the dealer, and
whether the game is over; the one thing they change is a side's score, through
:meth:`MatchView.award` (:func:`companion.steps.award_all`). They are typed
against this :class:`~typing.Protocol` instead of the whole
:class:`~companion.match.MatchState` (which satisfies it, ``tests/test_events.py``
checks so), so what a rule can read is written in one place, and the rules
need not import the match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .match import Side
    from .rulesets import Ruleset


@runtime_checkable
class MatchView(Protocol):
    """The match as the rules read it."""

    rules: Ruleset              #: the game's rules (preset and house rules)
    seats: list[str]            #: player names, clockwise; a playing house included
    seat_side: list[int]        #: seat -> side index
    sides: list[Side]           #: the scoring sides, with their scores
    dealer: int                 #: the dealer's seat (-1: a house that holds no seat)
    rows_side: int | None       #: tabletop: the side that scores the rows this game (G6)

    @property
    def over(self) -> bool:
        """True once the current game has a result."""

    def next_seat(self, seat: int, *, steps: int = 1) -> int:
        """Return the seat ``steps`` places after ``seat`` in the direction of play."""

    def dealer_side(self) -> int:
        """Return the side index of the dealer."""

    def pocket_owner(self) -> int:
        """Return the side index of the pocket's owner (L1, H2-H4)."""

    def award(self, side: int, points: int, *, kind: str, text: str = "", items: list | None = None,
              player: str | None = None, step: str = "", card: str | None = None, phase: str | None = None,
              hand: int | None = None) -> bool:
        """Add ``points`` to ``side`` as one step; return True when the game ended with it."""
