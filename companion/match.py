"""The match: sides, scores, games, results, stakes and series, as a fold over events.

The match's own commands are here as pairs of functions: ``verify_<kind>(state,
command, ctx)`` (pure: validates, normalises, raises :class:`RulesError`) returns
the event, and ``apply_<kind>(state, event)`` folds it into the state. Every
command kind is listed with its two functions in :data:`companion.commands.COMMANDS`.
Nothing here branches on a preset name: every difference comes from the
:class:`~companion.rulesets.Ruleset`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .cards import DECK, parse_card
from .errors import IllegalAction
from .rulesets import Ruleset, stored_ruleset, stored_rules
from .scoring import number_words

if TYPE_CHECKING:
    from .hand import EntryHand

HOUSE_NAME = "House"


@dataclass
class Side:
    """One scoring side: a player, a partnership, or the house."""

    id: str
    name: str
    players: tuple[str, ...]
    house: bool = False
    score: int = 0
    previous: int = 0

    def to_dict(self) -> dict:
        """Return the side as in the snapshot."""
        return {"id": self.id, "name": self.name, "players": list(self.players), "house": self.house,
                "score": self.score, "previous": self.previous}


@dataclass
class Context:
    """What a command's decision may use beyond the state: randomness, the time, and the judge of the host's
    events (``host_check(event)``: raises :class:`~companion.errors.IllegalAction` when a rename, merge, new
    evening or settle would say something untrue of every game kept; the web app's is the season's
    :meth:`companion.season.Season.check`; None: their form alone is checked)."""

    rng: Any
    now: str = ""
    host_check: Any = None


@dataclass
class MatchState:
    """Everything the table knows about the current match. Built only by folding events."""

    match_id: str = ""
    rules: Ruleset | None = None
    seats: list[str] = field(default_factory=list)         # player names, clockwise; a playing house included
    seat_side: list[int] = field(default_factory=list)     # seat -> side index
    sides: list[Side] = field(default_factory=list)
    stake: float = 0
    series: dict = field(default_factory=lambda: {"kind": "single", "n": 1})
    wins: list[int] = field(default_factory=list)
    game_no: int = 0
    first_dealer: int = 0
    cut_bonus: bool = True             # F1: the non-dealer of each game's first hand pegs the cut bonus
    rows_named: int | None = None      # G6: the side a new_match/new_game named to score the rows
    rows_side: int | None = None       # G6: the side that scores the rows this game (grid_rows "fixed")
    dealer: int = 0                    # seat index (-1: a house that holds no seat)
    hand_no: int = 0
    phase: str = "none"
    result: dict | None = None
    last: dict | None = None
    steps: list[dict] = field(default_factory=list)        # every score step of this game, in order
    fresh: list[dict] = field(default_factory=list)        # the steps of the last event folded in
    money: dict[str, float] = field(default_factory=dict)  # won (+) / lost (-) per player over this match
    hand: EntryHand | None = None                          # card-entry state (companion.hand)
    seq: int = -1
    applied: int = -1                                      # seq of the last event folded in (undos aside)
    # what an amend (companion.amend) refolds from: the state just before the current hand's first
    # event, the effective events of that hand since, and which hand that is (game_no, hand_no)
    hand_key: tuple | None = None
    hand_base: Any = None
    hand_log: list[dict] = field(default_factory=list)
    # the host's renames and merges in force in this match, oldest first: (spelling at the table, new name);
    # History's lines written before one say the new name (companion.host.follow_names)
    renames: list[tuple] = field(default_factory=list)

    # --- seating -------------------------------------------------------------
    @property
    def direction(self) -> int:
        """+1 for clockwise play, -1 for counter-clockwise."""
        return -1 if self.rules.direction == "ccw" else 1

    def next_seat(self, seat: int, *, steps: int = 1) -> int:
        """Return the seat ``steps`` places after ``seat`` in the direction of play."""
        n = len(self.seats)
        if seat < 0:   # a non-playing house deals from "before" the first seat
            seat = -1 if self.direction > 0 else n
            return (seat + self.direction * steps) % n
        return (seat + self.direction * steps) % n

    def side_of(self, player: str) -> int:
        """Return the side index of ``player``."""
        return self.seat_side[self.seats.index(player)]

    def house_side(self) -> int | None:
        """Return the index of the house side, if any."""
        for i, s in enumerate(self.sides):
            if s.house:
                return i
        return None

    def dealer_side(self) -> int:
        """Return the side index of the dealer."""
        if self.dealer < 0:
            return self.house_side()
        return self.seat_side[self.dealer]

    @property
    def over(self) -> bool:
        """True once the current game has a result."""
        return self.result is not None

    # --- scoring ---------------------------------------------------------------
    def award(self, side: int, points: int, *, kind: str, text: str = "", items: list | None = None,
              player: str | None = None, step: str = "", card: str | None = None, phase: str | None = None,
              hand: int | None = None) -> bool:
        """Add ``points`` to ``side`` as one step; end the game if it reaches the target.

        ``step`` labels the step with the stage of the hand that made it; a game it
        ends ends in that stage (``phase`` says another: a manual peg ends the game
        in the hand's phase; ``hand`` another hand than the current one: a muggins on the claim of
        the hand before, L8). Returns True when the game ended with this step. Points
        after the end are not scored (C4). A zero-point step is recorded only for the log.
        """
        if self.result is not None:
            return True
        s = self.sides[side]
        if points:
            s.previous = s.score
            s.score += points
        at = self.hand_no if hand is None else hand
        rec = {"game": self.game_no, "hand": at, "kind": kind, "side": s.id, "credited": s.name,
               "points": points, "score": s.score, "text": text, "items": items or [],
               "player": player, "step": step or self.phase, "seq": self.seq}
        if card is not None:
            rec["card"] = card
        self.steps.append(rec)
        self.fresh.append(rec)
        self.last = rec
        if points:
            self.check_end(side, phase or step or self.phase, hand=at)
        return self.result is not None

    def check_end(self, side: int, phase: str, hand: int | None = None) -> None:
        """Apply the ruleset's end of game after ``side`` scored in ``phase`` (C4, L5, H4)."""
        rules = self.rules
        s = self.sides[side]
        if rules.reach == "highest" or s.score < rules.target:
            return
        reach = rules.house_reach if s.house else rules.reach
        self.finish(winner=side if reach == "wins" else None, loser=side if reach == "loses" else None, phase=phase,
                    hand=hand)

    def finish_round_highest(self) -> None:
        """Grid games: after both sides counted, the highest over the target wins (G4)."""
        best = max(range(len(self.sides)), key=lambda i: self.sides[i].score)
        scores = sorted((s.score for s in self.sides), reverse=True)
        if scores[0] >= self.rules.target and scores[0] != scores[1]:
            self.finish(winner=best, loser=None)

    def finish(self, *, winner: int | None, loser: int | None, phase: str | None = None,
               hand: int | None = None) -> None:
        """Record the result: winners, losers, multipliers, settlement (R1, R2), series wins (L7).

        A side that reaches the target and loses pays every other side the stake
        times that receiver's multiplier, fixed by the receiver's own score (L6,
        M5, H5; reverse cribbage's mirrored skunk, S2). A side that reaches the
        target and wins receives from every other side the stake times a
        multiplier fixed by the payer's score (the cribbage skunk, S1), or once
        each when the house collects (H4, H5). ``multipliers`` is keyed by the
        receiving side in every game (R2).
        """
        rules = self.rules
        mult: dict[str, int] = {}
        pay: dict[str, float] = {s.id: 0 for s in self.sides}
        skunk = 0
        if loser is not None:
            payers = [loser]
            receivers = [i for i in range(len(self.sides)) if i != loser]
            for i in receivers:
                k = rules.multiplier(self.sides[i].score)
                mult[self.sides[i].id] = k
                pay[self.sides[i].id] += self.stake * k
                pay[self.sides[loser].id] -= self.stake * k
        else:
            w = self.sides[winner]
            receivers = [winner]
            payers = [i for i in range(len(self.sides)) if i != winner]
            ks = []
            for i in payers:
                k = 1 if (w.house and rules.settlement == "house_collects") else rules.multiplier(self.sides[i].score)
                ks.append(k)
                pay[w.id] += self.stake * k
                pay[self.sides[i].id] -= self.stake * k
            # one payer in every preset; with several, each pays at its own band and the largest is shown
            mult[w.id] = max(ks or [1])
        if rules.skunks and len(receivers) == 1 and len(payers) == 1:
            # S1 from the winner's side, S2 mirrored from the side that reached 121: one name, one count
            skunk = mult[self.sides[receivers[0]].id] - 1
        for i in receivers:
            k = mult[self.sides[i].id]
            self.wins[i] += k if rules.series_weighted else 1
        need = _series_need(self.series)
        ids = [s.id for s in self.sides]
        self.result = {
            "game": self.game_no, "hand": self.hand_no if hand is None else hand, "phase": phase or self.phase,
            "winner": ids[receivers[0]] if len(receivers) == 1 else [ids[i] for i in receivers],
            "loser": ids[payers[0]] if len(payers) == 1 else [ids[i] for i in payers],
            "winners": [ids[i] for i in receivers],
            "losers": [ids[i] for i in payers],
            "multipliers": mult,
            "settlement": {k: _num(v) for k, v in pay.items()},
            "skunk": skunk,
            "series_over": any(w >= need for w in self.wins),
        }
        for s in self.sides:
            share = pay[s.id] / len(s.players)
            for p in s.players:
                self.money[p] = _num(self.money.get(p, 0) + share)
        self.phase = "over"

    # --- snapshot --------------------------------------------------------------
    def snapshot(self) -> dict:
        """Return the table state as plain JSON data (schema: docs/architecture.md)."""
        rules = self.rules
        hand = self.hand
        need = _series_need(self.series)
        turn = getattr(hand, "turn", None) if hand is not None and not self.over else None
        snap = {
            "match_id": self.match_id, "seq": self.seq,
            "game": rules.name, "title": rules.title, "options": dict(rules.options),
            "target": rules.target, "reach": rules.reach,
            "sides": [s.to_dict() for s in self.sides],
            "players": list(self.seats),
            "dealer": self.seats[self.dealer] if self.dealer >= 0 else HOUSE_NAME,
            "dealer_side": self.dealer_side(),
            "pocket_owner": self.pocket_owner(),
            "pocket_name": rules.pocket_name,
            "turn": self.seats[turn] if turn is not None else None,
            "turn_side": self.seat_side[turn] if turn is not None else None,
            "phase": self.phase,
            "expect": hand.expect(self) if hand is not None and not self.over else "none",
            "expect_player": hand.expect_player(self) if hand is not None and not self.over else None,
            "count": getattr(hand, "count", 0) if hand is not None else 0,
            "count_cards": [str(c) for c in getattr(hand, "count_cards", [])] if hand is not None else [],
            "turnup": str(hand.turnup) if hand is not None and getattr(hand, "turnup", None) else None,
            "hand_no": self.hand_no, "game_no": self.game_no,
            "stake": _num(self.stake),
            "result": self.result,             # built once, never mutated: the table copies snapshots
            "series": {**self.series, "need": need,
                       "wins": {s.id: self.wins[i] for i, s in enumerate(self.sides)},
                       "over": any(w >= need for w in self.wins)},
            "last": self.last,
        }
        if hand is not None and hasattr(hand, "snapshot"):
            snap["hand"] = hand.snapshot(self)
        return snap

    def pocket_owner(self) -> int:
        """Return the side index that owns this hand's pocket/crib (L1, H2, H3, H4)."""
        return POCKET_OWNERS[self.rules.pocket_owner](self)


