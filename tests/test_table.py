"""The table: the one writer (submit, refusals, client ids, undo, history, subscribers, restart, records)."""

import threading

import pytest

from companion import commands
from companion.errors import IllegalAction, StaleCommand
from companion.replay import import_record
from companion.table import TABLE_COMMANDS, Table
from engine_play import new_table
from test_hand_deal import LE_HAND_1, M2_LEAD, refused, scores


def test_fresh_store_starts_the_default_match():
    t = Table.memory()
    snap = t.snapshot()
    assert snap["game"] == "lands-end" and snap["players"] == ["Player 1", "Player 2"] and snap["seq"] == 0
    assert snap["dealer"] == "Player 2" and snap["expect"] == "turnup"


def test_submit_returns_the_stored_event():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    ev = t.submit({"type": "turnup", "card": "5h"})
    assert (ev["type"], ev["card"], ev["seq"]) == ("turnup", "5H", 1)
    assert t.store.events(t.state.match_id)[-1] == {k: v for k, v in ev.items()}


def test_refusals_store_nothing():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    assert refused(t, {"type": "fly"}) == "unknown command 'fly'"
    assert refused(t, {"type": "peg", "side": "p9", "points": 1}) == "no side 'p9'; sides are p1, p2"
    with pytest.raises(IllegalAction, match="a command must be a JSON object"):
        t.submit(["peg"])
    assert len(t.store.events(t.state.match_id)) == 1


def test_a_repeated_client_id_is_acknowledged_once():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    first = t.submit({"type": "peg", "side": "p1", "points": 2}, client_id="tap-17")
    again = t.submit({"type": "peg", "side": "p1", "points": 2}, client_id="tap-17")
    assert again == {**first, "duplicate": True}
    assert scores(t) == [2, 0] and t.snapshot()["seq"] == 1
    with pytest.raises(IllegalAction, match="client id must be text of 1 to 64 characters"):
        t.submit({"type": "peg", "side": "p1", "points": 2}, client_id="x" * 65)


def test_undo_reverts_the_last_event_and_is_itself_an_event():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "turnup", "card": "2C"})
    before = t.snapshot()
    t.submit({"type": "play", "card": "10H"})
    t.submit({"type": "play", "card": "5S"})
    assert scores(t) == [2, 0]
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})
    after = t.snapshot()
    assert {k: v for k, v in after.items() if k != "seq"} == {k: v for k, v in before.items() if k != "seq"}
    hist = t.history()
    assert [(h["type"], h["undone"]) for h in hist] == [
        ("new_match", False), ("turnup", False), ("play", True), ("play", True), ("undo", False), ("undo", False)]
    assert hist[4]["undoes"] == 3 and hist[5]["undoes"] == 2
    t.submit({"type": "undo"})
    with pytest.raises(IllegalAction, match="nothing to undo"):
        t.submit({"type": "undo"})
    assert t.snapshot()["can_undo"] is False


def test_undo_after_the_game_ended_reopens_it():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p1", "points": 16})
    assert t.snapshot()["result"] is not None
    t.submit({"type": "undo"})
    assert t.snapshot()["result"] is None and t.snapshot()["phase"] == "cut"


def test_history_lists_the_score_steps_of_each_event():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    for c, *_ in LE_HAND_1[:8]:
        t.submit(c)
    hist = t.history()
    go = hist[-1]
    assert go["type"] == "go" and [(s["kind"], s["points"], s["credited"]) for s in go["steps"]] == [("go", 1, "Bob")]
    play = hist[3]
    assert play["card"] == "5S" and play["steps"][0]["text"] == "fifteen for two"


def test_subscribers_get_every_snapshot_and_a_broken_one_does_not_break_the_table():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    seen = []
    unsubscribe = t.subscribe(lambda snap: seen.append(snap["seq"]))
    t.subscribe(lambda snap: 1 / 0)
    t.submit({"type": "peg", "side": "p1", "points": 1})
    t.submit({"type": "peg", "side": "p1", "points": 1})
    t.submit({"type": "undo"})
    other = new_table("cribbage", ["Cy", "Di"], first_dealer="Di")
    t.adopt(other)                                # an adopted match tells them too, through the same call
    assert seen == [1, 2, 3, 0] and t.snapshot()["game"] == "cribbage"
    unsubscribe()
    t.submit({"type": "peg", "side": "p1", "points": 1})
    assert seen == [1, 2, 3, 0] and scores(t) == [1, 0]


