"""Tabletop card entry: the centre card, card-by-card placement on the 5x5 grid, and the round count.

Players place in turn starting left of the dealer (T1, G1). ``adjacent``
placement needs a card touching an existing one by side or corner (T1, G2);
``anywhere`` takes any empty cell (G5). Where the ruleset has a crib, each
player puts exactly ``grid_crib_each`` cards into it over the round and is
made to when the turns left equal the cards still owed. After the last card
the round is counted: the non-dealing side's lines one by one, the dealer's
side's lines, then the dealer's crib with the centre card as starter, stopping the
moment a score ends the game; with ``round_scoring="difference"`` the side
with more hand points gains the margin as one step (G5); ``reach="highest"``
decides only after both sides counted (G4). The rows go to each round's non-dealer
(T1, ``grid_rows="non_dealer"``) or, in Table Top Cribbage, to one side for the whole
game: the side of the player left of the game's first dealer, or the side ``new_match``
or ``new_game`` names (G6, ``grid_rows="fixed"``).
"""

from __future__ import annotations

import copy

from .cards import Card
from .errors import IllegalAction, InvalidCard
from .hand import EntryHand, STAGE_WORDS, card_list, next_hand, seat_named, side_named
from .match import HAND_FACTORIES, MatchState, parse_command_card
from .scoring import number_words, score_grid, score_hand

SIZE = 5
CENTRE = (2, 2)


