"""The guarded server: stream caps, per-address connection cap, header and idle timeouts.

Issue 8 item 2 (idle event streams took every waitress thread) and issue 11
(100 connections that never finished their headers took the page down). No
test here is timed: the server is asked whether it answers, and its
maintenance pass is run with an explicit clock.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from companion.table import Table
from web import create_app, create_server
from web.live import StreamSlots
from web.server import GuardedServer, stream_cap

ORIGIN = "http://localhost"


# --- the caps as data ----------------------------------------------------------------------

def test_stream_cap_keeps_a_third_of_the_threads_for_requests():
    assert [stream_cap(n) for n in (4, 6, 8, 12, 24, 48, 256)] == [2, 4, 6, 8, 16, 32, 171]


def test_stream_slots_cap_overall_and_per_client_and_release_once():
    slots = StreamSlots()
    a = [slots.acquire("10.0.0.2", overall=4, per_client=2) for _ in range(3)]
    assert a[2] is None and slots.of("10.0.0.2") == 2
    b = slots.acquire("10.0.0.3", overall=4, per_client=2)
    c = slots.acquire("10.0.0.4", overall=4, per_client=2)
    assert slots.open == 4
    assert slots.acquire("10.0.0.5", overall=4, per_client=2) is None          # all taken
    a[0]()
    a[0]()                                                                     # a second release counts for nothing
    assert (slots.open, slots.of("10.0.0.2")) == (3, 1)
    assert slots.acquire("10.0.0.5", overall=4, per_client=2) is not None
    for release in (a[1], b, c):
        release()
    assert (slots.open, slots.of("10.0.0.2"), slots.of("10.0.0.3")) == (1, 0, 0)


# --- the stream route past its caps ------------------------------------------------------------

@pytest.fixture
def table():
    t = Table.memory()
    yield t
    t.close()


def claim(client) -> None:
    """Make the test ``client`` the table's host (a joined phone)."""
    csrf = client.get("/api/session").get_json()["csrf"]
    r = client.post("/api/claim", json={}, headers={"X-CSRF-Token": csrf, "Origin": ORIGIN})
    assert r.status_code == 200, r.get_json()


def test_events_past_the_per_address_or_strangers_cap_get_503_with_retry_after_and_closing_frees_the_slot(
        tmp_path, table):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                      "SSE_MAX_STREAMS": 6, "SSE_MAX_PER_CLIENT": 4, "SSE_HEARTBEAT": 0.0}, table=table)
    hub = app.extensions["landsend"]
    mine, other, joined = app.test_client(), app.test_client(), app.test_client()
    for c, addr in ((mine, "10.0.0.2"), (other, "10.0.0.3"), (joined, "10.0.0.4")):
        c.environ_base["REMOTE_ADDR"] = addr
    claim(joined)
    # one address gets half the streams at most, though SSE_MAX_PER_CLIENT would allow 4
    open_ = [mine.get("/api/events", buffered=False) for _ in range(3)]
    assert [r.status_code for r in open_] == [200, 200, 200]
    r = mine.get("/api/events")
    assert (r.status_code, r.headers["Retry-After"]) == (503, "5")
    assert r.get_json() == {"error": "this address has too many live streams open: the page reads the table "
                                     "every few seconds and tries again"}
    # phones that have not joined, from any addresses, hold half the streams at most: the rest is the joined ones'
    r = other.get("/api/events")
    assert r.status_code == 503
    assert r.get_json()["error"].startswith("the table has too many live streams open")
    theirs = [joined.get("/api/events", buffered=False) for _ in range(4)]
    assert [r.status_code for r in theirs] == [200, 200, 200, 503]          # its own address's cap
    assert (hub.slots.open, hub.slots.strangers) == (6, 3)
    assert joined.get("/api/events").status_code == 503                    # all 6 taken
    # a stream closed before it sent anything gives its slot back (the server closes it, not the generator)
    open_[0].close()
    assert (hub.slots.open, hub.slots.strangers) == (5, 2)
    again = other.get("/api/events", buffered=False)
    assert again.status_code == 200
    first = next(iter(again.response))
    assert first == b"retry: 2000\n\n"
    for resp in (*open_[1:], *theirs, again):
        resp.close()
    assert (hub.slots.open, hub.slots.strangers) == (0, 0)
    assert app.test_client().get("/api/table").status_code == 200          # reading never needs a slot


