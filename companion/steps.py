"""A score step as a value: what a rule scored, for whom, and at which stage of the hand.

The rules return steps (:class:`Step`); only :func:`award` turns them into points on
the match, in order, stopping the moment one ends the game (C4). A step says its own
stage (``"cut"``, ``"pegging"``, ``"show"``, ...), so nothing sets the match's phase
to label it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .view import MatchView

if TYPE_CHECKING:
    from .hand import EntryHand


class Step(NamedTuple):
    """Points a rule made: ``side`` (index) scores ``points`` as ``kind``, said as ``text``."""

    side: int
    points: int
    kind: str
    text: str
    stage: str
    items: list | None = None
    player: str | None = None
    card: str | None = None
    hand: int | None = None     # the hand it is scored in, when not the current one (a muggins on a claim of
                                # the hand before, L8)


def next_other_side(state: MatchView, side: int, seat: int) -> int:
    """Return the side of the first seat after ``seat``, in the direction of play, that is not ``side`` (M3).

    The one reading of "the next opponent": the side credited with the points a card or a go makes under
    next-opponent credit (``seat`` the player's, ``side`` theirs), and the side that calls muggins on a claim
    when nobody names the caller. ``seat`` may be a house that deals without a seat (negative). When every
    seat is ``side``'s, the first other side by index (a house that holds no cards).
    """
    for k in range(1, len(state.seats) + 1):
        s = state.next_seat(seat, steps=k)
        if state.seat_side[s] != side:
            return state.seat_side[s]
    return next((i for i in range(len(state.sides)) if i != side), side)


def award(state: MatchView, step: Step) -> bool:
    """Score ``step`` on the match; return True when the game is over (then or before)."""
    return state.award(step.side, step.points, kind=step.kind, text=step.text, items=step.items,
                       player=step.player, card=step.card, step=step.stage, hand=step.hand)


def award_all(state: MatchView, scored, final):
    """Score each ``(step, value)`` of ``scored`` in order; return the value to keep: the one paired with
    the step that ended the game, else ``final``."""
    for step, value in scored:
        if award(state, step):
            return value
    return final


class Outcome(NamedTuple):
    """What applying a card-entry event makes: the hand after it, the steps it scored (each with the hand
    as it stood when that step was scored: kept if the step ends the game), and what comes next
    (``"next_hand"``, ``"end_round"``: a tabletop round is over, G4 decides; None)."""

    hand: EntryHand
    scored: tuple = ()
    then: str | None = None


class FrozenMap(dict):
    """A dict that is never changed in place: :meth:`plus` returns a new one.

    >>> m = FrozenMap({"a": 1})
    >>> m.plus({"b": 2}), m
    ({'a': 1, 'b': 2}, {'a': 1})
    """

    __slots__ = ()

    def _frozen(self, *args, **kwargs):
        raise TypeError("a FrozenMap is not changed in place: use plus()")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = __ior__ = _frozen

    def plus(self, items, *, keep: bool = False) -> "FrozenMap":
        """Return a copy with ``items`` (a mapping) added; ``keep``: an existing key keeps its value."""
        new = dict(self)
        for k, v in dict(items).items():
            if not (keep and k in new):
                new[k] = v
        return FrozenMap(new)

    def __reduce__(self):
        return (FrozenMap, (dict(self),))

    def __deepcopy__(self, memo):
        return self
