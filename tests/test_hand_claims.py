"""Claim mode and muggins (L8): under-claims score the claim; muggins doubles (Land's End) or goes to the caller.

Claims cover the shows and the pocket, every card's points in the matching phase (and the go, last card
and 31), and the tabletop grid lines. Worked hands are checked by hand; a hypothesis property checks that
a claim-mode game where everyone claims exactly ends as the same game counted by the companion.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalAction
from companion.replay import replay
from engine_play import RandomPlayer, new_table
from test_grid_play import ZERO_ROWS
from test_hand_deal import LE_HAND_1, M2_LEAD, refused, scores

PEGGING = [c for c, *_ in LE_HAND_1[:11]]
RIGHT = "muggins refused: the claim was right (nothing was missed); nothing changed"
NONE_OPEN = "muggins is called on a claim before the entry after the next card, go or count: none is open"
# The points each entry of LE_HAND_1's matching phase makes, by who is credited (Land's End: the opponent).
# Bob deals, Ann leads: 10H ten (0 for Bob); 5S fifteen 2 for Ann; 6D 0 for Bob; 4C run of three 3 for Ann;
# 3H run of four 4 for Bob; Bob's go; Ann's go: the go 1 for Bob (Ann played last); KS 0 for Ann;
# KD pair 2 for Bob; 9C twenty-nine, 0 + 1 for the last card, for Ann.
LE_DUES = [[], [("Bob", 0)], [("Ann", 2)], [("Bob", 0)], [("Ann", 3)], [("Bob", 4)], [], [("Bob", 1)],
           [("Ann", 0)], [("Bob", 2)], [("Ann", 1)]]
# the same plays in cribbage: every point for the one who made it
CRIB_DUES = [[], [("Ann", 0)], [("Bob", 2)], [("Ann", 0)], [("Bob", 3)], [("Ann", 4)], [], [("Ann", 1)],
             [("Bob", 0)], [("Ann", 2)], [("Bob", 1)]]


def claim_table(game, dues=None):
    """The worked hand's matching phase in claim mode, every card's points claimed exactly."""
    dues = dues or (LE_DUES if game == "lands-end" else CRIB_DUES)
    t = new_table(game, ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True, **M2_LEAD})
    for c, due in zip(PEGGING, dues):
        t.submit(c)
        for who, pts in due:
            t.submit({"type": "claim", "player": who, "points": pts})
    return t


# --- the shows and the pocket ------------------------------------------------------------------

def test_lands_end_muggins_scores_the_claimant_double_the_missed_points():
    t = claim_table("lands-end")
    assert scores(t) == [6, 7]
    t.submit({"type": "show", "claimed": 2})                   # Ann's hand makes 4
    snap = t.snapshot()
    assert scores(t) == [8, 7] and snap["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}]
    t.submit({"type": "muggins"})                              # Bob calls it
    assert scores(t) == [12, 7]                                # claimed 2 + double the missed 2
    assert t.snapshot()["last"]["text"] == "muggins: Ann missed two and scores four more"
    # the show's claim is closed; Ann's claim on the last card (right) stays open until the next count
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}]
    assert refused(t, {"type": "muggins", "claimant": "Ann"}) == "muggins on Ann refused: " + RIGHT[17:]


def test_cribbage_muggins_gives_the_missed_points_to_the_caller():
    t = claim_table("cribbage")
    assert scores(t) == [7, 6]
    t.submit({"type": "claim", "points": 1})                   # the claim command: Ann's show, claimed 1 of 4
    assert scores(t) == [8, 6]
    t.submit({"type": "muggins", "player": "Bob"})
    assert scores(t) == [8, 9]


def test_muggins_is_in_time_after_the_next_count_and_too_late_after_the_one_after():
    """L8: a claim is open to muggins until the entry after the next card, go or count."""
    t = claim_table("lands-end")
    t.submit({"type": "show", "claimed": 3})                   # Ann's hand makes 4: Ann 9
    t.submit({"type": "show", "claimed": 4})                   # Bob's show, the next count: Bob 11 ...
    # a call is offered on both claims, Ann's short one and Bob's right one, and nothing tells them apart
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}, {"side": "p2", "who": "Bob"}]
    t.submit({"type": "muggins"})                              # ... and Bob may still call it: 9 + 2
    assert scores(t) == [11, 11]


def test_muggins_too_late_is_refused_and_the_claim_stands():
    # cribbage (to 121, so the crib ends nothing): Ann 7, Bob 6 after the matching phase
    t = claim_table("cribbage")
    t.submit({"type": "show", "claimed": 1})                   # Ann's 10H 6D 3H KD + 2C makes 4: Ann 8
    t.submit({"type": "show", "claimed": 4})                   # Bob's show (the next count): Bob 10
    # the crib 5H 5C JD 10S + 2C: four fifteens (each five with each ten) 8, the pair of fives 2: 10
    t.submit({"type": "pocket", "cards": ["5H", "5C", "JD", "10S"], "claimed": 10})    # the entry after: Bob 20
    assert refused(t, {"type": "muggins", "claimant": "Ann"}) == NONE_OPEN
    assert refused(t, {"type": "muggins"}) == RIGHT            # the pocket's claim, right, is open to a call
    assert scores(t) == [8, 20]


def test_claim_checks():
    t = claim_table("lands-end")
    assert refused(t, {"type": "show"}) == "claim mode: say how many points Ann claims (claimed)"
    assert refused(t, {"type": "show", "claimed": 5}) == "Ann claims 5, more than the cards make: count again"
    assert refused(t, {"type": "show", "claimed": -1}) == "claimed must be a whole number from 0 to 29"
    t.submit({"type": "show", "claimed": 4})
    assert refused(t, {"type": "muggins"}) == RIGHT             # Ann's show made 4: a call on it is refused
    t.submit({"type": "show", "claimed": 4})
    t.submit({"type": "pocket", "cards": ["5H", "5C", "JD", "10S"], "claimed": 2})   # makes 10
    assert scores(t) == [10, 13] and t.snapshot()["hand_no"] == 2      # the next hand has started ...
    t.submit({"type": "muggins", "side": "p1"})                         # ... but muggins is still in time
    assert scores(t) == [10, 13 + 16]
    res = t.snapshot()["result"]
    assert res["loser"] == "p2"
    # the game ended where the claim was made: hand 1, the pocket (not "hand 2, cut")
    assert (res["hand"], res["phase"]) == (1, "pocket")
    assert replay(t.export_record())["ended_at"] == {"hand": 1, "phase": "pocket"}
    assert refused(t, {"type": "muggins", "side": "p2"}) == ("the game is over: start a new game (or undo)")


def test_a_side_cannot_call_muggins_on_itself():
    t = claim_table("cribbage")
    t.submit({"type": "show", "claimed": 1})
    assert refused(t, {"type": "muggins", "player": "Ann", "claimant": "Ann"}) == "a side cannot call muggins on itself"
    # Ann calling without naming whose claim: the only other open claim is Bob's on the last card, right
    assert refused(t, {"type": "muggins", "player": "Ann"}) == RIGHT


def test_without_claim_mode_the_companion_counts():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options=M2_LEAD)
    for c in PEGGING:
        t.submit(c)
    assert scores(t) == [6, 7]
    with pytest.raises(IllegalAction, match="not in claim mode"):
        t.submit({"type": "show", "claimed": 2})
    assert refused(t, {"type": "muggins"}) == "muggins is only called in claim mode"
    assert refused(t, {"type": "claim", "points": 2}) == "this table is not in claim mode: the companion counts"


# --- the matching phase ------------------------------------------------------------------------

def start(game):
    t = new_table(game, ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True})
    for c in PEGGING[:2]:
        t.submit(c)                                            # turn-up 2C, Ann's 10H (nothing)
    t.submit({"type": "claim", "points": 0})
    return t


def test_a_cards_points_wait_for_their_claim_by_whoever_is_credited():
    t = start("lands-end")
    t.submit(PEGGING[2])                                       # Bob's 5S: fifteen, for Ann (L2)
    snap = t.snapshot()
    assert scores(t) == [0, 0]                                 # nothing lands before it is claimed
    assert snap["last"]["text"] == "fifteen" and snap["last"]["points"] == 0     # the count, not the points
    assert snap["hand"]["claim_open"] == {"after": "5S", "player": "Bob", "sides": [
        {"side": "p1", "who": "Ann", "claimed": None, "called": False}]}
    # nobody has claimed 5S yet; Bob's claim on Ann's 10H ("nothing", right) is open until the next entry (L8)
    assert snap["hand"]["muggins_calls"] == [{"side": "p2", "who": "Bob"}]
    t.submit({"type": "claim", "points": 2})                   # Ann claims her two
    snap = t.snapshot()
    assert scores(t) == [2, 0] and snap["last"]["text"] == "Ann claims two" and snap["last"]["credited"] == "Ann"
    assert snap["hand"]["claim_open"]["sides"][0]["claimed"] == 2
    # the right claim is open to a call too, exactly as a short one would be (the page shows no difference) ...
    assert snap["hand"]["muggins_calls"] == [{"side": "p2", "who": "Bob"}, {"side": "p1", "who": "Ann"}]
    before = t.snapshot()
    assert refused(t, {"type": "muggins"}) == RIGHT                # ... and a call on it is refused
    assert refused(t, {"type": "muggins", "claimant": "Ann"}) == "muggins on Ann refused: " + RIGHT[17:]
    assert t.snapshot() == before


def test_lands_end_muggins_in_the_matching_phase_doubles_the_missed_points():
    t = start("lands-end")
    t.submit(PEGGING[2])                                       # Bob's 5S: fifteen two, for Ann
    t.submit({"type": "claim", "player": "Ann", "points": 0})  # Ann keeps quiet about it
    snap = t.snapshot()
    assert scores(t) == [0, 0] and snap["hand"]["muggins_calls"] == [{"side": "p2", "who": "Bob"}, {"side": "p1", "who": "Ann"}]
    assert snap["last"]["text"] == "Ann claims nothing"
    t.submit({"type": "muggins"})                              # Bob calls it before the next card
    assert scores(t) == [4, 0]                                 # claimed 0 + double the missed 2
    assert t.snapshot()["last"]["text"] == "muggins: Ann missed two and scores four more"
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p2", "who": "Bob"}]
    assert refused(t, {"type": "muggins"}) == RIGHT            # only Bob's right claim on 10H is left
    assert refused(t, {"type": "claim", "player": "Ann", "points": 2}) == "Ann has claimed for 5S already"


def test_cribbage_muggins_in_the_matching_phase_gives_the_caller_the_missed_points():
    t = start("cribbage")
    t.submit(PEGGING[2])                                       # Bob's 5S: fifteen two, his own
    t.submit({"type": "claim", "points": 0})
    assert refused(t, {"type": "muggins", "player": "Bob", "claimant": "Bob"}) == "a side cannot call muggins on itself"
    assert refused(t, {"type": "muggins", "player": "Bob"}) == RIGHT     # Ann's claim on 10H (nothing), right
    t.submit({"type": "muggins", "player": "Ann"})
    assert scores(t) == [2, 0] and t.snapshot()["last"]["text"] == "muggins: Ann takes the two missed"


def test_muggins_is_in_time_until_the_entry_after_the_next_card_and_an_unclaimed_card_scores_nothing():
    t = start("lands-end")
    t.submit(PEGGING[2])                                       # 5S: two for Ann ...
    t.submit({"type": "claim", "points": 1})                   # ... claimed short
    t.submit({"type": "peg", "side": "p2", "points": 1})       # a button press is no entry: nothing closes
    t.submit(PEGGING[3])                                       # Ann's 6D: the next card, still in time (L8)
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}]
    t.submit({"type": "claim", "points": 0})                   # 6D made nothing for Bob
    t.submit(PEGGING[4])                                       # Bob's 4C, the entry after: too late now;
    # only Bob's (right) claim on 6D is still open to a call; 4C is a run of three, 3 for Ann, unclaimed
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p2", "who": "Bob"}]
    assert refused(t, {"type": "muggins", "claimant": "Bob"}) == "muggins on Bob refused: " + RIGHT[17:]
    assert scores(t) == [1, 1]                                 # the claim stands
    t.submit(PEGGING[5])                                       # Ann's 3H: Ann's 3 were never claimed: nothing
    assert scores(t) == [1, 1]
    t.submit({"type": "muggins"})                              # Bob's run of four, not claimed: called at once
    assert scores(t) == [1, 1 + 8]                             # Bob claimed nothing: double the four


def test_over_claims_and_wrong_claimants_are_refused():
    t = start("lands-end")
    t.submit(PEGGING[2])
    assert refused(t, {"type": "claim", "points": 3}) == "Ann claims 3, more than the cards make: count again"
    assert refused(t, {"type": "claim", "player": "Bob", "points": 0}) == "Bob is credited nothing for 5S"
    assert refused(t, {"type": "claim", "points": 30}) == "claimed must be a whole number from 0 to 29"
    assert refused(t, {"type": "claim"}) == "say how many points are claimed (points)"
    t.submit({"type": "claim", "points": 2})
    assert refused(t, {"type": "claim", "points": 0}) == "everything 5S made is claimed already"


def test_the_go_and_the_card_after_it_are_claimed_in_counting_order_and_the_game_ends_on_the_go():
    """One entry, two credited sides: Bob's play at Ann's turn means Ann said go, which ends the count:
    the go point (Ann played last) is Bob's, then his KS leads a new count (ten, nothing for Ann).
    With Bob on 15 the go point is his 16th: the game ends there, before the card (C4)."""
    t = claim_table("lands-end", LE_DUES[:6])                  # up to Ann's 3H: count 28, Ann 5, Bob 4
    assert scores(t) == [5, 4]
    t.submit({"type": "go"})                                   # Bob cannot play
    assert t.snapshot()["hand"]["claim_open"]["sides"] == []   # a go that ends nothing makes no points
    t.submit({"type": "peg", "side": "p2", "points": 11})      # Bob on 15
    t.submit({"type": "play", "card": "KS", "player": "Bob"})
    sides = t.snapshot()["hand"]["claim_open"]["sides"]
    assert [(s["who"], s["claimed"]) for s in sides] == [("Bob", None), ("Ann", None)]
    t.submit({"type": "claim", "points": 1})                   # the first claim due: Bob's go
    snap = t.snapshot()
    assert scores(t) == [5, 16] and snap["result"]["loser"] == "p2" and snap["result"]["phase"] == "pegging"
    assert refused(t, {"type": "claim", "points": 0}) == "the game is over: start a new game (or undo)"


def test_the_last_card_is_claimed_after_the_matching_phase_and_before_the_first_show():
    t = claim_table("lands-end", LE_DUES[:10])
    t.submit(PEGGING[10])                                      # Bob's 9C: twenty-nine, one for last, for Ann
    snap = t.snapshot()
    assert snap["hand"]["stage"] == "show" and snap["hand"]["claim_open"]["after"] == "9C"
    t.submit({"type": "claim", "points": 1})                   # the claim goes to the open card ...
    assert scores(t) == [6, 7] and t.snapshot()["last"]["text"] == "Ann claims one"
    t.submit({"type": "claim", "points": 4})                   # ... and then to Ann's show
    assert scores(t) == [10, 7] and t.snapshot()["last"]["kind"] == "show"
    assert t.snapshot()["hand"]["claim_open"] is None


def test_undo_of_a_claim_and_of_a_muggins():
    t = start("lands-end")
    t.submit(PEGGING[2])
    before = t.snapshot()
    t.submit({"type": "claim", "points": 0})
    after_claim = t.snapshot()
    t.submit({"type": "muggins"})
    assert scores(t) == [4, 0]
    t.submit({"type": "undo"})
    assert scores(t) == [0, 0] and t.snapshot()["hand"] == after_claim["hand"]
    t.submit({"type": "undo"})
    assert t.snapshot()["hand"] == before["hand"]
    t.submit({"type": "claim", "points": 2})
    assert scores(t) == [2, 0]


def test_a_record_with_matching_phase_claims_and_muggins_replays_to_the_same_game():
    t = start("lands-end")
    t.submit(PEGGING[2])
    t.submit({"type": "claim", "points": 0})
    t.submit({"type": "muggins"})                              # Ann 4
    t.submit({"type": "peg", "side": "p1", "points": 1})       # Ann 5
    t.submit(PEGGING[3])
    t.submit(PEGGING[4])                                       # 6D unclaimed; 4C: 3 for Ann
    t.submit({"type": "claim", "points": 3})                   # Ann 8
    rec = t.export_record()
    h = rec["hands"][0]
    assert h["play_claims"] == [{"at": 2, "side": "p2", "claimed": 0, "n": 0},
                                {"at": 3, "side": "p1", "claimed": 0, "n": 1},
                                {"at": 5, "side": "p1", "claimed": 3, "n": 4}]
    assert h["muggins"] == [{"at": 3, "claimant": "p1", "caller": "p2", "n": 2}]
    assert h["pegs"] == [{"at": 3, "side": "p1", "points": 1, "n": 3}]
    got = replay(rec)
    assert got["valid"] and got["scores"] == {"Ann": 8, "Bob": 0}
    assert [s["kind"] for s in got["hands"][0]["steps"] if s["points"]] == ["muggins", "peg", "play"]


# --- the tabletop grid lines -------------------------------------------------------------------

def test_tabletop_lands_end_lines_are_claimed_in_order_with_muggins():
    """ZERO_ROWS: Ann's rows 1-4 score nothing, so five each (T2); row 5 a pair royal, 6."""
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True})
    t.submit({"type": "layout", "cards": ZERO_ROWS})
    snap = t.snapshot()
    assert scores(t) == [0, 0] and (snap["expect"], snap["expect_player"]) == ("claim", "Ann")
    assert snap["hand"]["to_claim"][0] == {"side": "p1", "label": "row 1"} and len(snap["hand"]["to_claim"]) == 10
    assert refused(t, {"type": "claim", "points": 6}) == "Ann claims 6, more than the cards make: count again"
    assert refused(t, {"type": "claim", "player": "Bob", "points": 0}) == "it is Ann's row 1 to claim next"
    t.submit({"type": "claim", "points": 3})                   # row 1: 5, claimed 3
    t.submit({"type": "muggins"})                              # Bob calls: 3 + double the missed 2
    assert scores(t) == [7, 0]
    t.submit({"type": "claim", "points": 0})                   # row 2: 5 missed, nobody calls it ...
    t.submit({"type": "claim", "points": 5})                   # ... row 3, the next count: still open (L8)
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}]
    t.submit({"type": "claim", "points": 3})                   # row 4, short by 2: row 2 is too late now
    assert scores(t) == [15, 0]
    t.submit({"type": "claim", "points": 0})                   # row 5: 6 missed
    assert t.snapshot()["hand"]["muggins_calls"] == [{"side": "p1", "who": "Ann"}]
    t.submit({"type": "muggins"})                              # on the oldest open claim, row 4's 2 missed:
    res = t.snapshot()["result"]                               # Ann 15 + 4 = 19, she reaches 16 and loses
    assert scores(t) == [19, 0] and res["loser"] == "p1" and res["multipliers"] == {"p2": 4}
    rec = t.export_record()
    assert [c["claimed"] for c in rec["hands"][0]["line_claims"]] == [3, 0, 5, 3, 0]
    assert replay(rec)["scores"] == {"Ann": 19, "Bob": 0}


