"""firmware.daemon: paths, sd_notify, faults instead of dying, and the real `serve --sim` process.

The subprocess test runs the daemon as systemd would (a notify socket with a
watchdog), presses simulated buttons through POST /api/sim/press, reads the
LED frame back from GET /api/board, restarts the daemon on the same database
to check that the board comes back with exactly the stored state (after a
clean stop and after a SIGKILL), and stops it with SIGTERM.
"""

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from companion.table import Table
from firmware.config import DEFAULTS
from firmware.daemon import build, default_config_path, default_db_path, serve
from firmware.drivers.spi import SpiStrip
from firmware.sdnotify import Notifier

ROOT = Path(__file__).resolve().parents[1]


# --- paths ---------------------------------------------------------------------------
@pytest.mark.parametrize("env, path", [
    ({"LANDSEND_DB": "/x/a.db", "STATE_DIRECTORY": "/var/lib/landsend"}, "/x/a.db"),
    ({"STATE_DIRECTORY": "/var/lib/landsend:/var/lib/other", "XDG_STATE_HOME": "/h/.st"}, "/var/lib/landsend/landsend.db"),
    ({"XDG_STATE_HOME": "/h/.st", "HOME": "/h"}, "/h/.st/landsend/landsend.db"),
    ({"HOME": "/home/ann"}, "/home/ann/.local/state/landsend/landsend.db"),
])
def test_default_db_path(env, path):
    assert default_db_path(env) == Path(path)


def test_config_path_from_the_environment():
    assert default_config_path({"LANDSEND_CONFIG": "/etc/x.toml"}) == Path("/etc/x.toml")


# --- sd_notify --------------------------------------------------------------------------
def test_notifier_writes_datagrams_to_the_notify_socket(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"})
        assert (n.enabled, n.ping_interval) == (True, 15.0)
        assert n.notify("READY=1") and n.notify("WATCHDOG=1")
        assert [sock.recv(100), sock.recv(100)] == [b"READY=1", b"WATCHDOG=1"]


def test_notifier_uses_the_abstract_namespace_and_ignores_another_pids_watchdog():
    name = f"landsend-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        n = Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"})
        assert n.ping_interval is None
        assert n.notify("READY=1")
        assert sock.recv(100) == b"READY=1"


def test_notifier_outside_systemd_does_nothing():
    n = Notifier({})
    assert (n.enabled, n.ping_interval, n.notify("READY=1")) == (False, None, False)


def test_notifier_can_take_systemd_s_variables_out_of_the_environment_it_read(tmp_path):
    path = str(tmp_path / "notify")
    mine = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        env = dict(mine, PATH="/usr/bin")
        n = Notifier(env, unset_environment=True)
        assert env == {"PATH": "/usr/bin"} and n.environment == mine
        assert (n.enabled, n.ping_interval) == (True, 15.0)
        assert n.notify("READY=1") and sock.recv(100) == b"READY=1"
    kept = dict(mine)
    assert Notifier(kept).enabled and kept == mine            # by default the environment is left as it is


def test_nothing_the_daemon_starts_inherits_systemd_s_notify_socket_or_watchdog(tmp_path, monkeypatch):
    """The update check's journal: "landsend.service: Got notification message from PID 409, but reception only
    permitted for main PID": PID 409 was the name watch's busctl, failing at shutdown (systemd's tools send
    ERRNO= to $NOTIFY_SOCKET when they fail). The daemon now takes systemd's variables out of its environment
    before it builds anything, and a program it starts has none of them."""
    import firmware.daemon as daemon_module
    from companion.store import StoreError
    from firmware.sdnotify import SYSTEMD_ONLY
    seen = {}

    def fake_build(*args, **kwargs):               # where the threads and their programs start
        seen["daemon"] = sorted(name for name in SYSTEMD_ONLY if name in os.environ)
        out = subprocess.run([sys.executable, "-c", f"import os; print(sorted(n for n in {SYSTEMD_ONLY!r} "
                              "if n in os.environ))"], capture_output=True, text=True, timeout=30)
        seen["child"] = out.stdout.strip()
        raise StoreError("stopped here")
    monkeypatch.setattr(daemon_module, "build", fake_build)
    monkeypatch.setattr(daemon_module.signal, "signal", lambda sig, handler: None)
    monkeypatch.setenv("NOTIFY_SOCKET", "/run/systemd/notify")
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    (tmp_path / "c.toml").write_text("")
    args = daemon_module._parser().parse_args(["--sim", "--config", str(tmp_path / "c.toml"),
                                               "--db", str(tmp_path / "x.db")])
    assert daemon_module.run(args, stderr=io.StringIO()) == 2
    assert seen == {"daemon": [], "child": "[]"}


