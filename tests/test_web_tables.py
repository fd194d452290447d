"""Each table its own keys (issue 18 item 1): the secret key and the access state live in the table's database.

Two tables whose databases share a folder (the form docs/operation.md shows
for a practice table beside the real one) used to sign their cookies with one
key and write one ``access.json``: the host of one was the host of the other.
Now no cookie, join code or access state of one table means anything at
another, whatever the folders; a fresh database is an unhosted table; and the
files an older version left in the folder are taken over by its own database
(once), so a table that was hosted stays hosted.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from companion.table import Table
from test_faults import Phone as FaultsPhone
from web import create_app

ORIGIN = "http://localhost"


def app_for(folder, name: str):
    """Return the app of the table whose database is ``folder/name``, the folder being its state folder too."""
    return create_app({"TESTING": True, "STATE_DIR": str(folder), "DATABASE": str(folder / name),
                       "TRUSTED_HOSTS": ["localhost"]})


class Phone(FaultsPhone):
    def cookie(self) -> str:
        return self.client.get_cookie("landsend").value


def carry(cookie: str, to_app) -> Phone:
    """Return a phone at ``to_app`` holding the cookie another table gave (as a browser would send it)."""
    phone = Phone.__new__(Phone)
    phone.client = to_app.test_client()
    phone.client.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    phone.client.set_cookie("landsend", cookie, domain="localhost")
    phone.csrf = None
    return phone


def close(*apps) -> None:
    for app in apps:
        app.extensions["landsend"].close()


def test_two_tables_in_one_folder_share_no_key_no_cookie_and_no_host(tmp_path):
    a, b = app_for(tmp_path, "landsend.db"), app_for(tmp_path, "practice.db")
    assert a.config["SECRET_KEY"] != b.config["SECRET_KEY"]
    host_a = Phone(a)
    assert host_a.post("/api/claim", {}).status_code == 200
    code_a = a.extensions["landsend"].access.join_code
    # A's host cookie at B: no session B knows (another key signed it), so a visitor with nothing
    stranger = carry(host_a.cookie(), b)
    info = stranger.client.get("/api/session").get_json()
    assert (info["role"], info["claimable"], info["epoch"]) == ("visitor", True, 1)
    assert info["csrf"] != host_a.csrf
    r = stranger.client.post("/api/command", json={"type": "peg", "side": "p1", "points": 2},
                             headers={"X-CSRF-Token": host_a.csrf, "Origin": ORIGIN})
    assert r.status_code == 403
    assert [s["score"] for s in b.extensions["landsend"].table.snapshot()["sides"]] == [0, 0]
    # B is claimed by its own host; A's join code does not open it (unless B drew the same six digits)
    host_b = Phone(b, "10.0.0.3")
    assert host_b.post("/api/claim", {}).status_code == 200
    code_b = b.extensions["landsend"].access.join_code
    joiner = Phone(b, "10.0.0.4")
    r = joiner.post("/api/join", {"code": code_a})
    assert r.status_code == (200 if code_a == code_b else 403)
    # B's release does nothing to A: A's host is still A's host, and no access file is written in the folder
    b.extensions["landsend"].release()
    assert (a.extensions["landsend"].access.host is not None, host_a.session()["role"]) == (True, "host")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [
        "landsend.db", "practice.db"]
    close(a, b)
    # and after a restart each table has its own host and key again
    a2, b2 = app_for(tmp_path, "landsend.db"), app_for(tmp_path, "practice.db")
    assert (a2.config["SECRET_KEY"], b2.config["SECRET_KEY"]) == (a.config["SECRET_KEY"], b.config["SECRET_KEY"])
    again = carry(host_a.cookie(), a2)
    assert again.client.get("/api/session").get_json()["role"] == "host"
    assert (b2.extensions["landsend"].access.claimed, b2.extensions["landsend"].access.epoch) == (False, 2)
    close(a2, b2)


def old_layout(folder, *, host: str = "old-host", code: str = "424242") -> bytes:
    """Write the secret key and access.json an older version kept in ``folder``; return the key."""
    key = os.urandom(32)
    (folder / "secret_key").write_bytes(key)
    (folder / "access.json").write_text(json.dumps({"epoch": 7, "host": host, "join_code": code,
                                                    "devices": [host, "old-player"]}))
    return key


def older_database(path) -> None:
    """Make ``path`` a table database as an older version left it (no page state in it, no ``created`` stamp)."""
    t = Table.open(path)
    t.submit({"type": "peg", "side": "p1", "points": 5})
    t.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE meta")
    db.execute("PRAGMA user_version = 0")          # as layout 2 left its files: unstamped, no meta
    db.execute("PRAGMA application_id = 0")
    db.commit()
    db.close()


def test_a_fresh_database_in_a_used_folder_is_an_unhosted_table(tmp_path):
    old_layout(tmp_path)                                         # an older version hosted a table here
    used = app_for(tmp_path, "landsend.db")                      # and this version hosts one here now
    Phone(used).post("/api/claim", {})
    fresh = app_for(tmp_path, "fresh.db")
    access = fresh.extensions["landsend"].access
    assert (access.claimed, access.host, access.join_code, access.epoch, access.phones) == (False, None, None, 1, 0)
    phone = Phone(fresh, "10.0.0.9")
    assert phone.session()["claimable"] is True
    assert phone.post("/api/claim", {}).status_code == 200          # anyone at the board can host it
    assert phone.session()["role"] == "host"
    close(used, fresh)


def test_an_older_tables_key_and_host_move_into_its_database_once(tmp_path):
    older_database(tmp_path / "landsend.db")
    key = old_layout(tmp_path)
    app = app_for(tmp_path, "landsend.db")
    assert app.config["SECRET_KEY"] == key                       # the phones' cookies still hold
    access = app.extensions["landsend"].access
    assert (access.epoch, access.host, access.join_code, access.devices) == (7, "old-host", "424242",
                                                                             ["old-host", "old-player"])
    cookie = app.session_interface.get_signing_serializer(app).dumps(
        {"device": "old-host", "csrf": "t", "epoch": 7, "joined": True})
    assert carry(cookie, app).client.get("/api/session").get_json()["role"] == "host"
    # the files are renamed after the database that took them: no other table in the folder can take them
    assert sorted(p.name for p in tmp_path.iterdir() if "moved" in p.name or p.suffix == ".json") == [
        "access.json.moved-into-landsend.db", "secret_key.moved-into-landsend.db"]
    assert (tmp_path / "landsend.db").stat().st_mode & 0o777 == 0o600
    other = app_for(tmp_path, "other.db")
    assert other.config["SECRET_KEY"] != key and not other.extensions["landsend"].access.claimed
    close(app, other)
    again = app_for(tmp_path, "landsend.db")
    assert again.config["SECRET_KEY"] == key and again.extensions["landsend"].access.host == "old-host"
    close(again)


def test_an_older_database_without_old_files_starts_unhosted_with_a_new_key(tmp_path):
    older_database(tmp_path / "landsend.db")
    app = app_for(tmp_path, "landsend.db")
    assert not app.extensions["landsend"].access.claimed and len(app.config["SECRET_KEY"]) == 32
    assert [s["score"] for s in app.extensions["landsend"].table.snapshot()["sides"]] == [5, 0]
    close(app)


def test_an_operator_resets_a_stopped_tables_host_from_the_command_line(tmp_path, capsys):
    """``landsend release --db FILE`` (firmware.cli) runs :func:`firmware.daemon.release_stopped`."""
    import sys

    from firmware.daemon import _lock_database, release_stopped

    def main(argv):
        return release_stopped(Path(argv[2]), stdout=sys.stdout, stderr=sys.stderr)
    app = app_for(tmp_path, "landsend.db")
    host = Phone(app)
    assert host.post("/api/claim", {}).status_code == 200
    held = _lock_database(tmp_path / "landsend.db")                # a daemon serving it: the button is the way
    assert main(["release", "--db", str(tmp_path / "landsend.db")]) == 1
    assert "a landsend daemon is using" in capsys.readouterr().err
    held.close()
    close(app)
    assert main(["release", "--db", str(tmp_path / "landsend.db")]) == 0
    assert capsys.readouterr().out == (f"{tmp_path / 'landsend.db'}: released (access epoch 2): every phone must "
                                       "join again, and the next phone to claim the table becomes its host\n")
    again = app_for(tmp_path, "landsend.db")
    access = again.extensions["landsend"].access
    assert (access.claimed, access.epoch) == (False, 2)
    assert carry(host.cookie(), again).client.get("/api/session").get_json()["role"] == "visitor"
    close(again)
    assert main(["release", "--db", str(tmp_path / "none.db")]) == 2
    assert not (tmp_path / "none.db").exists()
