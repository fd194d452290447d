"""Tabletop card entry (T1, T2, G1-G5): the centre card, placement rules, the crib, the round count."""

import pytest

from companion.errors import InvalidCard
from companion.scoring import score_grid, score_hand
from engine_play import new_table
from test_hand_deal import refused, scores

# rows 1-4 score nothing (so 5 each in Tabletop Land's End), row 5 is 7C 7D 7S 9S 5C
ZERO_ROWS = ["3S", "10S", "KD", "6H", "QH",
             "JD", "AD", "10H", "8H", "2D",
             "6S", "3H", "KS", "JS", "AC",
             "8C", "AS", "QS", "JC", "3D",
             "5C", "9S", "7C", "7D", "7S"]


def place(card, row=None, col=None, **kw):
    c = {"type": "place", "card": card, **kw}
    if row is not None:
        c.update(row=row, col=col)
    return c


def test_heels_for_the_centre_card_only_where_the_ruleset_has_it():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "JH"})
    assert scores(t) == [0, 2] and t.snapshot()["last"]["text"] == "two for his heels"
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "JH"})
    assert scores(t) == [0, 0]


def test_adjacent_placement_must_touch_a_card_by_side_or_corner():
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "8D"})
    snap = t.snapshot()
    assert (snap["expect"], snap["expect_player"], snap["phase"]) == ("place", "Ann", "grid")   # non-dealer first
    assert refused(t, place("5C", 0, 0)) == "row 0, col 0 touches no card: a card must touch another by side or corner"
    assert refused(t, place("5C", 2, 2)) == "row 2, col 2 already holds 8D"
    assert refused(t, place("5C", 5, 0)) == "row must be 0..4 (or say crib: true)"
    assert refused(t, place("8D", 1, 1)) == "8D is already out: it is the centre card"
    assert refused(t, place("5C", 1, 1, player="Bob")) == "it is Ann's turn to place a card"
    assert refused(t, place("5C", crib=True)) == "Tabletop Land's End has no crib: place the card on the grid"
    t.submit(place("5C", 1, 1))                                 # corner of the centre
    t.submit(place("3H", 0, 0))                                 # touches 5C: Bob's turn
    snap = t.snapshot()
    assert snap["hand"]["grid"][0][:2] == ["3H", None] and snap["hand"]["grid"][1][1] == "5C"
    assert snap["hand"]["cards_left"] == {"Ann": 11, "Bob": 11}
    assert refused(t, place("4H", 4, 4)) == "row 4, col 4 touches no card: a card must touch another by side or corner"
    assert refused(t, {"type": "play", "card": "4H"}) == ("Tabletop Land's End is a tabletop game: there is no play; "
                                                        "place cards on the grid (or enter the layout)")


def test_anywhere_placement_in_the_variation():
    t = new_table("table-top-cribbage-31", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "8D"})
    t.submit(place("5C", 4, 4))
    assert t.snapshot()["hand"]["grid"][4][4] == "5C"


def test_crib_quota_and_forced_crib():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "8D"})
    cards = iter(c for c in ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH "
                             "AC 2C").split())
    cells = iter((r, c) for r in range(5) for c in range(5) if (r, c) != (2, 2))
    order = sorted(cells, key=lambda rc: max(abs(rc[0] - 2), abs(rc[1] - 2)))   # inside out: always touching
    cells = iter(order)
    # Ann puts her first two cards into the crib; a third is refused
    t.submit(place(next(cards), crib=True))                     # Ann
    t.submit(place(next(cards), *next(cells)))                  # Bob
    t.submit(place(next(cards), crib=True))                     # Ann: 2 of 2
    t.submit(place(next(cards), *next(cells)))                  # Bob
    assert refused(t, place("KC", crib=True)) == "Ann has put 2 cards into the crib already"
    # Bob places on the grid until he has as many turns left as crib cards owed
    while True:
        snap = t.snapshot()
        if snap["hand"]["must_crib"]:
            break
        if snap["expect_player"] == "Ann":
            t.submit(place(next(cards), *next(cells)))
        else:
            t.submit(place(next(cards), *next(cells)))
    snap = t.snapshot()
    assert snap["expect_player"] == "Bob" and snap["hand"]["cards_left"]["Bob"] == 2
    assert snap["hand"]["crib_owed"] == {"Ann": 0, "Bob": 2} and snap["hand"]["crib_count"] == 2
    assert refused(t, place("KC", 0, 0)) == "Bob must put this card into the crib: 2 still owed and 2 turns left"