def test_a_daemon_starting_itself_again_gets_systemd_s_notify_socket_back(monkeypatch):
    # a restore restarts the daemon in the same process (same pid): systemd still waits for its pings there
    import firmware.daemon as daemon_module
    calls = []
    monkeypatch.setattr(daemon_module.os, "execve", lambda exe, argv, env: calls.append((exe, argv, env)))
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    daemon_module._exec_again({"NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "20000000"})
    (exe, argv, env), = calls
    assert exe == sys.executable and argv == [sys.executable, *sys.orig_argv[1:]]
    assert (env["NOTIFY_SOCKET"], env["WATCHDOG_USEC"], env["PATH"]) == ("/run/systemd/notify", "20000000",
                                                                        os.environ["PATH"])


# --- build: faults instead of dying -------------------------------------------------------
def fake_spidev_without_device():
    import types

    class Dev:
        def open(self, bus, device):
            raise PermissionError(13, "Permission denied")
    return types.SimpleNamespace(SpiDev=Dev)


def test_broken_strip_and_buttons_become_faults_and_the_board_still_renders():
    factory = MockFactory()
    squatter = Button(17, pin_factory=factory)              # something else holds GPIO17
    table = Table.memory()
    strip = SpiStrip(52, spidev_module=fake_spidev_without_device())
    d = build(DEFAULTS, sim=False, table=table, strip=strip, pin_factory=factory, web=False)
    try:
        assert d.strip is None and d.buttons is None
        assert d.faults[0] == ("LED strip: cannot open /dev/spidev0.0: Permission denied "
                               "(add the user to the spi group)")
        assert d.faults[1].startswith("buttons: GPIOPinInUse: ")
        drawn = threading.Event()
        d.table.subscribe(lambda s: drawn.set())
        d.table.submit({"type": "peg", "side": 0, "points": 2})
        assert drawn.wait(5)
        deadline = time.monotonic() + 5
        while d.loop.frame_json()["lanes"][0][1] != [0, 128, 0] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert d.loop.frame_json()["lanes"][0][1] == [0, 128, 0]
        assert d.loop.frame_json()["strip_ok"] is False
    finally:
        d.close()
        squatter.close()


def test_buttons_built_late_take_a_press_made_on_the_page_before_they_exist():
    # landsend serve answers before the buttons exist (issue 25's start-up); the page's stand-in waits for them
    d = build(DEFAULTS, sim=True, table=Table.memory(), buttons_late=True)
    try:
        assert d.buttons is None and d.late is not None and d.hub.buttons is not None
        got = []
        presser = threading.Thread(target=lambda: got.append(d.hub.buttons.press("p1")))
        presser.start()
        time.sleep(0.05)
        assert got == []                            # waiting for the buttons, not refused
        d.late()
        presser.join(5)
        assert got == [{"type": "peg", "side": "p1", "points": 1}] and d.buttons is not None
        assert d.hub.buttons.press("p3") == {"type": "peg", "side": "p2", "points": 1}
    finally:
        d.close()


def test_buttons_that_fail_to_build_late_refuse_the_pages_press():
    from firmware.daemon import LateButtons
    late = LateButtons()
    late.attach(None)
    with pytest.raises(RuntimeError, match="could not be set up"):
        late.press("p1")


def test_sim_build_buttons_peg_through_the_table_and_close_blanks_the_strip():
    d = build(DEFAULTS, sim=True, table=Table.memory(), web=False)
    try:
        assert d.faults == []
        # two-hand: lane 1 and lane 3 have a side, the middle lane is empty
        assert d.buttons.press("p1") == {"type": "peg", "side": "p1", "points": 1}
        assert d.buttons.press("p3") == {"type": "peg", "side": "p2", "points": 1}
        assert d.buttons.press("p2") is None
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [1, 1]
        assert d.buttons.press("p1", hold=True) == {"type": "undo"}
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [1, 0]
        # three-hand casino: the house (first side) plays on the middle lane and its button is p2
        d.table.submit({"type": "new_match", "game": "lands-end-casino-3", "players": ["Ann", "Bob"], "stake": 1})
        assert [s["id"] for s in d.table.snapshot()["sides"]] == ["house", "p1", "p2"]
        assert d.buttons.press("p2") == {"type": "peg", "side": "house", "points": 1}
        assert [s["score"] for s in d.table.snapshot()["sides"]] == [1, 0, 0]
    finally:
        d.close()
    assert d.strip.is_open is False
    assert set(d.strip.frame.pixels) == {(0, 0, 0)}


# --- the real process -------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command():
    exe = shutil.which("landsend", path=str(Path(sys.executable).parent))
    if exe and subprocess.run([exe, "serve", "--help"], capture_output=True).returncode == 0:
        return [exe, "serve"]
    return [sys.executable, "-m", "firmware.daemon"]


class Daemon:
    def __init__(self, tmp_path, db, notify):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, NOTIFY_SOCKET=notify, WATCHDOG_USEC="200000", LANDSEND_STATE_DIR=str(tmp_path),
                   LANDSEND_CONFIG=str(tmp_path / "none.toml"))
        (tmp_path / "none.toml").write_text("[strip]\nbrightness = 0.5\n")
        self.proc = subprocess.Popen(serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(self.port),
                                                         "--db", str(db)],
                                     env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, cwd=ROOT)

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as r:
            return json.loads(r.read())

    def press(self, button, hold=False):
        req = urllib.request.Request(self.base + "/api/sim/press", method="POST",
                                     data=json.dumps({"button": button, "hold": hold}).encode(),
                                     headers={"Content-Type": "application/json", "Origin": self.base})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def board_at(self, seq):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            b = self.get("/api/board")
            if b["seq"] == seq and not b["animating"]:      # a refusal flash (p2 here) is over too
                return b
            time.sleep(0.02)
        raise AssertionError(f"board never showed seq {seq}: {b['seq']}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=15)
        return self.proc.returncode, out.decode()


def receive(sock, want, timeout=15.0):
    sock.settimeout(timeout)
    got = []
    while want not in got:
        got.extend(sock.recv(200).decode().split("\n"))
    return got


def lane(board, n):
    return {h: tuple(c) for h, c in enumerate(board["lanes"][n - 1], start=1) if any(c)}


def test_serve_sim_presses_buttons_and_the_board_follows(tmp_path):
    notify = str(tmp_path / "notify")
    db = tmp_path / "state" / "landsend.db"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(notify)
        d = Daemon(tmp_path, db, notify)
        try:
            assert "READY=1" in receive(sock, "READY=1")
            first = d.get("/api/table")
            assert [s["score"] for s in first["sides"]] == [0, 0]
            pressed = d.press("p1")
            assert [s["score"] for s in pressed["table"]["sides"]] == [1, 0]
            d.press("p1")
            d.press("p1")
            assert d.press("p2")["table"]["seq"] == pressed["table"]["seq"] + 2   # empty middle lane: no peg
            after = d.press("p3")["table"]
            board = d.board_at(after["seq"])
            assert lane(board, 1) == {3: (0, 128, 0), 2: (0, 7, 0)}     # p1: 3, back peg at 2
            assert lane(board, 3) == {1: (0, 128, 0)}                   # p2: 1 (previous 0)
            assert lane(board, 2) == {}
            undone = d.press("p3", hold=True)["table"]
            assert [s["score"] for s in undone["sides"]] == [3, 0]
            before = d.board_at(undone["seq"])
            assert lane(before, 3) == {}
            assert "WATCHDOG=1" in receive(sock, "WATCHDOG=1")
        finally:
            code, out = d.stop()
        assert code == 0, out
        assert "STOPPING=1" in receive(sock, "STOPPING=1")

        # a restart shows exactly the stored state
        d = Daemon(tmp_path, db, notify)
        try:
            receive(sock, "READY=1")
            board = d.board_at(d.get("/api/table")["seq"])
            assert board["lanes"] == before["lanes"] and board["status"] == before["status"]
            assert lane(board, 1) == {3: (0, 128, 0), 2: (0, 7, 0)} and lane(board, 3) == {}
            pressed = d.press("p1")["table"]
            killed = d.board_at(pressed["seq"])
            assert lane(killed, 1) == {4: (0, 128, 0), 3: (0, 7, 0)}
        finally:
            d.proc.kill()                                # a power cut: SIGKILL, no clean close
            d.proc.communicate(timeout=15)

        # ... and so does the start after a power cut, with the press acknowledged just before it
        d = Daemon(tmp_path, db, notify)
        try:
            receive(sock, "READY=1")
            board = d.board_at(pressed["seq"])
            assert board["lanes"] == killed["lanes"] and board["status"] == killed["status"]
        finally:
            code, out = d.stop()
        assert code == 0, out


def test_serve_refuses_a_wrong_config_with_its_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[strip]\ndriver = \"spi\"\ntype = \"GRBX\"\n")
    out = subprocess.run(serve_command() + ["--sim", "--config", str(bad), "--db", str(tmp_path / "x.db")],
                         capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == (
        f"landsend serve: config refused: {bad}, line 3, strip.type: must be one of GRB, RGB, BRG, RBG, GBR, BGR, "
        "GRBW, RGBW, got 'GRBX'")
    assert not (tmp_path / "x.db").exists()


def test_the_daemon_hands_the_app_its_state_dir_and_keeps_the_hub_it_gets_back(tmp_path, monkeypatch):
    monkeypatch.delenv("LANDSEND_STATE_DIR", raising=False)
    before = dict(os.environ)
    d = build(DEFAULTS, sim=True, db=tmp_path / "state" / "landsend.db")
    try:
        assert dict(os.environ) == before                  # settings passed, not put in the environment
        assert d.app.config["STATE_DIR"] == str(tmp_path / "state")
        assert d.hub is d.app.hub and d.hub.table is d.table and d.hub.board is d.loop
    finally:
        d.close()


def test_a_press_reaches_the_phones_with_its_frame_and_the_voice_after_them(tmp_path, monkeypatch):
    """Issue 38: the board draws a new state's frame before the state is published (no hand-over to the
    render thread), so a phone's stream writes the state and its frame in one message, state first; the voice,
    which only queues its announcement, hears the state after the phones have it."""
    from firmware.voice import Voice
    from web.live import format_event, state_id
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    heard = []

    def voice_update(self, snapshot):                 # what the phones have when the voice hears a state
        heard.append((snapshot["seq"], d.hub.broadcaster.latest("state")["seq"],
                      d.hub.broadcaster.latest("board")["seq"]))
    monkeypatch.setattr(Voice, "update", voice_update)
    d = build(DEFAULTS, sim=True, table=Table.memory())
    try:
        seen: list[tuple[int, int]] = []
        d.table.subscribe(lambda snap: seen.append((snap["seq"], d.hub.broadcaster.latest("board")["seq"])))
        d.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"]})
        d.table.submit({"type": "peg", "side": "p1", "points": 2})
        assert seen == [(0, 0), (1, 1)]              # the frame of each state was pushed before it was told
        assert heard == [(0, 0, 0), (1, 1, 1)]
        b = d.hub.broadcaster
        stream = b.stream(d.table.snapshot, heartbeat=30.0, catch_up=("board",))
        texts: list[str] = []
        reader = threading.Thread(target=lambda: [texts.append(t) for t in stream], daemon=True)
        reader.start()
        deadline = time.monotonic() + 5
        while not b._parked:
            assert time.monotonic() < deadline, "the stream never waited"
            time.sleep(0.001)
        caught_up = len(texts)
        d.table.submit({"type": "peg", "side": "p2", "points": 3})
        while len(texts) == caught_up:             # the settling publish lets the stream write before it returns
            assert time.monotonic() < deadline, "the stream never wrote the press"
            time.sleep(0.001)
        snap = d.table.snapshot()
        assert snap["seq"] == 2
        assert texts[caught_up] == (format_event("state", snap, event_id=state_id(snap))
                                    + format_event("board", d.loop.frame_json()))
        b.close()
        reader.join(5)
    finally:
        d.close()


def test_menu_hold_of_5_s_releases_the_table_through_the_web_app(tmp_path, monkeypatch):
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    try:
        hub = d.hub
        epoch = hub.access.epoch
        assert d.buttons.press("menu", hold=True) == {"type": "new_game"}
        assert hub.access.epoch == epoch
        assert d.buttons.press("menu", seconds=5.5) is None
        assert hub.access.epoch == epoch + 1
        brightness = d.loop.brightness
        d.buttons.press("menu")
        assert d.loop.brightness == 0.8 != brightness       # 0.5 -> the next step
    finally:
        d.close()


class RecordingNotifier(Notifier):
    """A notifier with a watchdog that keeps its messages instead of sending them."""

    def __init__(self):
        super().__init__({"WATCHDOG_USEC": "2000000"})
        self.sent = []

    def notify(self, message):
        self.sent.append(message)
        return True


class ScriptedStop:
    """A stop event whose wait() runs one scripted step per call (no real waiting)."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.timeouts = []

    def wait(self, timeout=None):
        self.timeouts.append(timeout)
        return self.steps.pop(0)()


def test_watchdog_pings_only_while_the_render_and_web_threads_live(tmp_path, monkeypatch):
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    notifier = RecordingNotifier()

    def kill_render_thread():
        d.loop.stop(blank=False)
        return False
    stop = ScriptedStop([lambda: False, kill_render_thread, lambda: False, lambda: True])
    code = serve(d, host="127.0.0.1", port=0, notifier=notifier, stop=stop)
    assert code == 1
    assert stop.timeouts == [1.0, 1.0, 1.0, 1.0]                # WatchdogSec 2 s -> a ping every 1 s
    assert [m.split("\n")[0] for m in notifier.sent] == ["READY=1", "WATCHDOG=1", "STOPPING=1"]
    assert set(d.strip.frame.pixels) == {(0, 0, 0)}               # closed: LEDs off


def test_watchdog_pings_stop_while_a_strip_write_hangs_and_resume_when_it_returns(tmp_path, monkeypatch):
    from firmware.buttons import SimClock
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    clock = SimClock(lambda: 0.0)
    d.loop.clock = clock
    entered, release = threading.Event(), threading.Event()
    show = d.strip.show

    def hanging_show(frame):
        entered.set()
        release.wait(30)
        show(frame)

    def hang():
        d.strip.show = hanging_show
        d.loop.set_brightness(0.3)
        assert entered.wait(10)                          # the render thread is inside the write
        clock.advance(1.5)                               # longer than the 1 s ping interval
        return False

    def unhang():
        frames = d.loop.frames
        release.set()
        deadline = time.monotonic() + 10
        while d.loop.frames == frames and time.monotonic() < deadline:
            time.sleep(0.01)
        return False
    notifier = RecordingNotifier()
    stop = ScriptedStop([lambda: False, hang, lambda: False, unhang, lambda: True])
    assert serve(d, host="127.0.0.1", port=0, notifier=notifier, stop=stop) == 0
    assert [m.split("\n")[0] for m in notifier.sent] == ["READY=1", "WATCHDOG=1", "WATCHDOG=1", "STOPPING=1"]


def test_sigterm_is_caught_before_the_board_is_lit(tmp_path, monkeypatch):
    # a SIGTERM during start-up (systemctl stop right after start) must still end in serve's clean close,
    # which turns the LEDs off; with the default handler the process dies with the board lit
    import firmware.daemon as daemon_module
    order = []

    class Built(Exception):
        pass

    def fake_build(*args, **kwargs):
        order.append("build")
        raise Built
    monkeypatch.setattr(daemon_module.signal, "signal", lambda sig, handler: order.append(sig))
    monkeypatch.setattr(daemon_module, "build", fake_build)
    (tmp_path / "c.toml").write_text("")
    args = daemon_module._parser().parse_args(["--sim", "--config", str(tmp_path / "c.toml"),
                                               "--db", str(tmp_path / "x.db")])
    with pytest.raises(Built):
        daemon_module.run(args)
    assert order == [signal.SIGTERM, signal.SIGINT, "build"]


def test_a_database_directory_that_cannot_be_made_is_one_clear_line(tmp_path):
    from firmware.daemon import _parser, run
    (tmp_path / "plain").write_text("a file, not a directory")
    (tmp_path / "c.toml").write_text("")
    args = _parser().parse_args(["--sim", "--config", str(tmp_path / "c.toml"),
                                 "--db", str(tmp_path / "plain" / "state" / "x.db")])
    err = io.StringIO()
    assert run(args, stderr=err) == 2
    assert err.getvalue() == (f"landsend serve: cannot create the database directory {tmp_path}/plain/state: "
                              "Not a directory\n")


def test_a_second_daemon_on_the_same_database_is_refused(tmp_path):
    # Two daemons appending to one event store would interleave their sequence numbers.
    from firmware.daemon import _lock_database, _parser, run
    db = tmp_path / "landsend.db"
    held = _lock_database(db)  # as a first daemon holds it (flock is per open file, so this blocks run's)
    assert held is not None
    made = db.read_bytes()     # the lock is on the database file itself: the first daemon made it whole
    try:
        (tmp_path / "c.toml").write_text("")
        args = _parser().parse_args(["--sim", "--config", str(tmp_path / "c.toml"), "--db", str(db)])
        err = io.StringIO()
        assert run(args, stderr=err) == 1
        assert err.getvalue() == f"landsend serve: another landsend daemon is already using {db}\n"
        assert db.read_bytes() == made and not db.with_name("landsend.db-wal").exists()   # not touched
    finally:
        held.close()
    again = _lock_database(db)
    assert again is not None
    again.close()


def test_a_damaged_database_is_one_clear_line_not_a_traceback(tmp_path):
    db = tmp_path / "landsend.db"
    db.write_bytes(b"this is not an SQLite database, it is a shopping list" * 100)
    (tmp_path / "c.toml").write_text("")
    out = subprocess.run(serve_command() + ["--sim", "--config", str(tmp_path / "c.toml"), "--db", str(db),
                                            "--port", str(free_port())],
                         capture_output=True, text=True, cwd=ROOT, timeout=30, stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("landsend serve: ") and str(db) in last, out.stderr
    assert "Traceback" not in out.stderr


def test_p2_in_a_two_hand_game_flashes_the_middle_lane_on_the_strip_and_changes_nothing(caplog):
    from firmware.drivers.sim import SimStrip
    from firmware.geometry import Geometry
    frames = []
    strip = SimStrip(Geometry.from_config(DEFAULTS.board), on_show=frames.append)
    d = build(DEFAULTS, sim=True, table=Table.memory(), strip=strip, web=False)
    try:
        before = d.table.snapshot()
        deadline = time.monotonic() + 10
        while not frames and time.monotonic() < deadline:
            time.sleep(0.01)
        settled = frames[-1]
        with caplog.at_level("WARNING", logger="firmware.buttons"):
            assert d.buttons.press("p2") is None
        assert "button p2 (lane 2): no side plays on this lane" in caplog.text
        # the render thread blinks lane 2 red, then draws the board as it was (bounded waits, not timing)
        while not any(set(f.lane(2)) == {f.lane(2)[0]} and f.lane(2)[0][0] > 0 == f.lane(2)[0][1] for f in frames):
            assert time.monotonic() < deadline, "lane 2 never flashed"
            time.sleep(0.01)
        while frames[-1] != settled or d.loop._refused is not None:
            assert time.monotonic() < deadline, "the board did not settle after the flash"
            time.sleep(0.01)
        assert d.table.snapshot() == before                    # nothing pegged, nothing stored
    finally:
        d.close()


def test_a_short_menu_press_clears_the_join_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    try:
        hub = d.app.extensions["landsend"]
        for _ in range(5):
            hub.limiter.failed("10.0.0.9")
        assert hub.limiter.retry_after("10.0.0.9") > 0
        d.buttons.press("menu")
        assert hub.limiter.retry_after("10.0.0.9") == 0
    finally:
        d.close()


def test_the_start_up_log_names_the_addresses_phones_open():
    from firmware.daemon import phone_urls
    addresses = lambda: ["127.0.0.1", "192.168.1.23", "10.42.0.1"]     # noqa: E731 - loopback, home Wi-Fi, hotspot
    assert phone_urls("0.0.0.0", 8000, addresses) == [
        "http://landsend.local:8000/", "http://192.168.1.23:8000/", "http://10.42.0.1:8000/"]
    assert phone_urls("0.0.0.0", 80, addresses) == [
        "http://landsend.local/", "http://192.168.1.23/", "http://10.42.0.1/"]
    assert phone_urls("192.168.1.23", 8000, addresses) == ["http://192.168.1.23:8000/"]


def test_serve_hides_what_start_up_made_from_the_collector_until_it_stops(tmp_path, monkeypatch):
    """Issue 38: a full pass of the collector walked every object start-up made (tens of thousands: 3 ms here,
    a tenth of a second on a Zero 2 W) in whichever press met it. ``serve`` freezes them (``gc.freeze``)
    before READY=1 and gives them back on the way out."""
    import gc
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    gc.unfreeze()
    d = build(DEFAULTS, sim=True, table=Table.memory())
    seen = []

    def look():
        seen.append((gc.get_freeze_count(), len(gc.get_objects(generation=2))))
        return True
    try:
        assert serve(d, host="127.0.0.1", port=0, notifier=RecordingNotifier(), stop=ScriptedStop([look])) == 0
        frozen, left = seen[0]
        assert frozen > 10_000                  # the modules, the app, the board, the table: all of start-up
        assert left < frozen / 10               # what a full pass still walks
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


def test_serve_logs_where_the_phones_go(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    with caplog.at_level("INFO", logger="firmware.daemon"):
        assert serve(d, host="0.0.0.0", port=0, notifier=RecordingNotifier(), stop=ScriptedStop([lambda: True])) == 0
    line = next(m for m in caplog.messages if m.startswith("phones open "))
    assert line.startswith("phones open http://landsend.local:")
    assert "127.0.0.1" not in line


def test_serve_starts_a_job_worker_ahead_once_the_page_answers_and_stops_it_on_the_way_out(tmp_path, monkeypatch):
    """``serve(prestart=...)`` (the daemon: 5 s after the page answers) starts the first job worker, idle, so the
    first advice finds it started (and warm, web/jobworker.py); closing the page stops it."""
    import os
    monkeypatch.setenv("LANDSEND_STATE_DIR", str(tmp_path))
    d = build(DEFAULTS, sim=True, table=Table.memory())
    stop = threading.Event()
    seen = []

    def watch():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not seen:
            jobs = d.app.extensions.get("landsend.jobs")
            if jobs is not None and jobs.workers():
                seen.extend(jobs.workers())
            time.sleep(0.02)
        stop.set()
    threading.Thread(target=watch, daemon=True).start()
    assert serve(d, host="127.0.0.1", port=0, notifier=RecordingNotifier(), stop=stop, prestart=0.0) == 0
    assert len(seen) == 1
    with pytest.raises(ProcessLookupError):
        os.kill(seen[0], 0)                     # killed and reaped with the page
