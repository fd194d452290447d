"""Where the seed sheets differ from standard cribbage (issue 15): G7 the variation's crib flush of
four, S3 skunk lines that move with the target, H6 the house's hand scored as a pocket, G8 another
round after a tie over the target. Every number is counted by hand in the comments."""

from __future__ import annotations

import pytest

from companion.commands import fold
from companion.rulesets import get_ruleset, stored_rules
from companion.scoring import score_hand
from engine_play import new_table


def scores(t):
    return [s["score"] for s in t.snapshot()["sides"]]


# --- G7: the variation's crib counts a flush of four ------------------------------------------------

@pytest.mark.parametrize("crib, centre, total, flush", [
    # 2+4+9 and 6+9 are the fifteens (4); four hearts in the crib: a flush of four (4). Total 8.
    ("2H 4H 6H 8H", "9S", 8, 4),
    # three hearts in the crib and the heart in the centre: four of the five, 4. Total 4 + 4 = 8.
    ("2H 4H 6H 8S", "9H", 8, 4),
    # all five hearts: 5. Total 4 + 5 = 9.
    ("2H 4H 6H 8H", "9H", 9, 5),
    # two hearts, two spades and the centre heart: three of a suit at most, no flush. Total 4.
    ("2H 4H 6S 8S", "9H", 4, 0),
])
def test_the_variation_crib_counts_a_flush_of_four(crib, centre, total, flush):
    b = score_hand(crib.split(), centre, crib=True, game="table-top-cribbage-31")
    assert b.total == total
    assert sum(i.points for i in b.items if i.kind == "flush") == flush


def test_the_121_game_crib_keeps_the_flush_of_five_only():
    # G3: "scored as a standard crib": 2H 4H 6H 8H with 9S has no flush there, only the fifteens (4)
    assert score_hand("2H 4H 6H 8H".split(), "9S", crib=True, game="table-top-cribbage").total == 4
    assert get_ruleset("table-top-cribbage-31").pocket_flush == "four"


# --- S3: skunk lines move with the target -------------------------------------------------------------

def peg_to(t, side, points):
    while points:
        p = min(points, 29)
        t.submit({"type": "peg", "side": side, "points": p})
        points -= p


@pytest.mark.parametrize("target, loser_score, k", [
    # 121: lines at 91 and 61 (S1)
    (121, 91, 1), (121, 90, 2), (121, 60, 3),
    # 61: lines 30 and 60 below, at 31 and 1: 31 single, 30 double, 0 triple
    (61, 31, 1), (61, 30, 2), (61, 1, 2), (61, 0, 3),
    # 60: lines at 30 and 0; a line at 0 does not apply, so 0 is a double game
    (60, 30, 1), (60, 29, 2), (60, 0, 2),
    # 131: lines at 101 and 71
    (131, 101, 1), (131, 100, 2), (131, 70, 3),
])
def test_cribbage_skunk_lines_sit_30_and_60_below_the_target(target, loser_score, k):
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob", options={"target": target}, stake=2)
    peg_to(t, "p2", loser_score)
    peg_to(t, "p1", target)                                   # Ann reaches the target and wins
    res = t.snapshot()["result"]
    assert (res["winner"], res["multipliers"], res["skunk"]) == ("p1", {"p1": k}, k - 1)
    assert res["settlement"] == {"p1": 2 * k, "p2": -2 * k}


def test_reverse_cribbage_mirrors_the_moved_lines():
    # S2 + S3 at 61: Bob reaches 61 while Ann is on 30, under the line at 31: Bob loses a double game
    t = new_table("reverse-cribbage", ["Ann", "Bob"], first_dealer="Bob", options={"target": 61}, stake=1)
    peg_to(t, "p1", 30)
    peg_to(t, "p2", 61)
    res = t.snapshot()["result"]
    assert (res["loser"], res["winner"], res["multipliers"]) == ("p2", "p1", {"p1": 2})


def test_book_rules_line_moves_too_and_named_bands_stay():
    # book rules: one line, 60 below the target; at 61 it sits at 1
    assert get_ruleset("cribbage", book_rules=True, target=61).multipliers == ((1, 1), (0, 2))
    # bands a table names itself are not moved
    assert get_ruleset("cribbage", target=61, multipliers=[[50, 1], [0, 2]]).multipliers == ((50, 1), (0, 2))
    # Land's End has no skunk: its bands do not move with a target
    assert get_ruleset("lands-end", target=21).multipliers == get_ruleset("lands-end").multipliers