def test_table_top_cribbage_variation_claims_hand_points_and_muggins_takes_game_points():
    """G5: Ann's rows 0, 0, 1 (nob), 0, 6; Bob's columns 2, 4, 2, 7, 5 and his crib 2H 4C 5D 5H with
    KS: 6. Ann misses her nob; Bob calls muggins and takes that point, as a game point. The round:
    Bob's 26 hand points against Ann's 6: twenty for Bob."""
    t = new_table("table-top-cribbage-31", ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True})
    t.submit({"type": "layout", "cards": ZERO_ROWS, "crib": ["2H", "4C", "5D", "5H"]})
    for pts in (0, 0, 0):
        t.submit({"type": "claim", "points": pts})
    t.submit({"type": "muggins"})                              # row 3's nob
    assert scores(t) == [0, 1] and t.snapshot()["last"]["text"] == "muggins: Bob takes the one missed"
    for pts in (0, 6, 2, 4, 2, 7, 5):
        t.submit({"type": "claim", "points": pts})
    assert scores(t) == [0, 1]                                 # hand points only, until the round is counted
    t.submit({"type": "claim", "points": 6})                   # the crib, the last line: the round is settled
    assert scores(t) == [0, 21] and t.snapshot()["last"]["text"] == "Ann 6 against Bob 26: twenty for Bob"
    assert t.snapshot()["hand_no"] == 2


