"""Constant cost per command: checkpoints, history by seq, the ledger of finished matches, migration.

The checkpoints, the steps kept with each event and the ledger of finished
matches are data derived from the events. These tests prove that what the
table reaches incrementally (and what it reloads from the derived data after
a restart) equals a fold of the events from scratch, and they count the events
each operation folds, so a cost that grows with the history fails here
without timing anything (the timings are in bench/bench_cost.py).
"""

import random
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import commands, match
from companion.commands import fold
from companion.replay import import_record
from companion.store import MemoryStore, SQLiteStore
from companion.table import CHECKPOINT_EVERY, Table, effective
from engine_play import RandomPlayer

GAMES = [("lands-end", ["Ann", "Bob"]), ("lands-end-3", ["Ann", "Bob", "Cy"]),
         ("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"]), ("cribbage", ["Ann", "Bob"]),
         ("lands-end-tabletop", ["Ann", "Bob"]), ("five-card", ["Ann", "Bob"])]


def new_match(t, game, players, stake=2):
    first = None if game.startswith("lands-end-casino") else players[-1]      # the house always deals (H1)
    t.submit({"type": "new_match", "game": game, "players": players, "stake": stake, "first_dealer": first})


def strip(snap):
    return {k: v for k, v in snap.items() if k not in ("ledger", "can_undo")}


def scratch_history(events):
    """The history a fold from scratch gives: every event, undone flags, the steps each live one made."""
    live = effective(events)
    ids = {id(e) for e in live}
    steps = {}
    state = match.MatchState()
    for ev in live:
        commands.apply_event(state, ev)
        steps[ev["seq"]] = state.fresh
    return [{**ev, "undone": ev["type"] != "undo" and id(ev) not in ids,
             "steps": steps.get(ev["seq"], []) if id(ev) in ids else []} for ev in events]


