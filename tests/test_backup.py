"""Keep the season: a backup taken while the board plays, checked whole before a restore, switched in one rename.

The table of ``tests/season_db.py`` (three nights counted by hand) is backed up, refused in every damaged or
foreign form with nothing changed, restored through the page's API in pieces, and switched to at the
daemon's next start, including after a power cut at each step of the switch.
"""

import datetime as dt
import hashlib
import io
import json
import sqlite3
import threading
import time
import zipfile
from pathlib import Path

import pytest

from companion import backup as bk
from companion.store import SCHEMA_VERSION, SQLiteStore
from companion.table import Table
from web import create_app

import season_db

ORIGIN = "http://localhost"
SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"


def season_table(path: Path) -> Table:
    clock = season_db.Clock()
    return season_db.build(Table.open(path, clock=clock, default_match=None), clock)


def view(path: Path) -> dict:
    """What the phones see of a table file: the match in play, the money, and every match's events."""
    t = Table.open(path)
    try:
        snap = t.snapshot()
        return {"snapshot": snap, "events": [t.store.events(m) for m in t.store.matches()]}
    finally:
        t.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A table database holding the three nights, and a backup of it."""
    folder = tmp_path_factory.mktemp("played")
    db = folder / "landsend.db"
    season_table(db).close()
    out = folder / "b.landsend"
    manifest = bk.take(db, out, board="Lands End 4F2A",
                       now=lambda: dt.datetime(2026, 11, 28, 22, 5, tzinfo=dt.timezone.utc))
    return db, out, manifest


def test_a_backup_holds_the_table_and_says_what_it_holds(played, tmp_path):
    db, out, manifest = played
    assert bk.file_name("Lands End 4F2A", dt.datetime(2026, 11, 28, 22, 5, tzinfo=dt.timezone.utc)) == \
        "landsend-backup-Lands-End-4F2A-2026-11-28.landsend"
    with zipfile.ZipFile(out) as z:
        assert sorted(z.namelist()) == ["manifest.json", "table.db"]
        assert json.loads(z.read("manifest.json")) == manifest
        data = z.read("table.db")
    t = Table.open(db)
    events = t.store.event_count()
    t.close()
    # six matches on three nights, counted by hand in tests/season_db.py
    assert {k: manifest[k] for k in ("product", "format", "schema", "board", "taken_at", "reason", "matches",
                                     "nights", "events")} == {
        "product": "landsend", "format": 1, "schema": SCHEMA_VERSION, "board": "Lands End 4F2A",
        "taken_at": "2026-11-28T22:05:00+00:00", "reason": "phone", "matches": 6, "nights": 3, "events": events}
    assert manifest["db_sha256"] == hashlib.sha256(data).hexdigest() and manifest["db_bytes"] == len(data)
    copy = tmp_path / "copy.db"
    copy.write_bytes(data)
    assert view(copy) == view(db)                  # the same table, every event and the money


def test_a_backup_taken_while_the_board_plays_loses_no_command_and_the_board_keeps_playing(tmp_path):
    db = tmp_path / "landsend.db"
    t = Table.open(db)
    for i in range(3000):                          # a long evening: the copy takes a while
        t.submit({"type": "peg", "side": "p1" if i % 2 else "p2", "points": 1})
        if i % 14 == 13:
            t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    before = t.store.event_count()
    stored, stop, copying = [], threading.Event(), threading.Event()

    def press():
        while not stop.is_set():
            ev = t.submit({"type": "peg", "side": "p1", "points": 1})
            stored.append((copying.is_set(), ev["seq"]))
            if t.snapshot()["result"]:
                t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    real_copy = bk.copy_database

    def copy(source, target):                      # the copy is the one moment that reads the table
        copying.set()
        try:
            real_copy(source, target)
        finally:
            copying.clear()
    presser = threading.Thread(target=press)
    presser.start()
    try:
        bk.copy_database = copy
        manifest = bk.take(db, tmp_path / "b.landsend", board="b")
    finally:
        bk.copy_database = real_copy
        stop.set()
        presser.join()
    after = t.store.event_count()
    t.close()
    assert stored and after - before >= len(stored)   # every press stored, none lost
    assert before <= manifest["events"] <= after     # one consistent moment of the table
    work = tmp_path / "work"
    work.mkdir()
    assert bk.check(tmp_path / "b.landsend", work).manifest == manifest


def rezip(src: Path, dst: Path, *, manifest=None, db: bytes | None = None, extra: dict | None = None) -> Path:
    with zipfile.ZipFile(src) as z:
        m = json.loads(z.read("manifest.json"))
        data = z.read("table.db")
    if manifest is not None:
        m = manifest(m) if callable(manifest) else manifest
    data = db if db is not None else data
    with zipfile.ZipFile(dst, "w") as z:
        z.writestr("manifest.json", m if isinstance(m, (str, bytes)) else json.dumps(m))
        z.writestr("table.db", data)
        for name, body in (extra or {}).items():
            z.writestr(name, body)
    return dst


def db_bytes(setup) -> bytes:
    """Return a database file made by ``setup(connection)``, as bytes."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.db"
        con = sqlite3.connect(path)
        setup(con)
        con.commit()
        con.close()
        return path.read_bytes()


