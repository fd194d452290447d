"""Card entry: the hand state machine of the deal games (turn-up, plays, go, shows, pocket).

The companion does not know the hands in advance: it learns each card as it is
turned up, played or shown. From the plays it infers the count, its resets (31,
or everyone still holding cards has said go), who leads next (M2), the go and
last-card points, and it credits every point as the ruleset says (L2, M3). The
shows are counted in the ruleset's order and the game stops the moment a score
reaches the target (C4). Tabletop games use :mod:`companion.grid` instead.

Every command here is a pair of functions registered in
:data:`companion.match.HANDLERS`: ``decide`` validates (pure, raises
:class:`~companion.errors.IllegalAction` or :class:`~companion.errors.InvalidCard`
with one sentence) and returns the event; ``apply`` folds the event into the
state. The hand object in ``state.hand`` carries the ``decide_<kind>`` and
``apply_<kind>`` methods, so a deal game and a grid game answer the same
command vocabulary with their own rules.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Any

from .cards import DECK, Card, parse_card, parse_cards
from .deal import pegging
from .errors import IllegalAction, InvalidCard
from .match import HAND_FACTORIES, HOUSE_NAME, MatchState, begin_hand, handler, parse_command_card
from .scoring import number_words, score_hand
from .steps import Step, award

log = logging.getLogger(__name__)

ENTRY_COMMANDS = ("turnup", "play", "go", "show", "pocket", "claim", "muggins", "place", "layout")
STAGE_WORDS = {"cut": "waiting for the turn-up", "pegging": "in the matching phase (plays)",
                "show": "in the show", "pocket": "waiting for the pocket", "place": "placing cards on the grid",
                "done": "over"}


# --- helpers shared with companion.grid ----------------------------------------------------

def seat_named(state: MatchState, name: Any) -> int:
    """Return the seat of the player called ``name`` (case-insensitive).

    :raises IllegalAction: not a name, or nobody of that name at the table.
    """
    if not isinstance(name, str) or not name.strip():
        raise IllegalAction("player must be a player's name")
    key = name.strip().lower()
    for i, s in enumerate(state.seats):
        if s.lower() == key:
            return i
    raise IllegalAction(f"{name!r} is not playing; the players are {', '.join(state.seats)}")


def side_named(state: MatchState, value: Any) -> int:
    """Return the side index named by ``value``: a side id, a side index or a player's name.

    :raises IllegalAction: when no side matches.
    """
    ids = [s.id for s in state.sides]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ids):
        return value
    if isinstance(value, str):
        if value in ids:
            return ids.index(value)
        for i, s in enumerate(state.sides):
            if value.strip().lower() in (p.lower() for p in s.players):
                return i
    raise IllegalAction(f"no side {value!r}; sides are {', '.join(ids)}")


def card_list(value: Any, what: str) -> tuple[Card, ...]:
    """Return the cards of a command field (a list of card strings), refusing duplicates.

    :raises IllegalAction: the field is not a list.
    :raises InvalidCard: a bad token or a duplicate.
    """
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)):
        raise IllegalAction(f"{what} must be a list of cards like [\"5H\", \"JS\"]")
    return parse_cards(list(value), what=what)


def next_hand(state: MatchState) -> None:
    """Start the next hand of the game: the deal passes in the direction of play (H1: not from the house)."""
    if not state.rules.house_deals:
        state.dealer = state.next_seat(state.dealer)
    begin_hand(state)


def dealer_name(state: MatchState) -> str:
    """Return the dealer's name (the house when it deals without a seat)."""
    return state.seats[state.dealer] if state.dealer >= 0 else HOUSE_NAME