# --- a real server with many streams open ---------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path, table):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["127.0.0.1"]}, table=table)
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield app, server, port
    hub = app.extensions["landsend"]
    hub.broadcaster.close()
    server.close()
    thread.join(timeout=10)


def connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def flood(port: int, source: str, data: bytes, n: int, held: list) -> None:
    """Open ``n`` connections from ``source``, each sending ``data``; past the per-address cap the server resets
    them as soon as they are accepted, which may surface at connect or at send."""
    for _ in range(n):
        try:
            s = connect(port, source)
        except ConnectionResetError:
            continue
        held.append(s)
        try:
            s.sendall(data)
        except OSError:
            pass


def status_of(s: socket.socket) -> str:
    """Return the status line the server answered on ``s`` ("closed" if it closed the connection)."""
    try:
        head = s.recv(4096)
    except ConnectionResetError:
        return "closed"
    return head.split(b"\r\n", 1)[0].decode() if head else "closed"


def request(port: int, method: str, path: str, *, source: str = "127.0.0.1", body: dict | None = None,
            headers: dict | None = None) -> tuple[int, dict, str]:
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read().decode()
    finally:
        conn.close()


def first_state(port: int, source: str, cookie: str) -> dict:
    """Open a live stream from ``source`` with ``cookie``, and return the snapshot of its first state event."""
    s = connect(port, source)
    try:
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n".encode())
        got = b""
        while b"event: state\n" not in got or b"\n\n" not in got.split(b"event: state\n", 1)[1]:
            chunk = s.recv(65536)
            assert chunk, "the server closed the phone's stream"
            got += chunk
    finally:
        s.close()
    assert got.startswith(b"HTTP/1.1 200 OK")
    return json.loads(got.split(b"event: state\n", 1)[1].split(b"data: ", 1)[1].split(b"\n", 1)[0])


def test_the_page_and_commands_answer_with_many_idle_streams_and_half_open_connections(served):
    app, server, port = served
    assert app.config["SSE_MAX_STREAMS"] == 6                      # 8 threads: 2 kept for pages and commands
    held = []
    try:
        # a visitor opens 40 event streams from one address and reads nothing
        flood(port, "127.0.0.2", f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode(), 40, held)
        answers = [status_of(s) for s in held]
        assert answers.count("HTTP/1.1 200 OK") == 3               # one address: half the 6 streams at most
        assert answers.count("HTTP/1.1 503 SERVICE UNAVAILABLE") == 32 - 3
        assert len(answers) - 32 == answers.count("closed")         # past 32 connections from one address
        # another visitor opens 100 connections that never finish their headers (issue 11)
        flood(port, "127.0.0.3", b"GET / HTTP/1.1\r\nHost: 127.0.0.1", 100, held)
        # the page, a phone's session and its commands still answer
        status, _, text = request(port, "GET", "/")
        assert status == 200 and "<html" in text.lower()
        status, headers, text = request(port, "GET", "/api/session")
        cookie = headers["Set-Cookie"].split(";")[0]
        csrf = json.loads(text)["csrf"]
        h = {"Cookie": cookie, "X-CSRF-Token": csrf, "Origin": f"http://127.0.0.1:{port}",
             "Content-Type": "application/json"}
        claim = request(port, "POST", "/api/claim", body={}, headers=h)
        assert claim[0] == 200, claim
        h["Cookie"] = claim[1]["Set-Cookie"].split(";")[0]         # the session now says: joined
        status, _, text = request(port, "POST", "/api/command", body={"type": "peg", "side": "p1", "points": 2},
                                  headers=h)
        assert status == 200 and json.loads(text)["event"]["points"] == 2
        # and the joined phone, from its own address, still gets a live stream with the new score (the
        # visitor's 3 streams are all that phones which have not joined may hold)
        assert first_state(port, "127.0.0.4", h["Cookie"])["sides"][0]["score"] == 2
    finally:
        for s in held:
            s.close()


