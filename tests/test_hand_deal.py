"""Card entry in the deal games, hand-computed: every peg, go, show and pocket of worked hands."""

import pytest

from companion.errors import IllegalAction, InvalidCard, RulesError
from engine_play import new_table


def scores(t):
    return [s["score"] for s in t.snapshot()["sides"]]


def cmd(kind, card=None, **kw):
    c = {"type": kind, **kw}
    if card is not None:
        c["card"] = card
    return c


def run(t, *commands):
    for c in commands:
        t.submit(c)


def refused(t, command, exc=IllegalAction):
    """Assert ``command`` is refused and changes nothing; return the message."""
    before = t.snapshot()
    n = len(t.history())
    with pytest.raises(exc) as info:
        t.submit(command)
    assert t.snapshot() == before
    assert len(t.history()) == n
    return str(info.value)


# --- Land's End, two-hand: one whole hand -----------------------------------------------------

# LE_HAND_1 and the hands below it were counted by hand under the standard lead after a go: the
# first to say go (Bob) leads the next count (M2). Land's End's own default, L9's last_player (Ann,
# who played the last card, leads), is worked in test_go_lead.py; these tables name the old rule.
M2_LEAD = {"go_lead": "other_player"}

LE_HAND_1 = [
    # (command, Ann, Bob, last text, credited)
    (cmd("turnup", "2C"), 0, 0, None, None),
    (cmd("play", "10H"), 0, 0, "ten", "Bob"),
    (cmd("play", "5S"), 2, 0, "fifteen for two", "Ann"),               # Bob's fifteen counts for Ann (L2)
    (cmd("play", "6D"), 2, 0, "twenty-one", "Bob"),
    (cmd("play", "4C"), 5, 0, "twenty-five for a run of three", "Ann"),
    (cmd("play", "3H"), 5, 4, "twenty-eight for a run of four", "Bob"),
    (cmd("go"), 5, 4, "twenty-eight for a run of four", "Bob"),        # Bob cannot play
    (cmd("go"), 5, 5, "go", "Bob"),                                    # Ann neither: Ann's go point is Bob's
    (cmd("play", "KS"), 5, 5, "ten", "Ann"),                           # Bob, first to say go, leads (M2)
    (cmd("play", "KD"), 5, 7, "twenty, a pair for two", "Bob"),
    (cmd("play", "9C"), 6, 7, "one for last", "Ann"),                  # Bob's last card: 1 for Ann
    (cmd("show"), 10, 7, "fifteen two, and fifteen four", "Ann"),      # 10H 6D 3H KD + 2C
    (cmd("show"), 10, 11, "fifteen two, and fifteen four", "Bob"),     # 5S 4C KS 9C + 2C
    (cmd("pocket", cards=["AS", "7D", "9H", "QS"]), 10, 11, "nothing", "Bob"),  # a 0 pocket stays 0 (L3)
]


def test_lands_end_hand_credits_every_matching_point_to_the_opponent():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options=M2_LEAD)
    for command, ann, bob, text, credited in LE_HAND_1:
        t.submit(command)
        snap = t.snapshot()
        assert scores(t) == [ann, bob], command
        if text is not None:
            assert (snap["last"]["text"], snap["last"]["credited"]) == (text, credited), command
    snap = t.snapshot()
    # the next hand started by itself: Ann deals, Bob cuts
    assert (snap["hand_no"], snap["dealer"], snap["expect"], snap["expect_player"]) == (2, "Ann", "turnup", "Bob")
    prev = snap["hand"]["previous"]
    assert [s["points"] for s in prev["shows"]] == [4, 4] and prev["pocket"]["points"] == 0


def test_zero_hand_scores_five_but_zero_pocket_scores_nothing():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options=M2_LEAD)
    run(t, cmd("turnup", "2C"), cmd("play", "QS"), cmd("play", "KH"), cmd("play", "9H"))
    assert scores(t) == [0, 0]
    run(t, cmd("go"), cmd("play", "AS"), cmd("go"))            # Bob go at 29, Ann plays on to 30, then go
    assert scores(t) == [0, 1] and t.snapshot()["turn"] == "Bob"
    run(t, cmd("play", "6C"), cmd("play", "7D"), cmd("play", "4H"), cmd("play", "3D"))
    assert scores(t) == [1, 1]                                  # Bob's last card: 1 for Ann
    t.submit(cmd("show"))                                       # AS 7D 9H QS + 2C: nothing
    last = t.snapshot()["last"]
    assert scores(t) == [6, 1] and last["text"] == "nothing, so the zero-hand bonus scores five"
    t.submit(cmd("show"))                                       # KH 6C 4H 3D + 2C: 15s K32, 6432; run 234
    assert scores(t) == [6, 8]
    t.submit(cmd("pocket", cards=["AD", "8S", "QH", "9S"]))
    assert scores(t) == [6, 8]
    assert t.state.steps[-1]["kind"] == "pocket" and t.state.steps[-1]["points"] == 0


