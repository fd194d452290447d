"""One contract for every event store: MemoryStore and SQLiteStore pass the same suite."""

import sqlite3

import pytest

from companion.errors import ConflictError
from companion.store import MemoryStore, SQLiteStore, iter_all


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    s = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "events.db")
    yield s
    s.close()


def ev(kind, **kw):
    return {"type": kind, **kw}


def test_events_come_back_in_sequence_order(store):
    store.append("m1", 0, ev("new_match", players=["Ann", "Bob"]))
    store.append("m1", 2, ev("peg", side="p1", points=2))
    store.append("m1", 1, ev("peg", side="p2", points=1))
    assert [e["type"] for e in store.events("m1")] == ["new_match", "peg", "peg"]
    assert [e.get("points") for e in store.events("m1")] == [None, 1, 2]
    assert store.events("nope") == []


def test_a_taken_sequence_number_is_a_conflict(store):
    store.append("m1", 0, ev("new_match"))
    with pytest.raises(ConflictError):
        store.append("m1", 0, ev("peg", side="p1", points=1))
    assert store.events("m1") == [ev("new_match")]


def test_the_same_sequence_number_in_another_match_is_fine(store):
    store.append("m1", 0, ev("new_match"))
    store.append("m2", 0, ev("new_match"))
    assert store.matches() == ["m1", "m2"]


def test_matches_are_listed_oldest_first(store):
    for m in ("b", "a", "c"):
        store.append(m, 0, ev("new_match"))
    assert store.matches() == ["b", "a", "c"]
    assert [m for m, _ in iter_all(store)] == ["b", "a", "c"]


def test_client_ids_are_found_and_never_stored_twice(store):
    store.append("m1", 0, ev("new_match"))
    store.append("m1", 1, ev("peg", side="p1", points=3), client_id="phone-1")
    assert store.find_client("phone-1") == ev("peg", side="p1", points=3)
    assert store.find_client("phone-2") is None
    with pytest.raises(ConflictError):
        store.append("m1", 2, ev("peg", side="p1", points=3), client_id="phone-1")
    assert len(store.events("m1")) == 2


def test_returned_events_are_copies(store):
    store.append("m1", 0, ev("new_match", players=["Ann"]))
    store.events("m1")[0]["players"].append("Mallory")
    assert store.events("m1")[0]["players"] == ["Ann"]


def test_events_round_trip_through_json(store):
    body = ev("layout", cards=["5H", "10S"], crib=[], nested={"a": [1, 2.5, None, True]}, text="Ann's ♥")
    store.append("m1", 0, body)
    assert store.events("m1") == [body]


def test_sqlite_keeps_events_across_reopening(tmp_path):
    path = tmp_path / "deep" / "dir" / "events.db"
    s = SQLiteStore(path)
    s.append("m1", 0, ev("new_match"))
    s.append("m1", 1, ev("peg", side="p1", points=2), client_id="c1")
    s.close()
    s = SQLiteStore(path)
    assert [e["type"] for e in s.events("m1")] == ["new_match", "peg"]
    assert s.find_client("c1")["points"] == 2
    s.close()


def test_sqlite_runs_in_wal_mode_with_full_sync(tmp_path):
    path = tmp_path / "events.db"
    s = SQLiteStore(path)
    assert s._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s._db.execute("PRAGMA synchronous").fetchone()[0] == 2      # FULL
    s.append("m1", 0, ev("new_match"))
    # a second connection (another process) sees the committed row at once
    other = sqlite3.connect(str(path))
    assert other.execute("SELECT count(*) FROM events").fetchone()[0] == 1
    other.close()
    s.close()


def test_a_file_that_is_not_a_database_is_refused_by_name(tmp_path):
    from companion.errors import StoreError
    from companion.table import Table

    path = tmp_path / "table.db"
    path.write_bytes(b"not a database, just some text " * 200)
    with pytest.raises(StoreError, match=f"cannot open the table database {path}: file is not a database"):
        Table.open(path)
    assert path.read_bytes() == b"not a database, just some text " * 200      # left as it was


def test_a_directory_or_unwritable_place_is_refused_by_name(tmp_path):
    from companion.errors import StoreError

    with pytest.raises(StoreError, match=f"cannot open the table database {tmp_path}: unable to open database file"):
        SQLiteStore(tmp_path)


