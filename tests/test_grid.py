"""Tabletop grids: lines scored as 5-card hands, flush and nobs by preset, a whole layout."""

from __future__ import annotations

import pytest

from companion import InvalidCard, score_grid, score_line

# Row order; the centre card (13th) is 10D. JD sits in the centre column (row 4).
LAYOUT = """
7C 7D 7H 8S 9S
10S KH 9C 5D 5H
3H 4C 10D 2S 4D
AS QC JD 6H 2C
KS 3C 8H 6D AC
""".split()


@pytest.mark.parametrize("cards,game,total", [
    # the seed's own examples (table top cribbage)
    ("7C 7D 7H 8S 9S", "table-top-cribbage", 21),
    ("10H KS 9D 5C 5S", "table-top-cribbage", 10),
    ("3H 4C 10D 2S 4D", "table-top-cribbage", 10),
    ("7S JC 9D 10C JH", "table-top-cribbage", 8),
    # flushes: five of a suit everywhere; four of five only in the variation
    ("AH 3H 7H 9H QH", "table-top-cribbage", 5),
    ("AH 3H 7H 9H QH", "table-top-cribbage-31", 5),
    ("AH 3H 7H 9H QH", "lands-end-tabletop", 5),
    ("AH 3H 7H 9H QS", "table-top-cribbage", 0),
    ("AH 3H 7H 9H QS", "table-top-cribbage-31", 4),
    # Land's End tabletop: a zero line scores 5 (T2)
    ("AH 3H 7H 9H QS", "lands-end-tabletop", 5),
    ("2H 4S 6D 8C KD", "lands-end-tabletop", 5),
    ("2H 4S 6D 8C KD", "table-top-cribbage", 0),
])
def test_lines(cards, game, total):
    assert score_line(cards.split(), game=game).total == total


def test_four_card_flush_names_its_four_cards():
    b = score_line("AH 3H 7H 9H QS".split(), game="table-top-cribbage-31")
    assert [(i.kind, [str(c) for c in i.cards], i.points) for i in b.items] == [("flush", ["AH", "3H", "7H", "9H"], 4)]


def test_seed_nobs_line_counts_nine_with_the_centre_card_only_in_table_top_cribbage():
    line = "7S JC 9H 10C JH".split()
    b = score_line(line, game="table-top-cribbage", center="9H")
    assert b.total == 9
    assert [(i.kind, [str(c) for c in i.cards]) for i in b.items][-1] == ("nobs", ["JH"])
    assert score_line(line, game="table-top-cribbage-31", center="9H").total == 9
    assert score_line(line, game="lands-end-tabletop", center="9H").total == 8
    assert score_line(line, game="table-top-cribbage").total == 8


def test_a_jack_that_is_the_centre_card_is_not_nobs():
    assert score_line("JH 2C 4D 6S 8C".split(), game="table-top-cribbage", center="JH").total == 0


def test_the_centre_card_must_be_in_its_line():
    with pytest.raises(InvalidCard, match="the centre card 9H is not in this line"):
        score_line("7S JC 9D 10C JH".split(), center="9H")


@pytest.mark.parametrize("cards,message", [
    ("7S JC 9D 10C", "a grid line holds 5 cards, not 4"),
    ("7S JC 9D 10C 7S", "duplicate card in grid line: 7S"),
])
def test_bad_lines(cards, message):
    with pytest.raises(InvalidCard, match=message):
        score_line(cards.split())


def test_layout_table_top_cribbage_nobs_in_the_centre_column():
    g = score_grid(LAYOUT)
    assert [b.total for b in g.rows] == [21, 10, 10, 0, 2]
    assert [b.total for b in g.cols] == [0, 0, 8, 4, 4]
    assert (g.rows_total, g.cols_total) == (43, 16)
    # JD is in row 4 too, which is not a centre line: no nobs there
    assert [i.kind for i in g.rows[3].items] == []
    assert [(i.kind, [str(c) for c in i.cards]) for i in g.cols[2].items] == [
        ("fifteen", ["7H", "8H"]), ("run", ["7H", "8H", "9C", "10D", "JD"]), ("nobs", ["JD"])]
    assert [str(c) for c in g.cols[2].cards] == ["7H", "9C", "10D", "JD", "8H"]
    assert [b.label for b in g.rows + g.cols] == [f"row {i}" for i in range(1, 6)] + [f"column {i}" for i in range(1, 6)]


def test_layout_lands_end_tabletop_has_no_nobs_and_zero_lines_score_five():
    g = score_grid(LAYOUT, game="lands-end-tabletop")
    assert [b.total for b in g.rows] == [21, 10, 10, 5, 2]
    assert [b.total for b in g.cols] == [5, 5, 7, 4, 4]
    assert (g.rows_total, g.cols_total) == (48, 25)


def test_layout_variation_same_here_no_four_flush_in_it():
    g = score_grid(LAYOUT, game="table-top-cribbage-31")
    assert (g.rows_total, g.cols_total) == (43, 16)


def test_jack_in_the_centre_row_scores_for_the_rows():
    layout = list(LAYOUT)
    i, j = layout.index("JD"), layout.index("2S")        # JD to row 3, col 4; 2S to row 4, col 3
    layout[i], layout[j] = layout[j], layout[i]
    g = score_grid(layout)
    assert g.rows[2].items[-1].kind == "nobs"
    assert [i.kind for i in g.cols[2].items].count("nobs") == 0
    assert [i.kind for i in score_grid(layout, game="lands-end-tabletop").rows[2].items].count("nobs") == 0


def test_to_dict():
    d = score_grid(LAYOUT).to_dict()
    assert (d["rows_total"], d["cols_total"]) == (43, 16)
    assert d["cols"][2]["items"][-1] == {"kind": "nobs", "cards": ["JD"], "points": 1}
    assert d["rows"][0]["label"] == "row 1"


@pytest.mark.parametrize("cards,message", [
    (LAYOUT[:24], "a grid holds 25 cards, not 24"),
    (LAYOUT[:24] + ["7C"], "duplicate card in grid: 7C"),
    (LAYOUT[:24] + ["ZZ"], "not a card: 'ZZ'"),
])
def test_bad_grids(cards, message):
    with pytest.raises(InvalidCard, match=message):
        score_grid(cards)