def test_maintenance_closes_unfinished_requests_and_idle_connections_but_not_streams(served):
    app, server, port = served
    half = connect(port, "127.0.0.5")
    half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
    idle = connect(port, "127.0.0.6")
    stream = connect(port, "127.0.0.7")
    stream.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert status_of(stream) == "HTTP/1.1 200 OK"
    try:
        channels = {}
        for _ in range(200):                        # the loop thread registers and reads them: wait, bounded
            channels = {ch.addr[0]: ch for ch in list(server.active_channels.values())}
            if {"127.0.0.5", "127.0.0.6", "127.0.0.7"} <= set(channels) and channels["127.0.0.5"].request:
                break
            time.sleep(0.01)
        h, i, s = channels["127.0.0.5"], channels["127.0.0.6"], channels["127.0.0.7"]
        now = time.time()
        GuardedServer.maintenance(server, now)      # young: nothing closed
        assert not (h.will_close or i.will_close or s.will_close)
        GuardedServer.maintenance(server, now + server.header_timeout + 1)
        assert (h.will_close, i.will_close, s.will_close) == (True, False, False)
        GuardedServer.maintenance(server, now + server.idle_timeout + 1)
        assert (i.will_close, s.will_close) == (True, False)      # a stream being served is never cut
    finally:
        for c in (half, idle, stream):
            c.close()


def test_a_closed_stream_frees_its_slot_at_once_so_a_reloading_phone_gets_a_stream(tmp_path, table):
    """Issue 18 item 8: the slot used to stay taken until the stream's next heartbeat wrote into the closed
    socket (about 30 s), so a phone that reloaded twice got 503. Heartbeats here are a minute apart: only the
    server noticing the close can free the slot within the few seconds waited."""
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["127.0.0.1"],
                      "SSE_HEARTBEAT": 60.0, "SSE_MAX_PER_CLIENT": 1}, table=table)
    hub = app.extensions["landsend"]
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    ask = f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    try:
        for reload in range(3):                      # the page, then two reloads from the same address
            s = connect(port, "127.0.0.9")
            s.sendall(ask)
            assert status_of(s) == "HTTP/1.1 200 OK", f"reload {reload} refused"
            assert hub.slots.of("127.0.0.9") == 1
            s.close()
            waited = 0
            while hub.slots.open and waited < 300:    # at most 3 s, bounded
                time.sleep(0.01)
                waited += 1
            assert hub.slots.open == 0 and hub.broadcaster.streams == 0, "the closed stream kept its slot"
    finally:
        hub.broadcaster.close()
        server.close()
        thread.join(timeout=10)


class HalfOpenAttack:
    """Keeps ``per_addr`` half-sent requests open from each of ``addrs`` (127.0.0.0/8 only), reopening what the
    server closes every 0.05 s, in a thread that stops by itself after ``passes`` passes (or at :meth:`stop`)."""

    def __init__(self, port: int, addrs: list[str], per_addr: int, passes: int = 400) -> None:
        assert all(a.startswith("127.") for a in addrs)
        self.port, self.addrs, self.per_addr, self.passes = port, addrs, per_addr, passes
        self.socks: dict[str, list[socket.socket]] = {a: [] for a in addrs}
        self.opened = 0
        self._stop = threading.Event()
        self.top_up()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def top_up(self) -> None:
        for addr in self.addrs:
            alive = []
            for s in self.socks[addr]:
                try:
                    s.setblocking(False)
                    if s.recv(4096):
                        alive.append(s)          # an answer (a 408): closed next pass
                    else:
                        s.close()
                except BlockingIOError:
                    alive.append(s)
                except OSError:
                    s.close()
            while len(alive) < self.per_addr and not self._stop.is_set():
                try:
                    s = socket.create_connection(("127.0.0.1", self.port), timeout=5, source_address=(addr, 0))
                    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
                except OSError:
                    break
                alive.append(s)
                self.opened += 1
            self.socks[addr] = alive

    def _run(self) -> None:
        for _ in range(self.passes):
            if self._stop.wait(0.05):
                return
            self.top_up()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        for socks in self.socks.values():
            for s in socks:
                s.close()