def test_grid_claims_are_refused_before_the_count_and_without_claim_mode():
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob", options={"claim_mode": True})
    t.submit({"type": "turnup", "card": "KS"})
    assert refused(t, {"type": "claim", "points": 0}) == "nothing to claim: the round is placing cards on the grid"
    t = new_table("lands-end-tabletop", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "layout", "cards": ZERO_ROWS})
    assert refused(t, {"type": "claim", "points": 0}) == "the game is over: start a new game (or undo)"


# --- exact claims are the counting mode -------------------------------------------------------

EXACT_GAMES = [("lands-end", ["Ann", "Bob"], None), ("lands-end-3", ["Ann", "Bob", "Cy"], None),
               ("lands-end-4", ["Ann", "Bob", "Cy", "Di"], None), ("lands-end-casino-3", ["Ann", "Bob"], None),
               ("cribbage", ["Ann", "Bob"], None), ("reverse-cribbage", ["Ann", "Bob"], None),
               ("five-card", ["Ann", "Bob"], None), ("lands-end-tabletop", ["Ann", "Bob"], None),
               ("table-top-cribbage", ["Ann", "Bob"], None), ("table-top-cribbage-31", ["Ann", "Bob"], None)]


def played(game, players, seed, options):
    t = new_table(game, players, seed=seed, options=options, stake=2)
    RandomPlayer(t, random.Random(seed), claim_miss=0.0, claim_skip=0.0, muggins=False).play_game()
    steps = [(s["hand"], s["side"], s["points"], s["kind"]) for s in t.state.steps if s["points"]]
    return t.snapshot()["result"], [s["score"] for s in t.snapshot()["sides"]], steps


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(EXACT_GAMES), st.integers(0, 2 ** 32 - 1))
def test_a_game_where_everyone_claims_exactly_is_the_game_the_companion_counts(game, seed):
    name, players, _ = game
    counted = played(name, players, seed, {})
    claimed = played(name, players, seed, {"claim_mode": True})
    assert claimed == counted