def test_tabletop_lands_end_counts_rows_first_and_stops_at_16():
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob", stake=1)
    t.submit({"type": "layout", "cards": ZERO_ROWS})
    snap = t.snapshot()
    assert scores(t) == [20, 0]                                 # rows 1-4: nothing, so five each (T2)
    steps = [s for s in t.state.steps if s["kind"] == "line"]
    assert [s["text"] for s in steps] == [f"row {r}: nothing, so the zero-hand bonus scores five" for r in (1, 2, 3, 4)]
    assert [s["score"] for s in steps] == [5, 10, 15, 20]
    res = snap["result"]
    assert (res["loser"], res["hand"], res["multipliers"]) == ("p1", 1, {"p2": 4})


def test_layout_validation():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    assert refused(t, {"type": "layout", "cards": ZERO_ROWS[:24]}, InvalidCard) == \
        "a layout holds 25 cards in row order, not 24"
    assert refused(t, {"type": "layout", "cards": ZERO_ROWS, "crib": ["2H", "4C"]}, InvalidCard) == \
        "Table Top Cribbage puts 4 cards into the crib, not 2"
    assert refused(t, {"type": "layout", "cards": ZERO_ROWS, "crib": ["2H", "4C", "5D", "3S"]}, InvalidCard) == \
        "3S is both in the layout and in the crib"
    t.submit({"type": "turnup", "card": "8D"})
    assert refused(t, {"type": "layout", "cards": ZERO_ROWS, "crib": ["2H", "4C", "5D", "5H"]}) == \
        "the centre card is 8D, not KS"


def test_table_top_cribbage_counts_both_sides_then_the_crib_before_deciding():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    for _ in range(4):
        t.submit({"type": "peg", "side": "p1", "points": 29})
    t.submit({"type": "peg", "side": "p1", "points": 4})        # Ann 120
    crib = ["2H", "4C", "5D", "5H"]
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": crib})
    grid = score_grid(ZERO_ROWS, game="table-top-cribbage")
    cribs = score_hand(crib, "KS", crib=True, game="table-top-cribbage").total
    assert scores(t) == [120 + grid.rows_total, grid.cols_total + cribs]
    kinds = [s["kind"] for s in t.state.steps if s["kind"] in ("line", "crib")]
    assert kinds == ["line"] * 10 + ["crib"]                    # Ann passed 121 on her rows; Bob still counted
    # rows: nothing, nothing, JS with the centre KS in the centre row: nobs 1 (G3), nothing, 777 = 6
    assert [b.total for b in grid.rows] == [0, 0, 1, 0, 6] and grid.cols_total + cribs < 121
    assert t.snapshot()["result"]["winner"] == "p1"


def test_table_top_variation_scores_the_difference_as_game_points():
    t = new_table("table-top-cribbage-31", ["Ann", "Bob"], first_dealer="Bob")
    crib = ["2H", "4C", "5D", "5H"]
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": crib})
    grid = score_grid(ZERO_ROWS, game="table-top-cribbage-31")
    bob = grid.cols_total + score_hand(crib, "KS", crib=True, game="table-top-cribbage-31").total
    ann = grid.rows_total
    assert bob > ann
    assert scores(t) == [0, bob - ann]
    step = t.state.steps[-1]
    assert step["kind"] == "round" and step["points"] == bob - ann
    assert step["text"] == f"Ann {ann} against Bob {bob}: {__import__('companion.scoring').scoring.number_words(bob - ann)} for Bob"
    assert t.snapshot()["hand_no"] == 2 and t.snapshot()["dealer"] == "Ann"


def test_four_player_table_top_cribbage_partnerships_take_turns_around_the_table():
    t = new_table("table-top-cribbage", ["Ann", "Bob", "Cy", "Di"], first_dealer="Di", options={"players": 4})
    t.submit({"type": "turnup", "card": "8D"})
    snap = t.snapshot()
    assert [s["id"] for s in snap["sides"]] == ["team1", "team2"]
    assert snap["hand"]["cards_left"] == {"Ann": 7, "Bob": 7, "Cy": 7, "Di": 7}
    assert snap["hand"]["crib_owed"] == {"Ann": 1, "Bob": 1, "Cy": 1, "Di": 1}
    who = []
    for card, cell in (("AS", (1, 1)), ("2S", (1, 2)), ("3S", None), ("4S", (1, 3))):
        who.append(t.snapshot()["expect_player"])
        t.submit(place(card, *cell) if cell else place(card, crib=True))
    assert who == ["Ann", "Bob", "Cy", "Di"]
    t.submit(place("5S", 3, 1))                                 # Ann
    t.submit(place("6S", 3, 2))                                 # Bob
    assert refused(t, place("7S", crib=True)) == "Cy has put 1 card into the crib already"