def test_a_stored_match_with_a_target_keeps_the_lines_it_was_played_under():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob", options={"target": 61})
    first = t.history()[0]
    assert first["skunk_lines"] == "target"
    assert "skunk_lines" not in new_table("cribbage", ["Ann", "Bob"]).history()[0]     # 121: nothing moves
    # the same event as a table wrote it before S3: every win at 61 was a triple game
    old = {k: v for k, v in first.items() if k not in ("skunk_lines", "steps", "undone")}
    st = fold([old, {"type": "peg", "side": "p2", "points": 29}, {"type": "peg", "side": "p2", "points": 11},
               *[{"type": "peg", "side": "p1", "points": p} for p in (29, 29, 3)]])
    assert st.rules.multipliers == ((91, 1), (61, 2), (0, 3))
    assert st.result["multipliers"] == {"p1": 3}                  # Bob on 40 was "under 61"
    assert stored_rules(st.rules) == {}


# --- H6: the house's hand in four-hand casino is scored as a pocket ------------------------------------

# House deals; Ann & Cy (team1) against Bob & Di (team2); every matching point to the other team (M3).
# Ann KH QC JD 10C, Bob 9S 8H 4S 6C, Cy 7D 3H KS 5S, Di AS QD 9D JC; turn-up 2C.
H6_PLAY = [
    ("play", "KH", "Ann"), ("play", "9S", "Bob"), ("play", "7D", "Cy"), ("play", "AS", "Di"),   # 27
    ("go", None, "Ann"), ("play", "4S", "Bob"),            # 31 for two, Bob's: team1 2
    ("play", "3H", "Cy"), ("play", "QD", "Di"), ("play", "QC", "Ann"),                            # pair: team2 2
    ("play", "8H", "Bob"),                                 # 3+10+10+8 = 31 for two: team1 4
    ("play", "KS", "Cy"), ("play", "9D", "Di"), ("play", "JD", "Ann"),                            # 29
    ("go", None, "Bob"), ("go", None, "Cy"), ("go", None, "Di"), ("go", None, "Ann"),             # go, Ann's: team2 3
    ("play", "6C", "Bob"), ("play", "5S", "Cy"), ("play", "JC", "Di"),
    ("play", "10C", "Ann"),                                # 6+5+10+10 = 31, the last card too: team2 5
]
# shows (M4: the house deals, so the teams in turn order: Ann, Bob, Cy, Di): Ann 10-J-Q-K run 4: team1 8;
# Bob 9+6, 9+4+2: 4: team2 9; Cy 7+3+5, K+5, K+3+2: 6: team1 14; Di no fifteen, pair or run, but JC
# is the jack of the turn-up's suit: nobs 1: team2 10.
# The house's hand (the pocket) AH 7H 9H QH with 2C: no fifteen, pair or run, and four hearts make no
# pocket flush (only all five, L4), so 0; and a 0 pocket stays 0 (L3) - as a hand it would score 4.
H6_POCKET = ["AH", "7H", "9H", "QH"]


@pytest.mark.parametrize("options, house", [({}, 0), ({"zero_bonus_pocket": True}, 5)])
def test_the_house_hand_is_scored_as_a_pocket(options, house):
    t = new_table("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], options=options)
    t.submit({"type": "turnup", "card": "2C"})
    for kind, card, player in H6_PLAY:
        t.submit({"type": kind, "player": player, **({"card": card} if card else {})})
    assert scores(t) == [4, 5, 0]
    for _ in range(4):
        t.submit({"type": "show"})
    assert scores(t) == [14, 10, 0]
    t.submit({"type": "pocket", "cards": H6_POCKET})
    assert scores(t) == [14, 10, house]
    assert score_hand(H6_POCKET, "2C", game="lands-end-casino-4").total == 4       # the same cards as a hand
    # with 5H turned up all five are hearts: flush 5, and A+9+5, Q+5 two fifteens: 9
    assert score_hand(H6_POCKET, "5H", crib=True, game="lands-end-casino-4").total == 5 + 2 + 2


# --- G8: a tie over the target after a round plays another round ------------------------------------

def test_table_top_cribbage_a_tie_over_the_target_plays_another_round():
    from test_grid_rows import CRIB, ZERO_ROWS
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    peg_to(t, "p1", 120)
    peg_to(t, "p2", 101)
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    # Ann's rows 7: 127; Bob's columns 20 and crib 6: 127. Both over 121, level: no winner (G8)
    assert scores(t) == [127, 127] and t.snapshot()["result"] is None
    assert t.snapshot()["hand_no"] == 2 and t.snapshot()["hand"]["expect"] == "turnup"
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    # round 2, Ann deals and keeps the rows (G6): Bob's columns 20: 147; Ann's rows 7 and crib 6: 140
    assert scores(t) == [140, 147]
    assert t.snapshot()["result"]["winner"] == "p2"
