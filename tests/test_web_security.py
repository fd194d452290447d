"""Who may change the score: host, join code, read-only visitors, release, and the request guards."""

from __future__ import annotations

import pytest

from companion.table import Table
from web import create_app
from companion.store import SQLiteStore
from web.security import Access, JoinLimiter, TrustedHosts, load_secret_key, local_addresses, same_origin

ORIGIN = "http://localhost"


class FakeClock:
    """A monotonic clock the test advances by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Phone:
    def __init__(self, app, addr: str) -> None:
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = addr
        self.session = self.client.get("/api/session").get_json()
        self.csrf = self.session["csrf"]

    def post(self, path, body=None, **headers):
        h = {"X-CSRF-Token": self.csrf, "Origin": ORIGIN}
        h.update(headers)
        return self.client.post(path, json={} if body is None else body, headers=h)

    def info(self) -> dict:
        return self.client.get("/api/session").get_json()

    def peg(self, points: int = 1):
        return self.post("/api/command", {"type": "peg", "side": "p1", "points": points})


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def app(tmp_path, clock):
    t = Table.memory()
    a = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                    "CLOCK": clock}, table=t)
    yield a
    t.close()


def score(app) -> int:
    return app.extensions["landsend"].table.snapshot()["sides"][0]["score"]


# --- host, join, visitors ----------------------------------------------------------------

def test_first_phone_becomes_host_and_gets_a_six_digit_code(app):
    a = Phone(app, "10.0.0.2")
    assert a.session["role"] == "visitor" and a.session["claimable"] is True
    r = a.post("/api/claim")
    assert r.status_code == 200
    info = r.get_json()
    assert info["role"] == "host" and info["claimable"] is False
    assert len(info["join_code"]) == 6 and info["join_code"].isdigit()
    assert a.peg(2).status_code == 200
    assert score(app) == 2


def test_second_claim_is_refused(app):
    Phone(app, "10.0.0.2").post("/api/claim")
    b = Phone(app, "10.0.0.3")
    r = b.post("/api/claim")
    assert r.status_code == 409
    assert "already has a host" in r.get_json()["error"]
    assert b.info()["role"] == "visitor"


def test_join_with_the_code_makes_a_player_who_may_change_the_table(app):
    code = Phone(app, "10.0.0.2").post("/api/claim").get_json()["join_code"]
    b = Phone(app, "10.0.0.3")
    assert b.peg().status_code == 403
    r = b.post("/api/join", {"code": code})
    assert r.status_code == 200
    assert r.get_json()["role"] == "player"
    assert r.get_json()["join_code"] == code
    assert b.peg(3).status_code == 200
    assert score(app) == 3


def test_visitors_never_see_the_join_code(app):
    Phone(app, "10.0.0.2").post("/api/claim")
    v = Phone(app, "10.0.0.3")
    assert "join_code" not in v.info()
    assert "join_code" not in v.session


def test_join_before_anyone_hosts_is_refused(app):
    r = Phone(app, "10.0.0.3").post("/api/join", {"code": "123456"})
    assert r.status_code == 409
    assert r.get_json()["error"] == "nobody hosts this table yet: take it as host instead"


@pytest.mark.parametrize("body", [{"code": "12345"}, {"code": "abcdef"}, {"code": 123456}, {}])
def test_malformed_join_code_is_400(app, body):
    Phone(app, "10.0.0.2").post("/api/claim")
    r = Phone(app, "10.0.0.3").post("/api/join", body)
    assert r.status_code == 400
    assert r.get_json() == {"error": "the join code is 6 digits"}


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def test_wrong_codes_are_limited_per_address_then_allowed_after_the_window(app, clock):
    code = Phone(app, "10.0.0.2").post("/api/claim").get_json()["join_code"]
    m = Phone(app, "10.0.0.66")
    for _ in range(5):
        r = m.post("/api/join", {"code": wrong(code)})
        assert r.status_code == 403
        assert r.get_json() == {"error": "wrong join code"}
    r = m.post("/api/join", {"code": code})        # even the right code waits now
    assert r.status_code == 429
    assert r.headers["Retry-After"] == "600"
    assert r.get_json() == {"error": "too many wrong codes: try again in 600 s"}
    clock.now += 599
    assert m.post("/api/join", {"code": code}).status_code == 429
    # another address is not blocked by this one's failures
    assert Phone(app, "10.0.0.67").post("/api/join", {"code": code}).status_code == 200
    clock.now += 1
    assert m.post("/api/join", {"code": code}).status_code == 200


def test_wrong_codes_from_many_addresses_never_lock_the_right_code_out_for_a_new_phone(app, clock):
    """Issue 11: 30 strangers' wrong codes locked every player out for 10 minutes."""
    code = Phone(app, "10.0.0.2").post("/api/claim").get_json()["join_code"]
    for i in range(30):
        assert Phone(app, f"10.1.0.{i}").post("/api/join", {"code": wrong(code)}).status_code == 403
    # past the overall limit a stranger who already failed waits (one guess per address)...
    r = Phone(app, "10.1.0.0").post("/api/join", {"code": wrong(code)})
    assert (r.status_code, r.headers["Retry-After"]) == (429, "600")
    # ...but a phone that has not failed joins with the right code at once
    assert Phone(app, "10.2.0.1").post("/api/join", {"code": code}).status_code == 200
    clock.now += 600
    assert Phone(app, "10.1.0.0").post("/api/join", {"code": code}).status_code == 200


