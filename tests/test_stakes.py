"""Stakes, multipliers, skunks, settlement with the house, series and the ledger (L6, L7, M5, H5, S1, R1, R2)."""

import pytest

from engine_play import new_table


def peg(t, side, points):
    while points > 0:
        t.submit({"type": "peg", "side": side, "points": min(points, 29)})
        points -= 29


@pytest.mark.parametrize("winner_score, k", [(15, 1), (11, 1), (10, 2), (6, 2), (5, 3), (1, 3), (0, 4)])
def test_lands_end_multiplier_is_fixed_by_the_winners_score(winner_score, k):
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", stake=5)
    peg(t, "p1", winner_score)
    peg(t, "p2", 16)
    res = t.snapshot()["result"]
    assert res["winner"] == "p1" and res["loser"] == "p2"
    assert res["multipliers"] == {"p1": k}
    assert res["settlement"] == {"p1": 5 * k, "p2": -5 * k}
    assert t.snapshot()["ledger"] == {"Ann": 5 * k, "Bob": -5 * k}


@pytest.mark.parametrize("loser_score, k", [(120, 1), (91, 1), (90, 2), (61, 2), (60, 3), (0, 3)])
def test_cribbage_skunks(loser_score, k):
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob", stake=2)
    peg(t, "p2", loser_score)
    peg(t, "p1", 121)
    res = t.snapshot()["result"]
    assert (res["winner"], res["loser"]) == ("p1", "p2")
    assert res["multipliers"] == {"p1": k}                 # R2: keyed by the side that receives
    assert res["settlement"] == {"p1": 2 * k, "p2": -2 * k}
    assert res["skunk"] == k - 1


@pytest.mark.parametrize("loser_score, k", [(61, 1), (60, 2)])
def test_cribbage_book_rules_double_game_under_61(loser_score, k):
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob", options={"book_rules": True})
    peg(t, "p2", loser_score)
    peg(t, "p1", 121)
    assert t.snapshot()["result"]["multipliers"] == {"p1": k}


def test_reverse_cribbage_reaching_121_loses():
    t = new_table("reverse-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    peg(t, "p2", 80)
    peg(t, "p1", 121)
    res = t.snapshot()["result"]
    assert (res["winner"], res["loser"]) == ("p2", "p1") and res["multipliers"] == {"p2": 2}


def test_three_hand_loser_pays_each_other_side_its_own_multiplier():
    t = new_table("lands-end-3", ["Ann", "Bob", "Cy"], first_dealer="Cy", stake=1)
    peg(t, "p1", 12)      # x1
    peg(t, "p2", 3)       # x3
    peg(t, "p3", 16)      # Cy loses
    res = t.snapshot()["result"]
    assert res["loser"] == "p3" and res["winner"] == ["p1", "p2"] and res["winners"] == ["p1", "p2"]
    assert res["multipliers"] == {"p1": 1, "p2": 3}
    assert res["settlement"] == {"p1": 1, "p2": 3, "p3": -4}


def test_casino_three_hand_house_pegging_out_pays_every_player():
    t = new_table("lands-end-casino-3", ["Ann", "Bob"], stake=10)
    peg(t, "p1", 7)       # x2
    peg(t, "house", 16)
    res = t.snapshot()["result"]
    assert res["loser"] == "house"
    assert res["settlement"] == {"house": -60, "p1": 20, "p2": 40}


def test_casino_four_hand_house_wins_by_reaching_16_and_collects_each_stake_once():
    t = new_table("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], stake=5)
    peg(t, "team1", 2)
    peg(t, "house", 16)
    res = t.snapshot()["result"]
    assert res["winner"] == "house" and res["loser"] == ["team1", "team2"] and res["multipliers"] == {"house": 1}
    assert res["settlement"] == {"team1": -5, "team2": -5, "house": 10}
    assert t.snapshot()["ledger"] == {"Ann": -2.5, "Bob": -2.5, "Cy": -2.5, "Di": -2.5, "House": 10}


def test_casino_four_hand_team_reaching_16_pays_the_house_and_the_other_team():
    t = new_table("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], stake=5)
    peg(t, "team2", 7)    # x2
    peg(t, "house", 3)    # x3
    peg(t, "team1", 16)
    res = t.snapshot()["result"]
    assert res["loser"] == "team1"
    assert res["settlement"] == {"team1": -25, "team2": 10, "house": 15}


def test_series_game_won_at_x2_counts_two_wins():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", series={"kind": "best_of", "n": 3})
    peg(t, "p1", 8)       # Ann wins at x2
    peg(t, "p2", 16)
    snap = t.snapshot()
    assert snap["series"]["wins"] == {"p1": 2, "p2": 0} and snap["series"]["need"] == 2
    assert snap["series"]["over"] is True and snap["result"]["series_over"] is True


def test_first_to_series_adds_weighted_wins_across_games():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", series={"kind": "first_to", "n": 4})
    peg(t, "p1", 12)
    peg(t, "p2", 16)      # Ann x1
    assert t.snapshot()["series"]["wins"] == {"p1": 1, "p2": 0}
    t.submit({"type": "new_game"})
    snap = t.snapshot()
    assert snap["game_no"] == 2 and [s["score"] for s in snap["sides"]] == [0, 0]
    assert snap["dealer"] == "Ann"                     # the deal keeps passing
    peg(t, "p1", 16)      # Bob wins at x4 (never scored)
    snap = t.snapshot()
    assert snap["series"]["wins"] == {"p1": 1, "p2": 4} and snap["series"]["over"] is True
    assert snap["ledger"] == {"Ann": 1 - 4, "Bob": -1 + 4}


def test_stake_multipliers_off_pays_the_plain_stake():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", stake=3, options={"stake_multipliers": False})
    peg(t, "p2", 16)
    assert t.snapshot()["result"]["settlement"] == {"p1": 3, "p2": -3}