def matching(m: dict, data: bytes) -> dict:
    return {**m, "db_bytes": len(data), "db_sha256": hashlib.sha256(data).hexdigest()}


def newer(con):
    con.executescript((SCHEMAS / "schema-4.sql").read_text())
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


REFUSALS = [
    ("a text file", lambda out, tmp: (tmp / "x.landsend").write_bytes(b"hello " * 100) and tmp / "x.landsend",
     "this file is not a Land's End backup (not a backup file at all"),
    ("cut short", lambda out, tmp: (tmp / "x.landsend").write_bytes(out.read_bytes()[: out.stat().st_size // 2])
     and tmp / "x.landsend", "the backup is damaged or cut short"),
    ("another zip", lambda out, tmp: _zip(tmp / "x.landsend", {"photo.jpg": b"jpeg"}),
     "this file is not a Land's End backup (it holds photo.jpg)"),
    ("a member more", lambda out, tmp: rezip(out, tmp / "x.landsend", extra={"evil.sh": "rm -rf /"}),
     "this file is not a Land's End backup (it holds evil.sh, manifest.json, table.db)"),
    ("another product", lambda out, tmp: rezip(out, tmp / "x.landsend", manifest=lambda m: {**m, "product": "x"}),
     "this is not a Land's End backup (its manifest names another product)"),
    ("a manifest not JSON", lambda out, tmp: rezip(out, tmp / "x.landsend", manifest="{not json"),
     "the backup's manifest is not readable JSON"),
    ("a field of the wrong type", lambda out, tmp: rezip(out, tmp / "x.landsend",
                                                          manifest=lambda m: {**m, "events": "many"}),
     "the backup's manifest is damaged: events is missing or not a int"),
    ("a newer backup format", lambda out, tmp: rezip(out, tmp / "x.landsend", manifest=lambda m: {**m, "format": 9}),
     "this backup was made by a newer version of Land's End"),
    ("a flipped byte", lambda out, tmp: _flip(out, tmp / "x.landsend"),
     "the backup is damaged: its table does not match the checksum in its manifest"),
    ("a damaged table with a matching checksum", lambda out, tmp: _damaged(out, tmp / "x.landsend"),
     "the backup's table"),
    ("another program's database", lambda out, tmp: _foreign(out, tmp / "x.landsend",
                                                             lambda con: con.execute("CREATE TABLE notes (a)")),
     "cannot restore this backup: it is not a Land's End table (it holds notes)"),
    ("a newer schema", lambda out, tmp: _foreign(out, tmp / "x.landsend", newer),
     f"cannot restore this backup: it holds schema {SCHEMA_VERSION + 1}, made by a newer version of Land's End; "
     f"this version reads schemas 1 to {SCHEMA_VERSION}"),
    ("events missing", lambda out, tmp: rezip(out, tmp / "x.landsend", manifest=lambda m: {**m, "events": m["events"] + 1}),
     "the backup is damaged: it holds"),
]


def _zip(path: Path, members: dict) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, body in members.items():
            z.writestr(name, body)
    return path


def _flip(out: Path, dst: Path) -> Path:
    with zipfile.ZipFile(out) as z:
        data = bytearray(z.read("table.db"))
    data[len(data) // 2] ^= 0xFF
    return rezip(out, dst, db=bytes(data))


def _damaged(out: Path, dst: Path) -> Path:
    with zipfile.ZipFile(out) as z:
        data = bytearray(z.read("table.db"))
        m = json.loads(z.read("manifest.json"))
    page = 4096
    data[page * 2: page * 2 + 200] = b"\x00\xff" * 100            # inside the b-trees, not the header
    return rezip(out, dst, manifest=matching(m, bytes(data)), db=bytes(data))


def _foreign(out: Path, dst: Path, setup) -> Path:
    with zipfile.ZipFile(out) as z:
        m = json.loads(z.read("manifest.json"))
    data = db_bytes(setup)
    return rezip(out, dst, manifest=matching(m, data), db=data)


@pytest.mark.parametrize("name, make, says", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_every_damaged_or_foreign_backup_is_refused_by_what_is_wrong(played, tmp_path, name, make, says):
    _, out, _ = played
    bad = make(out, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(bk.BackupError) as err:
        bk.check(bad, work)
    assert str(err.value).startswith(says), str(err.value)


def test_an_older_schemas_backup_is_migrated_forward_on_the_checked_copy(played, tmp_path):
    _, out, _ = played
    old = db_bytes(lambda con: con.executescript((SCHEMAS / "schema-2.sql").read_text()))
    with zipfile.ZipFile(out) as z:
        m = json.loads(z.read("manifest.json"))
    con = sqlite3.connect(":memory:")
    con.executescript((SCHEMAS / "schema-2.sql").read_text())
    con_events = con.execute("SELECT COUNT(*) FROM events").fetchone()[0]     # the evening of make.py
    con.close()
    bad = rezip(out, tmp_path / "old.landsend", manifest={**matching(m, old), "events": con_events, "schema": 2}, db=old)
    work = tmp_path / "work"
    work.mkdir()
    checked = bk.check(bad, work)
    assert checked.schema_before == 2
    assert SQLiteStore(checked.database).schema_before == SCHEMA_VERSION


def test_a_restore_switches_in_one_rename_and_keeps_the_table_it_replaces(played, tmp_path):
    db_src, out, manifest = played
    live = tmp_path / "landsend.db"
    t = Table.open(live)
    t.submit({"type": "peg", "side": "p1", "points": 3})      # another table, in play, WAL not folded in
    mine = view(live)
    work = tmp_path / "work"
    work.mkdir()
    checked = bk.check(out, work)
    bk.stage(checked, live)
    assert view(live) == mine                                  # staged: nothing changed yet
    t.close()
    kept = bk.Kept(tmp_path / "backups", board="b")
    done = bk.apply_staged(live, kept)
    assert view(live) == view(db_src)
    assert done["kept_before"].startswith("landsend-backup-b-") and done["events"] == manifest["events"]
    assert [k["reason"] for k in kept.list()] == ["before-restore"]
    assert json.loads((kept.folder / bk.LAST_RESTORE).read_text())["kept_before"] == done["kept_before"]
    assert bk.apply_staged(live, kept) is None                 # nothing waits any more
    back = tmp_path / "back.db"                                # the kept one is the table that was replaced
    with zipfile.ZipFile(kept.folder / done["kept_before"]) as z:
        back.write_bytes(z.read("table.db"))
    assert view(back)["snapshot"] == mine["snapshot"]


@pytest.mark.parametrize("cut", ["before the kept backup", "after the kept backup", "at the rename",
                                 "after the rename"])
def test_a_power_cut_at_any_step_of_the_switch_leaves_the_old_table_or_the_new(played, tmp_path, monkeypatch, cut):
    db_src, out, _ = played
    live = tmp_path / "landsend.db"
    t = Table.open(live)
    t.submit({"type": "peg", "side": "p2", "points": 5})
    t.close()
    mine, theirs = view(live), view(db_src)
    work = tmp_path / "work"
    work.mkdir()
    bk.stage(bk.check(out, work), live)
    kept = bk.Kept(tmp_path / "backups", board="b")

    class Cut(Exception):
        pass

    def boom(*a, **k):
        raise Cut()
    real_replace = bk.os.replace
    if cut == "before the kept backup":
        monkeypatch.setattr(kept, "take", boom)
    elif cut == "after the kept backup":
        monkeypatch.setattr(bk, "_checkpoint", boom)
    elif cut == "at the rename":
        monkeypatch.setattr(bk.os, "replace", boom)
    else:
        def replaced_then_cut(a, b):
            real_replace(a, b)
            raise Cut()
        monkeypatch.setattr(bk.os, "replace", replaced_then_cut)
    with pytest.raises(Cut):
        bk.apply_staged(live, kept)
    monkeypatch.undo()
    assert view(live) in (mine, theirs)                        # one table or the other, whole
    bk.apply_staged(live, bk.Kept(tmp_path / "backups", board="b"))      # the next start finishes the switch
    assert view(live) == theirs
    assert not bk.staged_path(live).exists()


# ------------------------------------------------------------------ the page's API


@pytest.fixture
def board(tmp_path):
    db = tmp_path / "state" / "landsend.db"
    db.parent.mkdir()
    table = Table.open(db)
    table.submit({"type": "peg", "side": "p1", "points": 4})
    app = create_app({"TESTING": True, "STATE_DIR": str(db.parent), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    restarts = []
    app.extensions["landsend.restart"] = lambda: restarts.append(1)
    heard = []
    app.extensions["landsend"].broadcaster.publish = lambda kind, data: heard.append(kind)
    host = app.test_client()
    csrf = host.get("/api/session").get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    assert host.post("/api/claim", json={}, headers=headers).status_code == 200
    yield app, host, headers, db, restarts, heard
    table.close()


def upload(host, headers, data: bytes, piece: int = 64 * 1024):
    for at in range(0, len(data), piece):
        r = host.post(f"/api/restore/upload?offset={at}", data=data[at: at + piece],
                      content_type="application/octet-stream", headers=headers)
        assert r.status_code == 200 and r.get_json()["have"] == min(len(data), at + piece), r.get_json()
    return host.post("/api/restore", json={"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()},
                     headers=headers)


def test_the_hosts_phone_downloads_a_backup_and_restores_one_in_pieces(board, played):
    app, host, headers, db, restarts, heard = board
    r = host.get("/api/backup")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"].startswith("attachment; filename=landsend-backup-")
    with zipfile.ZipFile(io.BytesIO(r.data)) as z:
        assert json.loads(z.read("manifest.json"))["events"] == 2          # the new match and the peg
    _, out, manifest = played
    r = upload(host, headers, out.read_bytes())
    assert r.status_code == 202 and r.get_json()["restoring"] == manifest
    assert heard[-1] == "restoring"
    time.sleep(0.8)
    assert restarts == [1]                                     # the daemon starts again, after the answer
    assert bk.staged_path(db).exists() and view(db)["snapshot"]["sides"][0]["score"] == 4    # not yet switched
    listing = host.get("/api/backups").get_json()
    assert listing["can_restore"] is True and listing["schema"] == SCHEMA_VERSION


def test_an_upload_out_of_step_says_where_it_stands_and_a_bad_one_changes_nothing(board, played, tmp_path):
    app, host, headers, db, restarts, heard = board
    _, out, _ = played
    data = out.read_bytes()
    assert host.post("/api/restore/upload?offset=0", data=data[:1000], content_type="application/octet-stream",
                     headers=headers).get_json() == {"have": 1000}
    r = host.post("/api/restore/upload?offset=5000", data=data[1000:2000], content_type="application/octet-stream",
                  headers=headers)
    assert r.status_code == 409 and r.get_json()["have"] == 1000
    r = host.post("/api/restore", json={"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()},
                  headers=headers)
    assert r.status_code == 400 and r.get_json()["error"].startswith("the upload is incomplete: 1,000 of")
    before = view(db)
    for bad, says in [(b"not a backup at all" * 10, "this file is not a Land's End backup"),
                      (data[: len(data) - 100], "the backup is damaged or cut short")]:
        r = upload(host, headers, bad)
        assert (r.status_code, r.get_json()["error"][: len(says)]) == (400, says)
    r = upload(host, headers, data)
    r2 = host.post("/api/restore", json={"bytes": len(data), "sha256": "0" * 64}, headers=headers)
    assert r2.status_code == 400 and r2.get_json()["error"] == "no backup file has been uploaded"
    for bad in ({"bytes": "1", "sha256": "0" * 64}, {"bytes": 10, "sha256": "xyz"}, {"bytes": True, "sha256": "0" * 64}):
        assert host.post("/api/restore", json=bad, headers=headers).status_code == 400
    r = host.post("/api/restore/upload?offset=-1", data=b"x", content_type="application/octet-stream", headers=headers)
    assert r.status_code == 400
    r = host.post("/api/restore/upload?offset=0", data=b"x" * (200 * 1024), content_type="application/octet-stream",
                  headers=headers)
    assert r.status_code == 413
    r = host.post("/api/restore/upload?offset=0", data=b"x", content_type="text/plain", headers=headers)
    assert r.status_code == 415
    r = host.post("/api/restore/upload?offset=0", data=b"x", content_type="application/octet-stream",
                  headers={"Origin": ORIGIN})
    assert r.status_code == 403                                # the CSRF token is needed all the same
    assert view(db) == before


def test_only_the_host_may_back_up_or_restore(board, played):
    app, host, headers, db, restarts, heard = board
    code = host.get("/api/session").get_json()["join_code"]
    player = app.test_client()
    player.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    csrf = player.get("/api/session").get_json()["csrf"]
    ph = {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    assert player.post("/api/join", json={"code": code}, headers=ph).status_code == 200
    visitor = app.test_client()
    vcsrf = visitor.get("/api/session").get_json()["csrf"]
    vh = {"X-CSRF-Token": vcsrf, "Origin": ORIGIN}
    _, out, _ = played
    for phone, h in ((player, ph), (visitor, vh)):
        assert phone.get("/api/backup").status_code == 403
        assert phone.get("/api/backups").status_code == 403
        r = phone.post("/api/restore/upload?offset=0", data=out.read_bytes()[:100],
                       content_type="application/octet-stream", headers=h)
        assert r.status_code == 403
        assert phone.post("/api/restore", json={"bytes": 1, "sha256": "0" * 64}, headers=h).status_code == 403
    assert not bk.staged_path(db).exists() and restarts == []


# ------------------------------------------------------------------ the board's own backups


def test_the_board_keeps_a_backup_at_every_settle_up_and_once_a_night(tmp_path):
    db = tmp_path / "landsend.db"
    now = [dt.datetime(2026, 11, 28, 19, 0, tzinfo=dt.timezone.utc)]
    t = Table.open(db, clock=lambda: now[0])
    from web.backup import Backups
    b = Backups(t, db, tmp_path / "backups", board="Lands End 4F2A")
    b.kept.now = lambda: now[0]
    ev = t.submit({"type": "peg", "side": "p1", "points": 2})
    assert b.after(ev["seq"])["reason"] == "nightly"           # the first event of a board with none kept
    ev = t.submit({"type": "peg", "side": "p1", "points": 2})
    assert b.after(ev["seq"]) is None                          # one a night
    now[0] += dt.timedelta(hours=2)
    ev = t.submit({"type": "settle"})
    assert b.after(ev["seq"])["reason"] == "settle"
    now[0] += dt.timedelta(hours=21)
    ev = t.submit({"type": "peg", "side": "p2", "points": 1})
    assert b.after(ev["seq"])["reason"] == "nightly"
    assert [k["reason"] for k in b.kept.list()] == ["nightly", "settle", "nightly"]
    for i in range(bk.KEEP + 3):                               # the oldest go beyond KEEP
        now[0] += dt.timedelta(hours=21)
        ev = t.submit({"type": "peg", "side": "p2", "points": 1})
        b.after(ev["seq"])
    assert len(b.kept.list()) == bk.KEEP
    t.close()


def test_kept_backups_are_taken_in_their_own_thread_after_a_settle(tmp_path):
    db = tmp_path / "landsend.db"
    t = Table.open(db)
    from web.backup import Backups
    b = Backups(t, db, tmp_path / "backups", board="x")
    b.start()
    try:
        t.submit({"type": "peg", "side": "p1", "points": 2})
        t.submit({"type": "settle"})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "settle" not in [k["reason"] for k in b.kept.list()]:
            time.sleep(0.05)
    finally:
        b.close()
        t.close()
    assert sorted(k["reason"] for k in b.kept.list()) == ["nightly", "settle"]


# ------------------------------------------------------------------ the console and the daemon's start


def test_the_console_backs_up_and_restores_a_stopped_board(played, tmp_path, capsys):
    from firmware.cli import main
    db_src, out, _ = played
    dest = tmp_path / "b2.landsend"
    assert main(["backup", "--db", str(db_src), "--out", str(dest), "--board", "Pub"]) == 0
    assert "Pub, taken" in capsys.readouterr().out
    live = tmp_path / "live" / "landsend.db"
    live.parent.mkdir()
    Table.open(live).close()
    assert main(["restore", str(dest), "--db", str(live)]) == 0
    assert "restored from Pub" in capsys.readouterr().out
    assert view(live) == view(db_src)
    bad = tmp_path / "bad.landsend"
    bad.write_text("nope")
    assert main(["restore", str(bad), "--db", str(live)]) == 1
    assert "not a Land's End backup" in capsys.readouterr().err
    assert view(live) == view(db_src)


def test_the_daemon_switches_to_a_staged_restore_before_it_opens_the_table(played, tmp_path):
    import io as _io

    from firmware.daemon import _apply_restore
    db_src, out, _ = played
    other = tmp_path / "other.db"                 # a backup of another board, with that board's page state
    other.write_bytes(db_src.read_bytes())
    t = Table.open(other)
    t.store.put_meta("web.secret_key", "theirs")
    t.store.put_meta("web.access", '{"host": "their-host"}')
    t.close()
    backup_file = tmp_path / "theirs.landsend"
    bk.take(other, backup_file, board="theirs")
    live = tmp_path / "landsend.db"
    t = Table.open(live)
    t.store.put_meta("web.secret_key", "ours")
    t.store.put_meta("web.access", '{"host": "our-host"}')
    t.close()
    work = tmp_path / "work"
    work.mkdir()
    bk.stage(bk.check(backup_file, work), live)
    err = _io.StringIO()
    done = _apply_restore(live, err)
    assert done and err.getvalue() == "" and view(live) == view(db_src)
    assert not Path(f"{live}.restore-wal").exists() and not bk.staged_path(live).exists()
    s = SQLiteStore(live)
    # the page's state belongs to this board: the host who restored the table still holds it
    assert (s.get_meta("web.secret_key"), s.get_meta("web.access")) == ("ours", '{"host": "our-host"}')
    s.close()
    assert _apply_restore(live, err) is None