class EntryHand(ABC):
    """What the deal hand and the grid hand share: seen cards, the hand's record, manual pegs.

    Subclasses must provide ``record``, ``summary``, ``expect``, ``expect_player`` and
    ``snapshot``, and a ``decide_<command>``/``apply_<command>`` pair per card-entry
    command they take; a command without one is refused with :meth:`wrong_command`.
    """

    kind = "none"
    stage = "done"

    def __init__(self, state: MatchState) -> None:
        prev = state.hand
        same_game = isinstance(prev, EntryHand) and prev.game_no == state.game_no
        self.game_no = state.game_no
        self.hand_no = state.hand_no
        self.dealer = state.dealer
        self.dealer_name = dealer_name(state)
        self.turnup: Card | None = None
        self.seen: dict[Card, str] = {}          # card -> where it is ("the turn-up", "played by Ann")
        self.entries = 0                         # position in the hand: card entries and single gos
        self.muggins_log: list[dict] = []        # muggins called in this hand, with their position
        self.pegs: list[dict] = []               # manual pegs of this hand, with their position
        self.done: list[dict] = (prev.done + [prev.record(state)]) if same_game else []
        self.previous: dict | None = prev.summary() if same_game else None
        # under-claims still open to muggins (L8), carried into the next hand of the game
        self.pending: list[dict] = list(prev.pending) if same_game else []
        self.window: dict | None = None          # claim mode: the points of the last card/go, open to claims
        self.claims_log: list[dict] = []         # matching-phase or grid-line claims, with their position
        self.extra_n = 0                         # order of pegs, claims and muggins within the hand

    # the parts a subclass fills in
    @abstractmethod
    def record(self, state: MatchState) -> dict:
        """Return this hand as a game-record hand (companion.record)."""

    @abstractmethod
    def summary(self) -> dict:
        """Return what the page shows of this hand once the next one starts."""

    @abstractmethod
    def expect(self, state: MatchState) -> str:
        """Return the next card-entry command expected: turnup|play|show|pocket|place|claim|none."""

    @abstractmethod
    def expect_player(self, state: MatchState) -> str | None:
        """Return who the next card-entry command is for (a player's or side's name)."""

    @abstractmethod
    def snapshot(self, state: MatchState) -> dict:
        """Return the ``hand`` part of the table snapshot."""

    def wrong_command(self, state: MatchState, kind: str) -> str:
        """Return why command ``kind`` does not belong to this kind of game."""
        return f"{state.rules.title} has no {kind!r} command"

    # shared behaviour
    def where(self, card: Card) -> str:
        """Return a sentence saying where ``card`` was already seen."""
        return f"{card} is already out: {self.seen[card]}"

    def undo_point(self, card: Card) -> int | None:
        """Return the event to undo back to when ``card`` was entered for the wrong player, or None."""
        return None

    def check_unseen(self, cards) -> None:
        """Refuse any of ``cards`` that was already seen this hand.

        :raises IllegalAction: naming the first such card and where it is (``undo_to``: see :meth:`undo_point`).
        """
        for c in cards:
            if c in self.seen:
                raise IllegalAction(self.where(c), undo_to=self.undo_point(c))

    def note_peg(self, state: MatchState, ev: dict) -> None:
        """Remember a manual peg and its position in the hand (for the game record)."""
        self.pegs.append({"at": self.entries, "side": ev["side"], "points": ev["points"], "n": self.next_n()})

    def next_n(self) -> int:
        """Return the next ordinal of a peg, claim or muggins in this hand (their order in the record)."""
        self.extra_n += 1
        return self.extra_n - 1

    def extras_record(self, rec: dict, claims_key: str) -> None:
        """Add the hand's pegs, claims and muggins to a game-record hand.

        ``n`` (their order) is kept only when the hand has claims to interleave with them, or pegs
        and muggins both: a peg may come between a claim and its muggins (L8), and without ``n``
        a replay calls muggins first at one position."""
        keep_n = bool(self.claims_log) or bool(self.pegs and self.muggins_log)
        for key, listed in (("pegs", self.pegs), (claims_key, self.claims_log), ("muggins", self.muggins_log)):
            if listed:
                rec[key] = [{k: v for k, v in e.items() if keep_n or k != "n"} for e in listed]

    def base_snapshot(self, state: MatchState) -> dict:
        return {"kind": self.kind, "stage": self.stage, "hand_no": self.hand_no,
                "dealer": self.dealer_name,
                "expect": self.expect(state) if not state.over else "none",
                "expect_player": self.expect_player(state) if not state.over else None,
                "turnup": str(self.turnup) if self.turnup else None,
                "seen": sorted((str(c) for c in self.seen), key=_card_sort),
                "muggins_open": self.muggins_open(state),
                "claim_open": self.claim_open(state),
                "previous": self.previous}

    # claim mode ---------------------------------------------------------------------------
    def claim_of(self, state: MatchState, cmd: dict, total: int, who: str) -> int | None:
        """Return the claimed points of a show in claim mode (None when the companion counts).

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

    def open_claim(self, state: MatchState, side: int, claimed: int | None, total: int, who: str) -> None:
        """Leave an under-claim open to muggins (L8) until the entry after the next card, go or count."""
        if claimed is not None and claimed < total:
            self.hold_open(state, side, total - claimed, who, state.phase)

    def hold_open(self, state: MatchState, side: int, missed: int, who: str, phase: str) -> None:
        """Keep ``missed`` points of ``side`` open to muggins, with where they were claimed (hand, phase)."""
        self.pending.append({"side": side, "missed": missed, "who": who, "hand": state.hand_no,
                             "phase": phase, "age": 0})

    def age_claims(self, state: MatchState, entries: int) -> None:
        """Count ``entries`` card entries, gos or counts made (L8): the points of the card or go before
        them can no longer be claimed, and an under-claim is open to muggins only until the entry
        after the next one."""
        w = self.window
        self.window = None
        if w is not None and state.rules.muggins != "none":
            for slot in w["slots"]:
                if not slot["called"] and (slot["claimed"] or 0) < slot["points"]:
                    self.hold_open(state, slot["side"], slot["points"] - (slot["claimed"] or 0),
                                   state.sides[slot["side"]].name, "pegging")
        for p in self.pending:
            p["age"] += entries
        self.pending = [p for p in self.pending if p["age"] < 2]

    def muggins_open(self, state: MatchState) -> dict | None:
        """Return the under-claim that muggins may still be called on, or None.

        In the matching phase that is a claim already made below the points of the
        last card (or go); points nobody has claimed yet are not announced here."""
        if state.over or state.rules.muggins == "none":
            return None
        if self.window is not None:
            for slot in self.window["slots"]:
                if slot["claimed"] is not None and not slot["called"] and slot["claimed"] < slot["points"]:
                    return {"side": state.sides[slot["side"]].id, "who": state.sides[slot["side"]].name}
        if not self.pending:
            return None
        p = self.pending[0]
        return {"side": state.sides[p["side"]].id, "who": p["who"]}

    # claim mode in the matching phase: the points of each card (and go, last card) are claimed
    def open_window(self, state: MatchState, after: str, player: str) -> None:
        """Start collecting the points the next card or go makes (claim mode)."""
        self.window = {"after": after, "player": player, "slots": []} if state.rules.claim_mode else None

    def owe(self, state: MatchState, step: Step, count: int) -> None:
        """Note points the card or go just made (``count``: the count after it), due to the step's side
        once claimed (claim mode).

        The step is logged at once with no points (the count said aloud), so the
        page and the replay show every card; the points land with the claim."""
        side = step.side
        slot = next((s for s in self.window["slots"] if s["side"] == side), None)
        if slot is None:
            slot = {"side": side, "steps": [], "points": 0, "claimed": None, "called": False}
            self.window["slots"].append(slot)
        slot["steps"].append(step)
        slot["points"] += step.points
        quiet = {"play": number_words(count), "go": "go", "last": "last card"}
        state.award(side, 0, kind=step.kind, text=quiet.get(step.kind, step.kind), player=step.player,
                    card=step.card, step=step.stage)

    def window_open(self, state: MatchState) -> bool:
        return self.window is not None and not state.over

    def claim_open(self, state: MatchState) -> dict | None:
        """Return who may still claim the last card's (or go's) points, without the points (claim mode)."""
        if not self.window_open(state):
            return None
        w = self.window
        return {"after": w["after"], "player": w["player"],
                "sides": [{"side": state.sides[s["side"]].id, "who": state.sides[s["side"]].name,
                           "claimed": s["claimed"], "called": s["called"]} for s in w["slots"]]}

    def _after_words(self) -> str:
        a = self.window["after"]
        return "the go" if a == "go" else a

    def decide_play_claim(self, state: MatchState, cmd: dict) -> dict:
        """``claim {points, side?}`` while the last card's points are open: that side's claim."""
        pts = cmd.get("points", cmd.get("claimed"))
        if pts is None:
            raise IllegalAction("say how many points are claimed (points)")
        if not isinstance(pts, int) or isinstance(pts, bool) or not 0 <= pts <= 29:
            raise IllegalAction("claimed must be a whole number from 0 to 29")
        slots = self.window["slots"]
        who_v = cmd.get("side", cmd.get("player"))
        after = self._after_words()
        if who_v is None:
            slot = next((s for s in slots if s["claimed"] is None and not s["called"]), None)
            if slot is None:
                raise IllegalAction(f"everything {after} made is claimed already")
        else:
            side = side_named(state, who_v)
            slot = next((s for s in slots if s["side"] == side), None)
            if slot is None:
                raise IllegalAction(f"{state.sides[side].name} is credited nothing for {after}")
            if slot["claimed"] is not None or slot["called"]:
                raise IllegalAction(f"{state.sides[side].name} has claimed for {after} already")
        who = state.sides[slot["side"]].name
        if pts > slot["points"]:
            raise IllegalAction(f"{who} claims {pts}, more than the cards make: count again")
        ev = {"type": "claim", "side": state.sides[slot["side"]].id, "claimed": pts}
        if who_v is None:
            ev["by_turn"] = True    # the next side with points to claim: an amend re-derives the side
        return ev

    def apply_claim(self, state: MatchState, ev: dict) -> None:
        """Score a matching-phase claim step by step in the counting order (C4)."""
        ids = [s.id for s in state.sides]
        side = ids.index(ev["side"])
        slot = next(s for s in self.window["slots"] if s["side"] == side)
        claimed = ev["claimed"]
        slot["claimed"] = claimed
        self.claims_log.append({"at": self.entries, "side": ev["side"], "claimed": claimed, "n": self.next_n()})
        name = state.sides[side].name
        phase, state.phase = state.phase, "pegging"
        if claimed == 0:
            state.award(side, 0, kind="claim", text=f"{name} claims nothing", step="pegging")
        left = claimed
        for st in slot["steps"]:
            p = min(left, st.points)
            if not p:
                continue
            left -= p
            exact = claimed == slot["points"]
            if state.award(side, p, kind=st.kind, text=st.text if exact else f"{name} claims {number_words(claimed)}",
                           items=st.items if exact else None, player=st.player, card=st.card,
                           step="pegging"):
                return
        state.phase = phase

    def decide_muggins(self, state: MatchState, cmd: dict) -> dict:
        if not state.rules.claim_mode:
            raise IllegalAction("muggins is only called in claim mode")
        if state.rules.muggins == "none":
            raise IllegalAction(f"{state.rules.title} plays without muggins")
        caller_v = cmd.get("side", cmd.get("player"))
        caller = None if caller_v is None else side_named(state, caller_v)
        if self.window is not None:
            # claims made short first (those the page shows), then points nobody has claimed yet
            under = sorted((s for s in self.window["slots"] if not s["called"] and (s["claimed"] or 0) < s["points"]),
                           key=lambda s: s["claimed"] is None)
            pick = next((s for s in under if s["side"] != caller), None)
            if pick is not None:
                claimant = pick["side"]
                if caller is None:
                    caller = next_opponent_side(state, claimant)
                return _muggins_event(state, claimant, caller, pick["points"] - (pick["claimed"] or 0), caller_v)
            if under and not any(p["side"] != caller for p in self.pending):
                raise IllegalAction("a side cannot call muggins on itself")
        if not self.pending:
            raise IllegalAction("muggins is called on an under-claim before the entry after the next card, "
                                "go or count: none is open")
        p = next((p for p in self.pending if p["side"] != caller), None)
        if p is None:
            raise IllegalAction("a side cannot call muggins on itself")
        claimant = p["side"]
        if caller is None:
            caller = next_opponent_side(state, claimant)
        return _muggins_event(state, claimant, caller, p["missed"], caller_v)

    def apply_muggins(self, state: MatchState, ev: dict) -> None:
        ids = [s.id for s in state.sides]
        claimant, caller, missed = ids.index(ev["claimant"]), ids.index(ev["caller"]), ev["missed"]
        step, where = state.phase, state.hand_no
        slot = None
        if self.window is not None:
            slot = next((s for s in self.window["slots"] if s["side"] == claimant and not s["called"]
                         and s["points"] - (s["claimed"] or 0) == missed), None)
        if slot is not None:        # a matching-phase claim: closed, what was claimed stands (nothing: 0)
            slot["called"] = True
            if slot["claimed"] is None:
                slot["claimed"] = 0
            step = "pegging"
        else:                       # where the claim was made: a game it ends ends there (hand 1, pocket)
            p = next(p for p in self.pending if p["side"] == claimant and p["missed"] == missed)
            self.pending.remove(p)
            step, where = p["phase"], p["hand"]
        phase, state.phase = state.phase, step
        now, state.hand_no = state.hand_no, where
        if state.rules.muggins == "double":
            pts = 2 * missed
            over = state.award(claimant, pts, kind="muggins", step=step,
                               text=f"muggins: {state.sides[claimant].name} missed {number_words(missed)} "
                                    f"and scores {number_words(pts)} more")
        else:
            over = state.award(caller, missed, kind="muggins", step=step,
                               text=f"muggins: {state.sides[caller].name} takes the {number_words(missed)} missed")
        state.hand_no = now
        if not over:
            state.phase = phase

    def decide_claim(self, state: MatchState, cmd: dict) -> dict:
        """``claim {points, ...}``: the last card's points while they are open (matching phase, claim mode),
        otherwise the next show or pocket with its claimed count."""
        if self.window_open(state) and (self.stage == "pegging" or any(
                s["claimed"] is None and not s["called"] for s in self.window["slots"])):
            return self.decide_play_claim(state, cmd)
        if not state.rules.claim_mode:
            raise IllegalAction("this table is not in claim mode: the companion counts")
        fn = {"show": "decide_show", "pocket": "decide_pocket"}.get(self.stage)
        if fn is None or not hasattr(self, fn):
            raise IllegalAction(f"nothing to claim: the hand is {STAGE_WORDS.get(self.stage, self.stage)}")
        return getattr(self, fn)(state, {**cmd, "claimed": cmd.get("points", cmd.get("claimed"))})


def _muggins_event(state: MatchState, claimant: int, caller: int, missed: int, named: Any) -> dict:
    ev = {"type": "muggins", "claimant": state.sides[claimant].id, "caller": state.sides[caller].id, "missed": missed}
    if named is None:
        ev["by_turn"] = True    # called without naming the caller: an amend re-derives who calls
    return ev


def next_opponent_side(state: MatchState, side: int) -> int:
    """Return the side of the next seat after ``side``'s players that is not ``side`` (M3)."""
    seats = [i for i, s in enumerate(state.seat_side) if s == side]
    start = seats[0] if seats else state.dealer
    for k in range(1, len(state.seats) + 1):
        s = state.next_seat(start, steps=k)
        if state.seat_side[s] != side:
            return state.seat_side[s]
    return next(i for i in range(len(state.sides)) if i != side)


