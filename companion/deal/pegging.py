"""The matching phase (pegging) as a value: the count, a play, a go, and who leads next.

A :class:`Pegging` is frozen; :func:`play` and :func:`go` return the next value and
the score steps the card or go made, each step paired with the value as it stood
when that step was scored (when a step ends the game, the hand keeps that value:
nothing after it happens, C4). They read the match (seats, direction, sides, rules)
and change nothing. The gos implied by a card entered for a later player are a fold
of :func:`go` over values (:func:`implied_gos`); no copy of a hand is made to try it.

>>> from companion.table import Table
>>> t = Table.memory()
>>> _ = t.submit({"type": "turnup", "card": "4C"})
>>> p = start(t.state, held=4, single=False, leader=0)
>>> p, steps = play(t.state, p, {}, 0, parse_card("KH"), seq=2)
>>> p, steps = play(t.state, p, {}, 1, parse_card("5S"), seq=3)
>>> p.count, [(s.points, s.text) for s, _ in steps]
(15, [(2, 'fifteen for two')])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from ..cards import DECK, Card, parse_card  # noqa: F401  (parse_card: the doctest)
from ..scoring import number_words, score_peg
from ..steps import Step, next_other_side
from ..view import MatchView

STAGE = "pegging"


class Played(NamedTuple):
    """One card of the matching phase: who played it and the count after it."""

    player: str
    card: str
    count: int

    def to_dict(self) -> dict:
        return {"player": self.player, "card": self.card, "count": self.count}


class Go(NamedTuple):
    """One go: who said it (seat and name), at which count, after how many of their cards, in which event,
    and after how many cards of the hand (its place among the plays)."""

    seat: int
    count: int
    played: int
    seq: int
    player: str
    at: int

    def to_dict(self) -> dict:
        """Return ``{"player", "after"}``: who said it, after how many cards of the hand."""
        return {"player": self.player, "after": self.at}


class Credit(NamedTuple):
    """Who a played card was entered for: seat, name, event, count after it, whether that player
    was only the default (the player to play, who might have said go instead), and whether the gos
    before it were implied by naming its player (then the table did not guess who played it)."""

    seat: int
    player: str
    seq: int
    count: int
    guess: bool
    implied: bool = False


@dataclass(frozen=True)
class Pegging:
    """The matching phase of one hand."""

    held: int                                   # cards each player holds
    single: bool                                # one count only (no restart at 31 or go)
    plays: tuple[tuple[Card, ...], ...]         # per seat, the cards played
    turn: int | None = None                     # the player to play (None: the phase is over)
    order: tuple[Played, ...] = ()              # every card played
    count: int = 0
    count_cards: tuple[Card, ...] = ()
    count_seats: tuple[int, ...] = ()
    gone: tuple[int, ...] = ()                  # seats that said go in this count, in order
    goes: tuple[Go, ...] = ()                   # every go of the hand
    gos_after_play: int = 0                     # gos said since the last card (for the record)
    credits: tuple[tuple[Card, Credit], ...] = ()   # card -> credit, in play order
    done: bool = False                          # the matching phase is over

    def left(self, seat: int) -> int:
        """Return how many cards ``seat`` still holds."""
        return self.held - len(self.plays[seat])

    def holders(self) -> list[int]:
        """Return the seats still holding cards."""
        return [s for s in range(len(self.plays)) if self.left(s) > 0]

    def credit(self, card: Card) -> Credit | None:
        """Return who ``card`` was entered for, or None."""
        for c, cr in self.credits:
            if c == card:
                return cr
        return None


def start(state: MatchView, *, held: int, single: bool, leader: int) -> Pegging:
    """Return the matching phase before its first card, ``leader`` to play."""
    return Pegging(held=held, single=single, plays=((),) * len(state.seats), turn=leader)


def next_active(state: MatchView, p: Pegging, seat: int) -> int | None:
    """Return the next seat after ``seat`` (itself last) holding cards and not gone."""
    for k in range(1, len(p.plays) + 1):
        s = state.next_seat(seat, steps=k)
        if p.left(s) > 0 and s not in p.gone:
            return s
    return None


def next_leader(state: MatchView, p: Pegging, *, after_go: bool) -> int | None:
    """Return who leads the next count, or None when nobody holds a card.

    After a go the first player who said go in the count leads (M2; two-hand: the other
    player), or with ``go_lead="last_player"`` the one who played the last card (L9);
    after 31, the player after the one who made it; in every case the first from there
    who still holds cards.
    """
    if after_go:
        first = p.count_seats[-1] if state.rules.go_lead == "last_player" else p.gone[0]
    else:
        first = state.next_seat(p.count_seats[-1])
    for k in range(len(p.plays)):
        s = state.next_seat(first, steps=k)
        if p.left(s) > 0:
            return s
    return None


def credit_side(state: MatchView, seat: int) -> int:
    """Return the side credited with matching-phase points made by ``seat`` (L2, M3)."""
    own = state.seat_side[seat]
    if state.rules.pegging_credit == "self":
        return own
    return next_other_side(state, own, seat)


def go_wrong(state: MatchView, p: Pegging, seen, seat: int) -> str | None:
    """Return why ``seat`` cannot say go now, as far as the cards out (``seen``) tell, or None."""
    room = 31 - p.count
    k = p.left(seat)
    out = sum(1 for c in DECK if c not in seen and c.value > room)
    if out < k:
        if room >= 10:
            return f"at a count of {p.count} every card fits"
        return (f"at a count of {p.count} {state.seats[seat]} must hold {k} card{'s' if k > 1 else ''} "
                f"over {room}, and only {out} such card{'s are' if out != 1 else ' is'} still unseen")
    return None


def playable_ranks(p: Pegging) -> list[str]:
    """Return the ranks a card played now may have (its value fits under 31), as card text ("A".."K")."""
    room = 31 - p.count
    return [RANK_TEXT[r] for r in range(1, 14) if min(r, 10) <= room]


RANK_TEXT = {1: "A", 10: "10", 11: "J", 12: "Q", 13: "K", **{n: str(n) for n in range(2, 10)}}

Scored = list[tuple[Step, Pegging]]


def _new_count(state: MatchView, p: Pegging, leader: int | None) -> Pegging:
    """The count starts again at 0 with ``leader`` to play; the phase ends when nobody can lead."""
    p = replace(p, count=0, count_cards=(), count_seats=(), gone=())
    if p.single or leader is None or not p.holders():
        return replace(p, turn=None, done=True)
    return replace(p, turn=leader)


def _end_count(state: MatchView, p: Pegging, steps: Scored) -> Pegging:
    """Nobody can continue under 31: go (or, in a single count, last) to the last player."""
    last = p.count_seats[-1]
    pts = state.rules.last_card
    if p.single:
        step = Step(credit_side(state, last), pts, "last", f"{number_words(pts)} for last", STAGE,
                    player=state.seats[last])
    else:
        step = Step(credit_side(state, last), pts, "go", "go", STAGE, player=state.seats[last])
    steps.append((step, p))
    return _new_count(state, p, next_leader(state, p, after_go=True))


def go(state: MatchView, p: Pegging, seat: int, *, seq: int) -> tuple[Pegging, Scored]:
    """Return the phase after ``seat`` says go, and the steps it scored (the go point when everyone
    still holding cards has said go)."""
    p = replace(p, gone=p.gone + (seat,), gos_after_play=p.gos_after_play + 1,
                goes=p.goes + (Go(seat, p.count, len(p.plays[seat]), seq, state.seats[seat], len(p.order)),))
    steps: Scored = []
    if all(s in p.gone for s in p.holders()):
        return _end_count(state, p, steps), steps
    return replace(p, turn=next_active(state, p, seat)), steps


def play(state: MatchView, p: Pegging, seen, seat: int, card: Card, *, seq: int,
         sure: bool = False, implied: bool = False) -> tuple[Pegging, Scored]:
    """Return the phase after ``seat`` plays ``card`` (``seen``: the cards out before it), and the steps
    it scored: the card's points, then last card, or the go of a count nobody can continue. ``sure``: the
    card was entered on its player's own phone (never a guess); ``implied``: the gos before it were implied."""
    name = state.seats[seat]
    guess = not sure and p.turn == seat and go_wrong(state, p, seen, seat) is None
    count = p.count + card.value
    plays = list(p.plays)
    plays[seat] = plays[seat] + (card,)
    p = replace(p, plays=tuple(plays), gos_after_play=0, count=count, count_cards=p.count_cards + (card,),
                count_seats=p.count_seats + (seat,), order=p.order + (Played(name, str(card), count),),
                credits=p.credits + ((card, Credit(seat, name, seq, count, guess, implied)),))
    peg = score_peg(p.count_cards, game=state.rules)
    steps: Scored = [(Step(credit_side(state, seat), peg.points, "play", peg.text, STAGE,
                           items=[i.to_dict() for i in peg.items], player=name, card=str(card)), p)]
    if count == 31:
        return _new_count(state, p, next_leader(state, p, after_go=False)), steps
    if not p.holders():
        pts = state.rules.last_card
        steps.append((Step(credit_side(state, seat), pts, "last", f"{number_words(pts)} for last", STAGE,
                           player=name), p))
        return _new_count(state, p, None), steps
    if all(s in p.gone for s in p.holders()):
        return _end_count(state, p, steps), steps
    return replace(p, turn=next_active(state, p, seat)), steps


class WrongGo(Exception):
    """An implied go the cards out show to be impossible: ``seat`` could not have said it, ``why``;
    ``again``: it would come after the count began again (the count it speaks of is not the one now)."""

    def __init__(self, seat: int, why: str, *, again: bool = False) -> None:
        super().__init__(why)
        self.seat, self.why, self.again = seat, why, again


def implied_gos(state: MatchView, p: Pegging, seen, seat: int) -> tuple[list[int], Pegging | None]:
    """Return the seats that must have said go for ``seat`` to be next, and the phase then: at
    ``seat``'s turn, or over (``done``) before it; None when ``seat`` never gets the turn. A fold of
    :func:`go` over values.

    :raises WrongGo: one of those gos is one the cards out show to be wrong.
    """
    gos: list[int] = []
    for _ in range(2 * len(p.plays) + 2):
        if p.done or p.turn == seat:
            return gos, p
        g = p.turn
        why = go_wrong(state, p, seen, g)
        if why:
            raise WrongGo(g, why, again=bool(gos) and not p.gone)      # gos implied, and the count began again
        gos.append(g)
        p, _ = go(state, p, g, seq=-1)
    return gos, None
