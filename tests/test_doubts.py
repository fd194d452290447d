"""What the table judges of a doubt (issue 36): a card named near 31 is settled at the show only by an answer
that names who played it (or the cards listed), never by a yes; a refusal's fix that is dismissed is kept with
the hand, and the same card entered again, or the show while the fix still applies, asks which was meant.

The hand (Land's End, Bob deals, turn-up KC): Ann holds 10S 9H 2D 5H, Bob 10D 8C 4S 3C. Ann 10S, Bob 10D
(pair: 2 for Ann), Ann 9H (29); Bob cannot play, and Ann's 2D makes 31 (2 for Bob). Bob leads 8C, Ann 5H,
Bob 4S, 3C: the run 5-4-3 (3 for Ann) and Bob's last card (1 for Ann). Shows with KC: Ann 10S 9H 2D 5H
fifteen two, fifteen four (4); Bob 10D 8C 4S 3C fifteen two (2). Right: Ann 10, Bob 4. With 2D tapped as
Bob's ("Bob played on 29") every later card goes to the other player, and two yeses ended the hand 11-8
(Ann 8 from the plays and 3 for the run 8-9-10 of her "hand"; Bob 10D 2D 5H 3C fifteen eight).
"""

from __future__ import annotations

import pytest

from companion import IllegalAction
from companion.events import from_json
from test_amend import AFTER_31, BEFORE_31, RIGHT_31, WRONG_31, enter, lands_end, scores


def wrong_hand():
    t = lands_end()
    evs = enter(t, BEFORE_31 + [WRONG_31] + AFTER_31)
    return t, evs


def refused(t, cmd) -> IllegalAction:
    seq = t.snapshot()["seq"]
    with pytest.raises(IllegalAction) as info:
        t.submit(cmd)
    assert t.snapshot()["seq"] == seq           # a refusal stores nothing
    return info.value


def test_a_card_named_for_the_player_to_play_near_31_is_in_doubt_until_the_show_names_it():
    t, evs = wrong_hand()
    hand = t.snapshot()["hand"]
    assert hand["in_doubt"] == ["2D"]
    assert hand["plays"] == {"Ann": ["10S", "9H", "8C", "4S"], "Bob": ["10D", "2D", "5H", "3C"]}
    exc = refused(t, {"type": "show"})          # the yes: refused, naming the card in doubt
    assert str(exc) == ("2D went to Bob at 29, where Bob might have said go: say who played it, or list the 4 "
                        "cards Ann holds (a yes cannot settle it)")
    assert exc.data == {"in_doubt": ["2D"]}
    # the answer that names what happened: Ann's 2D. The table checks it against the credit: refused, with the
    # one amend that moves the card (and every later card entered by turn with it)
    exc = refused(t, {"type": "show", "named": {"2D": "Ann"}})
    assert str(exc).startswith("2D was entered as Bob's at event 5 (count 29), not Ann's")
    assert exc.data["amend"] == {"type": "amend", "seq": evs[4]["seq"], "player": "Ann"}
    t.submit(exc.data["amend"])
    assert t.snapshot()["hand"]["in_doubt"] == []          # named for Ann with Bob's go implied: no guess left
    enter(t, [{"type": "show"}, {"type": "show"}])
    assert scores(t) == {"Ann": 10, "Bob": 4}


def test_a_careless_answer_is_an_explicit_claim_the_table_keeps_and_the_other_hand_is_checked_against():
    t, evs = wrong_hand()
    ev = t.submit({"type": "show", "named": {"2D": "Bob"}})     # the careless answer: explicit, and stored
    assert ev["named"] == {"2D": "Bob"} and ev["cards"] == ["10S", "9H", "8C", "4S"]
    assert from_json(ev).to_json() == ev
    assert t.snapshot()["hand"]["in_doubt"] == []          # one answer settles it (the other hand is the rest)
    # Bob lists what he holds: the plays say otherwise, and the fix moves 2D (the answer is re-derived with it)
    exc = refused(t, {"type": "show", "cards": ["10D", "8C", "4S", "3C"]})
    assert exc.data["amend"] == {"type": "amend", "seq": evs[4]["seq"], "player": "Ann"}
    t.submit(exc.data["amend"])
    t.submit({"type": "show", "cards": ["10D", "8C", "4S", "3C"]})
    assert scores(t) == {"Ann": 10, "Bob": 4}


def test_listing_the_cards_settles_the_doubt_and_bad_answers_change_nothing():
    t, _ = wrong_hand()
    for bad, words in (({"2D": "Cy"}, "'Cy' is not playing"), ({"7S": "Ann"}, "7S was not played in this hand"),
                       ({"2D": 3}, "say whose 2D was by a player's name"), ({}, "named says who played"),
                       ([], "named says who played")):
        assert words in str(refused(t, {"type": "show", "named": bad}))
    assert "not both" in str(refused(t, {"type": "show", "cards": ["10S", "9H", "8C", "4S"], "named": {"2D": "Bob"}}))
    t.submit({"type": "show", "cards": ["10S", "9H", "8C", "4S"]})     # Ann lists her cards: no yes needed after
    t.submit({"type": "show"})
    assert scores(t) == {"Ann": 11, "Bob": 8}             # what Ann listed (wrong): her explicit claim


