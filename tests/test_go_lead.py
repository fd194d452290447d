"""L9: who leads the next count after a go in two-hand games, counted by hand; and the rule a stored
match or an old record was played under (docs/engine.md, "The rules a stored match was played under")."""

from __future__ import annotations

import pytest

from companion.errors import UnknownGame
from companion.commands import fold
from companion.record import RecordError, drive
from companion.replay import replay
from companion.rulesets import get_ruleset
from companion.table import Table
from engine_play import new_table


def scores(t):
    return [s["score"] for s in t.snapshot()["sides"]]


def play(card, player):
    return {"type": "play", "card": card, "player": player}


def go(player):
    return {"type": "go", "player": player}


# Bob deals, Ann leads. Ann holds KH QD 2C 3C, Bob 9S 8D 4H AS; turn-up 7C (no heels).
# KH ten, 9S nineteen, QD twenty-nine, AS thirty: no points. Ann cannot play (2C would be 32): go.
# Bob cannot play either (8D, 4H): the go point is Bob's, the last to play (C3), and in Land's End
# it counts for Ann (L2): Ann 1, Bob 0.
FIRST_COUNT = [play("KH", "Ann"), play("9S", "Bob"), play("QD", "Ann"), play("AS", "Bob"), go("Ann"), go("Bob")]


def test_lands_end_after_a_go_the_player_of_the_last_card_leads():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    assert t.state.rules.go_lead == "last_player"                  # L9: the seed's "led by player one"
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT:
        t.submit(c)
    snap = t.snapshot()
    assert scores(t) == [1, 0] and snap["count"] == 0
    assert (snap["turn"], snap["expect_player"], snap["turn_side"]) == ("Bob", "Bob", 1)   # Bob played AS
    # Ann may not lead: at a count of 0 Bob cannot have said go
    with pytest.raises(Exception, match="it is Bob's turn; Ann can play 2C only if Bob said go"):
        t.submit(play("2C", "Ann"))
    # 8D eight, 2C ten, 4H fourteen, 3C seventeen: 2-4-3 is a run of three, Ann's, so 3 for Bob (L2),
    # and Ann's is the last card of the phase: 1 more for Bob. Ann 1, Bob 4.
    for c in (play("8D", "Bob"), play("2C", "Ann"), play("4H", "Bob"), play("3C", "Ann")):
        t.submit(c)
    assert scores(t) == [1, 4]
    assert t.snapshot()["hand"]["stage"] == "show"


def test_lands_end_with_other_player_the_first_to_say_go_leads():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options={"go_lead": "other_player"})
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT:
        t.submit(c)
    assert scores(t) == [1, 0] and t.snapshot()["turn"] == "Ann"      # Ann said go first
    # 2C two, 8D ten, 3C thirteen, 4H seventeen: 8-3-4 is no run, no fifteen; Bob's 4H is the last
    # card: 1 for Ann (L2). Ann 2, Bob 0.
    for c in (play("2C", "Ann"), play("8D", "Bob"), play("3C", "Ann"), play("4H", "Bob")):
        t.submit(c)
    assert scores(t) == [2, 0]


@pytest.mark.parametrize("go_lead", ["last_player", "other_player"])
def test_after_a_31_the_other_player_leads_either_way(go_lead):
    # Ann KH ten, Bob QS twenty, Ann AC twenty-one, Bob 10D thirty-one: 2, Bob's, so Ann's (L2).
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options={"go_lead": go_lead})
    t.submit({"type": "turnup", "card": "7C"})
    for c in (play("KH", "Ann"), play("QS", "Bob"), play("AC", "Ann"), play("10D", "Bob")):
        t.submit(c)
    assert scores(t) == [2, 0] and t.snapshot()["turn"] == "Ann"


