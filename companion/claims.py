"""Claim mode and muggins (L8), over any hand's steps.

In claim mode the players announce their counts and the companion checks them. A
show, a pocket or a tabletop line is claimed with its command (:func:`claim_of`). In
the matching phase the points of each card or go are owed to the sides they are due
to (:class:`Window`, one :class:`Slot` per side) and scored only as claimed, step by
step in the counting order (C4); the next card or go closes them. A claim below what
the cards make, and points left unclaimed when the window closes, stay open to muggins
(:class:`Pending`, L8) until the entry after the next card, go or count
(:func:`age_claims`), into the next hand of the game. Muggins gives the missed points
to the caller, or doubles them against the claimant (the ruleset's ``muggins``); a
game it ends is reported where the claim was made (its hand and phase).

Every function here is pure: it reads the match and a hand and returns an event, a
value or an :class:`~companion.steps.Outcome`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import IllegalAction
from .names import side_named
from .scoring import number_words
from .steps import Outcome, Step, next_other_side
from .view import MatchView

if TYPE_CHECKING:
    from .hand import EntryHand


class Slot(NamedTuple):
    """What the last card or go owes one side: its steps, their points, the claim and whether muggins
    was called on it."""

    side: int
    steps: tuple[Step, ...] = ()
    points: int = 0
    claimed: int | None = None
    called: bool = False


class Window(NamedTuple):
    """The points of the last card (``after``: the card, or ``"go"``) entered for ``player``, open to claims."""

    after: str
    player: str
    slots: tuple[Slot, ...] = ()

    def slot(self, side: int) -> Slot | None:
        return next((s for s in self.slots if s.side == side), None)

    def with_slot(self, slot: Slot) -> "Window":
        """Return the window with ``slot`` in place of its side's (or added last)."""
        if self.slot(slot.side) is None:
            return self._replace(slots=self.slots + (slot,))
        return self._replace(slots=tuple(slot if s.side == slot.side else s for s in self.slots))


class Pending(NamedTuple):
    """A claim open to muggins (L8), right or short, or points left unclaimed: the points ``side`` missed
    (0 for a right claim: a call on it is refused with "the claim was right"), where they were claimed
    (``hand``, ``phase``), how many entries were made since (``age``) and whether a claim was made
    (``claimed``: the page offers a call on every claim, never saying which were short)."""

    side: int
    missed: int
    who: str
    hand: int
    phase: str
    age: int = 0
    claimed: bool = True


def claim_words(name: str, claimed: int) -> str:
    """Return how a claim is said and logged, right or short alike ("Ann claims two"): before a muggins
    call nothing on any phone or in the history tells them apart (L8); a call names what was missed.

    >>> claim_words("Ann", 2), claim_words("Bob", 0)
    ('Ann claims two', 'Bob claims nothing')
    """
    return f"{name} claims {number_words(claimed)}" if claimed else f"{name} claims nothing"


def veiled(hand: EntryHand, state: MatchView, entry: "dict | None", hand_no: "int | None" = None) -> "dict | None":
    """Return a claimed show, pocket or grid line (an entry of the hand ``hand_no``, default ``hand``'s) as
    phones see it: without its breakdown while a claim of its side made in that hand is open to muggins,
    right or short alike (L8); the breakdown appears once the call is made or the claim can no longer be
    called. Entries the companion counted are returned as they are."""
    if not entry or entry.get("claimed") is None:
        return entry
    no = hand.hand_no if hand_no is None else hand_no
    side = next((i for i, s in enumerate(state.sides) if s.id == entry.get("side")), None)
    if any(p.side == side and p.hand == no and p.claimed for p in hand.pending):
        return {**entry, "breakdown": None}
    return entry