def test_undo_and_new_match_are_the_tables_own_commands_and_every_other_kind_a_rule():
    # the table's command table changes which events are live or which match is current; the rules' the match
    assert set(TABLE_COMMANDS) == {"undo", "new_match"}
    assert "undo" not in commands.COMMANDS          # an undo has no rule: it is a fold without the undone event
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    first = t.state.match_id
    t.submit({"type": "peg", "side": "p1", "points": 2})
    assert t.submit({"type": "undo"})["undoes"] == 1 and scores(t) == [0, 0]
    with pytest.raises(IllegalAction, match="nothing to undo"):
        t.submit({"type": "undo"})
    ev = t.submit({"type": "new_match", "game": "cribbage", "players": ["Cy", "Di"], "first_dealer": "Di"})
    assert ev["seq"] == 0 and ev["match_id"] == t.state.match_id != first
    for kind in ("nosuch", None, ["peg"], {"type": "peg"}):
        with pytest.raises(IllegalAction, match="unknown command"):
            t.submit({"type": kind})
    assert t.snapshot()["seq"] == 0


def test_restart_rebuilds_the_acknowledged_state(tmp_path):
    path = tmp_path / "table.db"
    t = Table.open(path, default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    for c, *_ in LE_HAND_1[:10]:
        t.submit(c)
    t.submit({"type": "undo"})
    snap = t.snapshot()
    t.close()
    t2 = Table.open(path)
    assert t2.snapshot() == snap
    t2.close()


def test_ledger_runs_across_matches(tmp_path):
    path = tmp_path / "table.db"
    t = Table.open(path, default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob", "stake": 2})
    t.submit({"type": "peg", "side": "p2", "points": 16})               # Bob loses at x4
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Cy"], "first_dealer": "Cy", "stake": 1})
    t.submit({"type": "peg", "side": "p1", "points": 12})
    t.submit({"type": "peg", "side": "p2", "points": 16})               # Cy loses at x1
    assert t.snapshot()["ledger"] == {"Ann": 9, "Bob": -8, "Cy": -1}
    t.close()
    assert Table.open(path).ledger() == {"Ann": 9, "Bob": -8, "Cy": -1}


def test_concurrent_commands_are_serialised():
    t = new_table("cribbage", ["Ann", "Bob"], first_dealer="Bob")

    def tap(side):
        for _ in range(25):
            t.submit({"type": "peg", "side": side, "points": 1})

    threads = [threading.Thread(target=tap, args=(s,)) for s in ("p1", "p2", "p1", "p2")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert scores(t) == [50, 50]
    assert [e["seq"] for e in t.store.events(t.state.match_id)] == list(range(101))


def test_a_failing_apply_leaves_the_state_and_the_store_untouched(monkeypatch):
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p1", "points": 3})
    before = t.snapshot()

    real = commands.COMMANDS["peg"]

    def broken_apply(state, ev):
        if ev["points"] != 1:
            return real.apply(state, ev)
        state.sides[0].score += 100       # a half-done change, then a bug
        raise KeyError("boom")

    monkeypatch.setitem(commands.COMMANDS, "peg", commands.Command(verify=real.verify, apply=broken_apply))
    with pytest.raises(IllegalAction, match="internal error applying peg"):
        t.submit({"type": "peg", "side": "p1", "points": 1})
    monkeypatch.undo()
    assert t.snapshot() == before and t.state.sides[0].score == 3
    assert len(t.store.events(t.state.match_id)) == 2


def test_export_and_import_a_record():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob", stake=5, options=M2_LEAD)
    for c, *_ in LE_HAND_1:
        t.submit(c)
    rec = t.export_record()
    assert rec["hands"][0] == {"dealer": "Bob", "turnup": "2C",
                               "held": {"Ann": ["10H", "6D", "3H", "KD"], "Bob": ["5S", "4C", "KS", "9C"]},
                               "pocket": ["AS", "7D", "9H", "QS"],
                               "plays": ["10H", "5S", "6D", "4C", "3H", "KS", "KD", "9C"],
                               # at 28, after the fifth card, Bob (KS, 9C) and Ann (KD) cannot play
                               "gos": [{"player": "Bob", "after": 5}, {"player": "Ann", "after": 5}]}
    assert len(rec["hands"]) == 1                       # the next hand has nothing entered yet
    other = Table.memory()
    result = import_record(other, rec)
    assert result["valid"] and result["scores"] == {"Ann": 10, "Bob": 11}
    assert other.snapshot()["players"] == ["Ann", "Bob"] and scores(other) == [10, 11]
    assert other.snapshot()["hand_no"] == 2


def test_import_of_an_invalid_record_changes_nothing():
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p1", "points": 3})
    before = t.snapshot()
    rec = {"game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob", "stake": 1,
           "hands": [{"turnup": "2C", "held": {"Ann": ["2C"]}, "plays": ["2C"]}]}
    with pytest.raises(IllegalAction, match="hand 1, Ann's held cards: 2C is also the turn-up"):
        import_record(t, rec)
    assert t.snapshot() == before


def test_malformed_commands_are_refused_with_a_rules_error_only():
    """Random junk in every field of every card-entry command: a RulesError or a valid event, nothing else."""
    import random

    from companion.errors import RulesError

    rng = random.Random(7)
    junk = [None, 0, -1, 5, 99, True, "", "5H", "JS", "10h", "ZZ", "Ann", "Zed", "p1", "team1", [], ["5H"],
            ["5H", "5H"], ["5H", "6H", "7H", "8H"], {"a": 1}, 1.5, "crib"]
    fields = ["card", "player", "cards", "row", "col", "crib", "claimed", "points", "side"]
    kinds = ["turnup", "play", "go", "show", "pocket", "claim", "muggins", "place", "layout", "peg"]
    for game, players in (("lands-end", ["Ann", "Bob"]), ("table-top-cribbage", ["Ann", "Bob"]),
                          ("lands-end-4", ["Ann", "Bob", "Cy", "Di"])):
        t = new_table(game, players, first_dealer="Bob", options={"claim_mode": True} if game == "lands-end" else {})
        accepted = 0
        for _ in range(1500):
            cmd = {"type": rng.choice(kinds)}
            for f in rng.sample(fields, rng.randrange(4)):
                cmd[f] = rng.choice(junk)
            before = t.snapshot()
            try:
                t.submit(cmd)
                accepted += 1
            except RulesError:
                assert t.snapshot() == before
            if t.state.over:
                t.submit({"type": "undo"})
        assert accepted > 0


def test_malformed_new_match_commands_are_refused_with_a_rules_error_only(tmp_path):
    """Junk in every field of new_match: a RulesError and nothing stored, or a match that survives a restart."""
    import random

    from companion.errors import RulesError

    rng = random.Random(11)
    junk = {
        "game": ["lands-end-4", "cribbage", "lands-end-casino-3", None, 5, "", ["cribbage"]],
        "players": [["Ann", "Bob"], ["Ann", "Bob", "Cy", "Di"], ["Ann"], [1, 2], "Ann", None, [["Ann"], "Bob"]],
        "teams": [None, [1, 2], "AB", [["Ann", "Cy"], ["Bob", "Di"]], [["Ann"], ["Bob"]], {"x": 1}, [[1, 2], [3, 4]],
                  [["Ann", "Cy"], "Bob"]],
        "stake": [0, 2.5, -1, "5", None, True],
        "first_dealer": [None, "Ann", "Zed", 3, ["Ann"], "House"],
        "series": [None, {"kind": "best_of", "n": 3}, {"kind": "first_to"}, [], {"n": "3"}, "best_of"],
        "direction": [None, "ccw", "up", 1],
        "cut_bonus": [True, False, "no"],
        "options": [{}, None, [], {"target": 31}, {"players": 4}, {"multipliers": [[1, 2]]}, {"zero_bonus": "x"}],
    }
    t = Table.open(tmp_path / "t.db", default_match=None)
    accepted = 0
    for _ in range(600):
        cmd = rng.choice([{"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"]},
                          {"type": "new_match", "game": "lands-end-4", "players": ["Ann", "Bob", "Cy", "Di"]}])
        for f in rng.sample(sorted(junk), rng.randrange(1, 4)):
            cmd[f] = rng.choice(junk[f])
        before = (t.snapshot(), len(t.history()))
        try:
            ev = t.submit(cmd)
        except RulesError:
            assert (t.snapshot(), len(t.history())) == before
            continue
        accepted += 1
        assert ev.get("teams") is None or t.state.rules.partnerships, ev     # teams only where they mean something
    snap = t.snapshot()
    t.close()
    again = Table.open(tmp_path / "t.db", default_match=None)
    assert accepted > 20 and again.snapshot() == snap
    again.close()


def test_a_command_made_from_an_old_snapshot_is_refused_when_it_says_so():
    """``if_seq``: two phones press "undo" (or count a show) on the same screen; only the first applies."""
    t = new_table("lands-end", ["Ann", "Bob"], first_dealer="Bob")
    t.submit({"type": "peg", "side": "p1", "points": 2})
    t.submit({"type": "peg", "side": "p2", "points": 3})
    seen = t.snapshot()["seq"]
    t.submit({"type": "undo", "if_seq": seen})                      # the first phone
    after = t.snapshot()
    with pytest.raises(StaleCommand, match=rf"the table has moved on since this was entered \(event {seen + 1}, "
                                           rf"the command was made at {seen}\): nothing changed"):
        t.submit({"type": "undo", "if_seq": seen})                  # the second phone, same screen
    assert t.snapshot() == after and scores(t) == [2, 0]
    with pytest.raises(IllegalAction, match="if_seq must be the whole-number seq of the snapshot") as err:
        t.submit({"type": "peg", "side": "p1", "points": 1, "if_seq": "3"})
    assert not isinstance(err.value, StaleCommand)                  # a malformed command, not a late one
    ev = t.submit({"type": "peg", "side": "p1", "points": 1, "if_seq": after["seq"]})
    assert "if_seq" not in ev and scores(t) == [3, 0]


def test_first_dealer_is_matched_like_the_player_names():
    """Names are trimmed (and cut to 24 characters); the first dealer must be found the same way."""
    long = "Bartholomew the Magnificent"
    t = new_table("cribbage", ["  Ann ", long], first_dealer=long)
    snap = t.snapshot()
    assert snap["players"] == ["Ann", long[:24]] and snap["dealer"] == long[:24]
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": " Ann "})
    assert t.snapshot()["dealer"] == "Ann"


def test_no_event_is_stamped_before_the_one_before_it_whatever_the_clock_says(tmp_path):
    """A Pi has no real-time clock: after a power cut it may start on a time set back (systemd's build date)
    until the network or a phone sets it. Events keep their order in time, across a restart too, so the
    season never dates a night before the one it follows."""
    import datetime as dt
    now = [dt.datetime(2026, 11, 28, 21, 0, tzinfo=dt.timezone.utc)]
    path = tmp_path / "t.db"
    t = Table.open(path, clock=lambda: now[0])
    a = t.submit({"type": "peg", "side": "p1", "points": 1})["at"]
    now[0] = dt.datetime(2026, 4, 27, 8, 0, tzinfo=dt.timezone.utc)          # the clock went back
    b = t.submit({"type": "peg", "side": "p1", "points": 1})["at"]
    t.close()
    t = Table.open(path, clock=lambda: now[0])                                # and stays back after a restart
    c = t.submit({"type": "undo"})["at"]
    d = t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})["at"]
    assert a == b == c == d == "2026-11-28T21:00:00+00:00"
    now[0] = dt.datetime(2026, 11, 29, 1, 30, tzinfo=dt.timezone.utc)        # set right again: it moves on
    assert t.submit({"type": "peg", "side": "p2", "points": 2})["at"] == "2026-11-29T01:30:00+00:00"
    t.close()