def test_grid_snapshot_section():
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "8D"})
    t.submit(place("5C", 1, 2))
    t.submit(place("6C", crib=True))
    h = t.snapshot()["hand"]
    assert h["kind"] == "grid" and h["stage"] == "place" and h["placement"] == "adjacent"
    assert h["grid"][1] == [None, None, "5C", None, None] and h["grid"][2][2] == "8D"
    assert h["crib_count"] == 1 and h["crib_owed"] == {"Ann": 2, "Bob": 1}
    assert h["seen"] == ["5C", "6C", "8D"]
    assert (h["expect"], h["expect_player"]) == ("place", "Ann")
    assert h["places"] == [{"player": "Ann", "card": "5C", "row": 1, "col": 2},
                           {"player": "Bob", "card": "6C", "crib": True}]


@pytest.mark.parametrize("game", ["lands-end-tabletop", "table-top-cribbage"])
def test_grid_game_refuses_deal_commands(game):
    t = new_table(game, ["Ann", "Bob"], first_dealer="Bob")
    assert "is a tabletop game: there is no show" in refused(t, {"type": "show"})


def test_seed_placement_example_after_three_turns():
    """Seed 001: East deals, the centre is 8D; South 5C, West 3H, North 7D (top row): where may East play?"""
    t = new_table("table-top-cribbage", ["North", "East", "South", "West"], first_dealer="East",
                  options={"players": 4})
    t.submit({"type": "turnup", "card": "8D"})
    for card, row, col in (("5C", 1, 3), ("3H", 1, 2), ("7D", 0, 2)):
        t.submit(place(card, row, col))
    assert t.snapshot()["expect_player"] == "East"
    # north of the 7D is off the 5x5; the south row and the west column touch no card yet
    assert refused(t, place("9S", -1, 2)) == "row must be 0..4 (or say crib: true)"
    for row, col in [(4, c) for c in range(5)] + [(r, 0) for r in range(5)]:
        assert refused(t, place("9S", row, col)).endswith("touches no card: a card must touch another by side or corner")
    ok = [(r, c) for r in range(5) for c in range(5) if t.state.hand.cells[r][c] is None and t.state.hand.touches(r, c)]
    assert ok == [(0, 1), (0, 3), (0, 4), (1, 1), (1, 4), (2, 1), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3)]


def test_seed_nobs_example_in_the_centre_row():
    """Seed 001: 7, J, 9, 10, J of hearts in a centre line with a heart starter: 9 with his nobs."""
    cards = ["3S", "10S", "KD", "6H", "QH",
             "JD", "AD", "8H", "2D", "6S",
             "7C", "JS", "10H", "9D", "JH",             # the centre row; 10H is the centre card
             "8C", "AS", "QS", "JC", "3D",
             "5C", "9S", "7D", "7S", "KS"]
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "layout", "cards": cards, "crib": ["2H", "4C", "5D", "5H"]})
    row3 = next(s for s in t.state.steps if s["text"].startswith("row 3"))
    assert row3["points"] == 9
    assert [i["kind"] for i in row3["items"]] == ["pair", "run", "run", "nobs"]


def test_crib_must_be_true_or_false():
    """A phone sending "crib": "false" must not put the card into the crib."""
    t = new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "8D"})
    before = t.snapshot()
    for junk in ("false", "no", 1, [True]):
        assert refused(t, place("AS", 2, 1, crib=junk)) == "crib is true or false"
    assert t.snapshot() == before
    t.submit(place("AS", 2, 1, crib=False))
    assert t.snapshot()["hand"]["grid"][2][1] == "AS" and t.snapshot()["hand"]["crib_count"] == 0


def test_variation_heels_are_hand_points_so_only_one_side_scores_a_round():
    """G5 (seed 001's variation): the round's points, heels included, are hand points; only the margin is scored."""
    layout = list(ZERO_ROWS)
    layout[12], layout[13] = "JS", "KS"                      # a jack in the centre: two for his heels to Bob
    crib = ["2H", "4C", "5D", "5H"]
    t = new_table("table-top-cribbage-31", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "JS"})
    assert scores(t) == [0, 0] and t.state.steps[-1]["text"] == "two for his heels (hand points for Bob)"
    t.submit({"type": "layout", "cards": layout, "crib": crib})
    grid = score_grid(layout, game="table-top-cribbage-31")
    ann = grid.rows_total
    bob = grid.cols_total + score_hand(crib, "JS", crib=True, game="table-top-cribbage-31").total + 2
    # by hand: rows 0+0+0+0+6 (777); columns 2+4+4+5+5 and the crib 6 (two fifteens with JS, a pair), heels 2
    assert (ann, bob) == (6, 28)
    assert scores(t) == [0, 22]
    step = t.state.steps[-1]
    assert step["kind"] == "round" and step["text"] == "Ann 6 against Bob 28: twenty-two for Bob"
    assert {"kind": "heels", "side": "p2", "points": 2} in step["items"]
