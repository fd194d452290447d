"""Cards: every way people write them, refusals that name the bad token, the deck."""

from __future__ import annotations

import pickle

import pytest

from companion import DECK, Card, InvalidCard, parse_card, parse_cards


@pytest.mark.parametrize("token,card", [
    ("5H", "5H"), ("5h", "5H"), ("10h", "10H"), ("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("tH", "10H"),
    ("5♥", "5H"), ("K♠", "KS"), ("k♠", "KS"), ("a♦", "AD"), ("A♣", "AC"), ("Q♡", "QH"), ("J♤", "JS"),
    ("5♥\ufe0f", "5H"), (" 5H ", "5H"), ("Jc", "JC"), ("qS", "QS"), ("AS", "AS"), ("1H", "AH"),
])
def test_parse_the_ways_people_write_cards(token, card):
    assert str(parse_card(token)) == card


@pytest.mark.parametrize("token", ["", "5", "H5", "11H", "0H", "5Z", "10", "KK", "5HH", "10 H", "♥5", "joker"])
def test_anything_else_is_refused_naming_the_token(token):
    with pytest.raises(InvalidCard) as err:
        parse_card(token)
    assert str(err.value).startswith(f"not a card: {token!r}")


@pytest.mark.parametrize("token", [5, None, 5.0, ["5H"]])
def test_non_text_is_refused(token):
    with pytest.raises(InvalidCard, match="not a card"):
        parse_card(token)


def test_cards_are_interned():
    assert parse_card("10h") is parse_card("TH") is parse_card("10♥")
    assert parse_card(parse_card("5H")) is parse_card("5H")
    assert pickle.loads(pickle.dumps(parse_card("QD"))) is parse_card("QD")


def test_card_fields():
    c = parse_card("QD")
    assert (c.rank, c.suit, c.value, c.index, str(c), c.pretty, repr(c)) == (12, "D", 10, 46, "QD", "Q♦", "Card('QD')")
    assert [parse_card(t).value for t in "AS 2S 9S 10S JS QS KS".split()] == [1, 2, 9, 10, 10, 10, 10]
    assert parse_card("AS") < parse_card("AH") < parse_card("2S")


def test_the_deck_is_52_distinct_cards_in_rank_major_order():
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert [c.index for c in DECK] == list(range(52))
    assert all(isinstance(c, Card) for c in DECK)
    assert {str(c) for c in DECK} == {r + s for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split() for s in "SHDC"}
    assert all(parse_card(str(c)) is c and parse_card(c.pretty) is c for c in DECK)


def test_parse_cards_keeps_order_and_accepts_text():
    assert [str(c) for c in parse_cards(["KS", "5h", "TD"])] == ["KS", "5H", "10D"]
    assert [str(c) for c in parse_cards("5H, 6S 7D")] == ["5H", "6S", "7D"]
    assert parse_cards([]) == ()


def test_a_duplicate_card_is_named():
    with pytest.raises(InvalidCard, match="duplicate card in hand: 5H"):
        parse_cards(["5H", "6S", "5h"])
    with pytest.raises(InvalidCard, match="duplicate card in crib: 10H"):
        parse_cards(["TH", "10h"], what="crib")


def test_a_bad_token_among_good_ones_is_named():
    with pytest.raises(InvalidCard, match="not a card: '5X'"):
        parse_cards(["5H", "5X", "6S"])