def test_a_database_locked_by_another_writer_fails_clearly(tmp_path):
    from companion.errors import StoreError
    from companion.table import Table

    path = tmp_path / "table.db"
    other = sqlite3.connect(str(path), isolation_level=None)
    # a table of the first layout (tests/data/schemas/schema-1.sql), not yet in WAL mode
    other.execute("CREATE TABLE events (match_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, "
                  "version INTEGER NOT NULL, client_id TEXT UNIQUE, body TEXT NOT NULL, "
                  "PRIMARY KEY (match_id, seq)) WITHOUT ROWID")
    other.execute("CREATE TABLE matches (ord INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL UNIQUE)")
    other.execute("BEGIN EXCLUSIVE")             # another process mid-write, in rollback-journal mode
    with pytest.raises(StoreError, match=f"cannot open the table database {path}: database is locked"):
        Table.open(path, busy_timeout=0.01)
    other.execute("ROLLBACK")
    t = Table.open(path, default_match=None, busy_timeout=0.01)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    before = t.snapshot()
    other.execute("BEGIN IMMEDIATE")             # a writer holds the WAL write lock: the peg cannot be stored
    with pytest.raises(StoreError, match="could not store the peg: database is locked; nothing changed"):
        t.submit({"type": "peg", "side": "p1", "points": 2})
    assert t.snapshot() == before
    other.execute("ROLLBACK")
    t.submit({"type": "peg", "side": "p1", "points": 2})
    assert t.snapshot()["sides"][0]["score"] == 2
    t.close()
    other.close()


