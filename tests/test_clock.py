"""The board's clock from the phones: a joined phone whose clock is ahead sets it, within limits; the host may
correct it; visitors never touch it (firmware.clock, web.clock)."""

import datetime as dt

import pytest

from companion.table import Table
from firmware.clock import MAX_AHEAD, MIN_AHEAD, BoardClock
from web import create_app

ORIGIN = "http://localhost"
BOOTED = dt.datetime(2026, 4, 27, 8, 0, tzinfo=dt.timezone.utc).timestamp()     # systemd's build date
REAL = dt.datetime(2026, 11, 28, 21, 5, tzinfo=dt.timezone.utc).timestamp()


class Clock:
    """A board whose clock can be set: ``now`` moves only when the board's clock is set."""

    def __init__(self, at: float, *, fails: bool = False) -> None:
        self.at, self.fails, self.sets = at, fails, []

    def now(self) -> float:
        return self.at

    def settime(self, t: float) -> None:
        if self.fails:
            raise OSError("Failed to set time: Access denied")
        self.sets.append(t)
        self.at = t


def test_a_phone_ahead_sets_the_board_and_one_behind_or_close_does_not():
    c = Clock(BOOTED)
    board = BoardClock(now=c.now, settime=c.settime, synced=lambda: False)
    got = board.offer(int(REAL * 1000), by="Ann's phone")
    assert got["set"] is True and got["board"] == "2026-11-28T21:05:00+00:00" and c.sets == [REAL]
    assert board.last == {"from": "2026-04-27T08:00:00+00:00", "to": "2026-11-28T21:05:00+00:00", "by": "Ann's phone"}
    # a phone a minute ahead (drift) or behind changes nothing
    for phone in (REAL + MIN_AHEAD - 1, REAL - 3600):
        got = board.offer(int(phone * 1000))
        assert got["set"] is False and got["reason"] == "the board's clock is not behind this phone's"
    assert c.sets == [REAL]


def test_a_phone_years_ahead_of_what_the_board_knew_is_taken_for_a_wrong_phone_but_the_host_may_force_it():
    c = Clock(BOOTED)
    newest_event = REAL - 86400
    board = BoardClock(now=c.now, settime=c.settime, known=lambda: newest_event, synced=lambda: False)
    wrong = newest_event + MAX_AHEAD + 60
    got = board.offer(int(wrong * 1000))
    assert got["set"] is False and "more than a year ahead" in got["reason"] and c.sets == []
    assert board.offer(int(wrong * 1000), force=True)["set"] is True and c.sets == [wrong]
    # the host may also set it back (a phone set it wrong)
    assert board.offer(int(REAL * 1000), force=True)["set"] is True and c.at == REAL


def test_network_time_is_kept_and_a_refusal_of_the_system_is_said():
    c = Clock(BOOTED)
    synced = BoardClock(now=c.now, settime=c.settime, synced=lambda: True)
    assert synced.offer(int(REAL * 1000))["reason"] == "the board has its time from the network"
    denied = BoardClock(now=c.now, settime=Clock(BOOTED, fails=True).settime, synced=lambda: False)
    got = denied.offer(int(REAL * 1000))
    assert got["set"] is False and got["reason"] == "the board could not set its clock: Failed to set time: Access denied"
    with pytest.raises(ValueError, match="a phone's time must lie between 2026-01-01 and 2100-01-01"):
        synced.offer(0)


