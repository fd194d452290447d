"""Show scoring: hand-checked hands (tests/data/hands.txt), a plain reference scorer, properties."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion import DECK, InvalidCard, UnknownGame, get_ruleset, parse_card, parse_cards, score_hand
from companion.cards import SUITS
from companion.rulesets import RULESETS
from companion.scoring import number_words, show_text

DATA = Path(__file__).parent / "data"
SHORT = {"fifteen": "15", "pair": "p", "pair royal": "pr", "double pair royal": "dpr",
         "nobs": "nobs", "thirty-one": "31"}


def signature(items) -> str:
    """Return items as the compact notation of tests/data (``15*2 p r3*2``)."""
    toks = []
    for it in items:
        tok = SHORT.get(it.kind)
        if tok is None:
            tok = {"run": "r", "flush": "f", "zero": "zero"}[it.kind] + str(it.points)
        toks.append(tok)
    out: list[str] = []
    i = 0
    while i < len(toks):
        j = i
        while j < len(toks) and toks[j] == toks[i]:
            j += 1
        out.append(toks[i] + (f"*{j - i}" if j - i > 1 else ""))
        i = j
    return " ".join(out) or "-"


def parse_game(field: str):
    name, *opts = field.split()
    overrides = {k: json.loads(v) for k, v in (o.split("=", 1) for o in opts)}
    return get_ruleset(name, **overrides)


def load_hands():
    for line in (DATA / "hands.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            game, what, hand, starter, total, items = (f.strip() for f in line.split("|"))
            yield pytest.param(game, what, hand.split(), starter, int(total), items, id=f"{game}-{what}-{hand}-{starter}")


@pytest.mark.parametrize("game,what,hand,starter,total,items", list(load_hands()))
def test_hand_checked_shows(game, what, hand, starter, total, items):
    b = score_hand(hand, starter, crib=(what == "crib"), game=parse_game(game))
    assert b.total == total
    assert signature(b.items) == items
    assert sum(i.points for i in b.items) == total


def test_the_29_hand_lists_every_item_with_its_cards():
    b = score_hand("5H 5S 5D JC".split(), "5C")
    fifteens = [tuple(map(str, i.cards)) for i in b.items if i.kind == "fifteen"]
    assert sorted(fifteens) == sorted([
        ("5H", "JC"), ("5S", "JC"), ("5D", "JC"), ("5C", "JC"),
        ("5S", "5H", "5D"), ("5S", "5H", "5C"), ("5H", "5D", "5C"), ("5S", "5D", "5C")])
    assert [(i.kind, [str(c) for c in i.cards], i.points) for i in b.items[-2:]] == [
        ("double pair royal", ["5S", "5H", "5D", "5C"], 12), ("nobs", ["JC"], 1)]


def test_double_double_run_items_name_each_run():
    b = score_hand("9H 9S 10D 10C".split(), "JH")
    runs = sorted(tuple(map(str, i.cards)) for i in b.items if i.kind == "run")
    assert runs == [("9H", "10C", "JH"), ("9H", "10D", "JH"), ("9S", "10C", "JH"), ("9S", "10D", "JH")]
    pairs = [tuple(map(str, i.cards)) for i in b.items if i.kind == "pair"]
    assert pairs == [("9S", "9H"), ("10D", "10C")]


def test_flush_items_carry_the_flush_cards():
    four = score_hand("AH 3H 7H 9H".split(), "QS").items
    assert [(i.kind, [str(c) for c in i.cards], i.points) for i in four] == [("flush", ["AH", "3H", "7H", "9H"], 4)]
    five = score_hand("AH 3H 7H 9H".split(), "QH", crib=True).items
    assert [str(c) for c in five[0].cards] == ["AH", "3H", "7H", "9H", "QH"]


def test_spoken_count():
    assert score_hand("5H 5S KD 4C".split(), "2C").text == "fifteen two, fifteen four, and a pair is six"
    assert score_hand("2H 4S 6D 8C".split(), "KD").text == "nothing"
    assert score_hand("AH 3D 7S JC".split(), "9C").text == "one for his nob is one"
    assert score_hand("AH 3H 7H 9H".split(), "QH").text == "a flush of five is five"
    assert score_hand("2H 4S 6D 8C".split(), "KD", game="lands-end").text == \
        "nothing, so the zero-hand bonus scores five"
    assert score_hand("AH 2S 3D 4C".split(), "5H").text == "fifteen two, and a run of five is seven"


def test_to_dict_is_plain_json():
    d = score_hand(["3H", "4D", "5H", "5C"], "JS").to_dict()
    assert d["total"] == 12 and d["cards"] == ["3H", "4D", "5H", "5C"] and d["starter"] == "JS"
    assert d["items"][2] == {"kind": "pair", "cards": ["5H", "5C"], "points": 2}
    assert json.loads(json.dumps(d)) == d


def test_cards_may_be_written_any_way_people_write_them():
    assert score_hand(["5♥", "5s", "5D", "jc"], "5♣").total == 29
    assert score_hand(parse_cards("5H 5S 5D JC"), parse_card("5C")).total == 29
    assert score_hand("5H 5S 5D JC", "5C").total == 29
    assert score_hand(iter(parse_cards("5H 5S 5D JC")), "5C").total == 29


@pytest.mark.parametrize("hand,starter,kwargs,message", [
    (["5H", "5S", "5X", "JC"], "5C", {}, "not a card: '5X'"),
    (["5H", "5S", "5H", "JC"], "5C", {}, "duplicate card: 5H"),
    (["5H", "5S", "5D", "JC"], "5H", {}, "duplicate card: 5H (it is the starter)"),
    (["5H", "5S", "5D"], "5C", {}, "a Cribbage hand holds 4 cards, not 3"),
    (["5H", "5S", "5D", "JC"], "5C", {"game": "five-card"}, "a Two Handed Five Card Cribbage hand holds 3 cards, not 4"),
    (["5H", "5S", "5D"], "5C", {"game": "lands-end", "crib": True}, "a Land's End pocket holds 4 cards, not 3"),
    (["5H", "5S", "5D", "JC"], "ZZ", {}, "not a card: 'ZZ'"),
    (["5H", "5S", "5D", None], "5C", {}, "not a card: None"),
])
def test_bad_input_is_refused_with_the_reason(hand, starter, kwargs, message):
    with pytest.raises(InvalidCard) as err:
        score_hand(hand, starter, **kwargs)
    assert message in str(err.value)


def test_unknown_game_is_refused():
    with pytest.raises(UnknownGame, match="unknown game 'poker'"):
        score_hand("5H 5S 5D JC".split(), "5C", game="poker")


def test_number_words():
    assert [number_words(n) for n in (0, 2, 15, 20, 29, 31, 100, 121)] == [
        "zero", "two", "fifteen", "twenty", "twenty-nine", "thirty-one", "one hundred", "one hundred twenty-one"]
    assert show_text([]) == "nothing"


# --- a plain reference scorer (itertools, no shortcuts) ----------------------------------


def reference_score(hand, starter, *, crib, rules) -> int:
    cards = list(hand) + [starter]
    pts = 0
    for n in range(2, len(cards) + 1):
        pts += 2 * sum(1 for combo in combinations(cards, n) if sum(c.value for c in combo) == 15)
    pts += 2 * sum(1 for a, b in combinations(cards, 2) if a.rank == b.rank)
    for n in range(len(cards), 2, -1):
        runs = 0
        for combo in combinations(cards, n):
            ranks = sorted(c.rank for c in combo)
            if all(b == a + 1 for a, b in zip(ranks, ranks[1:])):
                runs += 1
        if runs:
            pts += n * runs
            break
    rule = rules.pocket_flush if crib else rules.hand_flush
    if rule != "none" and len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            pts += len(hand) + 1
        elif rule == "hand":
            pts += len(hand)
    if rules.nobs and any(c.rank == 11 and c.suit == starter.suit for c in hand):
        pts += 1
    if pts == 0 and (not crib or rules.zero_bonus_pocket):
        pts = rules.zero_bonus
    return pts


deals = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)
non_grid = [name for name, r in RULESETS.items() if not r.grid]


@settings(max_examples=400, deadline=None)
@given(deal=deals, game=st.sampled_from(non_grid + ["table-top-cribbage"]), crib=st.booleans())
def test_score_matches_the_reference_scorer(deal, game, crib):
    rules = get_ruleset(game)
    size = 4 if crib else rules.held
    hand, starter = deal[:size], deal[4]
    b = score_hand(hand, starter, crib=crib, game=rules)
    assert b.total == reference_score(hand, starter, crib=crib, rules=rules)
    assert sum(i.points for i in b.items) == b.total


def test_reference_scorer_agrees_on_every_hand_with_one_starter_from_a_small_deck():
    # every 4-card hand from the 20 cards A..5 and J..K of all suits, with each starter among them
    small = [c for c in DECK if c.rank <= 5 or c.rank >= 11]
    rules = get_ruleset("cribbage")
    starter = parse_card("JH")
    rest = [c for c in small if c is not starter]
    mismatches = [h for h in combinations(rest, 4)
                  if score_hand(h, starter).total != reference_score(h, starter, crib=False, rules=rules)]
    assert mismatches == []


def card_of(rank: int, suit: str):
    return DECK[(rank - 1) * 4 + SUITS.index(suit)]


def _item_set(b):
    return Counter((i.kind, frozenset(i.cards), i.points) for i in b.items)


@settings(max_examples=200, deadline=None)
@given(deal=deals, order=st.permutations(range(4)), crib=st.booleans())
def test_score_does_not_depend_on_card_order(deal, order, crib):
    hand, starter = deal[:4], deal[4]
    a = score_hand(hand, starter, crib=crib)
    b = score_hand([hand[i] for i in order], starter, crib=crib)
    assert a.total == b.total
    assert _item_set(a) == _item_set(b)


@settings(max_examples=200, deadline=None)
@given(deal=deals, suits=st.permutations("SHDC"), game=st.sampled_from(non_grid))
def test_swapping_suits_consistently_changes_nothing(deal, suits, game):
    swap = dict(zip("SHDC", suits))
    moved = [card_of(c.rank, swap[c.suit]) for c in deal]
    size = get_ruleset(game).held
    a = score_hand(deal[:size], deal[4], game=game)
    b = score_hand(moved[:size], moved[4], game=game)
    assert a.total == b.total
    assert sorted((i.kind, i.points) for i in a.items) == sorted((i.kind, i.points) for i in b.items)


RANK_ONLY = {"fifteen", "pair", "pair royal", "double pair royal", "run"}


@settings(max_examples=200, deadline=None)
@given(deal=deals, new_suits=st.lists(st.sampled_from("SHDC"), min_size=5, max_size=5))
def test_rank_only_parts_do_not_change_with_suits(deal, new_suits):
    moved = [card_of(c.rank, s) for c, s in zip(deal, new_suits)]
    assume(len(set(moved)) == 5)     # two cards of a rank given the same suit: not a deal
    a = score_hand(deal[:4], deal[4])
    b = score_hand(moved[:4], moved[4])

    def rank_part(bd):
        return sorted((i.kind, tuple(sorted(c.rank for c in i.cards)), i.points)
                      for i in bd.items if i.kind in RANK_ONLY)
    assert rank_part(a) == rank_part(b)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True),
       st.sampled_from(["hand", "five", "four", "none"]), st.booleans())
def test_a_shows_flush_is_the_one_flush_table(cards, rule, crib):
    """score_hand's flush item is what scoring.FLUSH_RULES says (the table stats and the advice count with)."""
    from companion.scoring import FLUSH_RULES
    if rule == "four" and not crib:
        crib = True                     # a hand's flush is never G7's four of five
    rules = get_ruleset("cribbage", **({"pocket_flush": rule} if crib else {"hand_flush": rule}))
    held, starter = cards[:4], cards[4]
    suit, in_suit = Counter(c.suit for c in held).most_common(1)[0]     # a tie (2 and 2) scores nothing anyway
    flush = [it.points for it in score_hand(held, starter, crib=crib, game=rules).items if it.kind == "flush"]
    assert sum(flush) == FLUSH_RULES[rule].points(4, in_suit, starter.suit == suit)