def test_cribbage_credits_pegging_to_the_player_who_made_it():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    for command, *_ in LE_HAND_1[:11]:
        t.submit(command)
    # same plays as the Land's End hand: Ann made run-of-four 4, pair... credited to herself now
    # Bob: fifteen 2, run of three 3, last 1 = 6 ; Ann: run of four 4, go 1, pair 2 = 7
    assert scores(t) == [7, 6]


def test_thirty_one_scores_two_and_no_last_card_on_top():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "5D"), cmd("play", "6D"))
    snap = t.snapshot()
    assert snap["last"]["text"] == "thirty-one for two" and scores(t) == [0, 2]
    assert snap["count"] == 0 and snap["turn"] == "Ann"          # after 31 the next holder leads
    run(t, cmd("play", "AS"), cmd("play", "3S"), cmd("play", "7C"), cmd("play", "JC"))
    # A, 3 (4), 7 (11), J (21): nothing; Bob played the last card: 1 for last
    assert scores(t) == [0, 3] and t.snapshot()["last"]["text"] == "one for last"


def test_card_refusals_change_nothing():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    assert "cannot play a card now" in refused(t, cmd("play", "5H"))
    t.submit(cmd("turnup", "2C"))
    assert refused(t, cmd("turnup", "3C")) == "the turn-up is already 2C"
    assert refused(t, cmd("play", "2C")) == "2C is already out: it is the turn-up"
    refused(t, cmd("play", "XX"), InvalidCard)
    run(t, cmd("play", "KH"), cmd("play", "QH"))
    assert refused(t, cmd("play", "KH")) == "KH is already out: played by Ann"
    run(t, cmd("play", "5S"))                                    # 25
    assert refused(t, cmd("play", "7C")) == ("Bob cannot play 7C: the count would be 32, over 31 "
                                             "(say go if nobody can play)")
    # naming Ann means Bob said go: impossible to tell at 25, so it is accepted ...
    # ... but at a count of 15, every card fits: a go there is refused
    t2 = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t2, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "5H"))
    assert refused(t2, cmd("go")) == "Ann cannot say go: at a count of 15 every card fits"
    assert refused(t2, cmd("play", "4S", player="Bob")) == (
        "it is Ann's turn; Bob can play 4S only if Ann said go, but at a count of 15 every card fits")
    assert "expects Ann's play" in refused(t2, cmd("show"))
    assert refused(t2, cmd("play", "4S", player="Zed")) == "'Zed' is not playing; the players are Ann, Bob"
    assert refused(t2, cmd("place", "4S", row=0, col=0)) == "Land's End is not a tabletop game: there is no grid"


def test_a_go_the_engine_cannot_see_is_caught_at_the_players_next_card_that_would_have_fitted():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "5D"))   # 25
    run(t, cmd("go"), cmd("play", "4S", player="Ann"))          # Bob said go at 25 ...
    run(t, cmd("go"))                                            # 29: Ann go -> go point to Ann
    assert scores(t) == [1, 0]
    run(t, cmd("play", "7C"), cmd("play", "3C"))                 # Bob's 7C (it did not fit at 25) leads; Ann's 3C: 10
    # ... but Bob held 6D at 25 (it fits: 31): caught at that card, not only at the show (issue 26 item 5)
    exc = refusal(t, cmd("play", "6D"))
    assert str(exc) == ("Bob said go at a count of 25 (event 5; the count is 10 now) while holding 6D, which "
                        "fitted (31): if Bob's go was a mistake, undo back to event 5")
    # Ann's 4S was entered as hers (not by turn), so taking the go out alone would only imply it again: no single
    # amend repairs it, and the refusal offers the undo back to the go (test_amend covers the go removed by amend)
    assert exc.data == {"undo_to": 5, "false_go": {"seq": 5, "player": "Bob"}}


