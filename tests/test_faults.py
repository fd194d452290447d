"""Faults say what happened and lose nothing (issue 11): fault injection on the disk and the database.

* a full disk: SQLite's own "database or disk is full", brought on by
  ``PRAGMA max_page_count``; the access state's write goes to ``/dev/full``
  (a real ENOSPC);
* a read-only state folder: a read-only bind mount in a private mount
  namespace (``unshare -m``; skipped where that is not permitted);
* a damaged and a 0-byte database, and a symlink to a database in use.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from companion.errors import StoreError
from companion.table import Table
from firmware.daemon import _lock_database, run
from web import create_app

ORIGIN = "http://localhost"
ROOT = Path(__file__).resolve().parents[1]


class Phone:
    def __init__(self, app, addr: str = "10.0.0.2") -> None:
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = addr
        self.csrf = self.client.get("/api/session").get_json()["csrf"]

    def post(self, path: str, body: dict):
        return self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf, "Origin": ORIGIN})

    def session(self) -> dict:
        return self.client.get("/api/session").get_json()


def fill_the_disk(table: Table) -> None:
    """Let the database grow no more (SQLite then answers "database or disk is full")."""
    db = table.store._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")


# --- a full disk -----------------------------------------------------------------------------------

def test_a_full_disk_gives_503_with_the_stores_message_a_fault_on_the_page_and_changes_nothing(tmp_path):
    table = Table.open(tmp_path / "landsend.db")
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    hub = app.extensions["landsend"]
    host = Phone(app)
    assert host.post("/api/claim", {}).status_code == 200
    fill_the_disk(table)
    refused = None
    for n in range(500):                      # pages fill up: pegs and undos are stored until one does not fit
        before = (table.snapshot(), table.history())
        r = host.post("/api/command", {"type": "peg", "side": "p1", "points": 1} if n % 2 == 0 else {"type": "undo"})
        if r.status_code != 200:
            refused = r
            break
    assert refused is not None, "the disk never filled"
    kind = "peg" if n % 2 == 0 else "undo"
    message = (f"table database {tmp_path / 'landsend.db'}: could not store the {kind}: database or disk is full; "
               "nothing changed")
    assert (refused.status_code, refused.get_json(), refused.headers["Retry-After"]) == (
        503, {"error": message}, "30")
    assert (table.snapshot(), table.history()) == before
    # the page shows it: in the session's faults, and pushed to open pages as a "faults" event
    assert host.session()["faults"] == [message]
    assert hub.broadcaster.latest("faults") == {"faults": [message]}
    # the disk has room again: the next command is stored and the fault goes away
    table.store._db.execute("PRAGMA max_page_count = 1073741823")
    r = host.post("/api/command", {"type": "peg", "side": "p1", "points": 1})
    assert r.status_code == 200
    assert host.session()["faults"] == []
    assert hub.broadcaster.latest("faults") == {"faults": []}
    acknowledged = [(e["seq"], e["type"]) for e in table.history()]
    hub.close()
    table.close()
    # and what was acknowledged is what a restart finds
    again = Table.open(tmp_path / "landsend.db")
    assert [(e["seq"], e["type"]) for e in again.history()] == acknowledged
    again.close()


def fill_the_page_state(table: Table) -> None:
    """Fill the database to the last byte: not even one more row of the page's state fits."""
    fill_the_disk(table)
    size = 4096
    while size:
        try:
            table.store.put_meta("filler", "x" * size)
        except StoreError:
            size //= 2


def test_a_claim_that_cannot_be_saved_leaves_no_ghost_host(tmp_path):
    table = Table.open(tmp_path / "landsend.db")
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    hub = app.extensions["landsend"]
    phone = Phone(app)
    fill_the_page_state(table)
    r = phone.post("/api/claim", {})
    assert r.status_code == 503
    assert r.get_json() == {"error": f"table database {tmp_path / 'landsend.db'}: could not store the table's "
                                     "host (the table is still unclaimed): database or disk is full; nothing changed"}
    assert (hub.access.claimed, hub.access.host, hub.access.join_code) == (False, None, None)
    info = phone.session()
    assert (info["role"], info["claimable"]) == ("visitor", True)
    table.store._db.execute("PRAGMA max_page_count = 1073741823")   # room again: the same phone claims
    r = phone.post("/api/claim", {})
    assert r.status_code == 200 and r.get_json()["role"] == "host"
    assert hub.access.claimed
    # a join that cannot be stored leaves the phone a visitor, and the count of phones as it was
    fill_the_page_state(table)
    joiner = Phone(app, "10.0.0.3")
    r = joiner.post("/api/join", {"code": hub.access.join_code})
    assert r.status_code == 503 and "could not store the phone that joined" in r.get_json()["error"]
    assert (joiner.session()["role"], hub.access.phones) == ("visitor", 1)
    hub.close()
    table.close()