def joined_phone(port: int, source: str) -> tuple["http.client.HTTPConnection", dict]:
    """Return a keep-alive connection from ``source`` of a phone that claimed the table, and its headers."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    conn.request("GET", "/api/session")
    resp = conn.getresponse()
    csrf = json.loads(resp.read())["csrf"]
    h = {"Cookie": resp.getheader("Set-Cookie").split(";")[0], "X-CSRF-Token": csrf,
         "Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json"}
    conn.request("POST", "/api/claim", body=b"{}", headers=h)
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    resp.read()
    h["Cookie"] = resp.getheader("Set-Cookie").split(";")[0]        # the session now says: joined
    conn.request("GET", "/api/session", headers={"Cookie": h["Cookie"]})     # as the page does after a claim
    resp = conn.getresponse()
    assert json.loads(resp.read())["role"] == "host"
    return conn, h


def test_half_open_connections_from_thirty_addresses_never_take_the_page_from_a_joined_phone(tmp_path, table):
    """Issue 18 item 4: 10 half-sent requests from each of 30 addresses (under the per-address cap) used to fill
    waitress's 256 connections, and the page stopped answering (reads timed out) for as long as they were
    reopened. Strangers now have a budget (128 here, so that 300 overflow it) and the connection that waited
    longest makes room for a new one; a joined phone's connections are never closed for them."""
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["127.0.0.1"]}, table=table)
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=8, stranger_limit=128)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    attack = None
    try:
        kept, h = joined_phone(port, "127.0.0.20")                       # joined before the attack
        attack = HalfOpenAttack(port, [f"127.0.0.{100 + i}" for i in range(30)], 10)
        for _ in range(40):                                               # a few passes of reopening (bounded)
            attack.top_up()
        strangers = [ch for ch in list(server.active_channels.values()) if not ch.member]
        assert len(strangers) <= 128
        assert attack.opened > 300                                       # the server closed some to make room
        # the phone's own keep-alive connection was not closed: it answers at once
        kept.request("POST", "/api/command", body=json.dumps({"type": "peg", "side": "p1", "points": 2}),
                     headers=h)
        resp = kept.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["event"]["points"] == 2
        # a new connection of the phone gets the page, the table and a command
        assert request(port, "GET", "/", source="127.0.0.20", headers={"Cookie": h["Cookie"]})[0] == 200
        status, _, text = request(port, "POST", "/api/command", source="127.0.0.20", headers=h,
                                  body={"type": "peg", "side": "p2", "points": 3})
        assert status == 200 and json.loads(text)["event"]["points"] == 3
        # and its live stream, from another address of the phone's, with the score
        assert first_state(port, "127.0.0.21", h["Cookie"])["sides"][1]["score"] == 3
        kept.close()
    finally:
        if attack is not None:
            attack.stop()
        app.extensions["landsend"].broadcaster.close()
        server.close()
        thread.join(timeout=10)


# --- every error body is JSON -----------------------------------------------------------------------

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"