@pytest.fixture
def world(tmp_path):
    table = Table.memory()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    c = Clock(BOOTED)
    app.extensions["landsend.clock"] = BoardClock(now=c.now, settime=c.settime, synced=lambda: False)

    def phone(addr):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = addr
        csrf = client.get("/api/session").get_json()["csrf"]
        return client, {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    host, hh = phone("10.0.0.2")
    assert host.post("/api/claim", json={}, headers=hh).status_code == 200
    yield app, c, phone, (host, hh)
    table.close()


def test_a_joined_phone_sets_the_board_and_a_visitor_never_does(world):
    app, c, phone, (host, hh) = world
    visitor, vh = phone("10.0.0.9")
    r = visitor.post("/api/clock", json={"now": int(REAL * 1000)}, headers=vh)
    assert r.status_code == 403 and c.sets == []
    assert visitor.get("/api/clock").status_code == 403
    code = host.get("/api/session").get_json()["join_code"]
    player, ph = phone("10.0.0.7")
    assert player.post("/api/join", json={"code": code}, headers=ph).status_code == 200
    r = player.post("/api/clock", json={"now": int(REAL * 1000)}, headers=ph)
    assert r.status_code == 200 and r.get_json()["set"] is True and c.sets == [REAL]
    assert r.get_json()["last"]["by"] == "phone 2"
    assert player.post("/api/clock", json={"now": int(REAL * 1000), "force": True}, headers=ph).status_code == 403
    r = host.post("/api/clock", json={"now": int((REAL - 7200) * 1000), "force": True}, headers=hh)
    assert r.get_json()["set"] is True and c.at == REAL - 7200
    for bad, says in [({"now": "soon"}, "now is this phone's time"), ({"now": 1.5}, "now is this phone's time"),
                      ({"now": True}, "now is this phone's time"), ({"now": 5, "force": "yes"}, "force is true or false"),
                      ({"now": 5}, "a phone's time must lie between")]:
        r = host.post("/api/clock", json=bad, headers=hh)
        assert r.status_code == 400 and r.get_json()["error"].startswith(says), r.get_json()
    assert c.at == REAL - 7200


def test_without_a_clock_to_set_the_routes_say_so(tmp_path):
    table = Table.memory()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    client = app.test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    assert client.post("/api/claim", json={}, headers=headers).status_code == 200
    assert client.post("/api/clock", json={"now": int(REAL * 1000)}, headers=headers).status_code == 404
    table.close()


def test_the_daemon_gives_the_board_a_clock_off_the_simulator_only(monkeypatch, tmp_path):
    from firmware.clock import make_clock
    monkeypatch.delenv("LANDSEND_CLOCK_FILE", raising=False)
    assert make_clock(sim=True) is None
    assert isinstance(make_clock(sim=False), BoardClock)
    # a stand-in clock for trying the page off a Pi: an offset kept in a file
    monkeypatch.setenv("LANDSEND_CLOCK_FILE", str(tmp_path / "offset"))
    stand_in = make_clock(sim=True)
    ahead = stand_in.now() + 3 * 86400
    assert stand_in.offer(int(ahead * 1000))["set"] is True
    assert abs(stand_in.now() - ahead) < 5


def test_timedatectl_switches_network_time_off_for_the_moment_of_a_set_when_it_refuses():
    import subprocess
    from firmware.clock import timedatectl
    calls, ntp = [], {"on": True}

    took = {"now": 0.0}        # each call takes 3 s (qemu's Pi 3 took that long): the set follows the phone

    def run(argv, **kw):
        calls.append(argv[1:])
        took["now"] += 3.0
        if argv[1:3] == ["set-ntp", "false"]:
            ntp["on"] = False
        elif argv[1:3] == ["set-ntp", "true"]:
            ntp["on"] = True
        elif argv[1] == "set-time" and ntp["on"]:
            return subprocess.CompletedProcess(argv, 1, "", "Failed to set time: Automatic time synchronization is enabled\n")
        return subprocess.CompletedProcess(argv, 0, "", "")
    timedatectl(REAL, run=run, clock=lambda: took["now"])
    assert calls == [["set-time", f"@{int(REAL)}"], ["set-ntp", "false"], ["set-time", f"@{int(REAL) + 6}"],
                     ["set-ntp", "true"]] and ntp["on"]

    calls.clear()
    busy = {"left": 2}

    def just_set(argv, **kw):          # timedated still switching network time on after the last set
        calls.append(argv[1:])
        if argv[1] == "set-time" and busy["left"]:
            busy["left"] -= 1
            return subprocess.CompletedProcess(argv, 1, "", "Failed to set time: Previous request is not finished, "
                                                            "refusing.\n")
        return subprocess.CompletedProcess(argv, 0, "", "")
    waits = []
    timedatectl(REAL, run=just_set, clock=lambda: sum(waits), sleep=waits.append)
    assert calls == [["set-time", f"@{int(REAL)}"], ["set-time", f"@{int(REAL) + 2}"],
                     ["set-time", f"@{int(REAL) + 4}"]] and waits == [2.0, 2.0]
    busy["left"] = 99
    with pytest.raises(OSError, match="Previous request is not finished"):
        timedatectl(REAL, run=just_set, sleep=waits.append)

    # found on qemu's Pi 3 at load 9: timedated's switch of network time outlived D-Bus's 25 s call timeout
    calls.clear()
    slow = {"left": 1}

    def slow_switch(argv, **kw):
        calls.append(argv[1:])
        if argv[1] == "set-time" and ntp["on"]:
            return subprocess.CompletedProcess(argv, 1, "", "Failed to set time: Automatic time synchronization is enabled\n")
        if argv[1:3] == ["set-ntp", "false"]:
            ntp["on"] = False
            if slow["left"]:
                slow["left"] -= 1
                return subprocess.CompletedProcess(argv, 1, "", "Failed to set ntp: Connection timed out\n")
        if argv[1:3] == ["set-ntp", "true"]:
            ntp["on"] = True
        return subprocess.CompletedProcess(argv, 0, "", "")
    waits.clear()
    timedatectl(REAL, run=slow_switch, clock=lambda: sum(waits), sleep=waits.append)
    assert calls == [["set-time", f"@{int(REAL)}"], ["set-ntp", "false"], ["set-ntp", "false"],
                     ["set-time", f"@{int(REAL) + 2}"], ["set-ntp", "true"]] and ntp["on"] and waits == [2.0]

    def refuse(argv, **kw):
        return subprocess.CompletedProcess(argv, 1, "", "Failed to set time: Access denied\n")
    with pytest.raises(OSError, match="Access denied"):
        timedatectl(REAL, run=refuse)


# --- a phone's session across the board's clock jumps (found on qemu's raspi3b: no phone could join) ---------
def board_clock_at(monkeypatch, when: float) -> None:
    """The board's clock as Flask's session signing and cookie dates read it."""
    from itsdangerous.timed import TimestampSigner

    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: int(when))
    monkeypatch.setattr("web.security.SecureCookieSessionInterface.get_expiration_time",
                        lambda self, app, session: dt.datetime.fromtimestamp(when, dt.timezone.utc)
                        + app.permanent_session_lifetime)