def sim_daemon(db: Path):
    """Return the daemon (simulated strip and buttons, its page) on the table database ``db``."""
    from firmware.config import DEFAULTS
    from firmware.daemon import build
    return build(DEFAULTS, sim=True, db=db)


def hold_menu_at_the_board(daemon, seconds: float = 5.5) -> None:
    """Hold the menu button as a hand at the board does: the pin's edges, no call that could raise to it."""
    pin = daemon.buttons.buttons["menu"].pin
    daemon.buttons.clock.advance(1.0)
    pin.drive_low()
    daemon.buttons.clock.advance(seconds)
    pin.drive_high()
    daemon.buttons.clock.advance(1.0)


def test_a_release_that_cannot_be_stored_is_refused_in_force_nowhere_and_shown_on_every_page(tmp_path):
    """Issue 18: holding the menu button 5 s on a full disk answered 200 and released the table in memory
    only; after a restart the old host and join code worked again."""
    db = tmp_path / "landsend.db"
    daemon = sim_daemon(db)
    try:
        app = daemon.app
        hub = app.extensions["landsend"]
        host = Phone(app)
        assert host.post("/api/claim", {}).status_code == 200
        held = (hub.access.epoch, hub.access.host, hub.access.join_code)
        fill_the_page_state(daemon.table)
        message = (f"table database {db}: could not store the release (the table is still held by its host): "
                   "database or disk is full; nothing changed")
        hold_menu_at_the_board(daemon)                       # the board: refused, shown
        assert (hub.access.epoch, hub.access.host, hub.access.join_code) == held
        assert host.session()["role"] == "host"
        assert host.session()["faults"] == [message]
        assert hub.broadcaster.latest("faults") == {"faults": [message]}
        r = host.post("/api/sim/press", {"button": "menu", "seconds": 5.5})     # the page's stand-in
        assert (r.status_code, r.get_json()) == (503, {"error": message})
        assert (hub.access.epoch, hub.access.host, hub.access.join_code) == held
        # in force nowhere: what a restart finds is the table still held by its host
        from companion.store import SQLiteStore
        from web.security import Access
        store = SQLiteStore(db)
        again = Access(store)
        assert (again.epoch, again.host, again.join_code) == held
        store.close()
        # room again: the same hold releases the table and the fault goes away
        daemon.table.store._db.execute("PRAGMA max_page_count = 1073741823")
        hold_menu_at_the_board(daemon)
        assert (hub.access.epoch, hub.access.claimed) == (held[0] + 1, False)
        assert host.session()["role"] == "visitor" and host.session()["faults"] == []
    finally:
        daemon.close()


def test_a_board_press_that_cannot_be_stored_blinks_its_lane_red_and_shows_the_fault(tmp_path):
    """Issue 18: a board press on a full disk answered 200 though nothing was stored, and the board blinked
    nothing different."""
    db = tmp_path / "landsend.db"
    daemon = sim_daemon(db)
    try:
        hub = daemon.app.extensions["landsend"]
        phone = Phone(daemon.app)
        fill_the_disk(daemon.table)
        refused = None
        for _ in range(500):                      # pages fill up: presses are stored until one does not fit
            before = (daemon.table.snapshot(), daemon.table.history())
            try:
                daemon.buttons.press("p1")
            except StoreError as exc:
                refused = exc
                break
        assert refused is not None, "the disk never filled"
        message = f"table database {db}: could not store the peg: database or disk is full; nothing changed"
        assert str(refused) == message
        assert (daemon.table.snapshot(), daemon.table.history()) == before
        assert daemon.loop._refused[0] == 1                 # lane 1 blinks red, as a press on an empty lane does
        assert phone.session()["faults"] == [message]
        assert hub.broadcaster.latest("faults") == {"faults": [message]}
        r = phone.post("/api/sim/press", {"button": "p3"})   # the page's stand-in (lane 3: p2): 503, nothing stored
        assert (r.status_code, r.get_json()) == (503, {"error": message})
        assert daemon.loop._refused[0] == 3
        assert (daemon.table.snapshot(), daemon.table.history()) == before
    finally:
        daemon.close()


