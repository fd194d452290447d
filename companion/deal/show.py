"""The shows of a deal game's hand: the order they come in, each show, and the pocket (crib).

The shows are counted in the ruleset's order (the turn order from the dealer's left,
or the non-dealing team first) and the game stops the moment a score reaches the
target (C4). A show lists the cards its player held; when they played all of them
the plays say it. The cards shown are checked against the plays: a card played by
another player, a card out elsewhere, or a card that would have fitted when its
player said go is refused with the event to undo back to. The pocket belongs to the
side the ruleset says (L1, H2–H4) and is scored as a crib.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..claims import claim_of, claim_words, open_claim
from ..errors import IllegalAction, InvalidCard
from ..match import parse_command_card
from ..names import card_list, seat_named
from ..scoring import number_words, score_hand
from ..steps import Outcome, Step
from ..view import MatchView

if TYPE_CHECKING:
    from . import DealHand


def show_order(state: MatchView) -> tuple[int, ...]:
    """Return the seats in the order they show: from the dealer's left, the dealer last; with
    ``show_order="teams"`` the non-dealing team first (stable: a dealing house keeps the turn order)."""
    order = [state.next_seat(state.dealer, steps=k) for k in range(1, len(state.seats) + 1)]
    if state.rules.show_order == "teams":
        dside = state.dealer_side()
        order.sort(key=lambda s: state.seat_side[s] == dside)
    return tuple(order)


def show_doubt(hand: DealHand) -> list:
    """Return the guessed cards the next show must settle, as ``(card, credit)`` (``[]``: none).

    A card entered for the player to play where that player might have said go (a guessed credit,
    ``Credit.guess``) as the answer to the page's "whose card?" (the play's ``answered``) leaves
    the cards entered by turn after it in doubt too, so a show is not confirmed from the plays by a yes
    (issue 36): it names who played each guessed card (``named``: a wrong name is
    refused with the amend that moves the card, and every later card entered by turn with it), or lists its
    cards, checked against the plays. A card named once is settled; once all shows but one have listed
    their cards, the last hand is what is left of the plays.
    """
    if hand.listed >= len(hand.show_order) - 1:
        return []
    return [(c, cr) for c, cr in hand.peg.credits
            if cr.guess and not cr.implied and str(c) in hand.asked and str(c) not in hand.named]


def _doubt_words(doubt: list) -> str:
    return ", ".join(f"{c} went to {cr.player} at {cr.count - c.value}, where {cr.player} might have said go"
                     for c, cr in doubt)


def _named(hand: DealHand, state: MatchView, named) -> dict:
    """Return ``named`` (``{card: player}``: who played each card in doubt, as answered) checked against the
    credits: a card credited to another player is refused with the event that credited it (its fix moves it).
    A list of cards is what an amend re-derives an answered show with (:func:`companion.amend.as_entered`):
    each card as credited now (the amend that moved one is the newer word)."""
    again = isinstance(named, list) and bool(named) and all(isinstance(c, str) for c in named)
    if again:
        named = {c: None for c in named}
    if not isinstance(named, dict) or not named:
        raise IllegalAction('named says who played each card in doubt: {"2D": "Ann"}')
    out = {}
    for text, who in named.items():
        card = parse_command_card(text)
        cr = hand.peg.credit(card)
        if cr is None:
            raise IllegalAction(f"{card} was not played in this hand")
        if again:
            out[str(card)] = cr.player
            continue
        if not isinstance(who, str):
            raise IllegalAction(f"named: say whose {card} was by a player's name")
        player = state.seats[seat_named(state, who)]
        if player != cr.player:
            raise IllegalAction(f"{card} was entered as {cr.player}'s at event {cr.seq} (count {cr.count - card.value}), "
                                f"not {player}'s: fix event {cr.seq}, then count the hand",
                                undo_to=cr.seq)
        out[str(card)] = player
    return out


def verify_show(hand: DealHand, state: MatchView, cmd: dict) -> dict:
    """``show {cards?, player?, claimed?}``: the next player's hand, checked against what they played."""
    if hand.stage != "show":
        raise hand.wrong_stage(state, "show a hand")
    held = hand.peg.held
    seat = hand.show_order[len(hand.shows)]
    name = state.seats[seat]
    if cmd.get("player") is not None and seat_named(state, cmd["player"]) != seat:
        order = ", ".join(state.seats[s] for s in hand.show_order)
        raise IllegalAction(f"it is {name}'s show next (order: {order})")
    played = hand.plays[seat]
    if cmd.get("cards") is None:
        if len(played) != held:
            raise IllegalAction(f"{name} played {len(played)} of {held} cards: list the {held} cards {name} held")
        named = _named(hand, state, cmd["named"]) if cmd.get("named") is not None else {}
        doubt = [(c, cr) for c, cr in show_doubt(hand) if str(c) not in named]
        if doubt:
            raise IllegalAction(f"{_doubt_words(doubt)}: say who played {'it' if len(doubt) == 1 else 'each'}, or "
                                f"list the {held} cards {name} holds (a yes cannot settle it)",
                                in_doubt=[str(c) for c, _ in doubt])
        cards = tuple(played)
    else:
        if cmd.get("named") is not None:
            raise IllegalAction(f"list {name}'s cards or name who played the cards in doubt, not both")
        named = {}
        cards = card_list(cmd["cards"], f"{name}'s hand")
        if len(cards) != held:
            raise InvalidCard(f"{name}'s hand holds {held} cards, not {len(cards)}")
        missing = [c for c in played if c not in cards]
        taken = [c for c in cards if (cr := hand.peg.credit(c)) is not None and cr.seat != seat]
        if missing and taken:   # cards swapped between players: undo back to the first wrong credit
            wrong = sorted(((hand.peg.credit(c), c) for c in missing + taken), key=lambda x: x[0].seq)
            raise IllegalAction(f"{name}'s hand does not match the plays: " + ", ".join(
                f"{c} was entered as {cr.player}'s at event {cr.seq}" for cr, c in wrong)
                + f": undo back to event {wrong[0][0].seq} and enter each card for its player",
                undo_to=wrong[0][0].seq)
        for c in missing:
            raise IllegalAction(f"{name} played {c}, so it must be in the hand shown{hand.credit_note(c)}",
                                undo_to=hand.undo_point(c))
        hand.check_unseen(c for c in cards if c not in played)
    for g in hand.peg.goes:
        if g.seat != seat:
            continue
        before = set(played[:g.played])
        for c in cards:
            if c not in before and c.value <= 31 - g.count:
                raise IllegalAction(f"{name} said go at a count of {g.count} while holding {c}, "
                                    f"which fits ({g.count + c.value}): undo back to the go "
                                    f"(event {g.seq}) and fix it", undo_to=g.seq,
                                    false_go={"seq": g.seq, "player": name})
    total = score_hand(cards, hand.turnup, game=state.rules).total if state.rules.claim_mode else 0
    claimed = claim_of(state, cmd, total, name)
    ev = {"type": "show", "player": name, "cards": [str(c) for c in cards]}
    if cmd.get("cards") is None:
        ev["from_plays"] = True    # confirmed from the plays: an amend re-derives the cards
    if named:
        ev["named"] = named
    if claimed is not None:
        ev["claimed"] = claimed
    return ev