class GridHand(EntryHand):
    """One round of a tabletop game."""

    kind = "grid"

    def __init__(self, state: MatchState) -> None:
        super().__init__(state)
        rules = state.rules
        n = len(state.seats)
        self.stage = "cut"
        self.cells: list[list[Card | None]] = [[None] * SIZE for _ in range(SIZE)]
        self.crib: list[Card] = []
        self.crib_by = [0] * n
        self.used_by = [0] * n
        self.each = rules.grid_cards_each
        self.crib_each = rules.grid_crib_each
        self.places: list[dict] = []
        self.lines: list[dict] = []
        self.cutter = state.next_seat(state.dealer)
        self.heels = 0                      # heels kept as the dealer's hand points (difference scoring)
        self.to_claim: list[dict] = []      # claim mode: the lines still to claim, in counting order
        self.hand_points: dict[int, int] = {}   # claim mode, difference scoring: claimed hand points by side

    # --- what comes next -------------------------------------------------------------------
    @property
    def total_turns(self) -> int:
        """Cards the players put down over the round (grid and crib)."""
        return self.each * len(self.used_by)

    def expect(self, state: MatchState) -> str:
        return {"cut": "turnup", "place": "place", "count": "claim"}.get(self.stage, "none")

    def expect_player(self, state: MatchState) -> str | None:
        if self.stage == "cut":
            return state.seats[self.cutter]
        if self.stage == "place":
            return state.seats[self.turn]
        if self.stage == "count" and self.to_claim:
            return state.sides[self.to_claim[0]["side"]].name
        return None

    def wrong_command(self, state: MatchState, kind: str) -> str:
        if kind in ("play", "go", "show", "pocket"):
            return (f"{state.rules.title} is a tabletop game: there is no {kind}; "
                    f"place cards on the grid (or enter the layout)")
        return f"unknown card-entry command {kind!r}"

    def must_crib(self, seat: int) -> bool:
        """True when ``seat`` has as many turns left as crib cards still owed."""
        owed = self.crib_each - self.crib_by[seat]
        return owed > 0 and self.each - self.used_by[seat] == owed

    # --- commands ----------------------------------------------------------------------------
    def decide_turnup(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "cut":
            raise IllegalAction(f"the centre card is already {self.turnup}")
        card = parse_command_card(cmd.get("card"))
        return {"type": "turnup", "card": str(card)}

    def apply_turnup(self, state: MatchState, ev: dict) -> None:
        card = parse_command_card(ev["card"])
        self.turnup = card
        self.cells[2][2] = card
        self.seen[card] = "it is the centre card"
        state.phase = "cut"
        heels = state.rules.heels
        if card.rank == 11 and heels:
            if state.rules.round_scoring == "difference":
                # G5: heels are the dealer's hand points of the round; only the round's margin is scored
                self.heels = heels
                state.award(state.dealer_side(), 0, kind="heels", player=self.dealer_name,
                            text=f"{number_words(heels)} for his heels (hand points for {self.dealer_name})")
            elif state.award(state.dealer_side(), heels, kind="heels", player=self.dealer_name,
                             text=f"{number_words(heels)} for his heels"):
                return
        self.stage = "place"
        self.turn = state.next_seat(state.dealer)
        state.phase = "grid"

    def decide_place(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "place":
            raise IllegalAction("turn up the centre card first" if self.stage == "cut"
                                else f"the round is {STAGE_WORDS.get(self.stage, self.stage)}")
        card = parse_command_card(cmd.get("card"))
        seat = self.turn
        name = state.seats[seat]
        if cmd.get("player") is not None and seat_named(state, cmd["player"]) != seat:
            raise IllegalAction(f"it is {name}'s turn to place a card")
        if card in self.seen:
            raise IllegalAction(self.where(card))
        ev = {"type": "place", "card": str(card), "player": name}
        if cmd.get("crib") is not None and not isinstance(cmd["crib"], bool):
            raise IllegalAction("crib is true or false")
        if cmd.get("crib"):
            if self.crib_each == 0:
                raise IllegalAction(f"{state.rules.title} has no crib: place the card on the grid")
            if self.crib_by[seat] >= self.crib_each:
                raise IllegalAction(f"{name} has put {self.crib_each} card{'s' if self.crib_each > 1 else ''} "
                                    f"into the crib already")
            ev["crib"] = True
            return ev
        if self.must_crib(seat):
            owed = self.crib_each - self.crib_by[seat]
            raise IllegalAction(f"{name} must put this card into the crib: {owed} still owed "
                                f"and {owed} turn{'s' if owed > 1 else ''} left")
        row, col = cmd.get("row"), cmd.get("col")
        for v, what in ((row, "row"), (col, "col")):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < SIZE:
                raise IllegalAction(f"{what} must be 0..4 (or say crib: true)")
        if self.cells[row][col] is not None:
            raise IllegalAction(f"row {row}, col {col} already holds {self.cells[row][col]}")
        if state.rules.grid_placement == "adjacent" and not self.touches(row, col):
            raise IllegalAction(f"row {row}, col {col} touches no card: a card must touch another "
                                f"by side or corner")
        ev.update(row=row, col=col)
        return ev

    def touches(self, row: int, col: int) -> bool:
        """True when the cell has a neighbour (side or corner) holding a card."""
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = row + dr, col + dc
                if (dr or dc) and 0 <= r < SIZE and 0 <= c < SIZE and self.cells[r][c] is not None:
                    return True
        return False

    def apply_place(self, state: MatchState, ev: dict) -> None:
        card = parse_command_card(ev["card"])
        seat = state.seats.index(ev["player"])
        self.used_by[seat] += 1
        if ev.get("crib"):
            self.crib.append(card)
            self.crib_by[seat] += 1
            self.seen[card] = "in the crib"
            self.places.append({"player": ev["player"], "card": ev["card"], "crib": True})
        else:
            self.cells[ev["row"]][ev["col"]] = card
            self.seen[card] = f"on the grid at row {ev['row']}, col {ev['col']}"
            self.places.append({"player": ev["player"], "card": ev["card"], "row": ev["row"], "col": ev["col"]})
        if len(self.places) == self.total_turns:
            self.count_round(state)
        else:
            self.turn = state.next_seat(self.turn)

    def decide_layout(self, state: MatchState, cmd: dict) -> dict:
        if self.stage not in ("cut", "place") or self.places:
            raise IllegalAction("the layout can only be entered before any card is placed")
        cards = card_list(cmd.get("cards"), "the layout")
        if len(cards) != SIZE * SIZE:
            raise InvalidCard(f"a layout holds 25 cards in row order, not {len(cards)}")
        crib = card_list(cmd.get("crib") or [], "the crib")
        if len(crib) != state.rules.crib_total:
            raise InvalidCard(f"{state.rules.title} puts {state.rules.crib_total} cards into the crib, not {len(crib)}")
        both = set(cards) & set(crib)
        if both:
            raise InvalidCard(f"{min(both)} is both in the layout and in the crib")
        if self.turnup is not None and cards[12] is not self.turnup:
            raise IllegalAction(f"the centre card is {self.turnup}, not {cards[12]}")
        ev = {"type": "layout", "cards": [str(c) for c in cards], "crib": [str(c) for c in crib]}
        return ev

    def apply_layout(self, state: MatchState, ev: dict) -> None:
        cards = [parse_command_card(c) for c in ev["cards"]]
        if self.turnup is None:
            self.entries += 1       # the centre card counts as an entry of its own, as a replay enters it
            self.apply_turnup(state, {"card": ev["cards"][12]})
            if state.over:
                return
        for i, c in enumerate(cards):
            self.cells[i // SIZE][i % SIZE] = c
            self.seen.setdefault(c, "on the grid")
        for c in ev["crib"]:
            self.crib.append(parse_command_card(c))
            self.seen.setdefault(parse_command_card(c), "in the crib")
        self.count_round(state)

    # --- the count ---------------------------------------------------------------------------
    def line_owners(self, state: MatchState) -> tuple[int, int]:
        """Return ``(rows side, columns side)`` of this round: the non-dealer's rows (T1), or in
        Table Top Cribbage the side that scores the rows all game (G6, ``state.rows_side``)."""
        if state.rules.grid_rows == "fixed" and state.rows_side is not None:
            rows = state.rows_side
        else:
            rows = state.seat_side[state.next_seat(state.dealer)]
        cols = next(i for i in range(len(state.sides)) if i != rows)
        return rows, cols

    def count_round(self, state: MatchState) -> None:
        """Count the lines and the crib in order (T2, G3, G4, G5), then start the next round.

        The non-dealing side counts its lines first, then the dealer's side, then the dealer's
        crib; who owns rows and who columns is :meth:`line_owners`."""
        rules = state.rules
        self.stage = "count"
        self.turn = None
        state.phase = "grid"
        rows_side, cols_side = self.line_owners(state)
        dealer = state.dealer_side()
        flat = [c for row in self.cells for c in row]
        grid = score_grid(flat, game=rules)
        lines = [(rows_side, b) for b in grid.rows] + [(cols_side, b) for b in grid.cols]
        if rows_side == dealer:     # G6: the dealer's side holds the rows this round; the columns count first
            lines = lines[5:] + lines[:5]
        crib = score_hand(tuple(self.crib), self.turnup, crib=True, game=rules) if self.crib else None
        if rules.claim_mode:     # L8: each line is claimed by its owner, in this order
            self.to_claim = [{"side": s, "label": b.label, "breakdown": b} for s, b in lines]
            if crib is not None:
                self.to_claim.append({"side": dealer, "label": "crib", "breakdown": crib})
            self.hand_points = {lines[0][0]: 0, dealer: self.heels}
            return
        self.lines = [{"side": state.sides[s].id, "label": b.label, "points": b.total,
                       "breakdown": b.to_dict()} for s, b in lines]
        if crib is not None:
            self.lines.append({"side": state.sides[dealer].id, "label": "crib", "points": crib.total,
                               "breakdown": crib.to_dict()})
        if rules.round_scoring == "difference":
            points = {rows_side: grid.rows_total, cols_side: grid.cols_total}
            points[dealer] += (crib.total if crib else 0) + self.heels
            over = self.score_difference(state, points, heels=True)
        else:
            over = False
            for side, b in lines:
                if state.award(side, b.total, kind="line", text=f"{b.label}: {b.text}",
                               items=[i.to_dict() for i in b.items]):
                    over = True
                    break
            if not over and crib is not None:
                over = state.award(dealer, crib.total, kind="crib", text=f"crib: {crib.text}",
                                   items=[i.to_dict() for i in crib.items])
        if not over:
            self.end_round(state)

    def score_difference(self, state: MatchState, points: dict[int, int], *, heels: bool) -> bool:
        """G5: the side with more hand points this round gains the margin, as one step (the non-dealing
        side named first). Returns True when that ends the game."""
        dealer = state.dealer_side()
        first = next(i for i in points if i != dealer)
        mine, theirs = points.get(first, 0), points.get(dealer, 0)
        win = first if mine >= theirs else dealer
        margin = abs(mine - theirs)
        text = (f"{state.sides[first].name} {mine} against {state.sides[dealer].name} {theirs}: "
                + (f"{number_words(margin)} for {state.sides[win].name}" if margin else "level, nobody scores"))
        items = [{"kind": "hand points", "side": state.sides[first].id, "points": mine},
                 {"kind": "hand points", "side": state.sides[dealer].id, "points": theirs}]
        if heels and self.heels:
            items.append({"kind": "heels", "side": state.sides[dealer].id, "points": self.heels})
        return state.award(win, margin, kind="round", text=text, items=items)

    def end_round(self, state: MatchState) -> None:
        """After the last line: G4 decides over the target, then the next round starts."""
        if state.rules.reach == "highest":
            state.finish_round_highest()
            if state.over:
                return
        self.stage = "done"
        next_hand(state)

    # --- claim mode (L8): each line claimed by its owner in the counting order -----------
    def decide_claim(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "count" or not self.to_claim:
            raise IllegalAction("nothing to claim: " + ("the table is not in claim mode: the companion counts"
                                                        if not state.rules.claim_mode else
                                                        f"the round is {STAGE_WORDS.get(self.stage, self.stage)}"))
        line = self.to_claim[0]
        who = state.sides[line["side"]].name
        if cmd.get("side", cmd.get("player")) is not None:
            if side_named(state, cmd.get("side", cmd.get("player"))) != line["side"]:
                raise IllegalAction(f"it is {who}'s {line['label']} to claim next")
        claimed = self.claim_of(state, {"claimed": cmd.get("points", cmd.get("claimed"))},
                                line["breakdown"].total, who)
        return {"type": "claim", "line": line["label"], "claimed": claimed}

    def apply_claim(self, state: MatchState, ev: dict) -> None:
        self.age_claims(state, 1)       # each line's count is an entry (L8)
        line = self.to_claim.pop(0)
        side, b, claimed = line["side"], line["breakdown"], ev["claimed"]
        self.claims_log.append({"at": self.entries, "claimed": claimed, "n": self.next_n()})
        self.lines.append({"side": state.sides[side].id, "label": line["label"], "points": claimed,
                           "claimed": claimed, "breakdown": b.to_dict()})
        name = state.sides[side].name
        exact = claimed == b.total
        text = f"{line['label']}: " + (b.text if exact else f"{name} claims {number_words(claimed)}")
        kind = "crib" if line["label"] == "crib" else "line"
        if state.rules.round_scoring == "difference":
            # G5: claimed lines are hand points; the round's margin is scored after the last line
            self.hand_points[side] = self.hand_points.get(side, 0) + claimed
            state.award(side, 0, kind=kind, text=text + " (hand points)", items=[i.to_dict() for i in b.items] if exact else [])
            self.open_claim(state, side, claimed, b.total, name)
            if not self.to_claim:
                self.settle_difference(state)
            return
        if state.award(side, claimed, kind=kind, text=text, items=[i.to_dict() for i in b.items] if exact else []):
            return
        self.open_claim(state, side, claimed, b.total, name)
        if not self.to_claim:
            self.end_round(state)

    def settle_difference(self, state: MatchState) -> None:
        """G5 in claim mode: the side with more claimed hand points gains the margin."""
        rows_side, cols_side = self.line_owners(state)
        points = {s: self.hand_points.get(s, 0) for s in (rows_side, cols_side)}
        if self.score_difference(state, points, heels=False):
            return
        self.end_round(state)

    # --- views ---------------------------------------------------------------------------------
    def grid_strings(self) -> list[list[str | None]]:
        """Return the 5x5 grid as card strings (None for empty cells)."""
        return [[str(c) if c is not None else None for c in row] for row in self.cells]

    def record(self, state: MatchState) -> dict:
        rec = {"dealer": self.dealer_name, "turnup": str(self.turnup) if self.turnup else None,
               "grid": [c for row in self.grid_strings() for c in row], "crib": [str(c) for c in self.crib],
               "places": copy.deepcopy(self.places)} if self.places else {
                   "dealer": self.dealer_name, "turnup": str(self.turnup) if self.turnup else None,
                   "grid": [c for row in self.grid_strings() for c in row], "crib": [str(c) for c in self.crib]}
        self.extras_record(rec, "line_claims")
        return rec

    def summary(self) -> dict:
        return {"hand_no": self.hand_no, "dealer": self.dealer_name, "grid": self.grid_strings(),
                "crib": [str(c) for c in self.crib], "lines": list(self.lines)}

    def snapshot(self, state: MatchState) -> dict:
        """Return the grid part of the table snapshot (docs/architecture.md, "Card entry")."""
        snap = self.base_snapshot(state)
        snap.update({
            "grid": self.grid_strings(),
            "crib_count": len(self.crib),
            "crib_owed": {name: self.crib_each - self.crib_by[i] for i, name in enumerate(state.seats)},
            "cards_left": {name: self.each - self.used_by[i] for i, name in enumerate(state.seats)},
            "must_crib": self.stage == "place" and self.must_crib(self.turn),
            "placement": state.rules.grid_placement,
            "places": list(self.places),
            "lines": list(self.lines),
            "to_claim": [{"side": state.sides[x["side"]].id, "label": x["label"]} for x in self.to_claim],
            # who scores which lines this round (T1; G6: one side keeps the rows all game)
            "rows": state.sides[self.line_owners(state)[0]].id,
            "columns": state.sides[self.line_owners(state)[1]].id,
        })
        return snap


HAND_FACTORIES["grid"] = GridHand
