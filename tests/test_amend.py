"""Amend: a past entry of the current hand corrected where it happened (issue 14).

The property at the heart of it: a game entered with wrong credits and then
amended is the same game, step for step, as the game entered right.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import DECK, IllegalAction
from companion.amend import AmendRefused
from companion.table import Table
from engine_play import GAMES, RandomPlayer, new_table


def lands_end(first_dealer="Bob") -> Table:
    return new_table("lands-end", ["Ann", "Bob"], first_dealer=first_dealer)


def enter(t: Table, cmds) -> list[dict]:
    return [t.submit(c) for c in cmds]


def scores(t: Table) -> dict:
    return {s["name"]: s["score"] for s in t.snapshot()["sides"]}


def steps(t: Table) -> list[dict]:
    """The game's score steps without their event numbers and without the amendments' own steps."""
    return [{k: v for k, v in s.items() if k != "seq"} for s in t.state.steps if s["kind"] != "amend"]


def view(t: Table) -> dict:
    """The snapshot without what differs between two tables by their event numbers only."""
    snap = t.snapshot()
    for k in ("seq", "match_id", "said", "can_undo"):
        snap.pop(k, None)
    if snap.get("last"):
        snap["last"] = {k: v for k, v in snap["last"].items() if k != "seq"}
    hand = snap.get("hand") or {}
    if "credits" in hand:       # by which event, and whether it was a guess: how a card was entered, not the game
        hand["credits"] = [{k: v for k, v in c.items() if k not in ("seq", "guess")} for c in hand["credits"]]
    return snap


def assert_same_game(a: Table, b: Table) -> None:
    assert steps(a) == steps(b)
    assert view(a) == view(b)
    assert a.export_record() == b.export_record()


# Ann (not dealing, so she leads) holds 10S 9H 2D 5H; Bob holds 10D 8C 4S 3C; the turn-up is KC.
TURNUP = {"type": "turnup", "card": "KC"}
BEFORE_31 = [TURNUP, {"type": "play", "card": "10S"}, {"type": "play", "card": "10D"},
             {"type": "play", "card": "9H"}]
AFTER_31 = [{"type": "play", "card": c} for c in ("8C", "5H", "4S", "3C")]   # each for the player to play
RIGHT_31 = {"type": "play", "card": "2D", "player": "Ann"}                  # Bob said go at 29
WRONG_31 = {"type": "play", "card": "2D", "player": "Bob", "answered": True}   # the wrong button of "whose card?"


def test_the_wrong_answer_near_31_is_caught_at_the_show_and_fixed_by_one_amend():
    right = lands_end()
    enter(right, BEFORE_31 + [RIGHT_31] + AFTER_31)
    # by hand: Bob's pair of tens pegs 2 for Ann (Land's End credits the opponent), Ann's 31 two for Bob;
    # Bob leads the next count: 8C, 5H, 4S, 3C makes the run 5-4-3 (3 for Ann) and Bob's last card 1 for Ann
    assert scores(right) == {"Ann": 6, "Bob": 2}
    assert right.snapshot()["hand"]["plays"] == {"Ann": ["10S", "9H", "2D", "5H"], "Bob": ["10D", "8C", "4S", "3C"]}
    enter(right, [{"type": "show"}, {"type": "show", "cards": ["10D", "8C", "4S", "3C"]}])
    # Ann's 10S 9H 2D 5H with KC: 10+5 and K+5, 4; Bob's 10D 8C 4S 3C with KC: 8+4+3, 2
    assert scores(right) == {"Ann": 10, "Bob": 4}

    wrong = lands_end()
    evs = enter(wrong, BEFORE_31 + [WRONG_31] + AFTER_31)
    # Bob's 31 leaves Ann to lead: every card after it went to the other player
    assert wrong.snapshot()["hand"]["plays"] == {"Ann": ["10S", "9H", "8C", "4S"], "Bob": ["10D", "2D", "5H", "3C"]}
    assert scores(wrong) == {"Ann": 8, "Bob": 0}
    # a yes cannot confirm Ann's "hand" from the plays: the card the answer guessed is named (issue 36)
    with pytest.raises(IllegalAction, match="2D went to Bob at 29, where Bob might have said go: say who played it"):
        wrong.submit({"type": "show"})
    wrong.submit({"type": "show", "named": {"2D": "Bob"}})     # the careless answer, an explicit wrong claim
    with pytest.raises(IllegalAction, match="Bob's hand does not match the plays: 2D was entered as Bob's"):
        wrong.submit({"type": "show", "cards": ["10D", "8C", "4S", "3C"]})
    amend = wrong.submit({"type": "amend", "seq": evs[4]["seq"], "player": "Ann"})
    assert amend["amends"] == evs[4]["seq"] and amend["change"] == {"player": "Ann"}
    assert amend["text"] == "event 5 amended: 2D is Ann's, not Bob's"
    # every later card was entered for the player to play: each goes to its right player now,
    # and Ann's show (confirmed from the plays) counts her real hand
    assert wrong.snapshot()["hand"]["plays"] == {"Ann": ["10S", "9H", "2D", "5H"], "Bob": ["10D", "8C", "4S", "3C"]}
    wrong.submit({"type": "show", "cards": ["10D", "8C", "4S", "3C"]})
    assert_same_game(right, wrong)
    assert scores(wrong) == {"Ann": 10, "Bob": 4}
    # History shows the amendment and the scores it moved: Ann had 8 from the play and 3 for the run
    # 8-9-10 of her wrong "hand"; now 6 from the play and 4 for her real hand; Bob 0, now 2
    moved = wrong.history()[amend["seq"]]["steps"]
    assert [(s["credited"], s["was"], s["score"], s["points"]) for s in moved] == [("Ann", 11, 10, -1), ("Bob", 0, 2, 2)]


def test_the_amend_moves_scores_at_once_and_undo_takes_it_back_as_one_step():
    t = lands_end()
    evs = enter(t, BEFORE_31 + [WRONG_31] + AFTER_31)
    before = view(t)
    t.submit({"type": "amend", "seq": evs[4]["seq"], "player": "Ann"})
    assert scores(t) == {"Ann": 6, "Bob": 2}
    said = t.snapshot()["said"]
    assert (said["text"], said["who"]) == ("event 5 amended: 2D is Ann's, not Bob's", "Ann 6 (was 8) \u00b7 Bob 2 (was 0)")
    assert said["speech"] == "event 5 amended: 2D is Ann's, not Bob's. Ann 6 (was 8). Bob 2 (was 0)"
    t.submit({"type": "undo"})
    assert view(t) == before and scores(t) == {"Ann": 8, "Bob": 0}


def test_a_mistaken_go_is_amended_away():
    # at 25 Bob "says go" by mistake; the next card 4S goes to Ann (the only one left to play)
    cards = [TURNUP, {"type": "play", "card": "10S"}, {"type": "play", "card": "10D"}, {"type": "play", "card": "5H"}]
    right = lands_end()
    enter(right, cards + [{"type": "play", "card": "4S"}, {"type": "go"}, {"type": "play", "card": "2D"}])
    # 10 10 pair (2 for Ann), 5H makes 25, Bob's 4S 29, Ann says go, Bob's 2D 31 (2 for Ann)
    assert scores(right) == {"Ann": 4, "Bob": 0}
    wrong = lands_end()
    evs = enter(wrong, cards + [{"type": "go"}, {"type": "play", "card": "4S"}])
    assert wrong.snapshot()["hand"]["plays"]["Ann"] == ["10S", "5H", "4S"]
    enter(wrong, [{"type": "go"}])
    # Bob held 2D when he said go at 25 (it fitted): his 2D (entered on his phone: by turn it would be Ann's,
    # whose go at 29 the table would then question) is refused at the card. The go's removal is not offered:
    # it would give Bob the 4S entered for the player to play, right if the go was only tapped by mistake,
    # wrong if Bob said it and Ann played 4S (issue 36: the table cannot tell): the undo back to it is
    with pytest.raises(IllegalAction) as err:
        wrong.submit({"type": "play", "card": "2D", "player": "Bob"})
    assert err.value.data == {"undo_to": evs[4]["seq"], "false_go": {"seq": evs[4]["seq"], "player": "Bob"}}
    # amended by hand (History), the go goes and the 4S follows the turn to Bob
    ev = wrong.submit({"type": "amend", "seq": evs[4]["seq"], "remove": True})
    assert ev["text"] == "event 5 amended: Bob's go removed"
    enter(wrong, [{"type": "play", "card": "2D"}])
    assert_same_game(right, wrong)


def test_a_missing_go_and_a_card_never_entered_are_inserted():
    right = lands_end()
    enter(right, BEFORE_31 + [{"type": "go"}, {"type": "play", "card": "2D"}, {"type": "play", "card": "8C"}])
    t = lands_end()
    evs = enter(t, BEFORE_31 + [{"type": "play", "card": "2D", "player": "Ann"}])
    t.submit({"type": "amend", "seq": evs[4]["seq"], "insert": {"type": "go", "player": "Bob"}})
    t.submit({"type": "play", "card": "8C"})
    assert steps(t) == steps(right) and view(t) == view(right)
    # a card never entered: 9H forgotten, so Ann's 2D went in at a count of 22; 9H goes in before it
    t2 = lands_end()
    evs = enter(t2, BEFORE_31[:3] + [RIGHT_31])
    assert t2.snapshot()["count"] == 22
    ev = t2.submit({"type": "amend", "seq": evs[3]["seq"], "insert": {"type": "play", "card": "9H", "player": "Ann"}})
    assert ev["text"] == "event 4 amended: Ann's 9H added before Ann's 2D"
    assert t2.snapshot()["hand"]["order"][-1]["count"] == 31 and t2.history()[-1]["redo"][1]["gos"] == ["Bob"]
    t2.submit({"type": "play", "card": "8C"})
    assert steps(t2) == steps(right) and view(t2) == view(right)


def test_which_card_it_was():
    right = lands_end()
    enter(right, BEFORE_31 + [RIGHT_31])
    t = lands_end()
    evs = enter(t, BEFORE_31[:3] + [{"type": "play", "card": "9D"}, RIGHT_31])
    ev = t.submit({"type": "amend", "seq": evs[3]["seq"], "card": "9H"})
    assert ev["text"] == "event 4 amended: Ann's 9D is 9H"
    assert steps(t) == steps(right) and view(t) == view(right)


def test_refused_amends_say_which_entry_and_why_and_change_nothing():
    t = lands_end()
    evs = enter(t, BEFORE_31 + [RIGHT_31] + AFTER_31)
    before, hist = view(t), len(t.history())
    cases = [
        # 9H was a jack: the count after 2D would be 32
        ({"seq": evs[3]["seq"], "card": "JH"}, evs[4]["seq"],
         "cannot amend event 4: event 5 (Ann's 2D) no longer fits: Ann cannot play 2D: the count would be 32"),
        # 4S (entered for the player to play, Bob) as Ann's: Ann has played all her cards
        ({"seq": evs[7]["seq"], "player": "Ann"}, evs[7]["seq"],
         "cannot amend event 8: the amended entry no longer fits: Ann has played all 4 cards"),
        # Bob's 10D as Ann's: the card after it (9H, named for nobody) is then Bob's, and 2D (named Ann's)
        # would be Ann's fourth card... Ann would hold five cards by 5H
        ({"seq": evs[2]["seq"], "player": "Ann"}, evs[2]["seq"],
         "cannot amend event 3: the amended entry no longer fits: it is Bob's turn; Ann can play 10D only if"),
        # a card that is already out
        ({"seq": evs[5]["seq"], "card": "KC"}, evs[5]["seq"], "KC is already out: it is the turn-up"),
        # the turn-up is not an entry the hand's plays can lose: amending it to a card played later
        ({"seq": evs[0]["seq"], "card": "3C"}, evs[8]["seq"], "event 9 (3C, for the player to play) no longer fits: 3C is already out: it is the turn-up"),
    ]
    for change, entry, message in cases:
        with pytest.raises(AmendRefused) as err:
            t.submit({"type": "amend", **change})
        assert message in str(err.value)
        assert err.value.entry == entry
        assert view(t) == before and len(t.history()) == hist


def test_bad_amend_commands_are_refused_clearly():
    t = lands_end()
    evs = enter(t, BEFORE_31)
    for cmd, message in [
        ({"type": "amend"}, "amend needs the seq of the entry to correct"),
        ({"type": "amend", "seq": 99, "player": "Bob"}, "cannot amend event 99: it is not a live entry"),
        ({"type": "amend", "seq": 0, "player": "Bob"}, "cannot amend event 0: it comes before the current hand"),
        ({"type": "amend", "seq": evs[1]["seq"]}, "an amend makes one change"),
        ({"type": "amend", "seq": evs[1]["seq"], "remove": True, "card": "5S"}, "an amend makes one change"),
        ({"type": "amend", "seq": evs[1]["seq"], "cards": ["5S"]}, "a play entry can change player or card, not cards"),
        ({"type": "amend", "seq": evs[1]["seq"], "colour": "red"}, "not colour"),
        ({"type": "amend", "seq": evs[1]["seq"], "insert": {"type": "undo"}}, "insert is a card-entry command"),
        ({"type": "amend", "seq": evs[1]["seq"], "player": "Zed"}, "'Zed' is not playing"),
    ]:
        with pytest.raises(IllegalAction, match=message.replace("(", r"\(").replace(")", r"\)")):
            t.submit(cmd)
    # an earlier hand cannot be amended: its entries are gone from the current hand
    t2 = lands_end()
    evs = enter(t2, BEFORE_31 + [RIGHT_31] + AFTER_31 + [
        {"type": "show"}, {"type": "show", "cards": ["10D", "8C", "4S", "3C"]},
        {"type": "pocket", "cards": ["AS", "2S", "3S", "6S"]}])
    with pytest.raises(IllegalAction, match="nothing to amend: no entry in the current hand yet"):
        t2.submit({"type": "amend", "seq": evs[1]["seq"], "card": "QS"})


def test_an_amend_that_ends_the_game_or_no_longer_ends_it():
    # Land's End: 16 loses. Ann at 14 from pegs; a wrong credit gives Bob's 2 to Ann and ends the game
    t = lands_end()
    t.submit({"type": "peg", "side": "p1", "points": 13})
    evs = enter(t, BEFORE_31 + [WRONG_31])
    assert t.state.over and t.snapshot()["result"]["loser"] == "p1"      # Ann 13 + 2 + 2: 17
    t.submit({"type": "amend", "seq": evs[4]["seq"], "player": "Ann"})
    assert not t.state.over and scores(t) == {"Ann": 15, "Bob": 2}
    assert t.ledger() == {"Ann": 0, "Bob": 0}
    t.submit({"type": "play", "card": "8C"})
    assert t.snapshot()["turn"] == "Ann"


def test_amend_survives_a_restart_and_a_later_undo(tmp_path):
    path = tmp_path / "t.db"
    t = Table.open(path, rng=random.Random(1), default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    evs = enter(t, BEFORE_31 + [WRONG_31] + AFTER_31)
    t.submit({"type": "amend", "seq": evs[4]["seq"], "player": "Ann"})
    t.submit({"type": "show"})
    want = view(t)
    t.close()
    again = Table.open(path, default_match=None)
    assert view(again) == want
    again.submit({"type": "undo"})          # the show
    again.submit({"type": "undo"})          # the amend
    assert scores(again) == {"Ann": 8, "Bob": 0}
    again.close()
    fresh = Table.open(path, default_match=None, checkpoint_every=1000)
    assert scores(fresh) == {"Ann": 8, "Bob": 0}
    fresh.close()


def test_an_amend_refolds_at_most_the_current_hand(monkeypatch):
    import companion.amend as amend_mod
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    rng = random.Random(3)
    while t.state.hand_no < 4 and not t.state.over:
        RandomPlayer(t, rng).deal_hand()
    assert not t.state.over
    evs = enter(t, BEFORE_31[:2])
    calls = []
    from functools import partial

    from companion import commands

    def counting(s, e):          # every event the amend folds, in verify and in apply
        calls.append(e["seq"])
        return commands.apply_event(s, e)
    monkeypatch.setitem(commands.COMMANDS, "amend", commands.Command(
        partial(amend_mod.verify_amend, verify=commands.verify_any, fold_one=counting),
        partial(amend_mod.apply_amend, fold_one=counting)))
    t.submit({"type": "amend", "seq": evs[1]["seq"], "card": "QS"})
    # decide re-derives the two entries of the hand, apply folds them again: nothing of hands 1 to 3
    assert sorted(set(calls)) == [evs[0]["seq"], evs[1]["seq"]] and len(calls) == 4


def test_tabletop_grid_amend_where_the_card_went():
    def table():
        return new_table("table-top-cribbage", ["Ann", "Bob"], first_dealer="Bob")
    right, wrong = table(), table()
    moves = [{"type": "turnup", "card": "5H"},
             {"type": "place", "card": "5S", "row": 2, "col": 1},       # Ann (left of the dealer) first
             {"type": "place", "card": "5D", "row": 2, "col": 3},       # Bob
             {"type": "place", "card": "10C", "row": 1, "col": 2}]      # Ann
    enter(right, moves)
    evs = enter(wrong, moves[:2] + [{"type": "place", "card": "5D", "row": 1, "col": 2}])
    with pytest.raises(IllegalAction, match="row 1, col 2 already holds 5D"):
        wrong.submit(moves[3])
    before = view(wrong)
    for change, message in [
        ({"row": 0, "col": 4}, "cannot amend event 3: the amended entry no longer fits: row 0, col 4 touches no card"),
        ({"card": "5S"}, "5S is already out: on the grid at row 2, col 1"),
    ]:
        with pytest.raises(AmendRefused, match=message):
            wrong.submit({"type": "amend", "seq": evs[2]["seq"], **change})
        assert view(wrong) == before
    # Ann's 5S at (1,2) would leave Bob's later 5D on that square
    with pytest.raises(AmendRefused, match="event 3 \\(5D at row 1, col 2\\) no longer fits: row 1, col 2 already holds 5S"):
        wrong.submit({"type": "amend", "seq": evs[1]["seq"], "row": 1, "col": 2})
    ev = wrong.submit({"type": "amend", "seq": evs[2]["seq"], "row": 2, "col": 3})
    assert ev["text"] == "event 3 amended: 5D at row 1, col 2 is now 5D at row 2, col 3"
    wrong.submit(moves[3])
    assert_same_game(right, wrong)
    # the card itself, and a card into the crib instead of the grid
    wrong.submit({"type": "amend", "seq": evs[2]["seq"], "crib": True})
    assert wrong.snapshot()["hand"]["crib_count"] == 1 and wrong.snapshot()["hand"]["grid"][2][3] is None


# --- the property: entered wrong and amended == entered right -------------------------------------

CLAIMS = [("lands-end", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("cribbage", ["Ann", "Bob"], {"claim_mode": True}, None),
          ("table-top-cribbage", ["Ann", "Bob"], {"claim_mode": True}, None)]
CASES = GAMES + CLAIMS


def record_commands(game, players, options, teams, seed):
    """Play a random game right; return the table and every command with the hand it was entered in."""
    t = new_table(game, players, seed=seed, options=options, teams=teams)
    cmds = []

    def submit(cmd):
        cmds.append((dict(cmd), (t.state.game_no, t.state.hand_no)))
        return t.submit(cmd)

    RandomPlayer(t, random.Random(seed), submit=submit, claim_miss=0.2).play_game()
    return t, cmds


def enter_with_mistakes(table: Table, cmds: list, rng: random.Random, rate: float) -> list[str]:
    """Enter ``cmds`` with random mistakes (a card for the wrong player, a wrong card, a go too many,
    an entry forgotten), each fixed by one amend a few entries later; return the kinds of mistakes made."""
    made = []
    hand_cards: dict[tuple, set] = {}
    for c, key in cmds:
        for f in ("card", "cards", "crib"):
            v = c.get(f)
            hand_cards.setdefault(key, set()).update([v] if isinstance(v, str) else v if isinstance(v, list) else [])

    def inner(k):     # an entry after which the hand goes on (an amend can still reach back)
        return k + 1 < len(cmds) and cmds[k + 1][1] == cmds[k][1]

    def amend(command):
        """Submit the amend that fixes a mistake: it is never refused (a refusal fails the test, whatever it says)."""
        try:
            table.submit(command)
        except IllegalAction as exc:
            raise AssertionError(f"the amend {command} was refused: {exc}") from None

    def pile_on(j, most):
        """Enter up to ``most`` of the next right entries on top of a mistake; return where it stopped."""
        for _ in range(most):
            if not inner(j):
                break
            try:
                table.submit(cmds[j][0])
            except IllegalAction:
                break
            j += 1
        return j

    i = 0
    while i < len(cmds):
        cmd, key = cmds[i]
        if not inner(i) or cmd["type"] not in ("play", "go", "place", "layout") or rng.random() > rate:
            table.submit(cmd)
            i += 1
            continue
        st = table.state
        spare = [str(c) for c in DECK if str(c) not in hand_cards[key] and c not in st.hand.seen]
        kind = rng.choice(["layout"] if cmd["type"] == "layout" else ["missing", "card"] if cmd["type"] == "place" else
                          ["missing", "go"] if cmd["type"] == "go" else ["player", "card", "go", "missing"])
        try:
            if kind == "missing":
                if not inner(i + 1):
                    raise IllegalAction("keep it simple")
                ev = table.submit(cmds[i + 1][0])
                amend({"type": "amend", "seq": ev["seq"], "insert": cmd})
                i += 2
            elif kind == "go":
                ev = table.submit({"type": "go"})
                j = pile_on(i, 1 + rng.randrange(3))
                amend({"type": "amend", "seq": ev["seq"], "remove": True})
                i = j
            else:
                if kind == "layout":     # two cards of the grid swapped
                    a, b = rng.sample([k for k in range(25) if k != 12], 2)
                    cards = list(cmd["cards"])
                    cards[a], cards[b] = cards[b], cards[a]
                    wrong, fix = {**cmd, "cards": cards}, {"cards": cmd["cards"]}
                elif kind == "player":
                    right = cmd.get("player") or st.seats[st.hand.turn]
                    others = [p for p in st.seats if p != right and st.hand.left(st.seats.index(p)) > 0]
                    if not others:
                        raise IllegalAction("nobody else holds cards")
                    wrong, fix = {**cmd, "player": rng.choice(others)}, {"player": right}
                else:
                    wrong, fix = {**cmd, "card": rng.choice(spare)}, {"card": cmd["card"]}
                ev = table.submit(wrong)
                j = pile_on(i + 1, rng.randrange(4))
                amend({"type": "amend", "seq": ev["seq"], **fix})
                i = j
            made.append(kind)
        except IllegalAction:     # the mistake itself was refused: enter it right instead
            table.submit(cmd)
            i += 1
    return made


@pytest.mark.parametrize("game, players, options, teams", CASES,
                         ids=[f"{c[0]}{'-4' if len(c[1]) == 4 else ''}{'-claims' if c[2].get('claim_mode') else ''}"
                              for c in CASES])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_a_game_entered_wrong_and_amended_equals_the_game_entered_right(game, players, options, teams, seed):
    right, cmds = record_commands(game, players, options, teams, seed % 10_000)
    rng = random.Random(seed)
    for _ in range(5):           # a game with at least one mistake (a short one may draw none)
        wrong = new_table(game, players, seed=seed % 10_000, options=options, teams=teams)
        made = enter_with_mistakes(wrong, cmds, rng, rate=0.2)
        assert_same_game(right, wrong)
        if made:
            break
    inner = [k for k in range(len(cmds) - 1) if cmds[k + 1][1] == cmds[k][1]]
    assert made or not any(cmds[k][0]["type"] in ("play", "go", "place", "layout") for k in inner)
