"""Exact score distributions: published numbers, pinned full tables, brute-force cross-checks."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations, combinations_with_replacement
from pathlib import Path

import pytest

from companion import DECK, UnknownGame, get_ruleset, score_hand, score_line
from companion.stats import distribution, hand_classes, line_classes

PINNED = json.loads((Path(__file__).parent / "data" / "distributions.json").read_text())


def test_published_hand_distribution():
    d = distribution("cribbage")
    assert d.hands == 12_994_800
    assert d.counts[0] == 1_009_008
    assert d.counts[29] == 4
    assert d.counts[28] == 76
    assert d.counts[24] == 3_680
    assert [d.counts[k] for k in (19, 25, 26, 27)] == [0, 0, 0, 0]
    assert round(d.mean, 4) == 4.7692
    assert d.exact_mean.numerator / d.exact_mean.denominator == d.mean


def test_crib_differs_only_by_the_flush_rule():
    hand, crib = distribution("cribbage"), distribution("cribbage", crib=True)
    assert crib.hands == 12_994_800 and crib.counts[0] == 1_022_208
    # four-card flushes no longer count: every score that cannot involve one is unchanged
    assert [crib.counts[k] for k in (1, 17, 22, 23, 24, 28, 29)] == [hand.counts[k] for k in (1, 17, 22, 23, 24, 28, 29)]
    # a four-card hand flush with an off-suit starter (4 suits x C(13, 4) hands x 39 starters)
    # scores 4 in a hand and nothing in a crib; nothing else differs
    four_flush_deals = 4 * 715 * 39
    assert sum(k * n for k, n in hand.counts.items()) - sum(k * n for k, n in crib.counts.items()) == 4 * four_flush_deals


@pytest.mark.parametrize("key", list(PINNED))
def test_full_distributions_are_pinned(key):
    game, what = key.rsplit(" ", 1)
    d = distribution(game, crib=(what == "crib"))
    assert d.what == what
    assert d.hands == PINNED[key]["hands"] == sum(PINNED[key]["counts"])
    assert [d.counts[k] for k in range(len(d.counts))] == PINNED[key]["counts"]


def test_every_preset_is_pinned():
    from companion.rulesets import RULESETS
    wanted = {f"{name} {'line' if r.grid else 'hand'}" for name, r in RULESETS.items()}
    wanted |= {f"{name} crib" for name, r in RULESETS.items() if not r.grid or r.grid_crib}
    assert wanted == set(PINNED)
    # the three- and four-hand and casino variations and reverse cribbage count a show as their two-hand game does
    # (reverse cribbage differs in who wins, not in what a hand scores): the same numbers, pinned apart
    for game, like in [("lands-end-3", "lands-end"), ("lands-end-4", "lands-end"), ("lands-end-casino-2", "lands-end"),
                       ("lands-end-casino-3", "lands-end"), ("lands-end-casino-4", "lands-end"),
                       ("reverse-cribbage", "cribbage")]:
        for what in ("hand", "crib"):
            assert PINNED[f"{game} {what}"] == PINNED[f"{like} {what}"], (game, what)


def test_the_variations_crib_counts_a_flush_of_four():
    """G7: the table-top-cribbage-31 crib differs from the plain one only by its flushes of four, counted by hand.

    Four crib cards of one suit, the centre card not (4 suits x C(13, 4) x 39 centre cards), now score 4 instead
    of 0; three crib cards of the centre card's suit and one not (52 centres x C(12, 3) x 39) score 4 instead of 0.
    """
    plain, g7 = distribution("table-top-cribbage", crib=True), distribution("table-top-cribbage-31", crib=True)
    assert g7.hands == plain.hands == 12_994_800
    points = lambda d: sum(k * n for k, n in d.counts.items())          # noqa: E731
    assert points(g7) - points(plain) == 4 * (4 * 715 * 39 + 52 * 220 * 39)
    # a flush of five, nobs or none: the highest hands are the same
    assert [g7.counts[k] for k in (24, 28, 29)] == [plain.counts[k] for k in (24, 28, 29)]


def test_stats_of_the_variations_crib_on_the_command_line():
    import io

    from companion.cli import main
    out, err = io.StringIO(), io.StringIO()
    assert main(["stats", "--game", "table-top-cribbage-31", "--crib", "--json"], stdout=out, stderr=err) == 0
    got = json.loads(out.getvalue())
    assert err.getvalue() == ""
    assert (got["what"], got["hands"]) == ("crib", 12_994_800)
    assert [got["counts"][str(k)] for k in range(len(got["counts"]))] == PINNED["table-top-cribbage-31 crib"]["counts"]


def test_deal_counts():
    assert distribution("five-card").hands == 1_082_900          # 52 x C(51, 3)
    assert distribution("five-card", crib=True).hands == 12_994_800
    assert distribution("table-top-cribbage").hands == 2_598_960  # C(52, 5) lines
    assert max(distribution("five-card").counts) == 20


def test_lands_end_zero_bonus_moves_the_zero_count_to_five():
    plain, le = distribution("cribbage"), distribution("lands-end")
    assert le.counts[0] == 0
    assert le.counts[5] == plain.counts[5] + plain.counts[0] == 697_508 + 1_009_008
    assert all(le.counts[k] == plain.counts[k] for k in le.counts if k not in (0, 5))
    # the pocket is not covered ... unless the table's option says so
    assert distribution("lands-end", crib=True).counts[0] == 1_022_208
    covered = distribution(get_ruleset("lands-end", zero_bonus_pocket=True), crib=True)
    assert covered.counts[0] == 0 and covered.counts[5] == 703_496 + 1_022_208
    three = distribution(get_ruleset("lands-end", zero_bonus=3))
    assert three.counts[0] == 0 and three.counts[3] == 505_008 + 1_009_008


def test_tabletop_zero_lines_score_five():
    ttc, le = distribution("table-top-cribbage"), distribution("lands-end-tabletop")
    assert ttc.counts[0] == 224_400 and le.counts[0] == 0
    assert le.counts[5] == ttc.counts[5] + ttc.counts[0]


def test_grid_crib_and_missing_crib():
    assert distribution("table-top-cribbage", crib=True).counts == distribution("cribbage", crib=True).counts
    with pytest.raises(UnknownGame, match="Tabletop Land's End has no crib"):
        distribution("lands-end-tabletop", crib=True)


# --- brute force over restricted decks ----------------------------------------------

SMALL_RANKS = (3, 4, 5, 10, 11)     # fives, fifteens, runs, jacks (nobs) and every suit


@pytest.mark.parametrize("game,crib", [("cribbage", False), ("cribbage", True), ("lands-end", False),
                                       ("lands-end", True), ("five-card", False), ("table-top-cribbage-31", True),
                                       ("lands-end pocket_flush=four", True), ("lands-end pocket_flush=hand", True)])
def test_enumerator_matches_brute_force_on_a_restricted_deck(game, crib):
    """Every deal (starter + hand) from the 20 cards of ranks 3, 4, 5, 10, J, scored one by one."""
    game, _, option = game.partition(" ")
    rules = get_ruleset(game, **dict([option.split("=")]) if option else {})
    size = 4 if crib else rules.held
    small = [c for c in DECK if c.rank in SMALL_RANKS]
    brute = Counter()
    for top in small:
        rest = [c for c in small if c is not top]
        for hand in combinations(rest, size):
            brute[score_hand(hand, top, crib=crib, game=rules).total] += 1
    counted = Counter()
    for s in SMALL_RANKS:
        for m in combinations_with_replacement(SMALL_RANKS, size):
            counted.update(hand_classes(s, m, rules, crib=crib))
    assert sum(brute.values()) == 20 * len(list(combinations(range(19), size)))
    assert +counted == +brute


def test_enumerator_matches_brute_force_for_one_starter_over_the_whole_deck():
    """All 249,900 hands with the jack of hearts turned up, times 4 suits, against the JH-starter share."""
    from companion.cards import parse_card
    top = parse_card("JH")
    rest = [c for c in DECK if c is not top]
    brute = Counter(score_hand(h, top).total for h in combinations(rest, 4))
    d = distribution("cribbage", starter_ranks=[11])
    assert d.hands == 4 * 249_900
    assert {k: n for k, n in d.counts.items() if n} == {k: 4 * n for k, n in brute.items()}


@pytest.mark.parametrize("game", ["table-top-cribbage", "table-top-cribbage-31", "lands-end-tabletop"])
def test_line_counting_matches_brute_force_on_a_restricted_deck(game):
    ranks = (1, 2, 3, 4, 5, 6)     # 24 cards: 42,504 lines with many flushes and pairs
    small = [c for c in DECK if c.rank in ranks]
    brute = Counter(score_line(line, game=game).total for line in combinations(small, 5))
    counted = Counter()
    for m in combinations_with_replacement(ranks, 5):
        counted.update(line_classes(m, get_ruleset(game)))
    assert sum(brute.values()) == 42_504
    assert +counted == +brute


def test_impossible_multisets_count_nothing():
    rules = get_ruleset("cribbage")
    assert hand_classes(5, (5, 5, 5, 5), rules) == {}
    assert line_classes((7, 7, 7, 7, 7), rules) == {}
    assert sum(hand_classes(5, (5, 5, 5, 11), rules).values()) == 4 * 1 * 4   # 4 starters x 1 x 4 jacks


def test_progress_is_reported_to_the_end():
    calls = []
    distribution("five-card", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (13, 13) and calls[0] == (1, 13)


def test_to_dict_and_table():
    d = distribution("five-card")
    j = d.to_dict()
    assert (j["hands"], j["counts"]["0"], j["counts"]["20"], j["mean"]) == (1_082_900, 260_220, 4, round(d.mean, 6))
    assert list(j["counts"]) == [str(k) for k in range(21)]
    lines = d.table().splitlines()
    assert lines[0] == f"1,082,900 hands (five-card); mean {d.mean:.4f}"
    assert lines[2].split() == ["0", "260,220", "24.0299%"]


def test_bad_starter_ranks_are_refused():
    with pytest.raises(UnknownGame, match="starter ranks must be 1..13"):
        distribution("cribbage", starter_ranks=[14])