def _series_need(series: dict) -> int:
    kind, n = series.get("kind", "single"), int(series.get("n", 1))
    return {"single": 1, "best_of": n // 2 + 1, "first_to": n}[kind]


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else round(v, 2)


def _owner_rotate(st: MatchState) -> int:
    # H3: the pocket rotates among the three seats each hand, the house last.
    house = st.house_side()
    order = [st.next_seat(st.dealer, steps=k) for k in range(1, len(st.seats) + 1)]
    order_sides = [st.seat_side[s] for s in order]
    if house in order_sides:
        order_sides.remove(house)
        order_sides.append(house)
    return order_sides[(st.hand_no - 1) % len(order_sides)] if st.hand_no else order_sides[0]


POCKET_OWNERS: dict[str, Callable[[MatchState], int]] = {
    "dealer": lambda st: st.dealer_side(),
    "player": lambda st: next(i for i, s in enumerate(st.sides) if not s.house),
    "rotate": _owner_rotate,
    "house": lambda st: st.house_side(),
}


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise IllegalAction(message)


# --- new match / new game --------------------------------------------------------------

def build_seating(rules: Ruleset, players: list[str], teams: list[list[str]] | None):
    """Return ``(seats, seat_side, sides)`` for ``players`` under ``rules``.

    :raises IllegalAction: wrong number of names, duplicates, teams not opposite.
    """
    _require(isinstance(players, list) and all(isinstance(p, str) and p.strip() for p in players),
             "players must be a list of names")
    players = [p.strip()[:24] for p in players]
    humans = rules.players - (1 if rules.house and rules.house_plays else 0)
    _require(len(players) == humans,
             f"{rules.title} needs {humans} player name{'s' if humans != 1 else ''}, got {len(players)}")
    names = players + ([HOUSE_NAME] if rules.house else [])
    _require(len({p.lower() for p in names}) == len(names), "player names must be different"
             + (f" (and not {HOUSE_NAME!r})" if rules.house else ""))
    if rules.partnerships:
        if teams:
            _require(isinstance(teams, list) and len(teams) == 2
                     and all(isinstance(t, list) and len(t) == 2 and all(isinstance(p, str) for p in t) for t in teams)
                     and sorted(p.strip()[:24] for p in sum(teams, [])) == sorted(players),
                     "teams must be two pairs of the players' names")
            a, b = ([p.strip()[:24] for p in t] for t in teams)
            seats = [a[0], b[0], a[1], b[1]]
        else:
            seats = list(players)
        seat_side = [0, 1, 0, 1]
        sides = [Side("team1", f"{seats[0]} & {seats[2]}", (seats[0], seats[2])),
                 Side("team2", f"{seats[1]} & {seats[3]}", (seats[1], seats[3]))]
        if rules.house and not rules.house_plays:
            sides.append(Side("house", HOUSE_NAME, (HOUSE_NAME,), house=True))
        return seats, seat_side, sides
    seats = ([HOUSE_NAME] if rules.house and rules.house_plays else []) + players
    sides = []
    k = 0
    for name in seats:
        if name == HOUSE_NAME and rules.house:
            sides.append(Side("house", HOUSE_NAME, (HOUSE_NAME,), house=True))
        else:
            k += 1
            sides.append(Side(f"p{k}", name, (name,)))
    if rules.house and not rules.house_plays:   # a house that holds no seat still scores (its pocket, heels)
        sides.append(Side("house", HOUSE_NAME, (HOUSE_NAME,), house=True))
    return seats, list(range(len(seats))), sides


def verify_new_match(state: MatchState, cmd: dict, ctx: Context) -> dict:
    """Return the ``new_match`` event of ``cmd`` (players, seating, stake, series, the cut for the deal)."""
    game = cmd.get("game", "lands-end")
    options = cmd.get("options") or {}
    _require(isinstance(options, dict), "options must be an object")
    if cmd.get("direction") is not None:
        _require(cmd["direction"] in ("cw", "ccw"), "direction must be cw or ccw")
        options = {**options, "direction": cmd["direction"]}
    # a record replayed names the rules it was played under (absent in an old one: the old rule)
    rules = stored_ruleset(game, options, cmd, absent_is_old=False)
    seats, _, sides = build_seating(rules, cmd.get("players") or [], cmd.get("teams"))
    stake = cmd.get("stake", 1)
    _require(isinstance(stake, (int, float)) and not isinstance(stake, bool) and 0 <= stake <= 1_000_000,
             "stake must be a number from 0 to 1,000,000")
    series = cmd.get("series") or {"kind": "single", "n": 1}
    _require(isinstance(series, dict) and series.get("kind", "single") in ("single", "best_of", "first_to"),
             "series kind must be single, best_of or first_to")
    n = series.get("n", 1)
    _require(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99, "series n must be 1..99")
    if series.get("kind") == "best_of":
        _require(n % 2 == 1, "a best-of series needs an odd number of games")
    teams = [[seats[0], seats[2]], [seats[1], seats[3]]] if rules.partnerships and cmd.get("teams") else None
    event = {"type": "new_match", "game": rules.name, "options": dict(rules.options),
             "players": [s for s in seats if not (rules.house and s == HOUSE_NAME)],
             "teams": teams, "stake": stake,
             "series": {"kind": series.get("kind", "single"), "n": n}, **stored_rules(rules)}
    if cmd.get("rows") is not None:
        event["rows"] = _rows_side_id(rules, sides, cmd["rows"])
    cut_bonus = cmd.get("cut_bonus", True)
    _require(isinstance(cut_bonus, bool), "cut_bonus is true or false")
    first = cmd.get("first_dealer")
    if isinstance(first, str):
        first = first.strip()[:24]          # as build_seating trims the names
    if rules.house_deals:
        _require(first in (None, HOUSE_NAME), f"the house always deals in casino play (H1), not {first!r}")
        first = HOUSE_NAME
    elif first is None:
        event["cut"] = cut_for_deal(seats, ctx.rng)
        first = event["cut"]["dealer"]
    _require(first in seats or (first == HOUSE_NAME and rules.house), f"first dealer {first!r} is not at the table")
    event["first_dealer"] = first
    if not cut_bonus:
        event["cut_bonus"] = False
    if rules.first_cut_bonus and cut_bonus and "cut" not in event and len(seats) == 2:
        # F1: the low cutter deals, so naming the dealer says the other player cut high
        event["cut"] = {"dealer": first, "high": seats[1 - seats.index(first)]}
    return event


def apply_new_match(state: MatchState, ev: dict, *, hands: Callable[[Ruleset], type]) -> None:
    """Set the match up and start its first game; ``hands(rules)`` is the class of its hands."""
    # what the event does not name is the rule of every match stored before it could (STORED_DEFAULTS)
    rules = stored_ruleset(ev["game"], ev.get("options", {}), ev)
    state.rules = rules
    state.seats, state.seat_side, state.sides = build_seating(rules, ev["players"], ev.get("teams"))
    state.stake = ev["stake"]
    state.series = dict(ev["series"])
    state.wins = [0] * len(state.sides)
    state.first_dealer = state.seats.index(ev["first_dealer"]) if ev["first_dealer"] in state.seats else -1
    state.cut_bonus = ev.get("cut_bonus", True)
    ids = [s.id for s in state.sides]
    state.rows_named = ids.index(ev["rows"]) if ev.get("rows") is not None else None
    state.game_no = 0
    state.money = {p: 0 for s in state.sides for p in s.players}
    start_game(state, ev, hands(rules))


def _rows_side_id(rules: Ruleset, sides: list[Side], value: Any) -> str:
    """Return the id of the side named to score the rows all game (G6): a side id or a player's name.

    :raises IllegalAction: a game whose rows are not one side's, or no such side."""
    _require(rules.grid and rules.grid_rows == "fixed",
             f"{rules.title} has no rows to name: "
             + ("the rows go to each round's non-dealer (T1)" if rules.grid else "it is not a tabletop game"))
    if isinstance(value, str):
        key = value.strip().lower()
        for s in sides:
            if key == s.id or key in (p.lower() for p in s.players):
                return s.id
    raise IllegalAction(f"rows must name a side or a player: {', '.join(s.id for s in sides)} "
                        f"or {', '.join(p for s in sides for p in s.players)}, not {value!r}")


def cut_for_deal(seats: list[str], rng) -> dict:
    """Return a cut for the first deal: each player cuts, low card deals, ties cut again."""
    while True:
        cards = rng.sample(DECK, len(seats))
        ranks = [c.rank for c in cards]
        low = min(ranks)
        if ranks.count(low) == 1 and ranks.count(max(ranks)) == 1:
            break
    return {"cards": {p: str(c) for p, c in zip(seats, cards)}, "dealer": seats[ranks.index(low)],
            "high": seats[ranks.index(max(ranks))]}


def start_game(state: MatchState, ev: dict, hand_class: type) -> None:
    """Reset scores and begin game ``game_no + 1`` with the right first dealer."""
    state.game_no += 1
    for s in state.sides:
        s.score = s.previous = 0
    state.result = None
    state.last = None
    state.steps = []       # a game's steps; the whole match's are stored with their events (Table.history)
    if state.game_no == 1:
        state.dealer = state.first_dealer
    elif ev.get("first_dealer") is not None:
        state.dealer = state.seats.index(ev["first_dealer"])     # the players cut again for this game
    elif not state.rules.house_deals:
        # otherwise the deal simply keeps passing
        state.dealer = state.next_seat(state.dealer)
    state.hand_no = 0
    if ev.get("rows") is not None:           # a new game may name the rows' side (G6)
        state.rows_named = [s.id for s in state.sides].index(ev["rows"])
    if state.rules.grid and state.rules.grid_rows == "fixed":
        # G6: the side of the player left of this game's first dealer (who places first), or the side named
        left = state.seat_side[state.next_seat(state.dealer)]
        state.rows_side = state.rows_named if state.rows_named is not None else left
    else:
        state.rows_side = None
    bonus = state.rules.first_cut_bonus
    cut = ev.get("cut")
    if bonus and state.cut_bonus and len(state.seats) == 2 and state.dealer >= 0:
        # F1: each game starts with a cut; the low cutter deals, so the other player cut high
        high = cut["high"] if cut and state.game_no == 1 else state.seats[state.next_seat(state.dealer)]
        state.award(state.side_of(high), bonus, kind="last",
                    text=f"{high} cut high: {number_words(bonus)} for last", player=high, step="start", phase="cut")
    begin_hand(state, hand_class)


def begin_hand(state: MatchState, hand_class: type | None = None) -> None:
    """Start the next hand, of ``hand_class`` (default: the kind of the hand before); card entry waits
    for the turn-up."""
    state.hand_no += 1
    state.hand = (hand_class or type(state.hand)).new(state)
    state.phase = "grid" if state.rules.grid else "cut"


def verify_new_game(state: MatchState, cmd: dict, ctx: Context) -> dict:
    """Return the ``new_game`` event (another game of the match: first dealer, direction)."""
    ev = {"type": "new_game"}
    first = cmd.get("first_dealer")
    if first is not None:
        _require(not state.rules.house_deals, "the house deals every game: no first dealer to name")
        _require(isinstance(first, str) and first.strip()[:24] in state.seats,
                 f"first dealer {first!r} is not at the table")
        ev["first_dealer"] = first.strip()[:24]
    if cmd.get("rows") is not None:
        ev["rows"] = _rows_side_id(state.rules, state.sides, cmd["rows"])
    direction = cmd.get("direction")
    if direction is not None:
        # H1: the direction of play is decided at the start of each game
        _require(direction in ("cw", "ccw"), "direction must be cw or ccw")
        ev["direction"] = direction
    if state.result is not None and state.result.get("series_over"):
        ev["new_series"] = True
    return ev


def apply_new_game(state: MatchState, ev: dict) -> None:
    if ev.get("new_series"):
        state.wins = [0] * len(state.sides)
    if ev.get("direction") is not None:
        state.rules = state.rules.with_options(direction=ev["direction"])
    start_game(state, ev, type(state.hand))


def verify_peg(state: MatchState, cmd: dict, ctx: Context) -> dict:
    """Return the ``peg`` event: points pegged by hand (a board button, a missed count)."""
    _require(not state.over, "the game is over: start a new game to peg again")
    side = cmd.get("side")
    ids = [s.id for s in state.sides]
    if isinstance(side, int) and not isinstance(side, bool):
        _require(0 <= side < len(ids), f"no side {side}; sides are 0..{len(ids) - 1}")
        side = ids[side]
    _require(side in ids, f"no side {side!r}; sides are {', '.join(ids)}")
    points = cmd.get("points")
    _require(isinstance(points, int) and not isinstance(points, bool) and 1 <= points <= 29,
             "points must be a whole number from 1 to 29")
    return {"type": "peg", "side": side, "points": points}


def apply_peg(state: MatchState, ev: dict) -> None:
    i = [s.id for s in state.sides].index(ev["side"])
    if state.hand is not None:
        state.hand = state.hand.with_peg(ev)
    state.award(i, ev["points"], kind="peg",
                text=f"{state.sides[i].name} pegs {number_words(ev['points'])}", step="manual", phase=state.phase)


def note_hand(state: MatchState) -> None:
    """Before an event of a hand: on the hand's first event, keep a copy of the state to refold the
    hand from and start its log (what an amend re-derives: at most this hand)."""
    if state.hand is None:
        return
    key = (state.game_no, state.hand_no)
    if key != state.hand_key:
        state.hand_base, state.hand_log, state.hand_key = None, [], key
        # Shared, not copied: the game's score steps are records that are only ever appended, and the
        # hand and the rules are frozen values (a change makes a new one). Copying the steps cost most
        # of this copy, and more the longer the game (a press's first event of each hand paid it).
        keep = {id(step): step for step in state.steps}
        keep[id(state.hand)], keep[id(state.rules)] = state.hand, state.rules
        state.hand_base = copy.deepcopy(state, keep)


def parse_command_card(value: Any, what: str = "card"):
    """Return the card named by a command field, with a message naming the field."""
    if not isinstance(value, str):
        raise IllegalAction(f"{what} must be a card like 5H")
    return parse_card(value)
