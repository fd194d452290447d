"""Casino play (H1-H5): the house deals, who owns the pocket, the house's hand as the pocket."""

import random

import pytest

from companion.errors import IllegalAction
from engine_play import RandomPlayer, new_table
from test_hand_deal import LE_HAND_1, M2_LEAD, scores


def test_two_hand_casino_the_player_owns_the_pocket_and_the_house_keeps_dealing():
    t = new_table("lands-end-casino-2", ["Ann"], stake=2, options=M2_LEAD)
    snap = t.snapshot()
    assert snap["players"] == ["House", "Ann"] and snap["dealer"] == "House"
    assert snap["expect_player"] == "Ann" and snap["pocket_owner"] == 1
    for command, *_ in LE_HAND_1[:13]:        # same plays and shows: Ann leads, the house is "Bob"
        t.submit(command)
    assert scores(t) == [11, 10]              # sides: house, Ann
    t.submit({"type": "pocket", "cards": ["5H", "5C", "JD", "10S"]})   # 15s 8 + pair 2 = 10 for Ann
    res = t.snapshot()["result"]
    assert scores(t) == [11, 20]
    assert (res["loser"], res["phase"], res["multipliers"]) == ("p1", "pocket", {"house": 1})
    assert res["settlement"] == {"house": 2, "p1": -2}


def test_two_hand_casino_next_hand_is_dealt_by_the_house_again():
    t = new_table("lands-end-casino-2", ["Ann"], options=M2_LEAD)
    for command, *_ in LE_HAND_1:
        t.submit(command)
    snap = t.snapshot()
    assert snap["hand_no"] == 2 and snap["dealer"] == "House" and snap["expect_player"] == "Ann"


def _pocket_owners(game, players, options, hands):
    for seed in range(200):
        t = new_table(game, players, seed=seed, options=options)
        p = RandomPlayer(t, random.Random(seed))
        owners, dealers = [], []
        while not t.state.over and len(owners) < hands:
            owners.append(t.snapshot()["sides"][t.snapshot()["pocket_owner"]]["name"])
            dealers.append(t.snapshot()["dealer"])
            p.deal_hand()
        if len(owners) == hands:
            return owners, dealers
    raise AssertionError("no game lasted long enough")


def test_three_hand_casino_pocket_rotates_with_the_house_last():
    owners, dealers = _pocket_owners("lands-end-casino-3", ["Ann", "Bob"], {"target": 200}, 4)
    assert owners == ["Ann", "Bob", "House", "Ann"]
    assert dealers == ["House"] * 4


def test_three_hand_casino_counter_clockwise_reverses_lead_and_rotation():
    t = new_table("lands-end-casino-3", ["Ann", "Bob"], options={"direction": "ccw"})
    snap = t.snapshot()
    assert snap["expect_player"] == "Bob"                       # right of the house cuts and leads
    assert snap["hand"]["show_order"] == ["Bob", "Ann", "House"]
    owners, _ = _pocket_owners("lands-end-casino-3", ["Ann", "Bob"], {"direction": "ccw", "target": 200}, 3)
    assert owners == ["Bob", "Ann", "House"]


def test_direction_field_of_new_match_sets_the_option():
    t = new_table("lands-end-casino-3", ["Ann", "Bob"])
    t.submit({"type": "new_match", "game": "lands-end-casino-3", "players": ["Ann", "Bob"], "direction": "ccw"})
    assert t.snapshot()["options"] == {"direction": "ccw"}


def test_four_hand_casino_the_house_plays_no_cards_and_its_hand_is_the_pocket():
    t = new_table("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"])
    snap = t.snapshot()
    assert snap["dealer"] == "House" and snap["expect_player"] == "Ann"
    assert snap["hand"]["show_order"] == ["Ann", "Bob", "Cy", "Di"]
    assert snap["hand"]["pocket_owner"] == "house"
    t.submit({"type": "turnup", "card": "2C"})
    expected = [  # team1 (Ann & Cy), team2 (Bob & Di): every point goes to the other team (M3)
        ("KH", 0, 0), ("KS", 2, 0), ("KD", 2, 6), ("AC", 4, 6),      # pair, pair royal, 31
        ("QH", 4, 6), ("QS", 6, 6), ("QD", 6, 12), ("AD", 8, 12),    # Ann leads again after Di's 31
        ("JH", 8, 12), ("JS", 10, 12), ("JD", 10, 18),
    ]
    for card, team1, team2 in expected:
        t.submit({"type": "play", "card": card})
        assert scores(t) == [team1, team2, 0], card
    res = t.snapshot()["result"]
    assert (res["loser"], res["phase"]) == ("team2", "pegging")
    assert res["multipliers"] == {"team1": 2, "house": 4}


def test_a_non_playing_house_without_partnerships_still_has_its_side():
    """Four single players against a house that only deals and owns the pocket (an override of H4)."""
    t = new_table("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], options={"partnerships": False})
    snap = t.snapshot()
    assert [s["name"] for s in snap["sides"]] == ["Ann", "Bob", "Cy", "Di", "House"]
    assert snap["dealer"] == "House" and snap["hand"]["pocket_owner"] == "house"
    t.submit({"type": "turnup", "card": "JC"})            # heels: one to the dealing house
    assert scores(t) == [0, 0, 0, 0, 1]
    t.submit({"type": "play", "card": "5H"})              # Ann leads
    t.submit({"type": "play", "card": "10S"})             # Bob's fifteen goes to the next player, Cy
    assert scores(t) == [0, 0, 2, 0, 1]


def test_each_new_game_may_choose_its_direction_of_play():
    """H1: the direction is decided at the start of each game; the series carries on."""
    t = new_table("lands-end-casino-3", ["Ann", "Bob"], series={"kind": "first_to", "n": 5})
    assert t.snapshot()["expect_player"] == "Ann"
    t.submit({"type": "peg", "side": "p1", "points": 16})          # Ann pegs out
    wins = t.snapshot()["series"]["wins"]
    t.submit({"type": "new_game", "direction": "ccw"})
    snap = t.snapshot()
    assert snap["options"] == {"direction": "ccw"} and snap["series"]["wins"] == wins
    assert snap["expect_player"] == "Bob" and snap["hand"]["show_order"] == ["Bob", "Ann", "House"]
    rec = t.export_record()
    assert rec["options"] == {"direction": "ccw"}
    before = t.snapshot()
    for bad in ("up", 1):
        with pytest.raises(IllegalAction, match="direction must be cw or ccw"):
            t.submit({"type": "new_game", "direction": bad})
    assert t.snapshot() == before


def test_naming_a_player_as_first_dealer_in_casino_play_is_refused():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    before = t.snapshot()
    with pytest.raises(IllegalAction, match=r"the house always deals in casino play \(H1\), not 'Ann'"):
        t.submit({"type": "new_match", "game": "lands-end-casino-2", "players": ["Ann"], "first_dealer": "Ann"})
    assert t.snapshot() == before
    t.submit({"type": "new_match", "game": "lands-end-casino-2", "players": ["Ann"], "first_dealer": "House"})
    assert t.snapshot()["dealer"] == "House"