class Counting:
    """Counts the events folded by commands.apply_event while installed."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = commands.apply_event

        def apply(state, ev):
            self.n += 1
            return real(state, ev)
        for mod in ("companion.commands", "companion.table"):
            monkeypatch.setattr(f"{mod}.apply_event", apply)


def play_with_undos(t, rng, commands, undo_p):
    """Play random legal commands; now and then undo a few and enter them again (or peg and undo)."""
    done = []

    def submit(cmd):
        ev = t.submit(cmd)
        done.append(dict(cmd))
        if rng.random() < undo_p and len(done) > 1:
            k = rng.randint(1, min(4, len(done)))
            for _ in range(k):
                t.submit({"type": "undo"})
            if rng.random() < 0.3 and not t.state.over:
                t.submit({"type": "peg", "side": t.state.sides[0].id, "points": 1})
                t.submit({"type": "undo"})
            for c in done[-k:]:
                t.submit(c)
        return ev

    p = RandomPlayer(t, rng, submit=submit)
    while len(p.commands) < commands:
        if t.state.over:
            t.submit({"type": "new_game"})
            done.clear()          # an undo never reaches back past a new game in this driver
        if t.state.rules.grid:
            p.grid_hand()
        else:
            p.deal_hand()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10**6), every=st.integers(1, 7),
       undo_p=st.floats(0.05, 0.5), commands=st.integers(5, 150), sqlite=st.booleans())
def test_incremental_state_equals_a_fold_from_scratch_after_random_games_with_undos(
        tmp_path_factory, game, seed, every, undo_p, commands, sqlite):
    path = tmp_path_factory.mktemp("t") / "t.db"
    store = SQLiteStore(path) if sqlite else MemoryStore()
    if sqlite:
        store._db.execute("PRAGMA synchronous=OFF")        # folding is under test here, not durability
    t = Table(store, rng=random.Random(seed), default_match=None, checkpoint_every=every)
    new_match(t, *game)
    play_with_undos(t, random.Random(seed), commands, undo_p)
    events = store.events(t.state.match_id)
    scratch = fold(effective(events))
    scratch.seq = events[-1]["seq"]
    assert t.state.snapshot() == scratch.snapshot()
    assert t.history() == scratch_history(events)
    assert t.history(len(events) - 3) == scratch_history(events)[-3:]
    snap = t.snapshot()
    if sqlite:                       # a restart, with and without the checkpoint written at close
        t.close()
        again = Table.open(path, checkpoint_every=every)
        assert again.snapshot() == snap and again.history() == scratch_history(events)
        again.submit({"type": "undo"})
        again.store.close()          # no checkpoint at close: the next start folds from the last periodic one
        third = Table.open(path, checkpoint_every=every)
        events = third.store.events(third.state.match_id)
        scratch = fold(effective(events))
        scratch.seq = events[-1]["seq"]
        assert third.state.snapshot() == scratch.snapshot()
        third.close()


def long_match(tmp_path, hands, *, seed=1):
    t = Table.open(tmp_path / "long.db", rng=random.Random(seed), default_match=None)
    t.store._db.execute("PRAGMA synchronous=OFF")     # set-up speed only
    new_match(t, "lands-end", ["Ann", "Bob"])
    p = RandomPlayer(t, random.Random(seed))
    for _ in range(hands):
        if t.state.over:
            t.submit({"type": "new_game"})
        p.deal_hand()
    if t.state.over:
        t.submit({"type": "new_game"})
    return t


def test_undo_history_and_start_up_fold_a_bounded_number_of_events_however_long_the_match(tmp_path, monkeypatch):
    t = long_match(tmp_path, 60)
    n_events = len(t.store.events(t.state.match_id))
    assert n_events > 600
    for _ in range(3):
        t.submit({"type": "peg", "side": "p1", "points": 1})
    count = Counting(monkeypatch)
    for _ in range(CHECKPOINT_EVERY + 3):       # a held button: undo after undo, across a checkpoint
        before = count.n
        t.submit({"type": "undo"})
        assert count.n - before < CHECKPOINT_EVERY
    seq = t.snapshot()["seq"]
    before = count.n
    assert [e["seq"] for e in t.history(seq - 1)] == [seq - 1, seq]
    assert count.n == before                    # history reads the store, it folds nothing
    t.store.close()                             # a crash: no checkpoint written at close
    count.n = 0
    again = Table.open(tmp_path / "long.db")
    assert count.n < CHECKPOINT_EVERY
    again.close()                               # a clean stop writes a checkpoint of the head
    count.n = 0
    third = Table.open(tmp_path / "long.db")
    assert count.n == 0 and third.snapshot() == again.snapshot()
    third.close()


def test_start_up_does_not_fold_finished_matches_and_the_ledger_adds_up(tmp_path, monkeypatch):
    t = Table.open(tmp_path / "t.db", rng=random.Random(3), default_match=None)
    t.store._db.execute("PRAGMA synchronous=OFF")     # set-up speed only
    for i in range(6):
        new_match(t, "lands-end", ["Ann", "Bob"], stake=i + 1)
        t.submit({"type": "peg", "side": "p1" if i % 2 else "p2", "points": 16})    # the winner has 0: x4
    ledger = t.snapshot()["ledger"]
    # each game: the loser pays the stake x4 (the winner never scored): Bob, Ann, Bob, Ann, Bob, Ann lose
    assert ledger == {"Ann": 4 * (1 - 2 + 3 - 4 + 5 - 6), "Bob": -4 * (1 - 2 + 3 - 4 + 5 - 6)}
    t.store.close()
    count = Counting(monkeypatch)
    again = Table.open(tmp_path / "t.db")
    assert count.n <= 2 and again.snapshot()["ledger"] == ledger
    again.close()


def old_format_file(path, matches):
    """Write ``matches`` (lists of events) the way the table stored them before derived data existed."""
    db = sqlite3.connect(str(path))
    db.executescript("""
        CREATE TABLE events (match_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
            version INTEGER NOT NULL, client_id TEXT UNIQUE, body TEXT NOT NULL,
            PRIMARY KEY (match_id, seq)) WITHOUT ROWID;
        CREATE TABLE matches (ord INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL UNIQUE);
    """)
    import json
    for m, events in matches:
        db.execute("INSERT INTO matches (match_id) VALUES (?)", (m,))
        for ev in events:
            db.execute("INSERT INTO events VALUES (?, ?, ?, 1, NULL, ?)", (m, ev["seq"], ev["type"], json.dumps(ev)))
    db.commit()
    db.close()


def test_a_file_written_before_derived_data_is_migrated_once(tmp_path, monkeypatch):
    mem = Table.memory(rng=random.Random(5), default_match=None)
    for i in range(3):
        new_match(mem, "lands-end", ["Ann", "Bob"], stake=1)
        mem.submit({"type": "peg", "side": "p2", "points": 5})
        mem.submit({"type": "peg", "side": "p1", "points": 7})
        mem.submit({"type": "undo"})
        mem.submit({"type": "peg", "side": "p1", "points": 16})     # Ann loses: Bob at 5 -> x3
    new_match(mem, "lands-end", ["Ann", "Bob"], stake=1)
    mem.submit({"type": "peg", "side": "p2", "points": 2})
    want, history = mem.snapshot(), mem.history()
    assert want["ledger"] == {"Ann": -9, "Bob": 9}
    path = tmp_path / "old.db"
    old_format_file(path, [(m, mem.store.events(m)) for m in mem.store.matches()])
    t = Table.open(path)
    assert t.snapshot() == want and t.history() == history
    t.store.close()
    count = Counting(monkeypatch)
    again = Table.open(path)                   # migrated: nothing is folded from the start any more
    assert count.n <= CHECKPOINT_EVERY and again.snapshot() == want and again.history() == history
    again.close()


def test_a_damaged_checkpoint_is_rebuilt_from_the_events(tmp_path):
    t = long_match(tmp_path, 5)
    snap = t.snapshot()
    t.close()
    db = sqlite3.connect(str(tmp_path / "long.db"))
    db.execute("UPDATE checkpoints SET state = x'00ff00'")
    db.commit()
    db.close()
    again = Table.open(tmp_path / "long.db")
    assert again.snapshot() == snap
    again.submit({"type": "undo"})
    again.close()


def record_with_a_cut(dealer="Bob"):
    return {"game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": None,
            "hands": [{"dealer": dealer, "turnup": "2C", "held": {"Ann": ["10H", "6D", "3H", "KD"],
                                                                  "Bob": ["5S", "4C", "KS", "9C"]},
                       "pocket": ["AS", "7D", "9H", "QS"],
                       "plays": ["10H", "5S", "6D", "4C", "3H", "KS", "KD", "9C"]}]}


@pytest.mark.parametrize("seed", range(12))
def test_an_import_is_atomic_a_refused_record_leaves_the_match_as_it_was(tmp_path, seed):
    """A record with ``first_dealer: null`` is cut for: whichever way the cut falls, the import either
    starts the recorded match or changes nothing (issue 11: it was refused after replacing the match)."""
    t = Table.open(tmp_path / "t.db", rng=random.Random(seed), default_match=None)
    new_match(t, "cribbage", ["Cy", "Di"])
    t.submit({"type": "peg", "side": "p1", "points": 7})
    before, matches = t.snapshot(), t.store.matches()
    try:
        result = import_record(t, record_with_a_cut())
    except match.IllegalAction as exc:
        assert "the record is not valid: hand 1" in str(exc)
        assert t.snapshot() == before and t.store.matches() == matches
        assert t.history()[-1]["type"] == "peg"
    else:
        assert result["valid"] and result["scores"] == {"Ann": 10, "Bob": 11}
        snap = t.snapshot()
        assert snap["players"] == ["Ann", "Bob"] and [s["score"] for s in snap["sides"]] == [10, 11]
        assert len(t.store.matches()) == len(matches) + 1
    after = t.snapshot()
    t.close()
    again = Table.open(tmp_path / "t.db")
    assert again.snapshot() == after
    again.close()


def test_a_record_whose_store_write_fails_changes_nothing(monkeypatch):
    t = Table.memory(rng=random.Random(1), default_match=None)
    new_match(t, "lands-end", ["Cy", "Di"])
    before = t.snapshot()
    rec = record_with_a_cut()
    rec["first_dealer"] = "Bob"

    def full(*a, **k):
        raise match.IllegalAction("disk full")
    monkeypatch.setattr(t.store, "append_many", full)
    with pytest.raises(match.IllegalAction, match="disk full"):
        import_record(t, rec)
    assert t.snapshot() == before and t.store.events(t.state.match_id)[-1]["type"] == "new_match"
