"""A false go (a player says go while holding a card that fits) is refused at the first card that shows it,
names that go with its own count and the count now, and offers no fix but that go's removal (issue 36 items 0,
6 and 7)."""

from __future__ import annotations

import pytest

from companion import IllegalAction
from engine_play import new_table


def play(card, player=None):
    return {"type": "play", "card": card, **({"player": player} if player else {})}


def go(player=None):
    return {"type": "go", **({"player": player} if player else {})}


def enter(t, cmds):
    return [t.submit(c) for c in cmds]


def undo_back(t, n):
    """Undo every live entry from event ``n`` on, one undo each (the page's "Undo back to event n")."""
    k = sum(1 for e in t.history() if not e["undone"] and e["type"] != "undo" and e["seq"] >= n)
    for _ in range(k):
        t.submit({"type": "undo"})


def refusal(t, cmd):
    before = (t.snapshot(), t.history())
    with pytest.raises(IllegalAction) as err:
        t.submit(cmd)
    assert (t.snapshot(), t.history()) == before            # a refusal changes nothing
    return err.value


# issue 36 item 6: reverse cribbage, Ann deals, Bob leads. 2S two, 5D seven, 8H fifteen, 8C twenty-three.
# Bob says go holding 4S (27 would fit); Ann 7D thirty. Ann's go is implied by Bob's 4S, which leads at 0.
ITEM_6 = [{"type": "turnup", "card": "6C"}, play("2S", "Bob"), play("5D", "Ann"), play("8H", "Bob"),
          play("8C", "Ann"), go("Bob"), play("7D", "Ann")]


def item_6():
    t = new_table("reverse-cribbage", ["Ann", "Bob"], first_dealer="Ann")
    evs = enter(t, ITEM_6)
    assert [e["seq"] for e in evs] == [1, 2, 3, 4, 5, 6, 7] and t.snapshot()["count"] == 30
    return t


BOB_6 = ("Bob said go at a count of 23 (event 6; the count is 30 now) while holding 4S, which fitted (27): "
         "if Bob's go was a mistake, undo back to event 6")


def test_a_false_go_closed_by_the_implied_go_of_the_next_lead_is_refused_at_once():
    # the go check ran only when Bob was no longer among the count's gos, before Ann's implied go closed the
    # count: Bob's 4S was taken as his lead at 0 and the false go was caught at the show, entries later
    t = item_6()
    exc = refusal(t, play("4S", "Bob"))
    assert str(exc) == BOB_6
    # Ann's 7D was entered as hers: taking Bob's go out would only imply it again, so no amend repairs it
    assert exc.data == {"undo_to": 6, "false_go": {"seq": 6, "player": "Bob"}}


def test_the_fix_of_a_false_go_never_removes_another_players_true_go():
    # issue 36 item 7: with Ann's go entered (event 8), the refusal named Bob's go but offered to remove
    # Ann's; taking it let the 4S in with Bob's false go still standing
    t = item_6()
    assert t.submit(go("Ann"))["seq"] == 8
    exc = refusal(t, play("4S", "Bob"))
    assert str(exc) == BOB_6.replace("the count is 30 now", "the count is 0 now")
    assert exc.data == {"undo_to": 6, "false_go": {"seq": 6, "player": "Bob"}}
    # the undo back to Bob's go (as the page does it), and the card entered where it was due: 4S twenty-seven
    undo_back(t, 6)
    t.submit(play("4S", "Bob"))
    assert (t.snapshot()["count"], t.snapshot()["turn"]) == (27, "Ann")


def test_the_same_count_refusal_says_the_gos_count_and_the_count_now():
    # issue 36 item 7's wording: cribbage, Bob deals. 10S ten, 10H twenty, 2D twenty-two; Bob says go holding
    # AS; Ann 3D twenty-five; Bob's AS was refused saying "Bob said go at a count of 25"
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    enter(t, [{"type": "turnup", "card": "6C"}, play("10S", "Ann"), play("10H", "Bob"), play("2D", "Ann"),
              go("Bob"), play("3D", "Ann")])
    exc = refusal(t, play("AS", "Bob"))
    assert str(exc) == ("Bob said go at a count of 22 (event 5; the count is 25 now) while holding AS, which "
                        "fitted (23): if Bob's go was a mistake, undo back to event 5")
    # no fix but the go's removal, which alone would only imply it again at Ann's 3D: none (before, the
    # fix offered was to give Ann's 3D to Bob)
    assert exc.data == {"undo_to": 5, "false_go": {"seq": 5, "player": "Bob"}}


def test_a_go_removed_when_it_is_the_whole_mistake():
    # the go tapped by mistake, Bob's card next: the count on the screen is the go's, and its removal is the fix
    t = new_table("reverse-cribbage", ["Ann", "Bob"], first_dealer="Ann")
    enter(t, ITEM_6[:5] + [go("Bob")])
    exc = refusal(t, play("4S", "Bob"))
    assert str(exc) == ("Bob said go at a count of 23 (event 6), but 4S fits: if Bob's go was a mistake, "
                        "undo back to event 6")
    assert exc.data["amend"] == {"type": "amend", "seq": 6, "remove": True}
    t.submit(exc.data["amend"])
    t.submit(play("4S", "Bob"))
    assert (t.snapshot()["count"], t.snapshot()["turn"]) == (27, "Ann")


def test_a_go_removal_that_would_move_a_card_entered_for_the_player_to_play_is_not_offered():
    # three-hand: Bob says go at 23 holding 4S, then Cy's 5C is tapped for the player to play (Cy, Bob being
    # out of the count). Removing Bob's go would give the 5C to Bob: no fix, the undo back to the go instead
    t = new_table("lands-end-3", ["Ann", "Bob", "Cy"], first_dealer="Cy")
    enter(t, [{"type": "turnup", "card": "6C"}, play("2S", "Ann"), play("5D", "Bob"), play("8H", "Cy"),
              play("8C", "Ann"), go("Bob")])
    assert t.snapshot()["count"] == 23 and t.submit(play("AC"))["player"] == "Cy"          # 24
    exc = refusal(t, play("4S", "Bob"))
    assert exc.data == {"undo_to": 6, "false_go": {"seq": 6, "player": "Bob"}}, exc.data