@pytest.fixture
def page(tmp_path):
    t = Table.memory()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=t)
    yield app
    t.close()


def test_the_session_cookie_lives_by_the_phone_clock_so_a_board_months_behind_can_be_joined(page, monkeypatch):
    import http.cookiejar
    import urllib.request

    board_clock_at(monkeypatch, BOOTED)
    r = page.test_client().get("/api/session", headers={"Host": "localhost"})
    cookie = r.headers["Set-Cookie"]
    assert "Max-Age=2592000" in cookie and "Expires=Wed, 27 May 2026" in cookie   # the board's own date, stale
    # a phone whose clock is right (today) keeps it: Max-Age wins over the board's Expires, as in browsers

    class Answer:
        def info(self):
            import email.message
            m = email.message.Message()
            m["Set-Cookie"] = cookie
            return m
    jar = http.cookiejar.CookieJar()
    jar.extract_cookies(Answer(), urllib.request.Request("http://localhost/api/session"))
    assert [c.name for c in jar] == ["landsend"] and not list(jar)[0].is_expired()


def test_a_host_stays_the_host_when_the_board_clock_jumps_months_ahead_or_a_day_back(page, monkeypatch):
    from web.guard import joined_cookie

    board_clock_at(monkeypatch, BOOTED)
    phone = page.test_client()
    csrf = phone.get("/api/session", headers={"Host": "localhost"}).get_json()["csrf"]
    r = phone.post("/api/claim", json={}, headers={"Host": "localhost", "Origin": ORIGIN, "X-CSRF-Token": csrf})
    assert r.status_code == 200
    header = f"landsend={phone.get_cookie('landsend', domain='localhost').value}"
    for when in (REAL, REAL - 86400, BOOTED - 86400):       # the phone set it; the host set it back; a wrong set
        board_clock_at(monkeypatch, when)
        page.session_interface._seen.clear()                # not the remembered answer of a minute ago
        assert phone.get("/api/session", headers={"Host": "localhost"}).get_json()["role"] == "host"
        assert joined_cookie(page)(header) is True
    # a cookie that was not signed by this board is still refused
    assert joined_cookie(page)(header[:-2] + "xx") is False