def apply_show(hand: DealHand, state: MatchView, ev: dict) -> Outcome:
    seat = state.seats.index(ev["player"])
    cards = tuple(parse_command_card(c) for c in ev["cards"])
    bd = score_hand(cards, hand.turnup, game=state.rules)
    side = state.seat_side[seat]
    claimed = ev.get("claimed")
    pts = bd.total if claimed is None else claimed
    hand = replace(hand, seen=hand.seen.plus({c: f"shown by {ev['player']}" for c in cards}, keep=True),
                   listed=hand.listed + (not ev.get("from_plays")), named=hand.named | set(ev.get("named") or ()),
                   shows=hand.shows + ({"player": ev["player"], "side": state.sides[side].id,
                                        "cards": list(ev["cards"]), "points": pts, "claimed": claimed,
                                        "breakdown": bd.to_dict()},))
    text, items = (bd.text, [i.to_dict() for i in bd.items]) if claimed is None else (claim_words(ev["player"], claimed), None)
    step = Step(side, pts, "show", text, "show", items=items, player=ev["player"])
    after = replace(hand, pending=open_claim(hand, state, side, claimed, bd.total, ev["player"]))
    if len(after.shows) == len(after.show_order):
        after = replace(after, stage="pocket")
    return Outcome(after, ((step, hand),))


def verify_pocket(hand: DealHand, state: MatchView, cmd: dict) -> dict:
    """``pocket {cards, claimed?}``: the four cards of the pocket (crib)."""
    if hand.stage != "pocket":
        raise hand.wrong_stage(state, f"show the {state.rules.pocket_name}")
    cards = card_list(cmd.get("cards"), f"the {state.rules.pocket_name}")
    if len(cards) != 4:
        raise InvalidCard(f"the {state.rules.pocket_name} holds 4 cards, not {len(cards)}")
    hand.check_unseen(cards)
    total = score_hand(cards, hand.turnup, crib=True, game=state.rules).total if state.rules.claim_mode else 0
    owner = state.sides[state.pocket_owner()].name
    claimed = claim_of(state, cmd, total, f"{owner} ({state.rules.pocket_name})")
    ev = {"type": "pocket", "cards": [str(c) for c in cards]}
    if claimed is not None:
        ev["claimed"] = claimed
    return ev


def apply_pocket(hand: DealHand, state: MatchView, ev: dict) -> Outcome:
    cards = tuple(parse_command_card(c) for c in ev["cards"])
    bd = score_hand(cards, hand.turnup, crib=True, game=state.rules)
    side = state.pocket_owner()
    claimed = ev.get("claimed")
    pts = bd.total if claimed is None else claimed
    hand = replace(hand, seen=hand.seen.plus({c: f"in the {state.rules.pocket_name}" for c in cards}, keep=True),
                   pocket={"side": state.sides[side].id, "cards": list(ev["cards"]), "points": pts,
                           "claimed": claimed, "breakdown": bd.to_dict()})
    name = state.sides[side].name
    text, items = (bd.text, [i.to_dict() for i in bd.items]) if claimed is None else (claim_words(name, claimed), None)
    step = Step(side, pts, "pocket", text, "pocket", items=items, player=name)
    after = replace(hand, pending=open_claim(hand, state, side, claimed, bd.total, state.rules.pocket_name), stage="done")
    return Outcome(after, ((step, hand),), then="next_hand")
