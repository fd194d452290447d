"""Claim mode and muggins (L8): under-claims score the claim; muggins doubles (Land's End) or goes to the caller."""

import pytest

from companion.errors import IllegalAction
from engine_play import new_table
from test_hand_deal import LE_HAND_1, refused, scores

PEGGING = [c for c, *_ in LE_HAND_1[:11]]


def claim_table(game):
    t = new_table(game, ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True})
    for c in PEGGING:
        t.submit(c)
    return t


def test_lands_end_muggins_scores_the_claimant_double_the_missed_points():
    t = claim_table("lands-end")
    assert scores(t) == [6, 7]
    t.submit({"type": "show", "claimed": 2})                   # Ann's hand makes 4
    snap = t.snapshot()
    assert scores(t) == [8, 7] and snap["hand"]["muggins_open"] == {"side": "p1", "who": "Ann"}
    t.submit({"type": "muggins"})                              # Bob calls it
    assert scores(t) == [12, 7]                                # claimed 2 + double the missed 2
    assert t.snapshot()["last"]["text"] == "muggins: Ann missed two and scores four more"
    assert refused(t, {"type": "muggins"}) == "muggins must be called on an under-claim before the next command"


def test_cribbage_muggins_gives_the_missed_points_to_the_caller():
    t = claim_table("cribbage")
    assert scores(t) == [7, 6]
    t.submit({"type": "claim", "points": 1})                   # the claim command: Ann's show, claimed 1 of 4
    assert scores(t) == [8, 6]
    t.submit({"type": "muggins", "player": "Bob"})
    assert scores(t) == [8, 9]


def test_muggins_too_late_is_refused_and_the_claim_stands():
    t = claim_table("lands-end")
    t.submit({"type": "show", "claimed": 3})
    t.submit({"type": "show", "claimed": 4})                   # Bob's show: the next command
    assert refused(t, {"type": "muggins"}) == "muggins must be called on an under-claim before the next command"
    assert scores(t) == [9, 11]


def test_claim_checks():
    t = claim_table("lands-end")
    assert refused(t, {"type": "show"}) == "claim mode: say how many points Ann claims (claimed)"
    assert refused(t, {"type": "show", "claimed": 5}) == "Ann claims 5, more than the cards make: count again"
    assert refused(t, {"type": "show", "claimed": -1}) == "claimed must be a whole number from 0 to 29"
    t.submit({"type": "show", "claimed": 4})
    assert refused(t, {"type": "muggins"}) == "muggins must be called on an under-claim before the next command"
    t.submit({"type": "show", "claimed": 4})
    t.submit({"type": "pocket", "cards": ["5H", "5C", "JD", "10S"], "claimed": 2})   # makes 10
    assert scores(t) == [10, 13] and t.snapshot()["hand_no"] == 2      # the next hand has started ...
    t.submit({"type": "muggins", "side": "p1"})                         # ... but muggins is still in time
    assert scores(t) == [10, 13 + 16]
    assert t.snapshot()["result"]["loser"] == "p2"
    assert refused(t, {"type": "muggins", "side": "p2"}) == ("the game is over: start a new game (or undo)")


def test_a_side_cannot_call_muggins_on_itself():
    t = claim_table("cribbage")
    t.submit({"type": "show", "claimed": 1})
    assert refused(t, {"type": "muggins", "player": "Ann"}) == "a side cannot call muggins on itself"


def test_without_claim_mode_the_companion_counts():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    for c in PEGGING:
        t.submit(c)
    with pytest.raises(IllegalAction, match="not in claim mode"):
        t.submit({"type": "show", "claimed": 2})
    assert refused(t, {"type": "muggins"}) == "muggins is only called in claim mode"