@pytest.mark.parametrize("go_lead", ["last_player", "other_player"])
def test_a_last_player_without_cards_passes_the_lead(go_lead):
    # Ann holds KH QD JC 9C, Bob 2S 3S 4S AH. KH ten, 2S twelve, QD twenty-two, 3S twenty-five;
    # Ann cannot play (JC 35, 9C 34): go. Bob 4S twenty-nine, AH thirty (3-4-A is no run) and has no
    # card left: the go point is Bob's, counted for Ann (L2). Bob cannot lead: Ann leads under both
    # rules; JC ten, 9C nineteen, Ann's last card: 1 for Bob. Ann 1, Bob 1.
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options={"go_lead": go_lead})
    t.submit({"type": "turnup", "card": "7C"})
    for c in (play("KH", "Ann"), play("2S", "Bob"), play("QD", "Ann"), play("3S", "Bob"), go("Ann"),
              play("4S", "Bob"), play("AH", "Bob")):
        t.submit(c)
    assert scores(t) == [1, 0] and t.snapshot()["turn"] == "Ann"
    t.submit(play("JC", "Ann"))
    t.submit(play("9C", "Ann"))
    assert scores(t) == [1, 1]


def test_cribbage_keeps_the_standard_lead_and_book_rules_take_the_seeds():
    # the same count in cribbage: the go point is Bob's own (self credit); Ann leads next (M2),
    # with book rules Bob does (L9). Heels aside, nothing else differs here.
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT:
        t.submit(c)
    assert scores(t) == [0, 1] and t.snapshot()["turn"] == "Ann"
    book = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob", options={"book_rules": True})
    book.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT:
        book.submit(c)
    assert scores(book) == [0, 1] and book.snapshot()["turn"] == "Bob"


def test_presets_follow_the_ruling():
    want = {"lands-end": "last_player", "lands-end-casino-2": "last_player", "cribbage": "other_player",
            "reverse-cribbage": "other_player"}
    for game, lead in want.items():
        assert get_ruleset(game).go_lead == lead, game
    assert get_ruleset("reverse-cribbage", book_rules=True).go_lead == "last_player"
    # a go_lead named beside book rules wins over the bundle
    assert get_ruleset("cribbage", book_rules=True, go_lead="other_player").go_lead == "other_player"
    # three- and four-hand play and the single count have their own rule (M2, F3)
    for game in ("lands-end-3", "lands-end-4", "lands-end-casino-3", "lands-end-casino-4", "five-card"):
        assert get_ruleset(game).go_lead == "other_player"
        with pytest.raises(UnknownGame, match="go_lead 'last_player' is a two-hand rule"):
            get_ruleset(game, go_lead="last_player")
    with pytest.raises(UnknownGame, match="go_lead must be one of last_player, other_player"):
        get_ruleset("lands-end", go_lead="dealer")


# --- the rule a stored match or a record was played under ------------------------------------------

def test_new_match_events_name_the_rule_and_an_event_without_it_folds_with_the_old_rule():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    first = t.history()[0]
    assert first["type"] == "new_match" and first["go_lead"] == "last_player"
    crib = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")
    assert "go_lead" not in crib.history()[0]              # other_player, the old rule, is not written
    # a Land's End match stored before the option existed: its new_match has no go_lead
    events = [{k: v for k, v in e.items() if k not in ("steps", "undone")} for e in t.history()]
    del events[0]["go_lead"]
    events += [{"type": "turnup", "card": "7C", "seq": 1}] + [{**c, "seq": 2 + i} for i, c in enumerate(FIRST_COUNT)]
    old = fold(events)
    assert old.rules.go_lead == "other_player"
    assert [s.score for s in old.sides] == [1, 0] and old.seats[old.hand.turn] == "Ann"
    events[0]["go_lead"] = "last_player"
    assert fold(events).seats[fold(events).hand.turn] == "Bob"


