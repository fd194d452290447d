"""G6: in Table Top Cribbage the sides keep their lines for the whole game; Tabletop Land's End keeps
T1 (the rows go to each round's non-dealer). Counted by hand on one layout, entered in two rounds."""

from __future__ import annotations

import pytest

from companion.errors import IllegalAction
from companion.commands import fold
from companion.scoring import score_grid, score_hand
from engine_play import new_table
from test_grid_play import ZERO_ROWS

CRIB = ["2H", "4C", "5D", "5H"]
# ZERO_ROWS, centre KS (no heels):
# rows    0, 0, 1 (JS: nobs, the jack of the centre's suit in the centre row), 0, 6 (7C 7D 7S): 7
# columns 3S JD 6S 8C 5C: J+5 = 2;  10S AD 3H AS 9S: 10+3+A+A = 2, pair of aces 2: 4;
#         KD 10H KS QS 7C: pair of kings 2;  6H 8H JS JC 7D: 8+7 = 2, pair of jacks 2, run 6-7-8 3: 7;
#         QH 2D AC 3D 7S: Q+2+3 = 2, run A-2-3 3: 5.   2 + 4 + 2 + 7 + 5 = 20
# crib 2H 4C 5D 5H with KS: K+5, K+5 = 4, pair of fives 2: 6
ROWS, COLS, CRIB_POINTS = 7, 20, 6


def test_the_layouts_count_as_counted_by_hand():
    grid = score_grid(ZERO_ROWS, game="table-top-cribbage")
    assert [b.total for b in grid.rows] == [0, 0, 1, 0, 6]
    assert [b.total for b in grid.cols] == [2, 4, 2, 7, 5]
    assert score_hand(CRIB, "KS", crib=True, game="table-top-cribbage").total == CRIB_POINTS


def test_the_side_left_of_the_first_dealer_scores_the_rows_all_game():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    hand = t.snapshot()["hand"]
    assert (hand["rows"], hand["columns"]) == ("p1", "p2")           # Ann, left of Bob, places first
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    # round 1, Bob deals: Ann's rows 7; Bob's columns 20 and his crib 6
    assert [s["score"] for s in t.snapshot()["sides"]] == [ROWS, COLS + CRIB_POINTS]
    hand = t.snapshot()["hand"]
    assert t.snapshot()["dealer"] == "Ann" and (hand["rows"], hand["columns"]) == ("p1", "p2")
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    # round 2, Ann deals and keeps the rows: Ann 7 + 7 + her crib 6 = 20; Bob 26 + 20 = 46
    # (the old rule gave the rows to Bob, the non-dealer: 33 each)
    assert [s["score"] for s in t.snapshot()["sides"]] == [2 * ROWS + CRIB_POINTS, 2 * COLS + CRIB_POINTS]
    # the non-dealer counts first: Bob's columns, then Ann's rows, then Ann's crib
    round2 = [(s["side"], s["text"].split(":")[0]) for s in t.state.steps if s["kind"] in ("line", "crib")][11:]
    assert round2 == [("p2", f"column {i}") for i in range(1, 6)] + [("p1", f"row {i}") for i in range(1, 6)] \
        + [("p1", "crib")]


def test_new_match_may_name_the_rows_side():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob", rows="Bob")
    assert t.history()[0]["rows"] == "p2"
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    # Bob deals and holds the rows: Ann's columns 20 first; Bob's rows 7 and crib 6
    assert [s["score"] for s in t.snapshot()["sides"]] == [COLS, ROWS + CRIB_POINTS]
    assert t.export_record()["rows"] == "Bob"
    with pytest.raises(IllegalAction, match="rows must name a side or a player"):
        new_table("table-top-cribbage", ["Ann", "Bob"], rows="Zed")
    with pytest.raises(IllegalAction, match=r"no rows to name: the rows go to each round's non-dealer \(T1\)"):
        new_table("lands-end-tabletop", ["Ann", "Bob"], rows="Ann")
    with pytest.raises(IllegalAction, match="not a tabletop game"):
        new_table("lands-end", ["Ann", "Bob"], rows="Ann")


def test_a_new_game_may_name_the_rows_side_and_otherwise_the_left_of_its_first_dealer():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob", series={"kind": "first_to", "n": 9})
    for _ in range(4):
        t.submit({"type": "peg", "side": "p1", "points": 29})
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})          # Ann 116 + 7 = 123 > 26: Ann wins
    assert t.snapshot()["result"]["winner"] == "p1"
    t.submit({"type": "new_game"})                                        # the deal passes: Ann deals first
    assert t.snapshot()["dealer"] == "Ann" and t.snapshot()["hand"]["rows"] == "p2"    # Bob, left of Ann
    t.submit({"type": "undo"})
    t.submit({"type": "new_game", "rows": "Ann"})
    assert t.snapshot()["hand"]["rows"] == "p1"


def test_four_hand_partnerships_keep_their_lines():
    t = new_table("table-top-cribbage", ["Ann", "Bob", "Cy", "Di"], first_dealer="Di", options={"players": 4})
    # Ann sits left of Di: Ann & Cy (team1) score the rows for the whole game
    assert t.snapshot()["hand"]["rows"] == "team1"
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    assert t.snapshot()["dealer"] == "Ann" and t.snapshot()["hand"]["rows"] == "team1"


def test_tabletop_lands_end_keeps_the_rows_with_each_rounds_non_dealer():
    # T1: rows to the non-dealer of each round; ZERO_ROWS scores rows 5+5+1+5+6 = 22 in Land's End
    # (a 0 line scores 5), so a first round would end the game: the rounds are told apart by dealer
    for dealer, rows, cols in (("Bob", "p1", "p2"), ("Ann", "p2", "p1")):
        t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer=dealer)
        assert (t.snapshot()["hand"]["rows"], t.snapshot()["hand"]["columns"]) == (rows, cols)
        assert "grid_rows" not in t.history()[0]
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p2", "points": 14})
    t.submit({"type": "peg", "side": "p1", "points": 1})
    t.submit({"type": "layout", "cards": ZERO_ROWS})
    # Ann counts first: row 1 scores 5 (a 0 line, T2): Ann 6; row 2 5: 11; row 3 JS is no nobs
    # here (no nobs in Land's End) so 0, 5: 16: Ann reaches 16 and loses on her third row
    res = t.snapshot()["result"]
    assert (res["loser"], [s["score"] for s in t.snapshot()["sides"]]) == ("p1", [16, 14])


def test_an_old_table_top_match_folds_with_the_rows_of_each_rounds_non_dealer():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    first = t.history()[0]
    assert first["grid_rows"] == "fixed"
    old = {k: v for k, v in first.items() if k not in ("grid_rows", "steps", "undone")}
    layout = {"type": "layout", "cards": ZERO_ROWS, "crib": CRIB}
    st = fold([old, dict(layout), dict(layout)])
    # the old rule: round 2's rows are Bob's (the non-dealer): Ann 7 + 20 + 6, Bob 26 + 7
    assert st.rules.grid_rows == "non_dealer" and [s.score for s in st.sides] == [33, 33]


def test_records_name_the_rule_and_an_old_record_replays_with_the_old_rows():
    from companion.replay import replay
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    for _ in range(2):
        t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": CRIB})
    rec = t.export_record()
    assert rec["grid_rows"] == "fixed" and "rows" not in rec
    assert replay(rec)["scores"] == {"Ann": 20, "Bob": 46}
    old = {k: v for k, v in rec.items() if k != "grid_rows"}       # as exported before G6
    assert replay(old)["scores"] == {"Ann": 33, "Bob": 33}