def test_the_boards_menu_button_clears_the_join_lock(app, clock):
    code = Phone(app, "10.0.0.2").post("/api/claim").get_json()["join_code"]
    typo = Phone(app, "10.0.0.3")
    for _ in range(5):
        assert typo.post("/api/join", {"code": wrong(code)}).status_code == 403
    assert typo.post("/api/join", {"code": code}).status_code == 429
    assert app.extensions["landsend"].clear_join_lock() == 5          # what a menu press calls
    assert typo.post("/api/join", {"code": code}).status_code == 200
    assert app.extensions["landsend"].clear_join_lock() == 0


def test_release_makes_every_phone_read_only_and_lets_a_new_host_claim(app):
    host = Phone(app, "10.0.0.2")
    code = host.post("/api/claim").get_json()["join_code"]
    player = Phone(app, "10.0.0.3")
    player.post("/api/join", {"code": code})
    hub = app.extensions["landsend"]
    assert hub.release() == 2
    assert host.info()["role"] == "visitor" and player.info()["role"] == "visitor"
    assert host.peg().status_code == 403 and player.peg().status_code == 403
    assert hub.broadcaster.latest("access") == {"epoch": 2, "claimed": False}
    # the old code no longer works; the player becomes the new host with a new code
    assert player.post("/api/join", {"code": code}).status_code == 409
    info = player.post("/api/claim").get_json()
    assert info["role"] == "host"
    assert player.peg(2).status_code == 200
    assert host.peg().status_code == 403
    assert score(app) == 2


def reopened(path) -> Access:
    """Return the access state a restarted daemon finds in the table database ``path``."""
    store = SQLiteStore(path)
    try:
        return Access(store)
    finally:
        store.close()


def test_access_survives_a_restart_but_release_does_too(tmp_path):
    store = SQLiteStore(tmp_path / "t.db")
    a = Access(store)
    assert a.claim("dev1") and a.join_code
    b = reopened(tmp_path / "t.db")
    assert (b.epoch, b.host, b.join_code) == (1, "dev1", a.join_code)
    a.release()
    c = reopened(tmp_path / "t.db")
    assert (c.epoch, c.host, c.join_code) == (2, None, None)
    store.close()


def test_the_phones_holding_the_table_survive_a_restart_and_a_join_tells_every_page(tmp_path):
    store = SQLiteStore(tmp_path / "t.db")
    a = Access(store)
    heard = []
    a.on_change(heard.append)
    a.claim("dev1")
    a.joined("dev2")
    a.joined("dev2")                              # the same phone joining again is not a third
    assert a.phones == 2 and heard == [1, 1]      # the claim, then the first join: pages re-read their session
    assert reopened(tmp_path / "t.db").phones == 2
    a.release()
    assert reopened(tmp_path / "t.db").phones == 0
    store.close()


# --- the request guards -------------------------------------------------------------------

@pytest.fixture
def host(app):
    p = Phone(app, "10.0.0.2")
    p.post("/api/claim")
    return p