# --- the database at start-up ------------------------------------------------------------------------

def serve(db: Path, tmp_path: Path) -> tuple[int, str]:
    """Return (exit status, stderr) of ``landsend serve --sim --db db`` run in process (it must not serve)."""
    err = io.StringIO()
    config = tmp_path / "none.toml"
    config.write_text("")
    rc = run(Namespace(sim=True, config=str(config), db=str(db), host="127.0.0.1", port=0), stderr=err)
    return rc, err.getvalue()


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def test_a_zero_byte_database_is_refused_not_started_afresh(tmp_path):
    db = tmp_path / "landsend.db"
    db.write_bytes(b"")
    with pytest.raises(StoreError, match="the file is empty"):
        Table.open(db)
    rc, err = serve(db, tmp_path)
    assert rc == 2
    assert one_line(err) == (f"landsend serve: cannot open the table database {db}: the file is empty (0 bytes), "
                             "so it is not a table database; move it away (or delete it) to start a fresh table")
    assert db.read_bytes() == b""                             # left as it was, for whoever looks at it


def test_a_damaged_database_gives_one_line_and_exit_2(tmp_path):
    db = tmp_path / "landsend.db"
    db.write_text("this is not a database\n" * 50)
    rc, err = serve(db, tmp_path)
    assert (rc, one_line(err)) == (2, f"landsend serve: cannot open the table database {db}: file is not a database")


def test_the_one_daemon_lock_follows_symlinks(tmp_path):
    real = tmp_path / "data" / "landsend.db"
    real.parent.mkdir()
    Table.open(real).close()
    link = tmp_path / "link.db"
    link.symlink_to(real)
    held = _lock_database(real)
    try:
        assert held is not None
        rc, err = serve(link, tmp_path)
        assert (rc, one_line(err)) == (1, f"landsend serve: another landsend daemon is already using {real}")
        assert _lock_database(link) is None                  # whichever name the second one is given
    finally:
        held.close()


def test_the_one_daemon_lock_holds_the_file_through_a_hard_link(tmp_path):
    """Issue 18: a second daemon started through a hard link used to run beside the first, and a peg the
    first acknowledged was gone after both stopped. The lock is on the file itself now."""
    real = tmp_path / "landsend.db"
    Table.open(real).close()
    link = tmp_path / "other-name.db"
    os.link(real, link)
    held = _lock_database(real)
    try:
        assert held is not None
        rc, err = serve(link, tmp_path)
        assert (rc, one_line(err)) == (1, f"landsend serve: another landsend daemon is already using {link}")
        assert _lock_database(link) is None
        assert _lock_database(tmp_path / "." / "landsend.db") is None
    finally:
        held.close()
    again = _lock_database(link)                             # once the first one is gone, either name starts
    assert again is not None
    again.close()


# --- a read-only state folder (a real read-only mount) ---------------------------------------------------

def landsend_serve() -> list[str]:
    exe = shutil.which("landsend", path=str(Path(sys.executable).parent))
    return [exe, "serve"] if exe else [sys.executable, "-m", "firmware.daemon"]


def read_only(state: Path, command: list[str]) -> subprocess.CompletedProcess:
    """Run ``command`` with ``state`` bind-mounted read-only in a private mount namespace."""
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, str(state), *command], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env=dict(os.environ, LANDSEND_LOG="ERROR"))


@pytest.fixture
def can_mount_read_only(tmp_path):
    probe = tmp_path / "probe"
    probe.mkdir()
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    out = read_only(probe, ["sh", "-c", "touch \"$0/x\" 2>/dev/null && echo writable || echo read-only",
                            str(probe)])
    if out.returncode != 0 or out.stdout.strip() != "read-only":
        pytest.skip(f"cannot make a read-only mount here: {out.stderr.strip()[:200]}")


@pytest.mark.parametrize("existing", [False, True], ids=["empty folder", "folder with its database"])
def test_a_read_only_state_folder_gives_one_line_and_exit_2(tmp_path, can_mount_read_only, existing):
    state = tmp_path / "state"
    state.mkdir()
    db = state / "landsend.db"
    if existing:
        Table.open(db).close()
    config = tmp_path / "none.toml"
    config.write_text("")
    out = read_only(state, landsend_serve() + ["--sim", "--config", str(config), "--db", str(db), "--host",
                                               "127.0.0.1", "--port", "0"])
    assert out.returncode == 2, out.stderr
    assert one_line(out.stderr) == (f"landsend serve: cannot write in the state folder {state}: "
                                    "Read-only file system")