def test_a_go_said_while_holding_a_card_never_played_is_caught_at_the_show():
    # five-card plays one count: Ann's AS, never played, would have fitted at 29
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "4S"), cmd("play", "KH"), cmd("play", "QD"), cmd("play", "9C"), cmd("go"), cmd("go"))
    exc = refusal(t, cmd("show", cards=["KH", "9C", "AS"]))
    assert str(exc) == ("Ann said go at a count of 29 while holding AS, which fits (30): "
                        "undo back to the go (event 6) and fix it")
    assert exc.data["undo_to"] == 6
    assert "undo_to" not in refusal(t, cmd("show", player="Bob")).data


def test_show_validation():
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    assert scores(t) == [3, 0]                                   # Ann cut high: 3 for last (F1)
    run(t, cmd("turnup", "4S"), cmd("play", "KH"), cmd("play", "QD"), cmd("play", "9C"))
    run(t, cmd("go"), cmd("go"))                                 # one count only: Ann last -> 1 for last
    assert scores(t) == [4, 0] and t.snapshot()["last"]["text"] == "one for last"
    snap = t.snapshot()
    assert snap["expect"] == "show" and snap["expect_player"] == "Ann"
    assert refused(t, cmd("show")) == "Ann played 2 of 3 cards: list the 3 cards Ann held"
    assert refused(t, cmd("show", cards=["KH", "9C"]), InvalidCard) == "Ann's hand holds 3 cards, not 2"
    assert refused(t, cmd("show", cards=["KH", "QD", "7H"])) == (
        "Ann's hand does not match the plays: QD was entered as Bob's at event 3, 9C was entered as Ann's "
        "at event 4: undo back to event 3 and enter each card for its player")
    assert refused(t, cmd("show", cards=["KH", "8D", "7H"])) == (
        "Ann played 9C, so it must be in the hand shown; 9C was entered as Ann's at event 4 (count 29): "
        "if it was not Ann's card, undo back to event 4 and enter it for its player")
    assert refused(t, cmd("show", cards=["KH", "9C", "4S"])) == "4S is already out: it is the turn-up"
    assert refused(t, cmd("show", cards=["8D", "6S", "7H"], player="Bob")) == "it is Ann's show next (order: Ann, Bob)"
    t.submit(cmd("show", cards=["KH", "9C", "7H"]))              # + 4S: nothing
    assert scores(t) == [4, 0]
    assert refused(t, cmd("show", cards=["QD", "7H", "6S"])) == "7H is already out: shown by Ann"
    t.submit(cmd("show", cards=["QD", "8D", "6S"]))              # + 4S: nothing
    assert refused(t, cmd("pocket", cards=["5H", "5C", "JD"]), InvalidCard) == "the crib holds 4 cards, not 3"
    t.submit(cmd("pocket", cards=["5H", "5C", "JD", "10S"]))     # 15s: 5J 5J 5T 5T = 8, pair 2
    assert scores(t) == [4, 10]
    assert t.snapshot()["dealer"] == "Ann"


def test_five_card_single_count_stops_at_31_without_a_last_point():
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "4S"), cmd("play", "KH"), cmd("play", "QD"), cmd("play", "9C"), cmd("play", "2D"))
    snap = t.snapshot()
    assert scores(t) == [3, 2] and snap["last"]["text"] == "thirty-one for two"
    assert snap["expect"] == "show" and snap["hand"]["cards_left"] == {"Ann": 1, "Bob": 1}


def test_heels_at_the_cut_can_end_the_game():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", stake=5)
    run(t, {"type": "peg", "side": "p2", "points": 15}, cmd("turnup", "JS"))
    snap = t.snapshot()
    assert scores(t) == [0, 16] and snap["last"]["text"] == "one for his heels"
    res = snap["result"]
    assert (res["loser"], res["winner"], res["phase"], res["hand"]) == ("p2", "p1", "cut", 1)
    assert res["multipliers"] == {"p1": 4} and res["settlement"] == {"p1": 20, "p2": -20}
    assert refused(t, cmd("play", "5H")) == "the game is over: start a new game (or undo)"
    assert snap["expect"] == "none"


def test_peg_out_in_the_middle_of_the_matching_phase():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    run(t, {"type": "peg", "side": "p1", "points": 29}, *[{"type": "peg", "side": "p1", "points": 29}] * 3,
        {"type": "peg", "side": "p1", "points": 3})
    assert scores(t) == [119, 0]
    run(t, cmd("turnup", "3C"), cmd("play", "10H"), cmd("play", "5S"), cmd("play", "5D"))
    snap = t.snapshot()
    assert scores(t) == [121, 2]
    assert snap["result"]["phase"] == "pegging" and snap["result"]["winner"] == "p1"
    assert snap["result"]["multipliers"] == {"p1": 3}            # double skunk: Bob under 61, Ann receives x3
    assert "game is over" in refused(t, cmd("play", "6D"))


