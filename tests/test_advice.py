"""Discard advice: exact figures against a brute-force enumeration, hand-checked cases, seat signs."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings, strategies as st

from companion import DECK, IllegalAction, InvalidCard, UnknownGame, get_ruleset, parse_cards, score_hand
from companion.advice.discard import ASSUMPTION, advise, seating

DEAL_PRESETS = ["lands-end", "lands-end-3", "lands-end-4", "lands-end-casino-2", "lands-end-casino-3",
                "lands-end-casino-4", "cribbage", "reverse-cribbage", "five-card"]


def brute(rules, dealt, discard, *, need=None, heels=0, mine=False):
    """Score every (other pocket cards, turn-up) case one by one with score_hand.

    Returns (hand counts over turn-ups, pocket counts over cases, cases reaching ``need``).
    """
    keep = [c for c in dealt if c not in discard]
    unseen = [c for c in DECK if c not in dealt]
    k = 4 - rules.discards
    hand, pocket, hits = Counter(), Counter(), 0
    for t in unseen:
        h = score_hand(keep, t, game=rules).total
        hand[h] += 1
        rest = [c for c in unseen if c is not t]
        for others in combinations(rest, k):
            p = score_hand(tuple(discard) + others, t, crib=True, game=rules).total
            pocket[p] += 1
            if need is not None and h + (heels if t.rank == 11 else 0) + (p if mine else 0) >= need:
                hits += 1
    return hand, pocket, hits


def random_seat(rules, rng):
    low = 1 if rules.house and not rules.house_plays else 0
    seat = rng.randrange(low, rules.players if low == 0 else rules.players + 1)
    owner = rng.randrange(0, rules.players) if rules.pocket_owner == "rotate" else None
    return seat, owner


@pytest.mark.parametrize("preset", DEAL_PRESETS)
def test_every_figure_equals_brute_force(preset):
    rules = get_ruleset(preset)
    rng = random.Random(f"advice-{preset}")
    k = 4 - rules.discards
    for deal_no in range(2):
        dealt = tuple(rng.sample(DECK, rules.dealt))
        seat, owner = random_seat(rules, rng)
        scores = [rng.randrange(max(0, rules.target - 14), rules.target)] + [0] * (rules.sides - 1)
        a = advise(dealt, game=rules, seat=seat, pocket_owner=owner, scores=scores, pocket_distribution=True)
        plain = {d.discard: d for d in advise(dealt, game=rules, seat=seat, pocket_owner=owner).discards}
        s = a.seating
        assert len(a.discards) == len(list(combinations(dealt, rules.discards)))
        # every discard: the fast pocket mean equals the turn-up-by-turn-up distribution's mean
        for d in a.discards:
            assert plain[d.discard].pocket_mean == d.pocket_mean
            assert sum(d.pocket_counts.values()) == d.pocket_cases
        # some discards against brute force: three per two-hand deal (45,540 cases each), one discard of the
        # first deal where three others' cards are unknown (713,460 cases: ~8 s under a loaded machine)
        for d in rng.sample(list(a.discards), 3 if k == 2 else (1 if deal_no == 0 else 0)):
            hand, pocket, hits = brute(rules, dealt, d.discard, need=rules.target - scores[0],
                                       heels=rules.heels if s.deals else 0, mine=s.owns_pocket)
            assert dict(hand) == dict(d.hand_counts)
            assert dict(pocket) == dict(d.pocket_counts)
            assert d.pocket_mean == Fraction(sum(p * n for p, n in pocket.items()), sum(pocket.values()))
            assert d.reach == Fraction(hits, sum(pocket.values()))
            pocket_mean = Fraction(sum(p * n for p, n in pocket.items()), sum(pocket.values()))
            hand_mean = Fraction(sum(p * n for p, n in hand.items()), sum(hand.values()))
            assert d.net == s.goal * hand_mean + s.pocket_sign * pocket_mean


@pytest.mark.parametrize("options", [
    {"zero_bonus_pocket": True},
    {"zero_bonus_pocket": True, "zero_bonus": 3, "nobs": False},
    {"pocket_flush": "hand", "hand_flush": "five"},
    {"pocket_flush": "none", "hand_flush": "none", "zero_bonus": 0},
    {"pocket_flush": "four"},       # G7's flush of four as a house rule: any four of the pocket and turn-up
])
def test_house_rules_change_the_figures_exactly(options):
    rules = get_ruleset("lands-end", **options)
    rng = random.Random(str(sorted(options.items())))
    # a deal with a same-suit discard so that the pocket flush rules are exercised
    hearts = [c for c in DECK if c.suit == "H"]
    dealt = tuple(rng.sample(hearts, 3) + rng.sample([c for c in DECK if c.suit != "H"], 3))
    a = advise(dealt, game=rules, dealer=True, scores=[9, 4], pocket_distribution=True)
    same_suit = next(d for d in a.discards if len({c.suit for c in d.discard}) == 1)
    mixed = next(d for d in a.discards if len({c.suit for c in d.discard}) == 2)
    for d in (same_suit, mixed, a.discards[0]):
        hand, pocket, hits = brute(rules, dealt, d.discard, need=7, heels=rules.heels, mine=True)
        assert dict(hand) == dict(d.hand_counts)
        assert dict(pocket) == dict(d.pocket_counts)
        assert d.reach == Fraction(hits, sum(pocket.values()))
        fast = next(x for x in advise(dealt, game=rules, dealer=True).discards if x.discard == d.discard)
        assert fast.pocket_mean == d.pocket_mean


def test_four_fives_by_hand():
    # keep the four fives: a ten-card turn-up (16 of them, less the king and queen held: 14) adds four
    # fifteens (28 points), any other of the 46 unseen cards leaves 20. Mean (14*28 + 32*20)/46 = 516/23.
    a = advise("5H 5S 5D 5C KH QH", game="cribbage", dealer=True)
    d = next(x for x in a.discards if {str(c) for c in x.discard} == {"KH", "QH"})
    assert d.hand_counts == {20: 32, 28: 14}
    assert d.hand_mean == Fraction(516, 23)
    assert d.turnups == 46 and d.pocket_cases == comb_pairs(46) * 44
    assert a.discards[0] is d          # nothing beats keeping them in cribbage
    # in Land's End the same keep is the worst there is for the hand
    le = advise("5H 5S 5D 5C KH QH", game="lands-end", dealer=False)
    assert {str(c) for c in le.discards[-1].discard} == {"KH", "QH"}


def comb_pairs(n):
    return n * (n - 1) // 2


def test_zero_hand_bonus_counts_in_the_kept_hand():
    # 2H 4S 6D 8C and a king: nothing, so 5 under Land's End (L3); cribbage scores it 0
    le = advise("2H 4S 6D 8C KD QC", game="lands-end", dealer=True)
    cr = advise("2H 4S 6D 8C KD QC", game="cribbage", dealer=True)
    pick = lambda a: next(x for x in a.discards if {str(c) for c in x.discard} == {"KD", "QC"})
    le_d, cr_d = pick(le), pick(cr)
    assert cr_d.hand_counts[0] == le_d.hand_counts[5] - cr_d.hand_counts.get(5, 0)
    assert 0 not in le_d.hand_counts
    assert le_d.hand_mean - cr_d.hand_mean == Fraction(5 * cr_d.hand_counts[0], 46)


def test_net_signs_follow_the_goal_and_the_owner():
    signs = {
        ("lands-end", True, None): (-1, -1), ("lands-end", False, None): (-1, 1),
        ("cribbage", True, None): (1, 1), ("cribbage", False, None): (1, -1),
        ("reverse-cribbage", True, None): (-1, -1), ("reverse-cribbage", False, None): (-1, 1),
    }
    for (game, dealer, _), (goal, sign) in signs.items():
        s = seating(get_ruleset(game), dealer=dealer)
        assert (s.goal, s.pocket_sign) == (goal, sign), game
    # three-hand: the dealer's pocket helps the others when its points push the dealer toward 16
    s = seating(get_ruleset("lands-end-3"), seat=2)
    assert (s.owns_pocket, s.pocket_sign, s.owner_words()) == (False, 1, "an opponent")
    # four-hand: the dealer's partner owns the pocket with the dealer
    s = seating(get_ruleset("lands-end-4"), seat=2)
    assert (s.owns_pocket, s.pocket_sign, s.owner_words(), s.deals) == (True, -1, "your partner", True)
    s = seating(get_ruleset("lands-end-4"), seat=1)
    assert (s.owns_pocket, s.pocket_sign) == (False, 1)
    # casino: the player always owns the pocket (H2); in four-hand the house owns it and wins at 16 (H4)
    s = seating(get_ruleset("lands-end-casino-2"), dealer=False)
    assert (s.owns_pocket, s.pocket_sign, s.deals) == (True, -1, False)
    s = seating(get_ruleset("lands-end-casino-4"), seat=1)
    assert (s.owner_side, s.pocket_sign, s.owner_words()) == ("house", -1, "the house")
    s = seating(get_ruleset("lands-end-casino-3"), seat=1, pocket_owner=2)
    assert (s.owns_pocket, s.pocket_sign) == (False, 1)
    s = seating(get_ruleset("lands-end-casino-3"), seat=0, pocket_owner=0)
    assert (s.side, s.owns_pocket, s.pocket_sign) == ("house", True, -1)


def test_ranking_by_net_then_by_reach():
    a = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True)
    nets = [d.net for d in a.discards]
    assert nets == sorted(nets, reverse=True) and a.rank_by == "net"
    assert a.assumption == ASSUMPTION and "equally likely" in a.to_dict()["assumption"]
    b = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores="12,3")
    reach = [d.reach for d in b.discards]
    assert reach == sorted(reach) and b.rank_by == "reach"       # 16 loses: the lowest chance first
    c = advise("5H 5S 6D JC 4C KD", game="cribbage", dealer=True, scores=[110, 100])
    reach = [d.reach for d in c.discards]
    assert reach == sorted(reach, reverse=True)                   # 121 wins: the highest chance first
    for x, y in zip(c.discards, c.discards[1:]):
        if x.reach == y.reach:
            assert x.net >= y.net


def test_json_shape():
    d = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[7, 3]).to_dict()
    first = d["discards"][0]
    assert set(first) >= {"discard", "keep", "hand_mean", "pocket_mean", "net", "hand_distribution",
                          "reach_probability", "exact"}
    assert len(first["discard"]) == 2 and len(first["keep"]) == 4
    assert abs(sum(first["hand_distribution"].values()) - 1) < 1e-12
    assert Fraction(first["exact"]["hand_mean"]) == Fraction(first["hand_mean"]).limit_denominator(46)
    assert d["pocket_owner"] == "you" and d["goal"] == "avoid" and d["scores"] == [7, 3]


@pytest.mark.parametrize("call, error, text", [
    (dict(cards="5H 5S 6D JC 4C", game="lands-end", dealer=True), InvalidCard, "deals 6 cards, not 5"),
    (dict(cards="5H 5S 6D JC 4C 4C", game="lands-end", dealer=True), InvalidCard, "duplicate card"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end"), IllegalAction, "say where you sit"),
    (dict(cards="5H 5S 6D JC 4C", game="lands-end-3", dealer=False), IllegalAction, "give your seat 0..2"),
    (dict(cards="5H 5S 6D JC 4C", game="lands-end-3", seat=3), IllegalAction, "not 3"),
    (dict(cards="5H 5S 6D JC 4C", game="lands-end-casino-3", seat=1), IllegalAction, "rotates"),
    (dict(cards="5H 5S 6D JC 4C", game="lands-end-casino-4", dealer=True), IllegalAction, "holds no cards"),
    (dict(cards="5H 5S 6D JC 4C", game="lands-end-casino-4", seat=0), IllegalAction, "1..4"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end", dealer=True, pocket_owner=1), IllegalAction, "belongs to seat 0"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[16, 3]), IllegalAction, "0 to 15"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[3]), IllegalAction, "give 2 scores"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores="a,b"), IllegalAction, "whole numbers"),
    (dict(cards="5H 5S 6D JC 4C KD", game="lands-end-tabletop", dealer=True), UnknownGame, "grid"),
    (dict(cards="5H 5S 6D JC 4C KD", game="nope", dealer=True), UnknownGame, "unknown game"),
])
def test_bad_input_is_refused_with_a_reason(call, error, text):
    cards = call.pop("cards")
    with pytest.raises(error, match=text):
        advise(cards, **call)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["lands-end", "cribbage", "five-card", "lands-end-4"]), st.randoms(use_true_random=False))
def test_means_add_up(preset, rng):
    rules = get_ruleset(preset)
    dealt = tuple(rng.sample(DECK, rules.dealt))
    seat = 1 if rules.partnerships else 0
    a = advise(dealt, game=rules, seat=seat, pocket_distribution=True)
    for d in a.discards:
        assert sum(d.hand_counts.values()) == d.turnups == 52 - rules.dealt
        assert d.pocket_mean == Fraction(sum(p * n for p, n in d.pocket_counts.items()), d.pocket_cases)
        assert set(d.keep) | set(d.discard) == set(dealt)
        # a zero hand scores the bonus instead (L3): no 0 in the distribution where there is one
        assert (0 in d.hand_counts) <= (rules.zero_bonus == 0)


def test_docstring_examples():
    import doctest

    import companion.advice.discard
    import companion.advice.discard_cli
    for module in (companion.advice.discard, companion.advice.discard_cli):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed


def test_the_worked_examples_of_docs_advice():
    # docs/advice.md: a Land's End dealer keeping 6D JC 4C KD, turn-up by turn-up
    le = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True)
    best = le.discards[0]
    assert [str(c) for c in best.discard] == ["5H", "5S"]
    assert best.hand_counts == {1: 5, 2: 13, 3: 6, 4: 4, 5: 16, 9: 1, 10: 1}
    assert best.hand_mean == Fraction(82, 23) and best.pocket_mean == Fraction(200249, 22770)
    assert best.net == -(best.hand_mean + best.pocket_mean)
    assert [str(c) for c in le.discards[-1].discard] == ["JC", "KD"]
    # the non-dealer at 12: only the fives' throw can miss 16, with 22 of 46 turn-ups reaching it
    pone = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=False, scores="12,3")
    assert pone.discards[0].reach == Fraction(11, 23)
    assert all(d.reach == 1 for d in pone.discards[1:])
    assert pone.discards[0].net == -Fraction(82, 23) + Fraction(200249, 22770)
    # the cribbage dealer keeping four fives
    cr = advise("5H 5S 5D 5C KH QH", game="cribbage", dealer=True).discards[0]
    assert (cr.hand_mean, cr.pocket_mean, cr.net) == (Fraction(516, 23), Fraction(11549, 3795), Fraction(96689, 3795))
