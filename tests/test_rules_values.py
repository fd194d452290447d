"""Shows, claims, muggins and the tabletop round count tested on values, without a table.

Each rule is a pure function of the match (ruleset, seats, sides) and a hand value; the
expected points are hand-checked.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion import claims
from companion.cards import parse_card
from companion.deal import DealHand, show
from companion.grid.count import round_steps
from companion.match import MatchState, build_seating
from companion.rulesets import get_ruleset
from companion.steps import Step


def match(game: str, players: list[str], *, dealer: int = 1, teams=None, **options) -> MatchState:
    """The match a rule reads: ruleset, seats and sides, the dealer (no table, no events)."""
    rules = get_ruleset(game, **options)
    seats, seat_side, sides = build_seating(rules, players, teams)
    return MatchState(rules=rules, seats=seats, seat_side=seat_side, sides=sides, dealer=dealer,
                      game_no=1, hand_no=1, seq=7, applied=7)


def test_show_order_turn_order_or_non_dealing_team_first():
    st = match("lands-end-3", ["Ann", "Bob", "Cy"], dealer=0)
    assert [st.seats[s] for s in show.show_order(st)] == ["Bob", "Cy", "Ann"]
    four = match("lands-end-4", ["Ann", "Bob", "Cy", "Di"], dealer=1, teams=[["Ann", "Cy"], ["Bob", "Di"]])
    assert [four.seats[s] for s in show.show_order(four)] == ["Cy", "Ann", "Di", "Bob"]


def shown_hand(st: MatchState, turnup: str) -> DealHand:
    hand = DealHand.new(st)
    return replace(hand, stage="show", turnup=parse_card(turnup), seen=hand.seen.plus({parse_card(turnup): "turn-up"}))


def test_a_show_is_a_step_of_its_own_stage_and_the_old_hand_is_unchanged():
    st = match("cribbage", ["Ann", "Bob"])
    hand = shown_hand(st, "5S")
    out = show.apply_show(hand, st, {"player": "Ann", "cards": ["5H", "5D", "JC", "10S"]})
    (step, at), = out.scored
    # three fives with J and 10: six fifteens of a ten-card and a five (12) + 5-5-5 (2) + pair royal (6);
    # no nobs (JC, turn-up 5S) = 20
    assert (step.side, step.points, step.kind, step.stage) == (0, 20, "show", "show")
    assert at.shows[-1]["points"] == 20 and out.hand.pending == () and out.then is None
    assert hand.shows == () and parse_card("5H") not in hand.seen and parse_card("5H") in out.hand.seen


def test_an_under_claim_is_left_open_to_muggins_with_what_was_missed():
    st = match("cribbage", ["Ann", "Bob"], claim_mode=True)
    hand = shown_hand(st, "5S")
    out = show.apply_show(hand, st, {"player": "Ann", "cards": ["5H", "5D", "JC", "10S"], "claimed": 12})
    (step, _), = out.scored
    assert (step.points, step.text) == (12, "Ann claims twelve")
    # open to muggins (L8) with where it was claimed: hand 1, the show; no entry made since
    assert out.hand.pending == (claims.Pending(side=0, missed=8, who="Ann", hand=1, phase="show", age=0),)
    assert claims.under_claim(out.hand, st) == {"side": "p1", "who": "Ann"}
    assert claims.muggins_calls(out.hand, st) == [{"side": "p1", "who": "Ann"}]
    ev = claims.verify_muggins(out.hand, st, {})
    assert ev == {"type": "muggins", "claimant": "p1", "caller": "p2", "missed": 8, "by_turn": True}
    (mug, _), = claims.apply_muggins(out.hand, st, ev).scored       # cribbage: the caller takes them
    assert (mug.side, mug.points, mug.stage) == (1, 8, "show")
    le = match("lands-end", ["Ann", "Bob"], claim_mode=True)      # Land's End: double against the claimant
    (mug, _), = claims.apply_muggins(replace(DealHand.new(le), pending=out.hand.pending), le, ev).scored
    assert (mug.side, mug.points, mug.text) == (0, 16, "muggins: Ann missed eight and scores sixteen more")


def test_the_pocket_ends_the_hand():
    st = match("cribbage", ["Ann", "Bob"])
    hand = replace(shown_hand(st, "5S"), stage="pocket")
    out = show.apply_pocket(hand, st, {"cards": ["AH", "2H", "3H", "9C"]})
    (step, _), = out.scored
    # the crib A 2 3 9 with 5: 9-5-A and 9-3-2-A (4), the run A-2-3 (3) = 7, to the dealer
    assert (step.side, step.points, step.kind, step.stage) == (1, 7, "pocket", "pocket")
    assert (out.hand.stage, out.then) == ("done", "next_hand")


def test_a_card_s_points_are_owed_and_then_claimed_in_counting_order():
    window = claims.Window("5S", "Bob")
    window, quiet = claims.owe(window, Step(0, 2, "play", "fifteen for two", "pegging", items=[{"k": 1}],
                                            player="Bob", card="5S"), 15)
    window, quiet2 = claims.owe(window, Step(0, 1, "last", "one for last", "pegging", player="Bob"), 15)
    assert (quiet.points, quiet.text, quiet.items) == (0, "fifteen", None) and quiet2.text == "last card"
    assert window.slots == (claims.Slot(0, (window.slots[0].steps), 3),) and len(window.slots[0].steps) == 2
    st = match("cribbage", ["Ann", "Bob"], claim_mode=True)
    hand = replace(DealHand.new(st), window=window)
    ev = claims.verify_play_claim(hand, st, {"points": 2})
    assert ev == {"type": "claim", "side": "p1", "claimed": 2, "by_turn": True}
    out = claims.apply_play_claim(hand, st, ev)
    assert [(s.points, s.kind, s.text) for s, _ in out.scored] == [(2, "play", "Ann claims two")]
    assert claims.muggins_calls(out.hand, st) == [{"side": "p1", "who": "Ann"}]
    assert claims.under_claim(out.hand, st) == {"side": "p1", "who": "Ann"}    # 2 of the 3 (one for last)
    with pytest.raises(Exception, match="Ann claims 4, more than the cards make"):
        claims.verify_play_claim(hand, st, {"points": 4})


@pytest.mark.parametrize("scoring,want", [
    ("points", [(0, 3, "line"), (0, 0, "line"), (1, 2, "line"), (1, 4, "crib")]),
    # Ann 3 against Bob 2 + 4 + heels 2 = 8: five for Bob
    ("difference", [(1, 5, "round")]),
])
def test_the_round_count_line_by_line_or_by_difference(scoring, want):
    st = match("table-top-cribbage", ["Ann", "Bob"], round_scoring=scoring)
    lines = [(0, "line", 3, "row 1: ...", []), (0, "line", 0, "row 2: ...", []),
             (1, "line", 2, "col 1: ...", []), (1, "crib", 4, "crib: ...", [])]
    steps = round_steps(st, lines, heels=2)
    assert [(s.side, s.points, s.kind) for s in steps] == want
    assert all(s.stage == "grid" for s in steps)
    if scoring == "difference":
        assert steps[0].text == "Ann 3 against Bob 8: five for Bob"
        assert steps[0].items[-1] == {"kind": "heels", "side": "p2", "points": 2}

