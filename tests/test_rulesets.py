"""Rulesets: every preset as the rulings define it, house rules as overrides, validation."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from companion import RULESETS, Ruleset, UnknownGame, get_ruleset, score_hand
from companion.rulesets import find_ruleset

PRESETS = ["lands-end", "lands-end-3", "lands-end-4", "lands-end-casino-2", "lands-end-casino-3",
           "lands-end-casino-4", "lands-end-tabletop", "cribbage", "reverse-cribbage",
           "table-top-cribbage", "table-top-cribbage-31", "five-card"]


def test_presets_are_named_exactly():
    assert list(RULESETS) == PRESETS
    assert all(RULESETS[n].name == n for n in PRESETS)


FIELDS = ("players", "partnerships", "held", "discards", "pocket_dealt", "heels", "pegging", "pegging_count",
          "pegging_credit", "hand_flush", "pocket_flush", "nobs", "zero_bonus", "zero_bonus_pocket",
          "target", "reach")
EXPECTED = {
    # rulings L1-L5
    "lands-end": (2, False, 4, 2, 0, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    # M1, M3
    "lands-end-3": (3, False, 4, 1, 1, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    "lands-end-4": (4, True, 4, 1, 0, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    "lands-end-casino-2": (2, False, 4, 2, 0, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    "lands-end-casino-3": (3, False, 4, 1, 1, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    "lands-end-casino-4": (4, True, 4, 1, 0, 1, True, "restart", "next_opponent", "hand", "five", True, 5, False, 16, "loses"),
    # S1, S2
    "cribbage": (2, False, 4, 2, 0, 2, True, "restart", "self", "hand", "five", True, 0, False, 121, "wins"),
    "reverse-cribbage": (2, False, 4, 2, 0, 2, True, "restart", "self", "hand", "five", True, 0, False, 121, "loses"),
    # F1-F5
    "five-card": (2, False, 3, 2, 0, 2, True, "single", "self", "hand", "five", True, 0, False, 61, "wins"),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_dealt_games_follow_the_rulings(name):
    r = get_ruleset(name)
    assert tuple(getattr(r, f) for f in FIELDS) == EXPECTED[name]


def test_deal_sizes():
    assert [get_ruleset(n).dealt for n in ("lands-end", "lands-end-3", "lands-end-4", "cribbage", "five-card")] == [6, 5, 5, 6, 5]


def test_sides_and_the_house():
    assert [get_ruleset(n).sides for n in PRESETS[:6]] == [2, 3, 2, 2, 3, 3]
    c2, c3, c4 = (get_ruleset(f"lands-end-casino-{k}") for k in (2, 3, 4))
    assert (c2.house, c2.house_deals, c2.pocket_owner) == (True, True, "player")      # H2
    assert (c3.pocket_owner, c3.house_plays) == ("rotate", True)                        # H3
    assert (c4.house_plays, c4.house_reach, c4.pocket_owner, c4.settlement) == (False, "wins", "house", "house_collects")  # H4, H5
    assert get_ruleset("lands-end").house is False


def test_grid_games():
    t, ttc, v = get_ruleset("lands-end-tabletop"), get_ruleset("table-top-cribbage"), get_ruleset("table-top-cribbage-31")
    # T1, T2: 12 cards each, no crib, five-card flush only, no nobs, no heels, 16 loses, zero line scores 5
    assert (t.grid, t.pegging, t.grid_cards_each, t.crib_total, t.line_flush, t.nobs, t.grid_nobs, t.heels) == \
        (True, False, 12, 0, "five", False, "none", 0)
    assert (t.zero_bonus, t.target, t.reach) == (5, 16, "loses")
    # G1-G4: 14 each, 2 to the crib, heels 2, nobs in the centre lines, highest over 121 after the round
    assert (ttc.grid_cards_each, ttc.grid_crib_each, ttc.heels, ttc.grid_nobs, ttc.line_flush, ttc.target, ttc.reach) == \
        (14, 2, 2, "center", "five", 121, "highest")
    four = get_ruleset("table-top-cribbage", players=4)
    assert (four.partnerships, four.grid_cards_each, four.grid_crib_each, four.sides) == (True, 7, 1, 2)
    # G5: anywhere, four-card flush, difference, first to 31
    assert (v.grid_placement, v.line_flush, v.round_scoring, v.target, v.grid_cards_each) == ("anywhere", "four", "difference", 31, 14)


@pytest.mark.parametrize("name,scores,mults", [
    ("lands-end", (15, 11, 10, 6, 5, 1, 0), [1, 1, 2, 2, 3, 3, 4]),          # L6
    ("cribbage", (120, 91, 90, 61, 60, 0), [1, 1, 2, 2, 3, 3]),              # S1 skunks
    ("reverse-cribbage", (91, 90, 60), [1, 2, 3]),
])
def test_stake_multipliers(name, scores, mults):
    r = get_ruleset(name)
    assert [r.multiplier(s) for s in scores] == mults


def test_book_rules_bundle():
    book = get_ruleset("cribbage", book_rules=True)
    assert (book.heels, [book.multiplier(s) for s in (61, 60)]) == (1, [1, 2])
    assert book.options == {"book_rules": True}
    assert get_ruleset("cribbage", book_rules=False).heels == 2


def test_house_rules_are_overrides_and_presets_stay_untouched():
    r = get_ruleset("lands-end", pegging_credit="self", zero_bonus=3, zero_bonus_pocket=True, target=21)
    assert (r.pegging_credit, r.zero_bonus, r.zero_bonus_pocket, r.target) == ("self", 3, True, 21)
    assert r.options == {"pegging_credit": "self", "zero_bonus": 3, "zero_bonus_pocket": True, "target": 21}
    assert get_ruleset("lands-end").zero_bonus == 5 and get_ruleset("lands-end").options == {}
    assert get_ruleset("lands-end", stake_multipliers=False).multiplier(0) == 1
    assert get_ruleset(r) is r and r.with_options(target=31).target == 31


def test_a_house_rule_changes_scoring_without_new_code():
    zero = ["2H", "4S", "6D", "8C"]
    assert score_hand(zero, "KD", game="cribbage").total == 0
    assert score_hand(zero, "KD", game=get_ruleset("cribbage", zero_bonus=5)).total == 5
    assert score_hand(zero, "KD", crib=True, game=get_ruleset("cribbage", zero_bonus=5)).total == 0
    assert score_hand(zero, "KD", crib=True, game=get_ruleset("cribbage", zero_bonus=5, zero_bonus_pocket=True)).total == 5
    flush = ["AH", "3H", "7H", "9H"]
    assert score_hand(flush, "QS", crib=True, game=get_ruleset("cribbage", pocket_flush="hand")).total == 4
    assert score_hand(flush, "QS", game=get_ruleset("cribbage", hand_flush="none")).total == 0
    assert score_hand(["5H", "5S", "5D", "JC"], "5C", game=get_ruleset("cribbage", nobs=False)).total == 28


def test_rulesets_are_frozen_values():
    r = get_ruleset("cribbage")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.target = 61  # type: ignore[misc]
    # S3: the skunk lines move with the target (30 and 60 below it: 31 and 1)
    assert get_ruleset("cribbage", target=61) == dataclasses.replace(
        r, target=61, multipliers=((31, 1), (1, 2), (0, 3)), options={"target": 61})
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d and d["multipliers"] == [[91, 1], [61, 2], [0, 3]]


@pytest.mark.parametrize("kwargs,message", [
    ({"colour": "red"}, "unknown option 'colour' for cribbage"),
    ({"title": "x"}, "unknown option 'title'"),
    ({"target": "lots"}, "option target must be a whole number, not 'lots'"),
    ({"target": True}, "option target must be a whole number"),
    ({"target": 0}, "target must be positive, not 0"),
    ({"zero_bonus": -1}, "bonus points cannot be negative"),
    ({"reach": "sometimes"}, "reach must be one of loses, wins, highest, not 'sometimes'"),
    ({"pegging_credit": "everyone"}, "pegging_credit must be one of self, next_opponent"),
    ({"nobs": "yes"}, "option nobs is on or off (true/false), not 'yes'"),
    ({"book_rules": 1}, "option book_rules is on or off"),
    ({"players": 3}, "cribbage is played by 2 players, not 3"),
    ({"multipliers": [[5, 1], [10, 2]]}, "multiplier bands must fall strictly to a band starting at 0"),
])
def test_bad_overrides_are_refused(kwargs, message):
    with pytest.raises(UnknownGame, match=re.escape(message)):
        get_ruleset("cribbage", **kwargs)


def test_players_choices():
    with pytest.raises(UnknownGame, match="table-top-cribbage-31 is played by 2 players, not 4"):
        get_ruleset("table-top-cribbage-31", players=4)
    with pytest.raises(UnknownGame, match="the pocket must get 4 cards, not 3"):
        Ruleset(name="x", title="X", description="", players=3, discards=1)


def test_names_and_aliases():
    assert find_ruleset(" Lands-End ").name == "lands-end"
    assert [find_ruleset(a).name for a in ("le", "crib", "reverse", "ttc", "tabletop", "5card")] == [
        "lands-end", "cribbage", "reverse-cribbage", "table-top-cribbage", "lands-end-tabletop", "five-card"]
    with pytest.raises(UnknownGame, match="unknown game 'poker'; choose one of: lands-end, lands-end-3"):
        get_ruleset("poker")


def test_no_code_branches_on_a_preset_name():
    """Variants are data: no `== "preset"` comparison anywhere in the rules core."""
    names = "|".join(re.escape(n) for n in PRESETS)
    pattern = re.compile(rf"""(==|!=)\s*["']({names})["']|["']({names})["']\s*(==|!=)|in\s*\(\s*["']({names})["']""")
    root = Path(__file__).resolve().parents[1] / "companion"
    offenders = [f"{p.name}:{i}" for p in sorted(root.glob("*.py"))
                 for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []


@pytest.mark.parametrize("game,kwargs,message", [
    # a deal game decides the moment a score reaches the target: "highest" would never end it
    ("lands-end", {"reach": "highest"}, "reach 'highest' (decided after a round) needs a tabletop game"),
    ("table-top-cribbage", {"grid": False}, "reach 'highest' (decided after a round) needs a tabletop game"),
    ("cribbage", {"pocket_owner": "house"}, "pocket_owner 'house' needs a house that plays no cards"),
    ("lands-end-casino-2", {"house_plays": False, "pocket_owner": "house"}, None),
    ("cribbage", {"house_deals": True}, "house_deals needs a house"),
    ("lands-end-4", {"house": True}, "a house that plays cannot sit in a partnership game"),
    ("five-card", {"target": 3}, "the first cut's 3 points must stay below the target, not 3"),
    ("lands-end", {"multipliers": [[5, 2], [0, "a"]]}, "each multiplier band is (lowest score, k) with whole numbers, k at least 1"),
    ("lands-end", {"multipliers": [[5, -2], [0, 1]]}, "each multiplier band is (lowest score, k) with whole numbers, k at least 1"),
    ("lands-end", {"multipliers": [[5, 2, 9], [0, 1]]}, "each multiplier band is (lowest score, k) with whole numbers, k at least 1"),
])
def test_overrides_that_make_an_unplayable_game_are_refused(game, kwargs, message):
    """Any field is an override, so the combinations are checked: none may give a game that cannot end."""
    if message is None:
        assert get_ruleset(game, **kwargs).pocket_owner == "house"
        return
    with pytest.raises(UnknownGame, match=re.escape(message)):
        get_ruleset(game, **kwargs)