def claim_of(state: MatchView, cmd: dict, total: int, who: str) -> int | None:
    """Return the claimed points of a show, pocket or line (None when the companion counts).

    :raises IllegalAction: claim missing, not a number, or more than the cards make.
    """
    claimed = cmd.get("claimed")
    if not state.rules.claim_mode:
        if claimed is not None:
            raise IllegalAction("this table is not in claim mode: the companion counts the shows")
        return None
    if claimed is None:
        raise IllegalAction(f"claim mode: say how many points {who} claims (claimed)")
    if not isinstance(claimed, int) or isinstance(claimed, bool) or not 0 <= claimed <= 29:
        raise IllegalAction("claimed must be a whole number from 0 to 29")
    if claimed > total:
        raise IllegalAction(f"{who} claims {claimed}, more than the cards make: count again")
    return claimed


def open_claim(hand: EntryHand, state: MatchView, side: int, claimed: int | None, total: int, who: str) -> tuple:
    """Return the hand's claims open to muggins (L8) with this one, right or short of ``total`` (open until
    the entry after the next card, go or count)."""
    if claimed is not None and state.rules.muggins != "none":
        return hand.pending + (Pending(side, total - claimed, who, hand.hand_no, hand.phase),)
    return hand.pending


def age_claims(hand: EntryHand, state: MatchView, entries: int) -> EntryHand:
    """Return the hand after ``entries`` card entries, gos or counts (L8): the points of the card or go
    before them can no longer be claimed (what was left unclaimed or claimed short stays open to muggins),
    and an under-claim is open to muggins only until the entry after the next one."""
    pending = hand.pending
    w = hand.window
    if w is not None and state.rules.muggins != "none":
        pending += tuple(Pending(s.side, s.points - (s.claimed or 0), state.sides[s.side].name, hand.hand_no,
                                 "pegging", claimed=s.claimed is not None)
                         for s in w.slots if not s.called and (s.claimed is not None or s.points))
    pending = tuple(p._replace(age=p.age + entries) for p in pending)
    return replace(hand, window=None, pending=tuple(p for p in pending if p.age < 2))


def muggins_calls(hand: EntryHand, state: MatchView) -> list[dict]:
    """Return the sides whose claims muggins may be called on now, right or short, in the order claimed.

    What phones see (the snapshot's ``muggins_calls``): a call follows every claim, so nothing here says
    whether a claim was short (L8); a call on a right claim is refused with "the claim was right"."""
    if state.over or state.rules.muggins == "none":
        return []
    sides = [p.side for p in hand.pending if p.claimed]
    if hand.window is not None:
        sides += [s.side for s in hand.window.slots if s.claimed is not None and not s.called]
    seen: list[int] = []
    for side in sides:
        if side not in seen:
            seen.append(side)
    return [{"side": state.sides[i].id, "who": state.sides[i].name} for i in seen]


def under_claim(hand: EntryHand, state: MatchView) -> dict | None:
    """Return the under-claim (or points left unclaimed) muggins would take now, or None.

    Not for the page (it would say which claim was short): for the tests' players, who know the cards.
    In the matching phase that is a claim already made below the points of the last card (or go)."""
    if state.over or state.rules.muggins == "none":
        return None
    if hand.window is not None:
        for slot in hand.window.slots:
            if slot.claimed is not None and not slot.called and slot.claimed < slot.points:
                return {"side": state.sides[slot.side].id, "who": state.sides[slot.side].name}
    p = next((p for p in hand.pending if p.missed), None)
    return None if p is None else {"side": state.sides[p.side].id, "who": p.who}


# --- the matching phase: each card's (and go's) points, claimed --------------------------------

def open_window(state: MatchView, after: str, player: str) -> Window | None:
    """Return the window collecting the points the next card or go makes (claim mode; else None)."""
    return Window(after, player) if state.rules.claim_mode else None


