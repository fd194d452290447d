"""Placing a tabletop round's cards: on the 5x5 grid or into the crib, one by one or all at once.

Players place in turn starting left of the dealer (T1, G1). ``adjacent``
placement needs a card touching an existing one by side or corner (T1, G2);
``anywhere`` takes any empty cell (G5). Where the ruleset has a crib, each
player puts exactly ``grid_crib_each`` cards into it over the round and is
made to when the turns left equal the cards still owed. The whole layout may
also be entered at once, before any card is placed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import IllegalAction, InvalidCard
from ..hand import STAGE_WORDS
from ..match import parse_command_card
from ..names import card_list, seat_named
from ..steps import Outcome
from ..view import MatchView
from .count import count_round

if TYPE_CHECKING:
    from . import GridHand

SIZE = 5
CENTRE = (2, 2)


def touches(cells, row: int, col: int) -> bool:
    """True when the cell has a neighbour (side or corner) holding a card."""
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            if (dr or dc) and 0 <= r < SIZE and 0 <= c < SIZE and cells[r][c] is not None:
                return True
    return False


def with_cell(cells, row: int, col: int, card) -> tuple:
    """Return the grid with ``card`` at ``row``, ``col``."""
    return tuple(tuple(card if (r, c) == (row, col) else x for c, x in enumerate(line))
                 for r, line in enumerate(cells))


def verify_place(hand: GridHand, state: MatchView, cmd: dict) -> dict:
    """``place {card, row, col}`` or ``place {card, crib: true}``: the player to place puts a card down."""
    if hand.stage != "place":
        raise IllegalAction("turn up the centre card first" if hand.stage == "cut"
                            else f"the round is {STAGE_WORDS.get(hand.stage, hand.stage)}")
    card = parse_command_card(cmd.get("card"))
    seat = hand.turn
    name = state.seats[seat]
    if cmd.get("player") is not None and seat_named(state, cmd["player"]) != seat:
        raise IllegalAction(f"it is {name}'s turn to place a card")
    if card in hand.seen:
        raise IllegalAction(hand.where(card), undo_to=hand.undo_point(card))
    ev = {"type": "place", "card": str(card), "player": name}
    if cmd.get("crib") is not None and not isinstance(cmd["crib"], bool):
        raise IllegalAction("crib is true or false")
    if cmd.get("crib"):
        if hand.crib_each == 0:
            raise IllegalAction(f"{state.rules.title} has no crib: place the card on the grid")
        if hand.crib_by[seat] >= hand.crib_each:
            raise IllegalAction(f"{name} has put {hand.crib_each} card{'s' if hand.crib_each > 1 else ''} "
                                f"into the crib already")
        ev["crib"] = True
        return ev
    if hand.must_crib(seat):
        owed = hand.crib_each - hand.crib_by[seat]
        raise IllegalAction(f"{name} must put this card into the crib: {owed} still owed "
                            f"and {owed} turn{'s' if owed > 1 else ''} left")
    row, col = cmd.get("row"), cmd.get("col")
    for v, what in ((row, "row"), (col, "col")):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < SIZE:
            raise IllegalAction(f"{what} must be 0..4 (or say crib: true)")
    if hand.cells[row][col] is not None:
        raise IllegalAction(f"row {row}, col {col} already holds {hand.cells[row][col]}")
    if state.rules.grid_placement == "adjacent" and not touches(hand.cells, row, col):
        raise IllegalAction(f"row {row}, col {col} touches no card: a card must touch another "
                            f"by side or corner")
    ev.update(row=row, col=col)
    return ev


def apply_place(hand: GridHand, state: MatchView, ev: dict) -> Outcome:
    card = parse_command_card(ev["card"])
    seat = state.seats.index(ev["player"])
    used_by = tuple(n + (i == seat) for i, n in enumerate(hand.used_by))
    if ev.get("crib"):
        hand = replace(hand, used_by=used_by, crib=hand.crib + (card,),
                       crib_by=tuple(n + (i == seat) for i, n in enumerate(hand.crib_by)),
                       seen=hand.seen.plus({card: "in the crib"}),
                       places=hand.places + ({"player": ev["player"], "card": ev["card"], "crib": True},))
    else:
        row, col = ev["row"], ev["col"]
        hand = replace(hand, used_by=used_by, cells=with_cell(hand.cells, row, col, card),
                       seen=hand.seen.plus({card: f"on the grid at row {row}, col {col}"}),
                       places=hand.places + ({"player": ev["player"], "card": ev["card"], "row": row, "col": col},))
    if len(hand.places) == hand.total_turns:
        return count_round(hand, state)
    return Outcome(replace(hand, turn=state.next_seat(hand.turn)))


def verify_layout(hand: GridHand, state: MatchView, cmd: dict) -> dict:
    """``layout {cards, crib}``: the whole round at once (25 cards in row order, the centre card 13th)."""
    if hand.stage not in ("cut", "place") or hand.places:
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
    if hand.turnup is not None and cards[12] is not hand.turnup:
        raise IllegalAction(f"the centre card is {hand.turnup}, not {cards[12]}")
    return {"type": "layout", "cards": [str(c) for c in cards], "crib": [str(c) for c in crib]}


def apply_layout(hand: GridHand, state: MatchView, ev: dict) -> Outcome:
    cards = [parse_command_card(c) for c in ev["cards"]]
    scored: tuple = ()
    if hand.turnup is None:
        # the centre card counts as an entry of its own, as a replay enters it
        first = replace(hand, entries=hand.entries + 1).apply_turnup(state, {"card": ev["cards"][12]})
        hand, scored = first.hand, first.scored
    crib = tuple(parse_command_card(c) for c in ev["crib"])
    hand = replace(hand, cells=tuple(tuple(cards[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)),
                   crib=hand.crib + crib,
                   seen=hand.seen.plus({c: "on the grid" for c in cards}, keep=True)
                   .plus({c: "in the crib" for c in crib}, keep=True))
    counted = count_round(hand, state)
    return counted._replace(scored=scored + counted.scored)