def test_go_point_can_end_the_game():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t, {"type": "peg", "side": "p2", "points": 15})
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "9C"))   # 29
    t.submit(cmd("go"))                                          # Bob go
    t.submit(cmd("go"))                                          # Ann go: her go point is Bob's 16th
    snap = t.snapshot()
    assert scores(t) == [0, 16] and snap["result"]["phase"] == "pegging" and snap["result"]["loser"] == "p2"


def test_three_hand_go_leader_and_credit_to_the_next_player():
    t = new_table("lands-end-3", ["Ann", "Bob", "Cy"], first_dealer="Cy")
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "8C"))   # 28
    assert t.snapshot()["turn"] == "Ann"
    t.submit(cmd("play", "2D", player="Bob"))                    # naming Bob: Ann said go
    snap = t.snapshot()
    assert snap["hand"]["gone"] == ["Ann"] and snap["turn"] == "Cy" and snap["count"] == 30
    t.submit(cmd("go"))                                          # Cy
    assert t.snapshot()["turn"] == "Bob"                          # Bob still holds cards and has not said go
    t.submit(cmd("go"))                                          # Bob: the count ends, Bob was last: go
    snap = t.snapshot()
    assert scores(t) == [0, 0, 1] and snap["last"]["credited"] == "Cy"   # Bob's go point goes to the next player
    assert snap["turn"] == "Ann" and snap["count"] == 0          # Ann said go first: she leads (M2)


def test_three_hand_31_leader_is_the_next_holder():
    t = new_table("lands-end-3", ["Ann", "Bob", "Cy"], first_dealer="Cy")
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "AC"), cmd("play", "KS"))
    snap = t.snapshot()
    assert snap["last"]["text"] == "thirty-one for two" and scores(t) == [0, 2, 0]   # Ann's 31: Bob's points
    assert snap["turn"] == "Bob" and snap["count"] == 0


def test_three_hand_pocket_gets_one_dealt_card_and_the_show_order_is_clockwise_from_the_left():
    t = new_table("lands-end-3", ["Ann", "Bob", "Cy"], first_dealer="Bob")
    assert t.snapshot()["hand"]["show_order"] == ["Cy", "Ann", "Bob"]
    assert t.snapshot()["expect_player"] == "Cy"                 # left of the dealer cuts (M2)


def test_four_hand_teams_show_order_and_shared_score():
    t = new_table("lands-end-4", ["Ann", "Bob", "Cy", "Di"], first_dealer="Di",
                  teams=[["Ann", "Cy"], ["Bob", "Di"]])
    snap = t.snapshot()
    assert snap["hand"]["show_order"] == ["Ann", "Cy", "Bob", "Di"]
    run(t, cmd("turnup", "2C"), cmd("play", "10H"), cmd("play", "5S"))
    assert scores(t) == [2, 0]                                   # Bob's fifteen: for the opposing team
    assert t.snapshot()["last"]["credited"] == "Ann & Cy"


def test_snapshot_hand_section_for_the_page():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "2C"), cmd("play", "10H"), cmd("play", "5S"))
    h = t.snapshot()["hand"]
    assert h["kind"] == "cards" and h["stage"] == "pegging"
    assert (h["expect"], h["expect_player"]) == ("play", "Ann")
    assert h["seen"] == ["2C", "5S", "10H"]
    assert h["plays"] == {"Ann": ["10H"], "Bob": ["5S"]}
    assert h["order"] == [{"player": "Ann", "card": "10H", "count": 10}, {"player": "Bob", "card": "5S", "count": 15}]
    assert h["cards_left"] == {"Ann": 3, "Bob": 3}
    assert h["can_go"] is False                                  # at 15 every card fits
    assert h["show_order"] == ["Ann", "Bob"] and h["shows"] == [] and h["pocket"] is None
    assert h["pocket_owner"] == "p2"
    snap = t.snapshot()
    assert snap["count_cards"] == ["10H", "5S"] and snap["turnup"] == "2C"
    assert snap["last"]["items"] == [{"kind": "fifteen", "cards": ["10H", "5S"], "points": 2}]


