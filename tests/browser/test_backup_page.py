"""Keep the season on the host's phone in Chromium at 390x844: download a backup, see the board's kept ones,
restore another table from a file, and every phone (the host's and a player's) reloads on the restored table.

The board's restart is what the daemon does (firmware.daemon: ``landsend.restart`` stops the page, the next
start switches to the staged table by one rename with the board's own page state carried over, and the page
answers again at the same address)."""

import json
import threading
import time
import zipfile

from playwright.sync_api import expect

from conftest import claim, join_link, until

from companion import backup as bk
from companion.table import Table
from firmware.daemon import BOARD_META


def test_the_host_downloads_a_backup_and_restores_another_table_and_every_phone_reloads(tmp_path, phones):
    from web import create_app, create_server

    # the backup to restore: another evening (Ann 7 - Bob 0 in a cribbage match, three matches kept)
    other = tmp_path / "other.db"
    t = Table.open(other, default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 2, "first_dealer": "Bob"})
    t.submit({"type": "peg", "side": "p2", "points": 16})
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Ann"})
    t.submit({"type": "peg", "side": "p1", "points": 7})
    t.close()
    backup_file = tmp_path / "landsend-backup-other-2026-11-28.landsend"
    bk.take(other, backup_file, board="Other board")

    state = tmp_path / "state"
    state.mkdir()
    db = state / "landsend.db"
    cfg = {"TESTING": True, "STATE_DIR": str(state), "TRUSTED_HOSTS": ["127.0.0.1"], "SSE_HEARTBEAT": 1.0}
    box = {}

    def start(port):
        table = Table.open(db)
        app = create_app(cfg, table=table)
        app.extensions["landsend.restart"] = restart
        server = create_server(app, host="127.0.0.1", port=port, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        box.update(table=table, app=app, server=server, thread=thread, port=port)
        return server

    def stop():
        hub = box["app"].extensions["landsend"]
        hub.broadcaster.close()
        for _ in range(100):
            if hub.broadcaster.streams == 0:
                break
            time.sleep(0.02)
        box["server"].close()
        # the process ends at a real restart: every open connection goes with it (a phone's keep-alive
        # connection must not reach the old app)
        for channel in list(box["server"]._map.values()):
            channel.close()
        box["thread"].join(timeout=5)
        hub.close()
        box["table"].close()

    restarted = threading.Event()

    def restart():                        # the daemon: stop, switch at the next start, answer again
        def again():
            port = box["port"]
            stop()
            bk.apply_staged(db, bk.Kept(state / "backups", board="b"), carry=BOARD_META)
            start(port)
            restarted.set()
        threading.Thread(target=again, daemon=True).start()

    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start(port)
    url = f"http://127.0.0.1:{port}"
    try:
        box["table"].submit({"type": "peg", "side": "p1", "points": 4})
        host = phones(url)
        claim(host)
        code = box["app"].extensions["landsend"].access.join_code
        player = join_link(phones, url, code)

        host.click("nav.tabs [data-tab='more']")
        expect(host.locator("#keep")).to_be_visible()
        expect(host.locator("#keep-version")).to_contain_text("table schema 4")
        expect(host.locator("#keep-list")).to_contain_text("None yet")
        with host.expect_download() as got:
            host.click("#keep-download")
        dl = got.value
        assert dl.suggested_filename.startswith("landsend-backup-") and dl.suggested_filename.endswith(".landsend")
        with zipfile.ZipFile(dl.path()) as z:
            assert json.loads(z.read("manifest.json"))["matches"] == 1
        player.click("nav.tabs [data-tab='more']")
        expect(player.locator("#keep")).to_be_hidden()                   # the host's alone

        loads = {id(host): 0, id(player): 0}
        for page in (host, player):
            page.on("load", lambda p=page: loads.__setitem__(id(p), loads[id(p)] + 1))
        host.set_input_files("#keep-file", str(backup_file))
        expect(host.locator("#keep-msg")).to_contain_text("It replaces every match, night and payment")
        host.click("#keep-go")
        expect(host.locator("#restoring")).to_be_visible()
        expect(player.locator("#restoring")).to_be_visible()              # heard on its stream
        assert restarted.wait(20)
        # both phones reload on the restored table: cribbage, Ann 7 - Bob 0; the host still hosts the board
        for page in (host, player):
            until(page, lambda: loads[id(page)] >= 1, timeout=30)
            page.wait_for_selector("#conn.ok")
            expect(page.locator("#restoring")).to_be_hidden()
        expect(host.locator("#role")).to_have_text("host")
        expect(player.locator("#role")).to_have_text("player")
        assert [s["score"] for s in box["table"].snapshot()["sides"]] == [7, 0]
        assert box["table"].snapshot()["game"] == "cribbage"
        host.click("nav.tabs [data-tab='more']")
        expect(host.locator("#keep-last")).to_contain_text("from Other board")
        expect(host.locator("#keep-list")).to_contain_text("before a restore")
        assert host.errors == [] and player.errors == []
    finally:
        stop()


def test_a_joined_phone_sets_a_board_whose_clock_is_behind_and_the_host_sees_it(make_server, phones):
    """A Pi after a power cut at a pub starts on a clock set back (systemd's build date): the first joined phone
    sets it (firmware.clock's rules), and the host's More tab says the board's time and who set it."""
    import datetime as dt

    from firmware.clock import BoardClock
    server = make_server()
    board = {"at": dt.datetime(2026, 4, 27, 8, 0, tzinfo=dt.timezone.utc).timestamp(), "sets": []}

    def settime(t):
        board["sets"].append(t)
        board["at"] = t
    server.app.extensions["landsend.clock"] = BoardClock(now=lambda: board["at"], settime=settime,
                                                          synced=lambda: False)
    host = phones(server.url)
    assert board["sets"] == []                          # a visitor's clock is never taken
    claim(host)
    until(host, lambda: len(board["sets"]) == 1)
    assert abs(board["sets"][0] - time.time()) < 60     # the phone's own clock
    host.click("nav.tabs [data-tab='more']")
    expect(host.locator("#clock-now")).to_contain_text("set from the host's phone's clock at " +
                                                        dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"))
    board["at"] -= 3600                                 # the host corrects it to their phone's time
    host.click("#clock-set")
    until(host, lambda: len(board["sets"]) == 2)
    assert host.errors == []


def test_the_host_sees_the_version_and_a_refused_update_file_changes_nothing(make_server, phones, tmp_path):
    """The Update panel (update.js, under Keep the season): the running version, the last update's outcome, a file
    that is not an update refused with the board's reason, nothing queued; a player's phone has no panel."""
    from firmware import update as up
    server = make_server()
    lay = up.Layout(tmp_path / "root")
    (lay.release(up.running_version())).mkdir(parents=True)
    (lay.release(up.running_version()) / up.MARKER).write_text('{"schema": 4}')
    up.switch(lay, up.running_version())
    lay.spool.mkdir(parents=True)
    lay.write_status({"step": "done", "outcome": "rolled back", "to": "9.9.9",
                      "reason": "the new daemon exited at start"})
    server.app.extensions["landsend.updates"] = up.Queue(lay)
    host = phones(server.url)
    claim(host)
    host.click("nav.tabs [data-tab='more']")
    expect(host.locator("#upd-version")).to_have_text(f"This board runs version {up.running_version()}.")
    expect(host.locator("#upd-last")).to_have_text("Last update (9.9.9): not kept: the board went back "
                                                   "(the new daemon exited at start).")
    junk = tmp_path / "landsend-9.9.9-arm64.update"
    junk.write_bytes(b"not an update" * 100)
    host.set_input_files("#upd-file", str(junk))
    host.click("#upd-go")
    expect(host.locator("#upd-msg")).to_have_text("Not installed, nothing changed: this file is not a Land's End "
                                                  "update (not an update file at all)")
    assert sorted(p.name for p in lay.spool.iterdir()) == ["status.json"]
    code = server.app.extensions["landsend"].access.join_code
    player = join_link(phones, server.url, code)
    player.click("nav.tabs [data-tab='more']")
    expect(player.locator("#upd")).to_have_count(0)
    assert host.errors == [] and player.errors == []