def test_a_game_ended_by_muggins_on_the_dealers_show_ends_in_the_show():
    """Item 6: after the matching phase Ann 6, Bob 7; a peg makes Bob 8. Ann shows 4, claimed exactly:
    10. Bob, the dealer, shows 5S 4C KS 9C with 2C (two fifteens, 4) and claims 0; Ann calls muggins
    before the pocket: Bob scores double the 4 he missed, 8 + 8 = 16, and loses in hand 1's show
    (the pocket, which the hand now waits for, was never counted)."""
    t = claim_table("lands-end")
    t.submit({"type": "peg", "side": "p2", "points": 1})
    t.submit({"type": "show", "claimed": 4})
    t.submit({"type": "show", "claimed": 0})
    assert t.snapshot()["hand"]["stage"] == "pocket"
    t.submit({"type": "muggins"})
    res = t.snapshot()["result"]
    assert scores(t) == [10, 16] and res["loser"] == "p2"
    assert (res["hand"], res["phase"]) == (1, "show")
    assert replay(t.export_record())["ended_at"] == {"hand": 1, "phase": "show"}


def test_a_claim_is_said_and_logged_the_same_way_right_or_short_until_muggins(issue=26):
    """Issue 26 path 4: the announce line, the last step and the history told a right claim ("fifteen for two"
    with its items) from a short one ("Ann claims one"); a show's breakdown showed it too. Both now read
    "Ann claims ..." with no items, and a claimed show's breakdown appears once the claim is closed."""
    seen = []
    for claimed in (2, 1):                                      # 5S makes fifteen two for Ann: right, short
        t = start("lands-end")
        t.submit(PEGGING[2])
        t.submit({"type": "claim", "points": claimed})
        snap, ev = t.snapshot(), t.history()[-1]
        words = f"Ann claims {'two' if claimed == 2 else 'one'}"
        assert (snap["said"]["text"], snap["last"]["text"], snap["last"]["items"]) == (words, words, [])
        assert [(s["text"], s["items"]) for s in ev["steps"]] == [(words, [])]
        seen.append(sorted(snap["hand"]["muggins_calls"], key=str))
    assert seen[0] == seen[1]
    t = claim_table("lands-end")
    t.submit({"type": "show", "claimed": 4})                   # Ann's hand makes 4: right
    shown = t.snapshot()["hand"]["shows"][0]
    assert (t.snapshot()["last"]["text"], shown["points"], shown["breakdown"]) == ("Ann claims four", 4, None)
    t.submit({"type": "show", "claimed": 4})                   # Bob's: Ann's claim stays open one more count
    assert [x["breakdown"] for x in t.snapshot()["hand"]["shows"]] == [None, None]
    t.submit({"type": "pocket", "cards": ["AS", "7D", "9H", "QS"], "claimed": 0})    # closes Ann's (L8)
    shows = t.snapshot()["hand"]["previous"]["shows"]
    assert shows[0]["breakdown"]["total"] == 4 and shows[1]["breakdown"] is None   # Bob's: open into hand 2