@pytest.mark.parametrize("body, message", [
    ("{broken", "event 1 of match m1 is not JSON"),
    ('{"type": "teleport", "seq": 1}', "event 1 (teleport) of match m1 cannot be applied: unknown event type"),
    ('{"type": "peg", "seq": 1}', "event 1 (peg) of match m1 cannot be applied"),
])
def test_a_damaged_event_is_named_when_the_table_opens(tmp_path, body, message):
    from companion.errors import StoreError
    from companion.table import Table

    path = tmp_path / "table.db"
    t = Table.open(path, default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    t.submit({"type": "peg", "side": "p1", "points": 2})
    t.close()
    db = sqlite3.connect(str(path))
    db.execute("UPDATE events SET match_id = 'm1'")
    db.execute("UPDATE matches SET match_id = 'm1'")
    db.execute("UPDATE events SET body = ? WHERE seq = 1", (body,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=f"table database {path}: " + message.replace("(", r"\(").replace(")", r"\)")):
        Table.open(path)


# --- derived data kept with the events (the table's constant-cost reads) ------------------------

def test_history_reads_by_seq_with_steps_and_undone_marks(store):
    store.append("m1", 0, ev("new_match", seq=0), steps=[], depth=1)
    store.append("m1", 1, ev("peg", seq=1, side="p1", points=2), steps=[{"points": 2}], depth=2)
    store.append("m1", 2, ev("peg", seq=2, side="p2", points=1), steps=[{"points": 1}], depth=3)
    store.append("m1", 3, ev("undo", seq=3, undoes=2), steps=[], depth=2)
    store.append("m2", 0, ev("new_match"))
    assert [(e["seq"], e["type"], e["undone"], e["steps"]) for e in store.history("m1", 1)] == [
        (1, "peg", False, [{"points": 2}]), (2, "peg", True, [{"points": 1}]), (3, "undo", False, [])]
    assert [e["seq"] for e in store.history("m1", 1, 2)] == [1, 2]
    assert store.history("m1", 9) == [] and store.history("nope") == []
    assert store.history("m2")[0]["steps"] is None          # not recorded: the table rebuilds it
    assert [e["seq"] for e in store.live_events("m1", 0)] == [1]
    assert store.head("m1") == (3, 2) and store.head("m2") == (0, None) and store.head("nope") is None


def test_the_deepest_checkpoint_whose_event_is_live_is_found(store):
    store.append("m1", 0, ev("new_match"), depth=1, checkpoint=b"s0")
    store.append("m1", 1, ev("peg"), depth=2, checkpoint=b"s1")
    store.append("m1", 2, ev("peg"), depth=3, checkpoint=b"s2")
    assert store.checkpoint("m1", 3) == (3, 2, b"s2") and store.checkpoint("m1", 2) == (2, 1, b"s1")
    store.append("m1", 3, ev("undo", undoes=2), depth=2)
    assert store.checkpoint("m1", 3) == (2, 1, b"s1")       # the checkpoint under an undone event is not used
    store.append("m1", 4, ev("peg"), depth=3)
    assert store.checkpoint("m1", 3) == (2, 1, b"s1")
    store.put_checkpoint("m1", 3, 4, b"s4")
    assert store.checkpoint("m1", 9) == (3, 4, b"s4") and store.checkpoint("m2", 9) is None


def test_the_ledger_of_closed_matches_is_written_with_the_event_that_closes_them(store):
    store.append("m1", 0, ev("new_match"), depth=1, checkpoint=b"m1")
    store.append("m2", 0, ev("new_match"), depth=1, closes=("m1", {"Ann": 4, "Bob": -4}))
    assert store.closed("m1") == {"Ann": 4, "Bob": -4} and store.closed("m2") is None
    assert store.checkpoint("m1", 1) is None                # a closed match's checkpoints are dropped
    store.put_closed("m2", {"Ann": 1})
    assert store.closed("m2") == {"Ann": 1}
    assert store.matches(last=1) == ["m2"] and store.matches(last=2) == ["m1", "m2"]
    assert store.matches(last=5) == ["m1", "m2"]


def test_append_many_stores_all_or_nothing(store):
    store.append("m0", 0, ev("new_match"), client_id="c0")
    rows = [(0, ev("new_match"), None, [], 1, None), (1, ev("peg"), "c1", [], 2, None), (2, ev("peg"), "c0", [], 3, None)]
    with pytest.raises(ConflictError):
        store.append_many("m1", rows)                       # c0 was used: nothing of m1 is stored
    assert store.events("m1") == [] and store.matches() == ["m0"] and store.find_client("c1") is None
    store.append_many("m1", rows[:2], closes=("m0", {"Ann": 0}))
    assert [e["type"] for e in store.events("m1")] == ["new_match", "peg"] and store.closed("m0") == {"Ann": 0}


def test_derived_data_can_be_recorded_for_events_stored_without_it(store):
    store.append("m1", 0, ev("new_match"))
    store.append("m1", 1, ev("peg"))
    store.append("m1", 2, ev("undo", undoes=1))
    store.put_derived("m1", [(0, [], 1, False), (1, [{"points": 1}], 2, True), (2, [], 1, False)])
    assert [(e["undone"], e["steps"]) for e in store.history("m1")] == [(False, []), (True, [{"points": 1}]), (False, [])]
    assert store.head("m1") == (2, 1) and store.live_events("m1", -1)[0]["type"] == "new_match"


def test_a_new_database_is_synced_whole_before_it_is_linked_in(tmp_path, monkeypatch):
    """A new table database is built without SQLite's own syncs (under its temporary name nobody opens),
    then fsynced whole and linked in, then its folder fsynced: it comes out complete, in WAL mode, stamped
    ``created``, 0600, with nothing left beside it, and opens with full sync for every later write."""
    import os
    from pathlib import Path

    from companion.store import _create
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "t.db"
    _create(path)
    assert [Path(p).name for p in synced] == [f".t.db.new-{os.getpid()}", tmp_path.name]   # the file, then its folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"]
    assert path.stat().st_mode & 0o777 == 0o600
    s = SQLiteStore(path)
    assert s.get_meta("created")
    assert s._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s._db.execute("PRAGMA synchronous").fetchone()[0] == 2
    s.append("m1", 0, {"type": "new_match"})
    assert SQLiteStore(path).events("m1") == [{"type": "new_match"}]


def _events_in_the_file_alone(path, tmp_path):
    """Return how many events the database file holds without its WAL (what a checkpoint copied into it)."""
    alone = tmp_path / "alone"
    alone.mkdir(exist_ok=True)
    (alone / "copy.db").write_bytes(path.read_bytes())
    con = sqlite3.connect(alone / "copy.db")
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        con.close()


def test_a_commit_never_copies_the_wal_into_the_database_file(tmp_path):
    """Issue 38: SQLite's own checkpoint ran inside the commit that crossed 1,000 WAL pages (two more fsyncs and
    the pages written, in that press; a third fsync in the next). 200 commits of ~6 pages each leave the file
    as it was: everything is in the WAL until the store's thread copies it."""
    path = tmp_path / "events.db"
    s = SQLiteStore(path)
    before = path.read_bytes()
    for seq in range(200):
        s.append("m1", seq, ev("note", text=f"{seq:05d}" + "x" * 20_000))
    assert (path.parent / "events.db-wal").stat().st_size > 1_000 * 4096
    assert path.read_bytes() == before
    assert _events_in_the_file_alone(path, tmp_path) == 0
    assert len(s.events("m1")) == 200
    s.close()
    assert _events_in_the_file_alone(path, tmp_path) == 200         # the close copied it


def test_the_store_thread_copies_the_wal_into_the_file_once_the_commits_pause(tmp_path):
    import threading
    import time
    path = tmp_path / "events.db"
    s = SQLiteStore(path, checkpoint_after=20)
    for seq in range(19):
        s.append("m1", seq, ev("peg", side="p1", points=1))
    assert not [t for t in threading.enumerate() if t.name == "store-checkpoint"]    # started when one is due
    for seq in range(19, 25):
        s.append("m1", seq, ev("peg", side="p1", points=1))
    deadline = time.monotonic() + 10
    while _events_in_the_file_alone(path, tmp_path) < 20 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _events_in_the_file_alone(path, tmp_path) >= 20
    assert len(s.events("m1")) == 25
    # the WAL was started over by the store (its schema stamp written again, unchanged), not by the next commit
    assert s._db.execute("PRAGMA user_version").fetchone()[0] == 4
    s.close()
    assert not [t for t in threading.enumerate() if t.name == "store-checkpoint"]
    assert _events_in_the_file_alone(path, tmp_path) == 25


def test_the_store_thread_does_not_copy_the_wal_while_a_commit_is_in_flight(tmp_path, monkeypatch):
    """bench_cost's polled row (bench/README.md): the thread took "20 ms since the last commit ended" for a pause,
    so a press slow in its fdatasync (a loaded disk) had the copy start under it, and waited for it. Here the
    third commit's COMMIT takes 0.6 s (a slow fdatasync): the copy begins only after it has ended. The pause is
    0.1 s here, so that a loaded machine's stall between two commits does not pass for one."""
    import time

    import companion.store as store_module
    monkeypatch.setattr(store_module, "CHECKPOINT_IDLE", 0.1)

    class SlowCommit:          # the store's connection, with one COMMIT held up as a slow disk would
        def __init__(self, db):
            self.db, self.slow, self.ended = db, False, None

        def execute(self, sql, *args):
            if sql == "COMMIT" and self.slow:
                time.sleep(0.6)
                out = self.db.execute(sql, *args)
                self.slow, self.ended = False, time.monotonic()
                return out
            return self.db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.db, name)

    path = tmp_path / "events.db"
    s = SQLiteStore(path, checkpoint_after=2)
    s._db = slow = SlowCommit(s._db)
    began = []
    copy = s.copy_wal
    s.copy_wal = lambda: (began.append((time.monotonic(), slow.slow)), copy())[1]
    s.append("m1", 0, ev("peg", side="p1", points=1))
    s.append("m1", 1, ev("peg", side="p1", points=1))       # a copy is due: the thread waits for a pause
    slow.slow = True
    s.append("m1", 2, ev("peg", side="p2", points=1))       # in flight 0.6 s, right away: no pause
    deadline = time.monotonic() + 5
    while not began and time.monotonic() < deadline:
        time.sleep(0.01)
    s.close()
    assert began, "the thread never copied the WAL"
    again = SQLiteStore(path)
    assert [e["side"] for e in again.events("m1")] == ["p1", "p1", "p2"]
    again.close()
    assert began[0][1] is False and began[0][0] >= slow.ended      # not under the slow commit: after it


def test_a_checkpoint_by_hand_copies_everything_and_commits_go_on(tmp_path):
    path = tmp_path / "events.db"
    s = SQLiteStore(path, checkpoint_after=None)
    for seq in range(10):
        s.append("m1", seq, ev("peg", side="p1", points=1))
    assert _events_in_the_file_alone(path, tmp_path) == 0
    assert s.copy_wal() is True
    assert _events_in_the_file_alone(path, tmp_path) == 10
    s.append("m1", 10, ev("peg", side="p2", points=1))
    assert [e["side"] for e in s.events("m1")] == ["p1"] * 10 + ["p2"]
    s.close()
    assert _events_in_the_file_alone(path, tmp_path) == 11