def test_an_old_database_folds_as_it_was_played(tmp_path):
    """A store written before go_lead existed (its events as that table wrote them) reopens under
    other_player: the same scores and the same player to lead as then."""
    from companion.store import SQLiteStore
    path = tmp_path / "old.db"
    store = SQLiteStore(path)
    old_events = [{"type": "new_match", "game": "lands-end", "options": {}, "players": ["Ann", "Bob"],
                   "teams": None, "stake": 1, "series": {"kind": "single", "n": 1}, "first_dealer": "Bob",
                   "match_id": "m-old"},
                  {"type": "turnup", "card": "7C"}, *FIRST_COUNT]
    for seq, ev in enumerate(old_events):
        store.append("m-old", seq, {**ev, "seq": seq}, depth=seq + 1)
    store.close()
    again = Table(SQLiteStore(path), default_match=None)
    assert again.state.rules.go_lead == "other_player"
    assert again.snapshot()["turn"] == "Ann" and scores(again) == [1, 0]
    # it plays on under its rule: Ann leads 2C
    again.submit(play("2C", "Ann"))
    assert again.snapshot()["count"] == 2
    again.close()


def _record(go_lead_option=None):
    opts = {"go_lead": go_lead_option} if go_lead_option else {}
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options=opts)
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT + [play("8D", "Bob"), play("2C", "Ann"), play("4H", "Bob"), play("3C", "Ann")]:
        t.submit(c)
    return t.export_record()


def test_records_name_the_rule_and_an_old_record_replays_under_the_old_rule():
    rec = _record()
    assert rec["go_lead"] == "last_player" and rec["options"] == {}
    # the replay shows the hands too: Ann KH QD 2C 3C + 7C: K+2+3, Q+2+3 fifteens 4; Bob 9S 8D 4H AS
    # + 7C: 8+7 fifteen 2, run 7-8-9 3: 5. Ann 1 + 4, Bob 4 + 5.
    assert replay(rec)["valid"] and replay(rec)["scores"] == {"Ann": 5, "Bob": 9}
    # the same record exported before the option existed: no go_lead, so Ann led after the go and
    # these plays (Bob leading 8D) are not what happened at that table
    old = {k: v for k, v in rec.items() if k != "go_lead"}
    res = replay(old)
    assert not res["valid"] and "play 5 (8D by Bob) means Ann said go: Ann cannot say go" in res["error"]
    t = Table.memory(default_match=None)
    with pytest.raises(RecordError, match="hand 1"):
        drive(t, old)
    # an old record of the old rule's plays replays exactly
    m2 = _record_m2()
    assert "go_lead" not in m2 and m2["options"] == {"go_lead": "other_player"}
    m2["options"] = {}                                  # as an old export wrote it
    assert replay(m2)["scores"] == {"Ann": 2 + 4, "Bob": 0 + 5}


def _record_m2():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options={"go_lead": "other_player"})
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT + [play("2C", "Ann"), play("8D", "Bob"), play("3C", "Ann"), play("4H", "Bob")]:
        t.submit(c)
    return t.export_record()


@pytest.mark.parametrize("go_lead, lit_lane", [("last_player", 50), ("other_player", 48)])
def test_the_board_lights_the_turn_of_the_player_to_lead(go_lead, lit_lane):
    """The board's turn light follows the lead after the go: Bob's lane (3, status LED 50) under
    last_player, Ann's (lane 1, LED 48) under other_player (indices as in test_firmware_render)."""
    from firmware.geometry import Geometry
    from firmware.render import Light, render
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", options={"go_lead": go_lead})
    t.submit({"type": "turnup", "card": "7C"})
    for c in FIRST_COUNT:
        t.submit(c)
    flat = Light(brightness=1.0, gamma=1.0, budget_ma=1e9, ma_per_channel=20.0)
    frame = render(t.snapshot(), Geometry(), settings=flat)
    assert frame.pixels[lit_lane] == (255, 255, 255)                   # white: to play
    other = 48 if lit_lane == 50 else 50
    assert frame.pixels[other] != (255, 255, 255)