def test_show_breakdown_is_in_the_snapshot():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options=M2_LEAD)
    for command, *_ in LE_HAND_1[:12]:
        t.submit(command)
    show = t.snapshot()["hand"]["shows"][0]
    assert show["player"] == "Ann" and show["points"] == 4
    assert show["breakdown"]["items"] == [
        {"kind": "fifteen", "cards": ["2C", "3H", "10H"], "points": 2},
        {"kind": "fifteen", "cards": ["2C", "3H", "KD"], "points": 2},
    ]


def test_commands_need_a_hand_in_progress_and_refuse_after_the_end():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t, {"type": "peg", "side": "p1", "points": 16})
    with pytest.raises(RulesError, match="the game is over"):
        t.submit(cmd("turnup", "5H"))


def test_five_card_heels_is_two_and_a_go_needs_cards():
    t = new_table("five-card", ["Ann", "Bob"], first_dealer="Bob")
    t.submit(cmd("turnup", "JD"))
    assert scores(t) == [3, 2] and t.snapshot()["last"]["text"] == "two for his heels"
    run(t, cmd("play", "AH"), cmd("play", "2D"), cmd("play", "3S"), cmd("play", "4D"), cmd("play", "5C"))
    # A-2-3: run of three (Ann 3); 4: run of four (Bob 4); 5: fifteen and a run of five (Ann 7)
    assert scores(t) == [13, 6] and t.snapshot()["last"]["text"] == "fifteen and a run of five for seven"
    # (a phone that says Ann goes says she holds a card: one of hers may have been another player's)
    assert refused(t, cmd("go", player="Ann")).startswith("Ann has no cards left: there is nothing to say go about; "
                                                           "if one of them was another player's card, undo back to")


def test_can_go_tells_the_page_when_a_go_would_be_accepted():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "2C"), cmd("play", "KH"), cmd("play", "QH"))
    assert t.snapshot()["hand"]["can_go"] is False               # 20: every card fits
    t.submit(cmd("play", "9C"))
    assert t.snapshot()["hand"]["can_go"] is True                # 29: Bob may well hold only cards over 2


# --- a card entered for the wrong player: pointed out with the event to undo back to -----------

def forgotten_go_at_29():
    """Land's End, Bob deals: Ann K♥ (10), Bob Q♥ (20), Ann 9♣ (29); Bob cannot play but his go is
    forgotten, and Ann's 2♦ is entered for the player to play, Bob (event 5)."""
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    run(t, cmd("turnup", "4C"), cmd("play", "KH"), cmd("play", "QH"), cmd("play", "9C"), cmd("play", "2D"))
    return t


def test_a_forgotten_go_swings_four_points_and_the_right_entry_takes_it_back():
    t = forgotten_go_at_29()
    ev = t.history()[-1]
    assert (ev["seq"], ev["player"], "gos" in ev) == (5, "Bob", False)
    assert scores(t) == [2, 0]               # Bob's 31 counts for Ann (L2): the wrong side
    t.submit(cmd("undo"))
    t.submit(cmd("play", "2D", player="Ann"))                   # Bob said go; Ann makes 31
    assert t.history()[-1]["gos"] == ["Bob"]
    assert scores(t) == [0, 2]               # Ann's 31 counts for Bob: a swing of 4 in a 16-point game


def test_the_stuck_turn_after_a_wrong_credit_names_the_event_to_undo_back_to():
    t = forgotten_go_at_29()
    run(t, cmd("play", "7S"), cmd("play", "8C"))                # Ann 7 (the engine thinks she holds 2), Bob 15
    assert scores(t) == [4, 0]
    note = ("; if Ann has no card left, a card went to the wrong player: undo back to event 5 (2D, entered "
            "for Bob as the player to play at a count of 29, where Bob might have said go)")
    # Ann has no card left in her hand, so Bob plays on: the engine cannot accept it, and says where to go back
    assert refused(t, cmd("play", "6H", player="Bob")) == (
        "it is Ann's turn; Bob can play 6H only if Ann said go, but at a count of 15 every card fits" + note)
    assert refused(t, cmd("go")) == "Ann cannot say go: at a count of 15 every card fits" + note
    for _ in range(3):                                          # back to before event 5
        t.submit(cmd("undo"))
    assert t.snapshot()["count"] == 29 and t.snapshot()["turn"] == "Bob"