def test_errors_outside_the_api_are_json_unless_a_browser_asks_for_a_page(tmp_path, table):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                      "PROPAGATE_EXCEPTIONS": False}, table=table)

    @app.get("/crash")
    def crash():
        raise RuntimeError("boom")

    c = app.test_client()
    for accept in ("application/json", "*/*", None):
        r = c.get("/no/such/page", headers={"Accept": accept} if accept else {})
        assert (r.status_code, r.mimetype) == (404, "application/json"), accept
        assert r.get_json()["error"].startswith("The requested URL was not found")
    r = c.get("/no/such/page", headers={"Accept": BROWSER_ACCEPT})
    assert (r.status_code, r.mimetype) == (404, "text/plain")
    assert r.get_data(as_text=True).startswith("404 Not Found: The requested URL was not found")
    # under /api/ a browser gets JSON too, and a 405 keeps its Allow header
    r = c.get("/api/no-such-route", headers={"Accept": BROWSER_ACCEPT})
    assert (r.status_code, r.mimetype) == (404, "application/json")
    r = c.get("/api/command")
    assert (r.status_code, r.mimetype) == (405, "application/json")
    assert set(r.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    assert r.get_json() == {"error": "The method is not allowed for the requested URL."}
    r = c.get("/crash", headers={"Accept": "application/json"})
    assert (r.status_code, r.mimetype) == (500, "application/json")
    assert "boom" not in r.get_data(as_text=True)


def answer(s: socket.socket) -> tuple[str, dict, bytes]:
    """Return the status line, headers and body of the answer read from ``s`` (until closed or complete)."""
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
        head, sep, body = got.partition(b"\r\n\r\n")
        if sep:
            headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:])
            if len(body) >= int(headers.get("Content-Length", -1)) >= 0:
                break
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    return lines[0], dict(line.split(": ", 1) for line in lines[1:]), body


def raw(port: int, data: bytes) -> tuple[str, dict, bytes]:
    """Send ``data`` on a new connection and return the status line, headers and body of the answer."""
    s = connect(port, "127.0.0.1")
    try:
        s.sendall(data)
        return answer(s)
    finally:
        s.close()


def test_what_the_server_refuses_before_the_app_sees_it_has_a_json_error(served):
    app, server, port = served
    host = f"Host: 127.0.0.1:{port}\r\n"
    status, headers, body = raw(port, f"GET / HTTP/1.1\r\n{host}X-Big: {'a' * 20000}\r\n\r\n".encode())
    assert (status[9:], headers["Content-Type"]) == ("431 Request Header Fields Too Large", "application/json")
    assert json.loads(body) == {"error": "request header fields too large: exceeds max_header of 16384"}
    status, headers, body = raw(port, f"GET / HTTP/1.1 and more\r\n{host}\r\n".encode())
    assert (status[9:], headers["Content-Type"]) == ("400 Bad Request", "application/json")
    assert json.loads(body)["error"].startswith("bad request: ")
    status, headers, body = raw(port, f"POST /api/command HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
                                      f"Content-Length: {300 * 1024}\r\n\r\n".encode() + b"{" * 1000)
    assert (status[9:], headers["Content-Type"]) == ("413 Request Entity Too Large", "application/json")
    assert json.loads(body) == {"error": "request entity too large: request body too large (limit 256 KB)"}


def test_a_request_that_never_finishes_arriving_gets_408_with_a_json_error(served):
    app, server, port = served
    half = connect(port, "127.0.0.5")
    try:
        half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
        channel = None
        for _ in range(200):                          # the loop thread reads it: wait, bounded
            channel = next((ch for ch in list(server.active_channels.values())
                            if ch.addr[0] == "127.0.0.5" and ch.request is not None), None)
            if channel is not None:
                break
            time.sleep(0.01)
        GuardedServer.maintenance(server, time.time() + server.header_timeout + 1)
        status, headers, body = answer(half)
        assert (status, headers["Content-Type"]) == ("HTTP/1.1 408 Request Timeout", "application/json")
        assert json.loads(body) == {"error": "request timeout: the request had not all arrived after 10 s"}
    finally:
        half.close()