def owe(window: Window, step: Step, count: int) -> tuple[Window, Step]:
    """Return the window with ``step``'s points owed to its side (``count``: the count after the card),
    and the step logged at once without points (the count said aloud, so the page and a replay show
    every card; the points land with the claim)."""
    slot = window.slot(step.side) or Slot(step.side)
    window = window.with_slot(slot._replace(steps=slot.steps + (step,), points=slot.points + step.points))
    quiet = {"play": number_words(count), "go": "go", "last": "last card"}
    return window, step._replace(points=0, text=quiet.get(step.kind, step.kind), items=None)


def window_open(hand: EntryHand, state: MatchView) -> bool:
    return hand.window is not None and not state.over


def claim_open(hand: EntryHand, state: MatchView) -> dict | None:
    """Return who may still claim the last card's (or go's) points, without the points (claim mode)."""
    if not window_open(hand, state):
        return None
    w = hand.window
    return {"after": w.after, "player": w.player,
            "sides": [{"side": state.sides[s.side].id, "who": state.sides[s.side].name,
                       "claimed": s.claimed, "called": s.called} for s in w.slots]}


def _after_words(window: Window) -> str:
    return "the go" if window.after == "go" else window.after


def verify_play_claim(hand: EntryHand, state: MatchView, cmd: dict) -> dict:
    """``claim {points, side?}`` while the last card's points are open: that side's claim."""
    pts = cmd.get("points", cmd.get("claimed"))
    if pts is None:
        raise IllegalAction("say how many points are claimed (points)")
    if not isinstance(pts, int) or isinstance(pts, bool) or not 0 <= pts <= 29:
        raise IllegalAction("claimed must be a whole number from 0 to 29")
    slots = hand.window.slots
    who_v = cmd.get("side", cmd.get("player"))
    after = _after_words(hand.window)
    if who_v is None:
        slot = next((s for s in slots if s.claimed is None and not s.called), None)
        if slot is None:
            raise IllegalAction(f"everything {after} made is claimed already")
    else:
        side = side_named(state, who_v)
        slot = hand.window.slot(side)
        if slot is None:
            raise IllegalAction(f"{state.sides[side].name} is credited nothing for {after}")
        if slot.claimed is not None or slot.called:
            raise IllegalAction(f"{state.sides[side].name} has claimed for {after} already")
    who = state.sides[slot.side].name
    if pts > slot.points:
        raise IllegalAction(f"{who} claims {pts}, more than the cards make: count again")
    ev = {"type": "claim", "side": state.sides[slot.side].id, "claimed": pts}
    if who_v is None:
        ev["by_turn"] = True    # the next side with points to claim: an amend re-derives the side
    return ev


def apply_play_claim(hand: EntryHand, state: MatchView, ev: dict) -> Outcome:
    """Score a matching-phase claim step by step in the counting order (C4)."""
    side = [s.id for s in state.sides].index(ev["side"])
    claimed = ev["claimed"]
    slot = hand.window.slot(side)
    hand = replace(hand, window=hand.window.with_slot(slot._replace(claimed=claimed)))
    hand = hand.logged("claims_log", {"side": ev["side"], "claimed": claimed})
    name = state.sides[side].name
    steps = []
    if claimed == 0:
        steps.append(Step(side, 0, "claim", claim_words(name, 0), "pegging"))
    left = claimed
    for st in slot.steps:      # said the same way whether the claim is right or short: nothing tells (L8)
        p = min(left, st.points)
        if not p:
            continue
        left -= p
        steps.append(Step(side, p, st.kind, claim_words(name, claimed), "pegging", player=st.player, card=st.card))
    return Outcome(hand, tuple((s, hand) for s in steps))


# --- muggins ----------------------------------------------------------------------------------

def next_opponent_side(state: MatchView, side: int) -> int:
    """Return the side that calls muggins on ``side`` by default: the next other side after its first seat (M3),
    after the dealer for a side without a seat."""
    seats = [i for i, s in enumerate(state.seat_side) if s == side]
    return next_other_side(state, side, seats[0] if seats else state.dealer)


