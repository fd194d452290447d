"""Pegging: the points of the last card of a count (tests/data/pegging.txt), legality, text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import DECK, IllegalAction, InvalidCard, parse_cards, score_peg
from reference import reference_peg_points

DATA = Path(__file__).parent / "data"
SHORT = {"fifteen": "15", "thirty-one": "31", "pair": "p", "pair royal": "pr", "double pair royal": "dpr"}


def signature(items) -> str:
    return " ".join(SHORT.get(i.kind) or f"r{i.points}" for i in items) or "-"


def load():
    for line in (DATA / "pegging.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            game, cards, points, count, items = (f.strip() for f in line.split("|"))
            yield pytest.param(game, cards.split(), int(points), int(count), items, id=f"{game}-{cards}")


@pytest.mark.parametrize("game,cards,points,count,items", list(load()))
def test_pegging_sequences(game, cards, points, count, items):
    p = score_peg(cards, game=game)
    assert (p.points, p.count, signature(p.items)) == (points, count, items)


def test_items_name_the_cards_that_score():
    p = score_peg(["5H", "5S", "5D"])
    assert [(i.kind, [str(c) for c in i.cards], i.points) for i in p.items] == [
        ("fifteen", ["5H", "5S", "5D"], 2), ("pair royal", ["5H", "5S", "5D"], 6)]
    run = score_peg(["AD", "5C", "7H", "6D", "4S"]).items
    assert [(i.kind, [str(c) for c in i.cards], i.points) for i in run] == [
        ("run", ["4S", "5C", "6D", "7H"], 4)]
    pair = score_peg(["QH", "KS", "4D", "AC", "3H", "3S"]).items
    assert [(i.kind, [str(c) for c in i.cards]) for i in pair] == [
        ("thirty-one", ["QH", "KS", "4D", "AC", "3H", "3S"]), ("pair", ["3H", "3S"])]


@pytest.mark.parametrize("cards,text", [
    (["JH", "5D"], "fifteen for two"),
    (["7D", "8H", "9C"], "twenty-four for a run of three"),
    (["10H", "QS", "8D", "3C"], "thirty-one for two"),
    (["QH", "KS", "4D", "AC", "3H", "3S"], "thirty-one and a pair for four"),
    (["5H", "5S", "5D"], "fifteen and a pair royal for eight"),
    (["9H", "9S"], "eighteen, a pair for two"),
    (["8H", "8S"], "sixteen, a pair for two"),
    (["8H"], "eight"),
])
def test_announcements(cards, text):
    assert score_peg(cards).text == text


def test_a_card_that_would_pass_31_is_refused():
    with pytest.raises(IllegalAction, match="5C would make the count 33, over 31"):
        score_peg(["10H", "QS", "8D", "5C"])


@pytest.mark.parametrize("cards,error,message", [
    ([], IllegalAction, "the count is empty"),
    (["5H", "5H"], InvalidCard, "duplicate card in count: 5H"),
    (["5H", "XX"], InvalidCard, "not a card: 'XX'"),
])
def test_bad_counts_are_refused(cards, error, message):
    with pytest.raises(error, match=message):
        score_peg(cards)


@pytest.mark.parametrize("game", ["lands-end-tabletop", "table-top-cribbage", "table-top-cribbage-31"])
def test_grid_games_have_no_pegging(game):
    with pytest.raises(IllegalAction, match="no matching phase"):
        score_peg(["5H", "10S"], game=game)


def test_to_dict():
    assert score_peg(["5H", "6S", "4D"]).to_dict() == {
        "points": 5, "count": 15, "text": "fifteen and a run of three for five",
        "items": [{"kind": "fifteen", "cards": ["5H", "6S", "4D"], "points": 2},
                  {"kind": "run", "cards": ["4D", "5H", "6S"], "points": 3}]}


def _counts():
    """Counts of 1..8 distinct cards whose values stay within 31."""
    return st.lists(st.sampled_from(DECK), min_size=1, max_size=8, unique=True).filter(
        lambda cs: sum(c.value for c in cs) <= 31)


@settings(max_examples=300, deadline=None)
@given(cards=_counts())
def test_pegging_matches_a_reference(cards):
    assert score_peg(cards).points == reference_peg_points(cards)


@settings(max_examples=200, deadline=None)
@given(cards=_counts(), data=st.data())
def test_a_run_counts_in_any_order_of_its_cards(cards, data):
    """Shuffling the cards before the last one never changes whether the last N form a run."""
    p = score_peg(cards)
    runs = [i.points for i in p.items if i.kind == "run"]
    if runs:
        n = runs[0]
        head = data.draw(st.permutations(cards[-n:-1]))
        again = score_peg(list(cards[:-n]) + list(head) + [cards[-1]])
        assert [i.points for i in again.items if i.kind == "run"] == [n]