def test_cards_swapped_between_players_are_caught_at_the_show_with_the_first_wrong_event():
    t = forgotten_go_at_29()
    # entry goes on by default: Ann 7S, Bob 8C, then Bob's 6H goes to Ann (the engine thinks she holds one), Bob 5S
    run(t, cmd("play", "7S"), cmd("play", "8C"), cmd("play", "6H"), cmd("play", "5S"))
    snap = t.snapshot()
    assert snap["expect"] == "show" and snap["expect_player"] == "Ann"
    assert snap["hand"]["plays"] == {"Ann": ["KH", "9C", "7S", "6H"], "Bob": ["QH", "2D", "8C", "5S"]}
    # Ann shows what she really held: 2D (credited to Bob at event 5) in, 6H (credited to her at event 8) out
    assert refused(t, cmd("show", cards=["KH", "9C", "2D", "7S"])) == (
        "Ann's hand does not match the plays: 2D was entered as Bob's at event 5, 6H was entered as Ann's "
        "at event 8: undo back to event 5 and enter each card for its player")


def test_a_player_credited_more_cards_than_held_is_told_which_event_to_undo_back_to():
    t = forgotten_go_at_29()
    run(t, cmd("play", "7S"), cmd("play", "8C"), cmd("play", "6H"))   # Bob's 6H also goes to Ann by default
    assert refused(t, cmd("play", "5S", player="Ann")) == (
        "Ann has played all 4 cards (KH, 9C, 7S, 6H); if one of them was another player's card, undo back to "
        "event 5 (2D, entered for Bob at a count of 29, where Bob might have said go) and enter it for its player")


def test_a_card_credited_to_one_player_and_listed_elsewhere_names_its_event():
    t = forgotten_go_at_29()
    run(t, cmd("play", "7S"), cmd("play", "8C"), cmd("play", "6H"), cmd("play", "5S"))
    run(t, cmd("show"), cmd("show"))
    assert refused(t, cmd("pocket", cards=["2D", "AS", "3S", "JH"])) == (
        "2D is already out: played by Bob; 2D was entered as Bob's at event 5 (count 31): if it was not "
        "Bob's card, undo back to event 5 and enter it for its player")


def refusal(t, command):
    """Return the refusal of ``command`` (it changes nothing)."""
    refused(t, command)
    with pytest.raises(IllegalAction) as info:
        t.submit(command)
    return info.value


def test_every_refusal_naming_an_event_to_undo_back_to_carries_it_as_a_field():
    """The page offers 'Undo back to event n' from ``undo_to``, never from the sentence (issue 17)."""
    t = forgotten_go_at_29()
    run(t, cmd("play", "7S"), cmd("play", "8C"))
    for command in (cmd("play", "6H", player="Bob"), cmd("go")):          # the stuck turn: guessed credit
        exc = refusal(t, command)
        assert exc.data["undo_to"] == 5 and "undo back to event 5" in str(exc)
    t.submit(cmd("play", "6H"))
    exc = refusal(t, cmd("play", "5S", player="Ann"))                    # credited more cards than held
    assert exc.data["undo_to"] == 5
    t.submit(cmd("play", "5S"))
    run(t, cmd("undo"), cmd("undo"))
    run(t, cmd("play", "6H"), cmd("play", "5S"))
    exc = refusal(t, cmd("show", cards=["KH", "9C", "2D", "7S"]))        # swapped between players
    assert exc.data["undo_to"] == 5
    run(t, cmd("show"), cmd("show"))
    exc = refusal(t, cmd("pocket", cards=["2D", "AS", "3S", "JH"]))      # a played card listed elsewhere
    assert exc.data["undo_to"] == 5
    assert "undo_to" not in refusal(t, cmd("pocket", cards=["4C", "AS", "3S", "JH"])).data   # the turn-up


def test_the_snapshot_names_the_ranks_that_fit_under_31():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    assert t.snapshot()["hand"]["playable_ranks"] == []                  # waiting for the turn-up
    t.submit(cmd("turnup", "4C"))
    every = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert t.snapshot()["hand"]["playable_ranks"] == every
    run(t, cmd("play", "KH"), cmd("play", "QH"))                         # 20: every card still fits
    assert t.snapshot()["hand"]["playable_ranks"] == every
    t.submit(cmd("play", "5C"))                                          # 25: six or less
    assert t.snapshot()["hand"]["playable_ranks"] == ["A", "2", "3", "4", "5", "6"]
    t.submit(cmd("play", "6C"))                                          # 31: a new count
    assert t.snapshot()["hand"]["playable_ranks"] == every
