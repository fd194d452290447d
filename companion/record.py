"""Game records, both halves of the format: a game exported as JSON, and a record turned into table commands.

A record (issue 3)::

    {"game": "lands-end", "options": {}, "players": ["Ann", "Bob"], "teams": null,
     "stake": 5, "first_dealer": "Bob",
     "hands": [{"turnup": "JS", "held": {"Ann": [...], "Bob": [...]}, "pocket": [...],
                "plays": ["10H", "5S", ...]}, ...]}

Grid games carry ``grid`` (25 cards in row order) and ``crib`` per hand instead
of ``held``/``plays``/``pocket``. Optional per-hand fields that an export adds
so a replay reproduces the table exactly: ``dealer`` (checked), ``pegs``
(manual pegs: ``{"at": n, "side", "points"}``, ``at`` = card entries of the
hand before it), ``claims`` / ``pocket_claim`` / ``muggins`` (claim mode),
``play_claims`` (claim mode: ``{"at", "side", "claimed"}``, each claim of a card's
or a go's points) and ``line_claims`` (claim mode, grid games: ``{"at", "claimed"}``,
the lines in counting order), and for grid games ``places`` (the placements in
order). When a hand has such claims, its pegs, claims and muggins also carry
``n``, their order among themselves. ``first_cut_bonus``
(false) says the five-card "3 for last" was not part of this game. ``go_lead``
(L9), ``grid_rows`` (G6), ``pocket_flush`` (G7) and ``skunk_lines`` (S3) name a rule
that changed after records were first exported (``companion.rulesets.STORED_DEFAULTS``);
a record without one was played under the old rule and replays under it. ``rows``
names the side a Table Top Cribbage table chose to score the rows (G6).

:func:`export_record` writes the current game of a match state (each hand by
:func:`hand_record`); :func:`drive` turns a record into table commands (inferring
the gos the plays imply) and submits them to a table, and :func:`result_of` says
how the game went. Running a record on a fresh table is :mod:`companion.replay`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from .cards import parse_card
from .errors import RulesError
from .match import HOUSE_NAME, MatchState
from .rulesets import STORED_DEFAULTS, get_ruleset, stored_rules

if TYPE_CHECKING:
    from .deal import DealHand
    from .grid import GridHand
    from .hand import EntryHand

log = logging.getLogger(__name__)


class RecordError(RulesError):
    """A record that is not well formed, or a step the rules refuse (with where it happened)."""


# --- export -----------------------------------------------------------------------------------

def hand_record(hand: EntryHand, state: MatchState) -> dict:
    """Return one hand (a deal hand or a tabletop round) as a record hand."""
    rec = (_grid_hand if hand.kind == "grid" else _deal_hand)(hand, state)
    # the hand's pegs, claims and muggins; ``n`` (their order) only when claims interleave with them, or
    # pegs and muggins both: a peg may come between a claim and its muggins (L8), and without ``n`` a
    # replay calls muggins first at one position
    keep_n = bool(hand.claims_log) or bool(hand.pegs and hand.muggins_log)
    claims_key = "line_claims" if hand.kind == "grid" else "play_claims"
    for key, listed in (("pegs", hand.pegs), (claims_key, hand.claims_log), ("muggins", hand.muggins_log)):
        if listed:
            rec[key] = [{k: v for k, v in e.items() if keep_n or k != "n"} for e in listed]
    if hand.kind != "grid":
        claims = {sh["player"]: sh["claimed"] for sh in hand.shows if sh["claimed"] is not None}
        if claims:
            rec["claims"] = claims
        if hand.pocket and hand.pocket["claimed"] is not None:
            rec["pocket_claim"] = hand.pocket["claimed"]
    return rec


def _deal_hand(hand: DealHand, state: MatchState) -> dict:
    held: dict[str, list[str]] = {}
    for i, name in enumerate(state.seats):
        cards = list(hand.plays[i])
        for sh in hand.shows:
            if sh["player"] == name:
                cards += [parse_card(c) for c in sh["cards"] if parse_card(c) not in cards]
        held[name] = [str(c) for c in cards]
    rec = {"dealer": hand.dealer_name, "turnup": str(hand.turnup) if hand.turnup else None,
           "held": held, "pocket": hand.pocket["cards"] if hand.pocket else None,
           "plays": [p.card for p in hand.peg.order]}
    if hand.peg.gos_after_play:
        rec["then_go"] = hand.peg.gos_after_play
    if hand.peg.goes:
        rec["gos"] = [g.to_dict() for g in hand.peg.goes]     # every go the table knew (an import checks them)
    return rec


def _grid_hand(hand: GridHand, state: MatchState) -> dict:
    rec = {"dealer": hand.dealer_name, "turnup": str(hand.turnup) if hand.turnup else None,
           "grid": [c for row in hand.grid_strings() for c in row], "crib": [str(c) for c in hand.crib]}
    if hand.places:
        rec["places"] = [dict(p) for p in hand.places]
    return rec


def export_record(state: MatchState, new_match: dict) -> dict:
    """Return the current game of ``state`` as a record (``new_match`` is the match's first event)."""
    hand = state.hand
    hands = list(getattr(hand, "done", []))
    if hand is not None:
        current = hand_record(hand, state)
        if hand.entries or hand.pegs or hand.muggins_log or hand.claims_log or not hands:
            hands.append(current)
    rules = state.rules
    rec = {"game": rules.name, "options": dict(rules.options), "players": list(new_match["players"]),
           "teams": new_match.get("teams"), "stake": new_match["stake"],
           "first_dealer": hands[0]["dealer"] if hands else (state.seats[state.dealer] if state.dealer >= 0 else HOUSE_NAME),
           "hands": hands, **stored_rules(rules)}
    if rules.first_cut_bonus:
        rec["first_cut_bonus"] = state.cut_bonus
    if state.rows_named is not None:         # G6: the side the table named to score the rows
        rec["rows"] = side_key(state, state.rows_named)
    return rec


# --- replay -----------------------------------------------------------------------------------

def side_key(state: MatchState, index: int) -> str:
    """Return how a record result names side ``index``: the player's name, or team1/team2."""
    s = state.sides[index]
    return s.id if len(s.players) > 1 else s.name


def _key_of_id(state: MatchState, side_id: "str | list[str] | None") -> "str | list[str] | None":
    if side_id is None:
        return None
    if isinstance(side_id, list):
        return [_key_of_id(state, s) for s in side_id]
    ids = [s.id for s in state.sides]
    return side_key(state, ids.index(side_id))


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise RecordError(message)


def _new_match_command(record: dict) -> dict:
    _check(isinstance(record, dict), "a record must be a JSON object")
    for key in ("game", "players", "hands"):
        _check(key in record, f"the record has no {key!r}")
    _check(isinstance(record["hands"], list), "hands must be a list")
    cmd = {"type": "new_match", "game": record["game"], "options": record.get("options") or {},
           "players": record["players"], "teams": record.get("teams"), "stake": record.get("stake", 1),
           "first_dealer": record.get("first_dealer")}
    if record.get("first_cut_bonus") is False:
        cmd["cut_bonus"] = False
    if record.get("rows") is not None:
        cmd["rows"] = record["rows"]
    # the rules it was played under: what a record does not name is the rule of every record
    # exported before it could (rulesets.STORED_DEFAULTS, e.g. go_lead other_player); passed only
    # where today's rule would play differently (an unknown game is refused by new_match itself)
    try:
        differs = stored_rules(get_ruleset(record["game"], **cmd["options"]), cmd["options"])
    except (RulesError, TypeError):
        differs = {}
    cmd.update({k: old for k, old in STORED_DEFAULTS.items() if k in differs})
    cmd.update({k: record[k] for k in STORED_DEFAULTS if k in record})
    return cmd


def _go_words(go: "dict | None") -> str:
    return "none" if go is None else f"{go['player']}'s after {go['after']} cards"


class _Driver:
    """Feeds one record's hands into a table, inferring the gos between the plays."""

    def __init__(self, table, record: dict, on_step: Callable[[str, dict], None] | None = None) -> None:
        self.table = table
        self.record = record
        self.on_step = on_step
        self.where = "start"
        self._held: dict[str, list] = {}      # the current hand's held cards by player (deal games)

    @property
    def state(self) -> MatchState:
        return self.table.state

    def submit(self, cmd: dict, where: str) -> None:
        self.where = where
        try:
            self.table.submit(cmd)
        except RulesError as exc:
            raise RecordError(f"{where}: {exc}") from None
        if self.on_step:
            self.on_step(where, cmd)

    def run(self) -> None:
        self.submit(_new_match_command(self.record), "start")
        hands = self.record["hands"]
        for i, hand in enumerate(hands, start=1):
            if self.state.over:
                raise RecordError(f"hand {i}: the game was already over after hand {i - 1}")
            _check(isinstance(hand, dict), f"hand {i}: a hand must be a JSON object")
            self.hand(i, hand)
            if self.state.over:
                if i < len(hands):
                    raise RecordError(f"hand {i + 1}: the game was already over after hand {i}")
                return

    def hand(self, i: int, hand: dict) -> None:
        st = self.state
        want = hand.get("dealer")
        if want is not None and self.state.hand is not None:
            _check(want == self.state.hand.dealer_name,
                   f"hand {i}: the dealer is {self.state.hand.dealer_name}, the record says {want}")
        extras = []
        for kind, key in (("muggins", "muggins"), ("peg", "pegs"), ("claim", "play_claims"), ("claim", "line_claims")):
            listed = hand.get(key) or []
            _check(isinstance(listed, list), f"hand {i}: {key} must be a list")
            for e in listed:
                _check(isinstance(e, dict) and isinstance(e.get("at", 0), int) and not isinstance(e.get("at"), bool),
                       f"hand {i}: each of {key} is an object with a whole-number \"at\"")
                _check(not isinstance(e.get("n", 0), bool) and isinstance(e.get("n", 0), int),
                       f"hand {i}: each of {key} has a whole-number \"n\" if any")
                extras.append((kind, e))
        # by position; at one position by ``n`` (their order), else muggins first, then claims, then pegs
        extras.sort(key=lambda e: (e[1].get("at", 0), e[1].get("n", {"muggins": -3, "claim": -2}.get(e[0], -1))))
        self._extras = extras
        self._i = i
        if st.rules.grid:
            self.grid_hand(i, hand)
        else:
            self.deal_hand(i, hand)
        if not self.state.over:
            self.flush(10 ** 9)

    def flush(self, k: int | None = None) -> None:
        """Submit the manual pegs and muggins calls due at hand position ``k`` (default: now)."""
        if k is None:
            k = self.state.hand.entries
        while self._extras and not self.state.over:
            kind, e = self._extras[0]
            if e.get("at", 0) > k:
                return
            self._extras.pop(0)
            if kind == "peg":
                self.submit({"type": "peg", "side": e.get("side"), "points": e.get("points")},
                            f"hand {self._i}, manual peg of {e.get('points')} for {e.get('side')}")
            elif kind == "claim":
                cmd = {"type": "claim", "points": e.get("claimed")}
                if e.get("side") is not None:
                    cmd["side"] = e["side"]
                self.submit(cmd, f"hand {self._i}, claim of {e.get('claimed')}"
                            + (f" by {e['side']}" if e.get("side") is not None else ""))
            else:
                self.submit({"type": "muggins", "side": e.get("caller")}, f"hand {self._i}, muggins")

    def entry(self, cmd: dict, where: str) -> bool:
        """Submit one card entry after the extras due before it; return True when the game is over."""
        self.flush()
        if self.state.over:
            return True
        self.submit(cmd, where)
        return self.state.over

    def held_cards(self, i: int, hand: dict) -> dict[str, str]:
        """Return card -> holder for hand ``i``'s held cards, checked against each other, the turn-up and
        the pocket before any of the hand is entered (so a card listed twice is refused with its step even
        when the game ends before that card would be shown).

        :raises RecordError: a bad card, too many cards, or a card in two places.
        """
        rules = self.state.rules
        held = hand.get("held") or {}
        _check(isinstance(held, dict), f"hand {i}: held must map names to cards")
        where: dict[str, str] = {}
        for what, cards in (("the turn-up", [hand.get("turnup")]), (f"in the {rules.pocket_name}", hand.get("pocket"))):
            _check(cards is None or isinstance(cards, list), f"hand {i}: {what} must be a list of cards")
            for c in cards or []:
                try:
                    key = str(parse_card(c))
                except RulesError as exc:
                    raise RecordError(f"hand {i}, {what.removeprefix('in ')}: {exc}") from None
                _check(key not in where, f"hand {i}, {what.removeprefix('in ')}: {key} is listed twice")
                where[key] = what
        holder: dict[str, str] = {}
        for name, cards in held.items():
            _check(isinstance(cards, list), f"hand {i}: {name}'s held cards must be a list")
            _check(len(cards) <= rules.held, f"hand {i}: {name} holds {len(cards)} cards; "
                                             f"a {rules.title} hand holds {rules.held}")
            for c in cards:
                try:
                    key = str(parse_card(c))
                except RulesError as exc:
                    raise RecordError(f"hand {i}, {name}'s held cards: {exc}") from None
                _check(holder.get(key) != name, f"hand {i}, {name}'s held cards: {key} is listed twice")
                _check(key not in holder, f"hand {i}: {key} is held by both {holder.get(key)} and {name}")
                _check(key not in where, f"hand {i}, {name}'s held cards: {key} is also {where.get(key)}")
                holder[key] = name
        return holder

    def deal_hand(self, i: int, hand: dict) -> None:
        rules = self.state.rules
        turnup = hand.get("turnup")
        if turnup is None:
            return
        held = hand.get("held") or {}
        holder = self.held_cards(i, hand)
        self._held = {name: [parse_card(c) for c in cards] for name, cards in held.items()}
        if self.entry({"type": "turnup", "card": turnup}, f"hand {i}, turn-up {turnup}"):
            return
        plays = hand.get("plays") or []
        _check(isinstance(plays, list), f"hand {i}: plays must be a list of cards")
        for n, c in enumerate(plays, start=1):
            try:
                card = parse_card(c)
            except RulesError as exc:
                raise RecordError(f"hand {i}, play {n}: {exc}") from None
            who = holder.get(str(card))
            _check(who is not None, f"hand {i}, play {n}: {card} is played but nobody holds it")
            if card in self.state.hand.seen:
                raise RecordError(f"hand {i}, play {n} ({card} by {who}): {card} is already out: "
                                  f"{self.state.hand.seen[card]}")
            # everyone before the card's holder, or everyone while the card does not fit, said go
            for _ in range(4 * len(self.state.seats)):
                h = self.state.hand
                if h.stage != "pegging" or (self.state.seats[h.turn] == who and h.count + card.value <= 31):
                    break
                turn = self.state.seats[h.turn]
                if self.entry_go(turn, f"hand {i}, play {n} ({card} by {who}) means {turn} said go"):
                    return
            if self.entry({"type": "play", "card": str(card), "player": who},
                          f"hand {i}, play {n} ({card} by {who})"):
                return
        complete = hand.get("pocket") is not None or (
            held and all(len(held.get(name, [])) == rules.held for name in self.state.seats))
        self.trailing_gos(i, hand)
        while complete and not self.state.over and self.state.hand.stage == "pegging":
            turn = self.state.seats[self.state.hand.turn]
            if self.entry_go(turn, f"hand {i}, after the plays: {turn} says go"):
                return
        self.check_gos(i, hand)
        if self.state.over or self.state.hand.stage != "show":
            return
        claims = hand.get("claims") or {}
        _check(isinstance(claims, dict), f"hand {i}: claims must map names to points")
        for seat in list(self.state.hand.show_order):
            name = self.state.seats[seat]
            if not complete and len(held.get(name) or []) < rules.held:
                return
            cmd = {"type": "show", "player": name, "cards": held.get(name)}
            if name in claims:
                cmd["claimed"] = claims[name]
            if self.entry(cmd, f"hand {i}, {name}'s show"):
                return
        pocket = hand.get("pocket")
        if pocket is None:
            return
        cmd = {"type": "pocket", "cards": pocket}
        if hand.get("pocket_claim") is not None:
            cmd["claimed"] = hand["pocket_claim"]
        self.entry(cmd, f"hand {i}, {rules.pocket_name}")

    def check_gos(self, i: int, hand: dict) -> None:
        """A record that lists its gos (``gos``: ``{"player", "after"}``, as exported since issue 24) must list
        the ones its plays imply, in order: the table derives them by the turn order (M2) as it replays; a
        record made before lists none and is taken as its plays say.

        :raises RecordError: a malformed list, or gos other than those the plays imply.
        """
        listed = hand.get("gos")
        if listed is None:
            return
        _check(isinstance(listed, list) and all(
            isinstance(g, dict) and set(g) == {"player", "after"} and isinstance(g["player"], str)
            and isinstance(g["after"], int) and not isinstance(g["after"], bool) for g in listed),
            f'hand {i}: gos must be a list of {{"player", "after"}}')
        said = [g.to_dict() for g in self.state.hand.peg.goes]
        if listed[:len(said)] != said or not self.state.over and len(listed) != len(said):
            where = next((n for n, (a, b) in enumerate(zip(listed, said)) if a != b), min(len(listed), len(said)))
            want = listed[where] if where < len(listed) else None
            got = said[where] if where < len(said) else None
            raise RecordError(f"hand {i}: the record's go {where + 1} is {_go_words(want)}, but its plays mean "
                              f"{_go_words(got)}")

    def trailing_gos(self, i: int, hand: dict) -> None:
        n = hand.get("then_go", 0)
        _check(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 8, f"hand {i}: then_go must be 0..8")
        hand = dict(hand, then_go=0)
        for _ in range(n):
            if self.state.over or self.state.hand.stage != "pegging":
                return
            turn = self.state.seats[self.state.hand.turn]
            if self.entry_go(turn, f"hand {i}, after the plays: {turn} says go"):
                return

    def entry_go(self, player: str, where: str) -> bool:
        self.flush()
        if self.state.over:
            return True
        # the record lists the player's hand: a go while holding a card that fits is refused here, at the
        # go, and not only at the show (which a game that ends first never reaches)
        h = self.state.hand
        seat = self.state.seats.index(player)
        if h.go_wrong(self.state, seat) is None:      # else the table refuses the go itself, saying why
            for c in self._held.get(player, []):
                if c in h.plays[seat] or h.count + c.value > 31:
                    continue
                raise RecordError(f"{where}, but {player}'s hand holds {c}, which fits "
                                  f"({h.count} + {c.value} = {h.count + c.value})")
        self.submit({"type": "go", "player": player}, where)
        return self.state.over

    def grid_hand(self, i: int, hand: dict) -> None:
        turnup = hand.get("turnup")
        places = hand.get("places")
        grid = hand.get("grid")
        _check(places is None or isinstance(places, list), f"hand {i}: places must be a list")
        _check(grid is None or (isinstance(grid, list) and len(grid) == 25),
               f"hand {i}: grid must list 25 cards in row order")
        placed = [c for c in grid or [] if c is not None]
        if places:
            if turnup is None or self.entry({"type": "turnup", "card": turnup}, f"hand {i}, centre card {turnup}"):
                return
            for n, p in enumerate(places, start=1):
                _check(isinstance(p, dict), f"hand {i}, place {n}: a placement must be an object")
                cmd = {"type": "place", **{k: p[k] for k in ("card", "row", "col", "crib", "player") if k in p}}
                where = f"hand {i}, place {n} ({p.get('card')}" + (" to the crib)" if p.get("crib") else
                                                                  f" at row {p.get('row')}, col {p.get('col')})")
                if self.entry(cmd, where):
                    return
            return
        if len(placed) <= 1:                       # nothing placed yet: at most the centre card
            if turnup is not None:
                self.entry({"type": "turnup", "card": turnup}, f"hand {i}, centre card {turnup}")
            return
        _check(len(placed) == 25, f"hand {i}: grid must list 25 cards in row order")
        if turnup is not None:
            if self.entry({"type": "turnup", "card": turnup}, f"hand {i}, centre card {turnup}"):
                return
        self.entry({"type": "layout", "cards": grid, "crib": hand.get("crib") or []}, f"hand {i}, layout")


def drive(table, record: dict, on_step: Callable[[str, dict], None] | None = None) -> None:
    """Submit ``record``'s commands to ``table`` (a new match), stopping at the first refusal;
    ``on_step(where, command)`` is called after each accepted one.

    :raises RecordError: naming the wrong step and why.
    """
    _Driver(table, record, on_step).run()


def result_of(table, error: str | None = None) -> dict:
    """Return the replay result dict of ``table``'s current game."""
    st = table.state
    out: dict[str, Any] = {"valid": error is None}
    if error is not None:
        out["error"] = error
    if st.rules is None:
        out.update(finished=False, scores={}, winner=None, loser=None, ended_at=None, multipliers={},
                   settlement={}, hands=[])
        return out
    res = st.result
    out["finished"] = res is not None
    out["game"] = st.rules.name
    out["scores"] = {side_key(st, i): s.score for i, s in enumerate(st.sides)}
    out["winner"] = _key_of_id(st, res["winner"]) if res else None
    out["loser"] = _key_of_id(st, res["loser"]) if res else None
    out["ended_at"] = {"hand": res["hand"], "phase": _phase_name(res)} if res else None
    out["multipliers"] = {_key_of_id(st, k): v for k, v in res["multipliers"].items()} if res else {}
    out["settlement"] = {_key_of_id(st, k): v for k, v in res["settlement"].items()} if res else {}
    hands: dict[int, list[dict]] = {}
    for step in st.steps:
        if step["game"] != st.game_no:
            continue
        rec = {k: step[k] for k in ("kind", "text", "points", "score", "player", "step") if k in step}
        rec["credited"] = _key_of_id(st, step["side"])
        if step.get("card"):
            rec["card"] = step["card"]
        if step.get("items"):
            rec["items"] = step["items"]
        hands.setdefault(step["hand"], []).append(rec)
    out["hands"] = [{"hand": h, "steps": hands[h]} for h in sorted(hands)]
    return out


def _phase_name(res: dict) -> str:
    phase = res.get("phase")
    return {"grid": "show", "over": "show", "manual": "show"}.get(phase, phase)


# --- text ------------------------------------------------------------------------------------