def test_change_from_another_origin_is_refused(app, host):
    r = host.post("/api/command", {"type": "peg", "side": "p1", "points": 1}, Origin="http://evil.example")
    assert r.status_code == 403
    assert r.get_json()["error"] == "cross-origin request refused (Origin must be this page's own address)"
    r = host.post("/api/command", {"type": "peg", "side": "p1", "points": 1}, Origin="https://localhost")
    assert r.status_code == 403
    assert score(app) == 0


def test_change_without_origin_or_referer_is_refused_but_a_same_origin_referer_will_do(app, host):
    c = host.client
    r = c.post("/api/command", json={"type": "peg", "side": "p1", "points": 1}, headers={"X-CSRF-Token": host.csrf})
    assert r.status_code == 403
    r = c.post("/api/command", json={"type": "peg", "side": "p1", "points": 1},
               headers={"X-CSRF-Token": host.csrf, "Referer": "http://localhost/"})
    assert r.status_code == 200
    assert score(app) == 1


@pytest.mark.parametrize("token", [None, "", "forged-token"])
def test_change_without_the_sessions_csrf_token_is_refused(app, host, token):
    headers = {"Origin": ORIGIN}
    if token is not None:
        headers["X-CSRF-Token"] = token
    r = host.client.post("/api/command", json={"type": "peg", "side": "p1", "points": 1}, headers=headers)
    assert r.status_code == 403
    assert r.get_json() == {"error": "missing or stale CSRF token: reload the page"}
    assert score(app) == 0


def test_another_phones_token_does_not_work(app, host):
    other = Phone(app, "10.0.0.5")
    r = host.client.post("/api/command", json={"type": "peg", "side": "p1", "points": 1},
                         headers={"Origin": ORIGIN, "X-CSRF-Token": other.csrf})
    assert r.status_code == 403


def test_untrusted_host_header_is_refused(app):
    r = app.test_client().get("/api/table", headers={"Host": "evil.example"})
    assert r.status_code == 400
    assert r.get_json() == {"error": "Host 'evil.example' is not trusted."}
    r = app.test_client().get("/", headers={"Host": "evil.example"})
    assert r.status_code == 400