def verify_muggins(hand: EntryHand, state: MatchView, cmd: dict) -> dict:
    """``muggins {side?, claimant?}``: called on the last under-claim (or on points nobody claimed, matching
    phase); ``claimant`` names whose claim is called on. A call on claims that were right is refused with
    "the claim was right" and changes nothing."""
    if not state.rules.claim_mode:
        raise IllegalAction("muggins is only called in claim mode")
    if state.rules.muggins == "none":
        raise IllegalAction(f"{state.rules.title} plays without muggins")
    caller_v = cmd.get("side", cmd.get("player"))
    caller = None if caller_v is None else side_named(state, caller_v)
    target_v = cmd.get("claimant")
    target = None if target_v is None else side_named(state, target_v)
    if target is not None and target == caller:
        raise IllegalAction("a side cannot call muggins on itself")

    def fits(side: int) -> bool:
        return side != caller and (target is None or side == target)
    slots = [s for s in hand.window.slots if not s.called] if hand.window is not None else []
    # claims made short first (those a call is offered on), then points nobody has claimed yet
    under = sorted((s for s in slots if fits(s.side) and (s.claimed or 0) < s.points), key=lambda s: s.claimed is None)
    if under:
        claimant, missed = under[0].side, under[0].points - (under[0].claimed or 0)
    else:
        p = next((p for p in hand.pending if p.missed and fits(p.side)), None)
        if p is None:
            claims = [s.side for s in slots if s.claimed is not None] + [p.side for p in hand.pending if p.claimed]
            if any(fits(side) for side in claims):
                whose = "" if target is None else f" on {state.sides[target].name}"
                raise IllegalAction(f"muggins{whose} refused: the claim was right (nothing was missed); "
                                    "nothing changed")
            if caller is not None and caller in [s.side for s in slots] + [p.side for p in hand.pending]:
                raise IllegalAction("a side cannot call muggins on itself")
            raise IllegalAction("muggins is called on a claim before the entry after the next card, "
                                "go or count: none is open")
        claimant, missed = p.side, p.missed
    if caller is None:
        caller = next_opponent_side(state, claimant)
    return _muggins_event(state, claimant, caller, missed, caller_v)


def _muggins_event(state: MatchView, claimant: int, caller: int, missed: int, named: Any) -> dict:
    ev = {"type": "muggins", "claimant": state.sides[claimant].id, "caller": state.sides[caller].id, "missed": missed}
    if named is None:
        ev["by_turn"] = True    # called without naming the caller: an amend re-derives who calls
    return ev


def apply_muggins(hand: EntryHand, state: MatchView, ev: dict) -> Outcome:
    ids = [s.id for s in state.sides]
    claimant, caller, missed = ids.index(ev["claimant"]), ids.index(ev["caller"]), ev["missed"]
    stage, where = hand.phase, None
    slot = None
    if hand.window is not None:
        slot = next((s for s in hand.window.slots if s.side == claimant and not s.called
                     and s.points - (s.claimed or 0) == missed), None)
    if slot is not None:        # a matching-phase claim: closed, what was claimed stands (nothing: 0)
        hand = replace(hand, window=hand.window.with_slot(slot._replace(
            called=True, claimed=0 if slot.claimed is None else slot.claimed)))
        stage = "pegging"
    else:                       # where the claim was made: a game it ends ends there (hand 1, pocket)
        p = next(p for p in hand.pending if p.side == claimant and p.missed == missed)
        hand = replace(hand, pending=tuple(q for q in hand.pending if q is not p))
        stage, where = p.phase, p.hand
    if state.rules.muggins == "double":
        pts = 2 * missed
        step = Step(claimant, pts, "muggins", f"muggins: {state.sides[claimant].name} missed "
                    f"{number_words(missed)} and scores {number_words(pts)} more", stage, hand=where)
    else:
        step = Step(caller, missed, "muggins",
                    f"muggins: {state.sides[caller].name} takes the {number_words(missed)} missed", stage, hand=where)
    return Outcome(hand, ((step, hand),))
