"""A tabletop round as a value: the centre card, card-by-card placement on the 5x5 grid, the round count.

Placement (and the whole layout at once): :mod:`companion.grid.placement`. The round
count, line by line or by difference, and its claims: :mod:`companion.grid.count`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import claims
from ..errors import IllegalAction
from ..hand import EntryHand
from ..match import MatchState, parse_command_card
from ..scoring import number_words
from ..steps import Outcome, Step
from .count import Line, line_owners
from .placement import CENTRE, SIZE, touches  # noqa: F401  (CENTRE, SIZE: the grid's shape, for importers)


@dataclass(frozen=True, kw_only=True)
class GridHand(EntryHand):
    """One round of a tabletop game."""

    kind = "grid"
    cells: tuple[tuple, ...]                    # 5x5, None for an empty cell
    cutter: int
    each: int                                   # cards each player puts down over the round
    crib_each: int                              # of them into the crib
    crib: tuple = ()
    crib_by: tuple[int, ...]                    # per seat, cards put into the crib
    used_by: tuple[int, ...]                    # per seat, cards put down
    places: tuple[dict, ...] = ()
    lines: tuple[dict, ...] = ()                # the lines counted (or claimed), in order
    turn: int | None = None
    heels: int = 0                              # heels kept as the dealer's hand points (difference scoring)
    to_claim: tuple[Line, ...] = ()             # claim mode: the lines still to claim, in counting order

    @classmethod
    def new(cls, state: MatchState) -> "GridHand":
        n = len(state.seats)
        return cls(**cls.carried(state), cells=((None,) * SIZE,) * SIZE, cutter=state.next_seat(state.dealer),
                   each=state.rules.grid_cards_each, crib_each=state.rules.grid_crib_each,
                   crib_by=(0,) * n, used_by=(0,) * n)

    @property
    def phase(self) -> str:
        return "grid"

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
            return state.sides[self.to_claim[0].side].name
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

    def touches(self, row: int, col: int) -> bool:
        """True when the cell has a neighbour (side or corner) holding a card."""
        return touches(self.cells, row, col)

    # --- the centre card ------------------------------------------------------------------
    def verify_turnup(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "cut":
            raise IllegalAction(f"the centre card is already {self.turnup}")
        card = parse_command_card(cmd.get("card"))
        return {"type": "turnup", "card": str(card)}

    def apply_turnup(self, state: MatchState, ev: dict) -> Outcome:
        from .placement import with_cell
        card = parse_command_card(ev["card"])
        hand = replace(self, turnup=card, cells=with_cell(self.cells, *CENTRE, card),
                       seen=self.seen.plus({card: "it is the centre card"}))
        heels = state.rules.heels
        scored = ()
        if card.rank == 11 and heels:
            if state.rules.round_scoring == "difference":
                # G5: heels are the dealer's hand points of the round; only the round's margin is scored
                hand = replace(hand, heels=heels)
                scored = ((Step(state.dealer_side(), 0, "heels", f"{number_words(heels)} for his heels "
                                f"(hand points for {self.dealer_name})", "cut", player=self.dealer_name), hand),)
            else:
                scored = ((Step(state.dealer_side(), heels, "heels", f"{number_words(heels)} for his heels", "cut",
                                player=self.dealer_name), hand),)
        return Outcome(replace(hand, stage="place", turn=state.next_seat(state.dealer)), scored)

    # --- views ---------------------------------------------------------------------------------
    def grid_strings(self) -> list[list[str | None]]:
        """Return the 5x5 grid as card strings (None for empty cells)."""
        return [[str(c) if c is not None else None for c in row] for row in self.cells]

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
            "lines": [claims.veiled(self, state, x) for x in self.lines],
            "to_claim": [{"side": state.sides[x.side].id, "label": x.label} for x in self.to_claim],
            # who scores which lines this round (T1; G6: one side keeps the rows all game)
            "rows": state.sides[line_owners(state)[0]].id,
            "columns": state.sides[line_owners(state)[1]].id,
        })
        return snap