def _card_sort(text: str) -> tuple:
    c = parse_card(text)
    return (c.rank, c.suit)


# --- the deal games ------------------------------------------------------------------------

class DealHand(EntryHand):
    """One hand of a deal game: cut, matching phase (plays), shows in order, the pocket."""

    kind = "cards"

    def __init__(self, state: MatchState) -> None:
        super().__init__(state)
        rules = state.rules
        n = len(state.seats)
        self.held = rules.held
        self.single = rules.pegging_count == "single"
        self.stage = "cut"
        # the matching phase (companion.deal.pegging): plays, count, gos, and who each card was entered for
        self.peg = pegging.start(state, held=rules.held, single=rules.pegging_count == "single", leader=None)
        self.leader = state.next_seat(state.dealer)
        self.cutter = self.leader
        order = [state.next_seat(state.dealer, steps=k) for k in range(1, n + 1)]
        if rules.show_order == "teams":   # non-dealing team first (stable: a dealing house keeps the turn order)
            dside = state.dealer_side()
            order.sort(key=lambda s: state.seat_side[s] == dside)
        self.show_order = order
        self.shows: list[dict] = []
        self.pocket: dict | None = None

    # the matching phase, read through the hand
    plays = property(lambda self: self.peg.plays)
    count = property(lambda self: self.peg.count)
    count_cards = property(lambda self: self.peg.count_cards)
    gone = property(lambda self: self.peg.gone)
    turn = property(lambda self: self.peg.turn)

    def left(self, seat: int) -> int:
        """Return how many cards ``seat`` still holds in the matching phase."""
        return self.peg.left(seat)

    def go_wrong(self, state: MatchState, seat: int) -> str | None:
        """Return why ``seat`` cannot say go now (the engine can tell), or None."""
        return pegging.go_wrong(state, self.peg, self.seen, seat)

    # --- what comes next ---------------------------------------------------------------
    def expect(self, state: MatchState) -> str:
        return {"cut": "turnup", "pegging": "play", "show": "show", "pocket": "pocket"}.get(self.stage, "none")

    def expect_player(self, state: MatchState) -> str | None:
        if self.stage == "cut":
            return state.seats[self.cutter]
        if self.stage == "pegging":
            return state.seats[self.turn]
        if self.stage == "show":
            return state.seats[self.show_order[len(self.shows)]]
        if self.stage == "pocket":
            return state.sides[state.pocket_owner()].name
        return None

    def wrong_command(self, state: MatchState, kind: str) -> str:
        if kind in ("place", "layout"):
            return f"{state.rules.title} is not a tabletop game: there is no grid"
        return f"unknown card-entry command {kind!r}"

    def _wrong_stage(self, state: MatchState, what: str) -> IllegalAction:
        want = self.expect(state)
        who = self.expect_player(state)
        return IllegalAction(f"cannot {what} now: the hand is {STAGE_WORDS[self.stage]}"
                             + (f" and expects {who}'s {want}" if who and want != "none" else ""))

    # --- wrong credits: the event to undo back to -----------------------------------------
    def where(self, card: Card) -> str:
        return super().where(card) + self.credit_note(card)

    def undo_point(self, card: Card) -> int | None:
        cr = self.peg.credit(card)
        return cr.seq if cr is not None else None

    def credit_note(self, card: Card) -> str:
        """Return, for a played card, which event credited it to whom and that undoing back to it fixes it."""
        cr = self.peg.credit(card)
        if cr is None:
            return ""
        return (f"; {card} was entered as {cr.player}'s at event {cr.seq} (count {cr.count}): "
                f"if it was not {cr.player}'s card, undo back to event {cr.seq} and enter it for its player")

    def suspect_note(self, state: MatchState, seat: int) -> tuple[str, int | None]:
        """Return which credited play to undo back to when ``seat`` cannot have held all it was credited:
        the last card entered by default for the player to play near 31 (``seat``'s own first), else
        ``seat``'s last card; as ``(words, event seq)`` (``("", None)``: none)."""
        everyone = list(self.peg.credits)
        guesses = [x for x in everyone if x[1].guess]
        pick = ([x for x in guesses if x[1].seat == seat] or guesses
                or [x for x in everyone if x[1].seat == seat])
        if not pick:
            return "", None
        card, cr = pick[-1]
        why = f", where {cr.player} might have said go" if cr.guess else ""
        return (f"; if one of them was another player's card, undo back to event {cr.seq} ({card}, entered "
                f"for {cr.player} at a count of {cr.count - card.value}{why}) and enter it for its player",
                cr.seq)

    def guess_note(self, state: MatchState, seat: int) -> tuple[str, int | None]:
        """Return, when ``seat`` might have no cards left after all, the card entered by default to undo back
        to, as ``(words, event seq)`` (``("", None)``: none)."""
        guesses = [(c, cr) for c, cr in self.peg.credits if cr.guess]
        if not guesses:
            return "", None
        card, cr = guesses[-1]
        return (f"; if {state.seats[seat]} has no card left, a card went to the wrong player: undo back to "
                f"event {cr.seq} ({card}, entered for {cr.player} as the player to play at a count of "
                f"{cr.count - card.value}, where {cr.player} might have said go)", cr.seq)

    # --- the matching phase: companion.deal.pegging's values, scored or owed here -------------
    def peg_steps(self, state: MatchState, scored, final: "pegging.Pegging") -> bool:
        """Score the steps a card or go made (claim mode: owe them until claimed); keep the phase as it
        stood when a step ended the game, else ``final``. Returns game over."""
        for step, value in scored:
            if self.window is not None:     # claim mode: the points are due, scored when claimed
                self.owe(state, step, value.count)
            elif award(state, step):
                self.peg = value
                return True
        self.peg = final
        if final.done:
            self.stage = "show"
        return False

    def do_go(self, state: MatchState, seat: int) -> bool:
        """``seat`` says go. Returns game over."""
        final, scored = pegging.go(state, self.peg, seat, seq=state.seq)
        return self.peg_steps(state, scored, final)

    def implied(self, state: MatchState, seat: int, what: str) -> tuple[list[int], "pegging.Pegging"]:
        """Return the gos implied before ``seat`` can ``what``, and the matching phase then.

        :raises IllegalAction: when one of those gos is one the engine can tell is wrong.
        """
        try:
            gos, p = pegging.implied_gos(state, self.peg, self.seen, seat)
        except pegging.WrongGo as wrong:
            g = wrong.seat
            note, back = self.guess_note(state, g)
            raise IllegalAction(f"it is {state.seats[g]}'s turn; {state.seats[seat]} can {what} only if "
                                f"{state.seats[g]} said go, but {wrong.why}{note}", undo_to=back) from None
        if p is None:
            raise IllegalAction(f"it is not {state.seats[seat]}'s turn")
        if p.done:
            raise IllegalAction(f"the matching phase would be over before {state.seats[seat]} could {what}")
        return gos, p

    # --- commands -------------------------------------------------------------------------
    def decide_turnup(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "cut":
            raise IllegalAction(f"the turn-up is already {self.turnup}" if self.turnup
                                else str(self._wrong_stage(state, "turn up")))
        card = parse_command_card(cmd.get("card"))
        return {"type": "turnup", "card": str(card)}

    def apply_turnup(self, state: MatchState, ev: dict) -> None:
        card = parse_command_card(ev["card"])
        self.turnup = card
        self.seen[card] = "it is the turn-up"
        state.phase = "cut"
        heels = state.rules.heels
        if card.rank == 11 and heels:
            if state.award(state.dealer_side(), heels, kind="heels", player=self.dealer_name,
                           text=f"{number_words(heels)} for his heels"):
                return
        if state.rules.pegging:
            self.stage = "pegging"
            self.peg = replace(self.peg, turn=self.leader)
        else:
            self.stage = "show"
        state.phase = self.stage

    def _player(self, state: MatchState, cmd: dict) -> int:
        name = cmd.get("player")
        return self.turn if name is None else seat_named(state, name)

    def decide_play(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "pegging":
            raise self._wrong_stage(state, "play a card")
        card = parse_command_card(cmd.get("card"))
        seat = self._player(state, cmd)
        name = state.seats[seat]
        if card in self.seen:
            raise IllegalAction(EntryHand.where(self, card))
        if self.left(seat) == 0:
            note, back = self.suspect_note(state, seat)
            raise IllegalAction(f"{name} has played all {self.held} cards "
                                f"({', '.join(str(c) for c in self.plays[seat])}){note}", undo_to=back)
        gos, sim = self.implied(state, seat, f"play {card}")
        if sim.count + card.value > 31:
            raise IllegalAction(f"{name} cannot play {card}: the count would be {sim.count + card.value}, over 31"
                                f" (say go if nobody can play)")
        ev = {"type": "play", "card": str(card), "player": name}
        if gos:
            ev["gos"] = [state.seats[g] for g in gos]
        if cmd.get("player") is None:
            ev["by_turn"] = True    # entered for whoever was to play: an amend re-derives the player
        return ev

    def apply_play(self, state: MatchState, ev: dict) -> None:
        self.open_window(state, ev["card"], ev["player"])
        for name in ev.get("gos", []):
            if self.do_go(state, state.seats.index(name)):
                return
        seat, card = state.seats.index(ev["player"]), parse_command_card(ev["card"])
        final, scored = pegging.play(state, self.peg, self.seen, seat, card, seq=state.seq)
        self.seen[card] = f"played by {ev['player']}"
        self.peg_steps(state, scored, final)
        if not state.over:
            state.phase = "pegging" if self.stage == "pegging" else self.stage

    def decide_go(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "pegging":
            raise self._wrong_stage(state, "say go")
        seat = self._player(state, cmd)
        if self.left(seat) == 0:
            raise IllegalAction(f"{state.seats[seat]} has no cards left: there is nothing to say go about")
        gos, sim = self.implied(state, seat, "say go")
        why = pegging.go_wrong(state, sim, self.seen, seat)
        if why:
            note, back = self.guess_note(state, seat)
            raise IllegalAction(f"{state.seats[seat]} cannot say go: {why}{note}", undo_to=back)
        ev = {"type": "go", "player": state.seats[seat]}
        if gos:
            ev["gos"] = [state.seats[g] for g in gos]
        if cmd.get("player") is None:
            ev["by_turn"] = True
        return ev

    def apply_go(self, state: MatchState, ev: dict) -> None:
        self.open_window(state, "go", ev["player"])
        for name in ev.get("gos", []) + [ev["player"]]:
            if self.do_go(state, state.seats.index(name)):
                return
        if not state.over:
            state.phase = self.stage

    def decide_show(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "show":
            raise self._wrong_stage(state, "show a hand")
        seat = self.show_order[len(self.shows)]
        name = state.seats[seat]
        if cmd.get("player") is not None and seat_named(state, cmd["player"]) != seat:
            order = ", ".join(state.seats[s] for s in self.show_order)
            raise IllegalAction(f"it is {name}'s show next (order: {order})")
        played = self.plays[seat]
        if cmd.get("cards") is None:
            if len(played) != self.held:
                raise IllegalAction(f"{name} played {len(played)} of {self.held} cards: "
                                    f"list the {self.held} cards {name} held")
            cards = tuple(played)
        else:
            cards = card_list(cmd["cards"], f"{name}'s hand")
            if len(cards) != self.held:
                raise InvalidCard(f"{name}'s hand holds {self.held} cards, not {len(cards)}")
            missing = [c for c in played if c not in cards]
            taken = [c for c in cards if (cr := self.peg.credit(c)) is not None and cr.seat != seat]
            if missing and taken:   # cards swapped between players: undo back to the first wrong credit
                wrong = sorted(((self.peg.credit(c), c) for c in missing + taken), key=lambda x: x[0].seq)
                raise IllegalAction(f"{name}'s hand does not match the plays: " + ", ".join(
                    f"{c} was entered as {cr.player}'s at event {cr.seq}" for cr, c in wrong)
                    + f": undo back to event {wrong[0][0].seq} and enter each card for its player",
                    undo_to=wrong[0][0].seq)
            for c in missing:
                raise IllegalAction(f"{name} played {c}, so it must be in the hand shown{self.credit_note(c)}",
                                    undo_to=self.undo_point(c))
            self.check_unseen(c for c in cards if c not in played)
        for g in self.peg.goes:
            if g.seat != seat:
                continue
            before = set(played[:g.played])
            for c in cards:
                if c not in before and c.value <= 31 - g.count:
                    raise IllegalAction(f"{name} said go at a count of {g.count} while holding {c}, "
                                        f"which fits ({g.count + c.value}): undo back to the go "
                                        f"(event {g.seq}) and fix it", undo_to=g.seq)
        total = score_hand(cards, self.turnup, game=state.rules).total if state.rules.claim_mode else 0
        claimed = self.claim_of(state, cmd, total, name)
        ev = {"type": "show", "player": name, "cards": [str(c) for c in cards]}
        if cmd.get("cards") is None:
            ev["from_plays"] = True    # confirmed from the plays: an amend re-derives the cards
        if claimed is not None:
            ev["claimed"] = claimed
        return ev

    def apply_show(self, state: MatchState, ev: dict) -> None:
        seat = state.seats.index(ev["player"])
        cards = tuple(parse_command_card(c) for c in ev["cards"])
        for c in cards:
            self.seen.setdefault(c, f"shown by {ev['player']}")
        bd = score_hand(cards, self.turnup, game=state.rules)
        side = state.seat_side[seat]
        claimed = ev.get("claimed")
        pts = bd.total if claimed is None else claimed
        self.shows.append({"player": ev["player"], "side": state.sides[side].id, "cards": list(ev["cards"]),
                           "points": pts, "claimed": claimed, "breakdown": bd.to_dict()})
        state.phase = "show"
        text = bd.text if claimed is None or claimed == bd.total else f"{ev['player']} claims {number_words(claimed)}"
        if state.award(side, pts, kind="show", text=text, items=[i.to_dict() for i in bd.items],
                       player=ev["player"]):
            return
        self.open_claim(state, side, claimed, bd.total, ev["player"])
        if len(self.shows) == len(self.show_order):
            self.stage = state.phase = "pocket"

    def decide_pocket(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "pocket":
            raise self._wrong_stage(state, f"show the {state.rules.pocket_name}")
        cards = card_list(cmd.get("cards"), f"the {state.rules.pocket_name}")
        if len(cards) != 4:
            raise InvalidCard(f"the {state.rules.pocket_name} holds 4 cards, not {len(cards)}")
        self.check_unseen(cards)
        total = score_hand(cards, self.turnup, crib=True, game=state.rules).total if state.rules.claim_mode else 0
        owner = state.sides[state.pocket_owner()].name
        claimed = self.claim_of(state, cmd, total, f"{owner} ({state.rules.pocket_name})")
        ev = {"type": "pocket", "cards": [str(c) for c in cards]}
        if claimed is not None:
            ev["claimed"] = claimed
        return ev

    def apply_pocket(self, state: MatchState, ev: dict) -> None:
        cards = tuple(parse_command_card(c) for c in ev["cards"])
        for c in cards:
            self.seen.setdefault(c, f"in the {state.rules.pocket_name}")
        bd = score_hand(cards, self.turnup, crib=True, game=state.rules)
        side = state.pocket_owner()
        claimed = ev.get("claimed")
        pts = bd.total if claimed is None else claimed
        self.pocket = {"side": state.sides[side].id, "cards": list(ev["cards"]), "points": pts,
                       "claimed": claimed, "breakdown": bd.to_dict()}
        state.phase = "pocket"
        text = bd.text if claimed is None or claimed == bd.total else f"{state.sides[side].name} claims {number_words(claimed)}"
        if state.award(side, pts, kind="pocket", text=text, items=[i.to_dict() for i in bd.items],
                       player=state.sides[side].name):
            return
        self.open_claim(state, side, claimed, bd.total, state.rules.pocket_name)
        self.stage = "done"
        next_hand(state)

    # --- views ------------------------------------------------------------------------------
    def record(self, state: MatchState) -> dict:
        held: dict[str, list[str]] = {}
        for i, name in enumerate(state.seats):
            cards = list(self.plays[i])
            for sh in self.shows:
                if sh["player"] == name:
                    cards += [parse_command_card(c) for c in sh["cards"] if parse_command_card(c) not in cards]
            held[name] = [str(c) for c in cards]
        rec = {"dealer": self.dealer_name, "turnup": str(self.turnup) if self.turnup else None,
               "held": held, "pocket": self.pocket["cards"] if self.pocket else None,
               "plays": [p.card for p in self.peg.order]}
        if self.peg.gos_after_play:
            rec["then_go"] = self.peg.gos_after_play
        self.extras_record(rec, "play_claims")
        claims = {sh["player"]: sh["claimed"] for sh in self.shows if sh["claimed"] is not None}
        if claims:
            rec["claims"] = claims
        if self.pocket and self.pocket["claimed"] is not None:
            rec["pocket_claim"] = self.pocket["claimed"]
        return rec

    def summary(self) -> dict:
        return {"hand_no": self.hand_no, "dealer": self.dealer_name,
                "turnup": str(self.turnup) if self.turnup else None,
                "plays": [p.to_dict() for p in self.peg.order], "shows": list(self.shows), "pocket": self.pocket}

    def snapshot(self, state: MatchState) -> dict:
        """Return the hand part of the table snapshot (docs/architecture.md, "Card entry").

        The parts are shared with the state, never mutated after they are built; the
        table deep-copies snapshots at its boundary."""
        snap = self.base_snapshot(state)
        snap.update({
            "plays": {name: [str(c) for c in self.plays[i]] for i, name in enumerate(state.seats)},
            "order": [p.to_dict() for p in self.peg.order],
            "cards_left": {name: self.left(i) for i, name in enumerate(state.seats)},
            "gone": [state.seats[s] for s in self.gone],
            "can_go": (self.stage == "pegging" and not state.over
                       and self.go_wrong(state, self.turn) is None),
            "playable_ranks": (pegging.playable_ranks(self.peg) if self.stage == "pegging" and not state.over
                               else []),
            "show_order": [state.seats[s] for s in self.show_order],
            "shows": list(self.shows),
            "pocket": self.pocket,
            "pocket_owner": state.sides[state.pocket_owner()].id,
        })
        return snap


def _note_muggins(hand: EntryHand, ev: dict) -> None:
    hand.muggins_log.append({"at": hand.entries, "claimant": ev["claimant"], "caller": ev["caller"],
                             "n": hand.next_n()})


# --- command registration ------------------------------------------------------------------

def _current_hand(state: MatchState) -> EntryHand:
    if state.over:
        raise IllegalAction("the game is over: start a new game (or undo)")
    if not isinstance(state.hand, EntryHand):
        raise IllegalAction("no hand is in progress")
    return state.hand


def _register(kind: str) -> None:
    class Entry:
        @staticmethod
        def decide(state: MatchState, cmd: dict, ctx) -> dict:
            hand = _current_hand(state)
            fn = getattr(hand, "decide_" + kind, None)
            if fn is None:
                raise IllegalAction(hand.wrong_command(state, kind))
            return fn(state, cmd)

        @staticmethod
        def apply(state: MatchState, ev: dict) -> None:
            hand = state.hand
            if kind == "muggins":
                _note_muggins(hand, ev)
            elif kind != "claim":   # the hand's position: every card entry and every single go
                hand.entries += 1 + len(ev.get("gos", ()))
                hand.age_claims(state, 1 + len(ev.get("gos", ())))
            getattr(hand, "apply_" + ev["type"])(state, ev)

    Entry.__name__ = Entry.__qualname__ = f"Entry_{kind}"
    handler(kind)(Entry)


for _kind in ENTRY_COMMANDS:
    _register(_kind)

HAND_FACTORIES["cards"] = DealHand