def test_a_card_the_page_did_not_ask_about_needs_no_answer():
    t = lands_end()
    enter(t, BEFORE_31 + [RIGHT_31] + AFTER_31)          # named for Ann with Bob's go: no guess
    assert t.snapshot()["hand"]["in_doubt"] == []
    t2 = lands_end()
    enter(t2, BEFORE_31 + [{"type": "play", "card": "2D"}] + AFTER_31)      # by turn: the page asked nothing
    assert t2.snapshot()["hand"]["in_doubt"] == []
    t2.submit({"type": "show"})


def stale_table():
    """Ann 8S; a phone made Bob's 5H at seq 2 while another entered 10D for the player to play (Bob)."""
    t = lands_end()
    enter(t, [{"type": "turnup", "card": "KC"}, {"type": "play", "card": "8S"}])
    made = t.snapshot()["seq"]
    t.submit({"type": "play", "card": "10D"})
    exc = refused(t, {"type": "play", "card": "5H", "if_seq": made})
    assert exc.data["amend"] == {"type": "amend", "seq": 3, "insert": {"type": "play", "card": "5H"}}
    return t, exc.data["amend"]


def test_a_dismissed_fix_is_kept_and_the_same_card_again_asks_which_was_meant():
    t, fix = stale_table()
    ev = t.submit({"type": "doubt", "fix": fix})
    assert ev["entry"] == 3 and ev["card"] == "5H" and ev["text"] == "5H entered before event 3"
    assert from_json(ev).to_json() == ev
    assert t.snapshot()["hand"]["doubts"] == [{"seq": ev["seq"], "fix": fix, "card": "5H", "entry": 3,
                                                "text": "5H entered before event 3"}]
    # 5H again, for the player to play (Ann now): before, it went to Ann and the hands were swapped silently
    exc = refused(t, {"type": "play", "card": "5H"})
    assert str(exc).startswith("5H again: its fix was dismissed (event 4: 5H entered before event 3)")
    assert exc.data == {"amend": fix, "doubt": ev["seq"], "again": True}
    assert t.snapshot()["hand"]["plays"] == {"Ann": ["8S"], "Bob": ["10D"]}
    other = t.submit({"type": "play", "card": "7C"})        # another card is not asked about
    t.submit({"type": "undo"})
    assert other["player"] == "Ann"
    # the fix after all: the doubt no longer applies and is not listed
    t.submit(fix)
    assert t.snapshot()["hand"]["plays"] == {"Ann": ["8S", "10D"], "Bob": ["5H"]}
    assert t.snapshot()["hand"]["doubts"] == []


def test_a_card_entered_as_it_stands_over_its_doubt_goes_in_and_an_amend_re_derives_it():
    t, fix = stale_table()
    doubt = t.submit({"type": "doubt", "fix": fix})
    ev = t.submit({"type": "play", "card": "5H", "doubt": doubt["seq"]})
    assert ev["player"] == "Ann" and ev["doubt"] == doubt["seq"]
    assert t.snapshot()["hand"]["doubts"] == []            # 5H is out: the fix no longer applies
    # an amend of an earlier entry re-derives the late entry with its answer, not asking again
    t.submit({"type": "amend", "seq": 2, "card": "9S"})
    assert t.snapshot()["hand"]["plays"] == {"Ann": ["9S", "5H"], "Bob": ["10D"]}
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})                              # the doubt itself is undone like any event
    assert t.snapshot()["hand"]["doubts"] == []
    assert t.submit({"type": "play", "card": "5H"})["player"] == "Ann"


def test_the_show_asks_again_while_a_dismissed_fix_still_applies():
    t, evs = wrong_hand()
    exc = refused(t, {"type": "show", "named": {"2D": "Ann"}})
    doubt = t.submit({"type": "doubt", "fix": exc.data["amend"]})
    assert doubt["entry"] == evs[4]["seq"] and doubt["card"] == "2D"
    exc = refused(t, {"type": "show", "named": {"2D": "Bob"}})
    assert str(exc).startswith(f"before the show: the fix dismissed at event {doubt['seq']} still applies")
    assert exc.data == {"amend": {"type": "amend", "seq": 5, "player": "Ann"}, "doubt": doubt["seq"], "settle": True}
    settled = t.submit({"type": "doubt", "settle": doubt["seq"]})     # kept as entered: a word, on record
    assert settled["text"].startswith("kept as entered")
    t.submit({"type": "show", "named": {"2D": "Bob"}})
    assert t.snapshot()["hand"]["doubts"] == []


def test_bad_doubt_commands_are_refused_and_change_nothing():
    t, fix = stale_table()
    for cmd, words in (({"type": "doubt"}, "fix is the amend a refusal offered"),
                       ({"type": "doubt", "fix": {"type": "undo"}}, "fix is the amend"),
                       ({"type": "doubt", "fix": {"type": "amend", "seq": True}}, "fix is the amend"),
                       ({"type": "doubt", "fix": {**fix, "seq": 99}}, "event 99 is not an entry of this hand"),
                       ({"type": "doubt", "settle": 3}, "event 3 is not a fix kept in doubt")):
        assert words in str(refused(t, cmd))


def test_a_late_entry_after_a_kept_doubt_names_it_among_what_was_entered_meanwhile():
    t, fix = stale_table()
    made = t.snapshot()["seq"]
    t.submit({"type": "doubt", "fix": fix})
    exc = refused(t, {"type": "play", "card": "9C", "if_seq": made})
    assert exc.data["meanwhile"] == [{"seq": 4, "text": "a fix kept in doubt"}]
    assert "is not a fix kept in doubt" in str(refused(t, {"type": "doubt", "settle": True}))