def test_trusted_hosts_default_lists_this_machine(tmp_path):
    t = Table.memory()
    a = create_app({"TESTING": True, "STATE_DIR": str(tmp_path)}, table=t)
    hosts = list(a.config["TRUSTED_HOSTS"])
    assert {"landsend.local", "localhost", "127.0.0.1"} <= set(hosts)
    assert a.test_client().get("/api/table", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert a.test_client().get("/api/table", headers={"Host": "landsend.local"}).status_code == 200
    assert a.test_client().get("/api/table", headers={"Host": "attacker.example"}).status_code == 400


def test_a_new_address_is_trusted_without_a_restart(tmp_path):
    current = ["127.0.0.1", "192.168.4.1"]
    asked = []
    clock = FakeClock()

    def addresses():
        asked.append(clock.now)
        return list(current)
    t = Table.memory()
    a = create_app({"TESTING": True, "STATE_DIR": str(tmp_path),
                    "TRUSTED_HOSTS": TrustedHosts(["landsend.local"], addresses=addresses, clock=clock)}, table=t)
    c = a.test_client()
    assert c.get("/api/table", headers={"Host": "192.168.4.1"}).status_code == 200
    assert c.get("/api/table", headers={"Host": "10.0.0.7"}).status_code == 400
    current.append("10.0.0.7")                       # the DHCP lease changed: trusted at once
    assert c.get("/api/table", headers={"Host": "10.0.0.7"}).status_code == 200
    current.remove("192.168.4.1")
    clock.now += 1.0                                 # an address lost is refused within max_age (1 s)
    assert c.get("/api/table", headers={"Host": "192.168.4.1"}).status_code == 400


def test_a_known_host_does_not_ask_the_interfaces_again(tmp_path):
    """Asking the interfaces is a dozen system calls: the phones' requests reuse the last answer for 1 s."""
    asked = []
    clock = FakeClock()
    hosts = TrustedHosts(["landsend.local"], addresses=lambda: asked.append(clock.now) or ["127.0.0.1"], clock=clock)
    c = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": hosts},
                   table=Table.memory()).test_client()
    for _ in range(5):
        assert c.get("/api/table", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/table", headers={"Host": "landsend.local"}).status_code == 200
    assert len(asked) == 1
    clock.now += 1.0
    assert c.get("/api/table", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert len(asked) == 2


def test_local_addresses_include_loopback_and_every_interface():
    addrs = local_addresses()
    assert "127.0.0.1" in addrs
    assert all(a.count(".") == 3 for a in addrs)


def test_session_cookie_is_httponly_and_samesite_strict(app):
    r = app.test_client().get("/api/session")
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("landsend=")
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie


def test_only_a_claim_a_join_or_a_new_session_sets_the_cookie(app):
    """A phone's requests overlap (board poll, live stream, a join): a response that re-sent the cookie
    the request carried would put back the cookie from before a join that finished in between, and the
    phone would silently drop back to read-only. So only changes to the session set it."""
    host = Phone(app, "10.0.0.2")
    assert host.post("/api/claim").headers.get("Set-Cookie", "").startswith("landsend=")
    code = host.info()["join_code"]
    player = Phone(app, "10.0.0.3")
    assert player.post("/api/join", {"code": code}).headers.get("Set-Cookie", "").startswith("landsend=")
    for path in ("/api/table", "/api/session", "/api/history", "/", "/static/app.css", "/manifest.webmanifest"):
        r = player.client.get(path)
        assert r.status_code == 200, path
        assert "Set-Cookie" not in r.headers, path
    r = player.post("/api/command", {"type": "peg", "side": "p1", "points": 2})
    assert r.status_code == 200 and "Set-Cookie" not in r.headers
    assert player.info()["role"] == "player"


def test_secret_key_is_random_kept_in_the_database_and_private(tmp_path):
    store = SQLiteStore(tmp_path / "t.db")
    k1 = load_secret_key(store)
    k2 = load_secret_key(store)
    assert k1 == k2 and len(k1) == 32
    store.close()
    store = SQLiteStore(tmp_path / "t.db")
    assert load_secret_key(store) == k1                                # kept across a restart
    assert (tmp_path / "t.db").stat().st_mode & 0o777 == 0o600
    other = SQLiteStore(tmp_path / "other.db")                       # the same folder, another table
    assert load_secret_key(other) != k1
    store.put_meta("web.secret_key", "abcd")                         # too short: replaced
    k3 = load_secret_key(store)
    assert len(k3) == 32 and k3 != k1 and load_secret_key(store) == k3
    other.close()
    store.close()


def test_same_origin():
    assert same_origin("http://landsend.local", "landsend.local", "http")
    assert same_origin("http://192.168.1.5:8000/page", "192.168.1.5:8000", "http")
    assert not same_origin("http://192.168.1.5:8001", "192.168.1.5:8000", "http")
    assert not same_origin("null", "landsend.local", "http")
    assert not same_origin("http://landsend.local.evil.example", "landsend.local", "http")


def test_join_limiter_counts_only_inside_the_window(clock):
    lim = JoinLimiter(per_client=2, overall=3, window=10, clock=clock)
    lim.failed("a")
    clock.now += 5
    lim.failed("a")
    assert lim.retry_after("a") == 5
    assert lim.retry_after("b") == 0
    clock.now += 5
    assert lim.retry_after("a") == 0
    lim.failed("b")                       # a@1005 and b@1010 in the window
    assert lim.retry_after("d") == 0
    lim.failed("c")                       # three in the window: who failed waits until a@1005 expires...
    assert lim.retry_after("b") == 5 and lim.retry_after("c") == 5
    assert lim.retry_after("e") == 0      # ...who never failed does not
    assert lim.clear() == 3 and lim.retry_after("b") == 0


def test_a_session_cookie_is_checked_once_a_minute_and_a_forged_one_never_passes(app, host):
    """The phones' cookie is verified once and remembered for a minute (RememberedSessions); a cookie whose
    signature is wrong is never remembered, so it opens an empty session every time."""
    sessions = app.session_interface
    clock = FakeClock()
    sessions.clock = clock
    checks = []
    real = type(sessions).verify

    def counting(self, a, value):
        checks.append(value)
        return real(self, a, value)
    type(sessions).verify = counting
    try:
        for _ in range(3):
            assert host.info()["role"] == "host"
        assert len(checks) == 1
        clock.now += sessions.remember
        assert host.info()["role"] == "host"
        assert len(checks) == 2
        cookie = host.client.get_cookie("landsend")
        forged = cookie.value[:-2] + ("AA" if not cookie.value.endswith("AA") else "BB")
        host.client.set_cookie("landsend", forged)
        for _ in range(2):
            assert host.info()["role"] == "visitor"
        assert len(checks) == 4
    finally:
        type(sessions).verify = real


def test_the_host_check_tries_the_entry_it_last_matched_first_and_its_verdicts_are_unchanged():
    """Issue 38: Werkzeug encodes every entry it compares (IDNA); a phone sends the same Host every time, so the
    entry that matched last comes first. It is one of the trusted entries, so no verdict changes."""
    from werkzeug.sansio.utils import host_is_trusted
    clock = FakeClock()
    current = ["127.0.0.1", "192.168.4.1"]
    hosts = TrustedHosts(["landsend", "landsend.local"], addresses=lambda: list(current), clock=clock)
    assert list(hosts)[:2] == ["landsend", "landsend.local"]
    assert host_is_trusted("192.168.4.1:8000", hosts)
    assert list(hosts)[0] == "192.168.4.1"
    assert host_is_trusted("landsend.local", hosts)
    assert list(hosts)[0] == "landsend.local"
    assert host_is_trusted("192.168.4.1", hosts)
    assert list(hosts)[0] == "192.168.4.1"
    current.remove("192.168.4.1")
    clock.now += 1.0                                 # an address lost: not first any more, and refused
    assert list(hosts)[0] == "landsend"
    assert not host_is_trusted("192.168.4.1", hosts)
    assert not host_is_trusted("attacker.example", hosts)
    assert host_is_trusted("127.0.0.1", hosts)
    assert list(hosts)[0] == "127.0.0.1"


def test_a_phones_cookie_header_is_parsed_once_and_a_changed_or_long_one_anew(app, host, monkeypatch):
    from web.security import HEADER_MEMO, HEADER_MEMO_CHARS
    sessions = app.session_interface
    assert host.info()["role"] == "host"
    kept = dict(sessions._headers)                   # the cookie before the claim, and after it
    for _ in range(3):
        assert host.info()["role"] == "host"
    assert sessions._headers == kept                 # the same header: its cookie was not looked for again
    host.client.set_cookie("theme", "dark")          # another cookie in the header: parsed anew, the same session
    assert host.info()["role"] == "host"
    assert len(sessions._headers) == len(kept) + 1
    host.client.set_cookie("theme", "x" * HEADER_MEMO_CHARS)     # too long to keep: parsed every time
    assert host.info()["role"] == "host"
    assert len(sessions._headers) == len(kept) + 1
    host.client.delete_cookie("theme")
    visitor = Phone(app, "10.0.0.9")
    for i in range(HEADER_MEMO + 5):                 # the memo stays bounded
        visitor.client.set_cookie("n", str(i))
        assert visitor.info()["role"] == "visitor"
    assert len(sessions._headers) <= HEADER_MEMO


def test_the_members_check_parses_a_header_once_per_epoch(app, host, monkeypatch):
    import web.guard as guard
    parsed = []
    real = guard.parse_cookie
    monkeypatch.setattr(guard, "parse_cookie", lambda header: parsed.append(header) or real(header))
    joined = guard.joined_cookie(app)
    header = f"landsend={host.client.get_cookie('landsend').value}"
    assert joined(header) is True
    assert joined(header) is True
    assert len(parsed) == 1
    app.hub.release()                                # a new epoch: the remembered answer is not used
    assert joined(header) is False
    assert len(parsed) == 2
    assert joined("x=" + "y" * 3000 + "; " + header) is False     # a long header: parsed, never kept
    assert joined("x=" + "y" * 3000 + "; " + header) is False
    assert len(parsed) == 4


def test_a_phones_tag_is_remembered_per_secret_key(app):
    import hashlib
    import hmac
    from web.api.commands import phone_tag
    with app.app_context():
        key = str(app.config["SECRET_KEY"])
        assert phone_tag("dev1") == hmac.new(key.encode(), b"dev1", hashlib.sha256).hexdigest()[:8]
        assert phone_tag("dev1") == phone_tag("dev1") != phone_tag("dev2")
        app.config["SECRET_KEY"] = "another board"
        assert phone_tag("dev1") == hmac.new(b"another board", b"dev1", hashlib.sha256).hexdigest()[:8]
