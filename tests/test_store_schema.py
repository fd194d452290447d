"""The store's schema is versioned for real: every released layout migrates forward, a newer one is refused.

``tests/data/schemas/schema-N.sql`` is a database made by the code of the commit that released layout N
(``tests/data/schemas/make.py`` makes them from git history): the same evening played by each. Today's store
opens each, migrates it in one transaction, and reads back exactly what today's code makes of that evening.
"""

import importlib.util
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion import store as store_mod
from companion.errors import StoreError
from companion.store import APPLICATION_ID, SCHEMA_VERSION, SQLiteStore
from companion.table import Table

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "tests" / "data" / "schemas"
_spec = importlib.util.spec_from_file_location("schemas_make", SCHEMAS / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)


def load(number: int, path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript((SCHEMAS / f"schema-{number}.sql").read_text())
    con.close()
    return path


def stamp(path: Path) -> tuple[int, int, set[str]]:
    con = sqlite3.connect(path)
    try:
        return (con.execute("PRAGMA user_version").fetchone()[0], con.execute("PRAGMA application_id").fetchone()[0],
                {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")})
    finally:
        con.close()


def view(table: Table) -> dict:
    """What a phone sees of the whole evening: the match in play, the money, every match's events."""
    snap = {k: v for k, v in table.snapshot().items() if k != "match_id"}     # ids come from each release's rng
    # each match's events as played (later releases write more fields into new_match: its options' defaults)
    events = [[(e["seq"], e["type"], e.get("side"), e.get("points"), e.get("players")) for e in table.store.events(m)]
              for m in table.store.matches()]
    return {"snapshot": snap, "events": events}


@pytest.fixture(scope="module")
def today(tmp_path_factory):
    """The evening of make.PLAY played by today's code on a new table."""
    path = tmp_path_factory.mktemp("today") / "table.db"
    res = subprocess.run([sys.executable, "-c", make.PLAY, str(path)], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == [7, 0]
    table = Table.open(path)
    try:
        yield view(table)
    finally:
        table.close()


def test_every_release_has_its_database_and_one_migration_leads_from_each_to_today():
    assert sorted(make.RELEASES) == list(range(1, SCHEMA_VERSION + 1))
    assert sorted(p.name for p in SCHEMAS.glob("schema-*.sql")) == [f"schema-{n}.sql" for n in make.RELEASES]
    assert sorted(store_mod.MIGRATIONS) == list(range(1, SCHEMA_VERSION))


@pytest.mark.parametrize("number", sorted(make.RELEASES))
def test_a_database_of_every_released_layout_is_migrated_and_reads_back_the_same_evening(number, tmp_path, today):
    path = load(number, tmp_path / "old.db")
    assert stamp(path)[:2] == (0, 0)                          # no release before this one stamped its files
    table = Table.open(path)
    try:
        assert table.store.schema_before == number
        got = view(table)
    finally:
        table.close()
    assert got == today                                        # the match in play, the money, every event
    assert got["snapshot"]["ledger"] == {"Player 1": 0, "Player 2": 0, "Ann": 4, "Bob": -4}   # Bob pegged out at 16
    version, app, tables = stamp(path)
    assert (version, app) == (SCHEMA_VERSION, APPLICATION_ID)
    assert {"events", "matches", "checkpoints", "closed", "meta", "summaries"} <= tables
    again = SQLiteStore(path)                                  # at today's layout: read, nothing to do
    assert again.schema_before == SCHEMA_VERSION
    again.close()


def test_a_migration_that_fails_halfway_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = load(1, tmp_path / "old.db")
    before = stamp(path)

    def broken(db):
        db.execute("CREATE TABLE meta (id INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)")
        raise sqlite3.OperationalError("disk I/O error")        # the card failed after the first steps

    monkeypatch.setitem(store_mod.MIGRATIONS, 2, broken)
    with pytest.raises(StoreError, match="disk I/O error"):
        SQLiteStore(path)
    assert stamp(path) == before                               # layout 2's changes rolled back with the rest
    monkeypatch.undo()
    assert SQLiteStore(path).schema_before == 1


def test_a_newer_schema_is_refused_with_both_versions_named_and_left_untouched(tmp_path):
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    data = path.read_bytes()
    with pytest.raises(StoreError, match=rf"it holds schema {SCHEMA_VERSION + 1}, made by a newer version of "
                                         rf"Land's End; this version reads schemas 1 to {SCHEMA_VERSION}"):
        Table.open(path)
    assert path.read_bytes() == data


@pytest.mark.parametrize("setup, says", [
    ("CREATE TABLE notes (a, b)", "not a Land's End table (it holds events, notes)"),
    ("PRAGMA application_id = 1179599156", "application id 0x464f4134"),
])
def test_another_programs_database_is_refused_and_left_untouched(tmp_path, setup, says):
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute(setup)
    con.execute("CREATE TABLE IF NOT EXISTS events (x)")     # a table of the same name is not ours either
    con.commit()
    con.close()
    data = path.read_bytes()
    with pytest.raises(StoreError, match=f"cannot open the table database {path}: it is not a Land's End table"):
        SQLiteStore(path)
    with pytest.raises(StoreError, match=rf"{says}".replace("(", r"\(").replace(")", r"\)")):
        SQLiteStore(path)
    assert path.read_bytes() == data


def test_a_new_table_is_stamped_when_it_is_made(tmp_path):
    path = tmp_path / "table.db"
    SQLiteStore(path).close()
    assert stamp(path)[:2] == (SCHEMA_VERSION, APPLICATION_ID)
