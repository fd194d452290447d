"""Benchmark: nobody can starve the server for the joined phones (issue 8 item 2, issues 11 and 18).

Run from the repository root::

    .venv/bin/python bench/bench_streams.py            # ~1-2 min (up to 7 on a server that fails)
    .venv/bin/python bench/bench_streams.py --quick    # fewer requests, noisier

A real ``landsend serve --sim`` on loopback (its own temporary database and
state folder). Eight phones, each from its own loopback address
(127.0.0.11-18), read the session, one claims the table and the others join
with its code, each opens its live stream (``/api/events``, drained by a
thread as a page does), then all eight play at once: each phone in turn
``GET /`` and ``POST /api/command`` (a peg, then an undo, so the game never
ends). The page is loaded on a new connection each time, as a browser does
once the server has closed its idle one; the command goes on that
connection. The same requests in every phase (each stops playing after
45 s); each attack starts before its phase and stops after it, every
attacking socket closed. The attackers that reopen run in their own process
(so their loop does not take the phones' interpreter lock):

1. **baseline**: just the phones;
2. **200 idle streams, one address**: a visitor at 127.0.0.2 opens 200
   connections, each asking for ``/api/events`` and then reading nothing;
3. **100 half-open, one address**: a visitor at 127.0.0.3 opens 100
   connections that send half a request and never finish their headers;
4. **200 idle streams, 200 addresses**: one such connection from each of
   127.0.1.1-200, each reopened as soon as the server closes it;
5. **300 half-open, 30 addresses**: 10 half-sent requests from each of
   127.0.2.1-30 (under the per-address cap of 32; over the 256 connections
   waitress took from all comers before issue 18), each reopened as soon as
   the server closes it;
6. **4 and 5 at once** (issue 18's condition);
7. **the baseline again**, to show how much the machine's own noise moves a p99.

Only 127.0.0.0/8 addresses are used. It prints, per phase, the p50 and p99
of ``GET /`` and of a command as measured by the phones, each p99 divided by
the baseline's p99 (the ratio a joined phone feels), how many connections the
attackers opened and how many the server closed, how often a phone had to
reconnect, and the daemon's resident memory (VmRSS) growth over the
baseline. Targets (issues 8 and 18): a joined phone's p99 < 100 ms in every
phase, memory growth < 20 MB. Every loop is bounded in count and time (the
attackers stop with their phase, and everything by ``DEADLINE``); every
socket and the daemon are closed at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHONES = [f"127.0.0.{11 + i}" for i in range(8)]
STREAMER = "127.0.0.2"
SLOWLORIS = "127.0.0.3"
STREAMERS = [f"127.0.1.{1 + i}" for i in range(200)]
LORISES = [f"127.0.2.{1 + i}" for i in range(30)]
DEADLINE = 420.0                       # seconds: the whole bench stops by then whatever happens
PHASE = 45.0                           # seconds: a phase stops playing by then (a request may wait 10 s)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command() -> list[str]:
    exe = shutil.which("landsend", path=str(Path(sys.executable).parent))
    return [exe, "serve"] if exe else [sys.executable, "-m", "firmware.daemon"]


def unit_environment(root: Path = ROOT) -> dict[str, str]:
    """Return the environment the board's unit (``systemd/landsend.service`` under ``root``) gives the daemon,
    so that a bench runs the daemon as the board does (the allocator's tunables among it)."""
    unit = root / "systemd" / "landsend.service"
    env: dict[str, str] = {}
    if unit.is_file():
        for line in unit.read_text().splitlines():
            if line.startswith("Environment="):
                name, _, value = line[len("Environment="):].partition("=")
                env[name] = value
    return env


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server as Ctrl-C does (SIGINT), and kill it if it has not ended within 20 s."""
    proc.send_signal(2)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pct(values: list[float], q: float) -> float:
    """Return the ``q``-th percentile of ``values`` (infinity when there are none: nothing was answered)."""
    ordered = sorted(values)
    if not ordered:
        return float("inf")
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


class Phone:
    """One phone: its own source address, cookie and CSRF token; keep-alive HTTP like a browser."""

    def __init__(self, addr: str, port: int) -> None:
        self.addr, self.port = addr, port
        self.origin = f"http://127.0.0.1:{port}"
        self.cookie = ""
        self.csrf = ""
        self.conn: http.client.HTTPConnection | None = None
        self.stream: socket.socket | None = None
        self.stream_status = ""
        self.stream_bytes = 0
        self.reconnects = 0
        self.stream_ended = False

    def request(self, method: str, path: str, body: dict | None = None, *, fresh: bool = False) -> tuple[int, bytes]:
        """Return the status and body of a request on the phone's keep-alive connection (a new one if ``fresh``)."""
        if fresh and self.conn is not None:
            self.conn.close()
            self.conn = None
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10,
                                                       source_address=(self.addr, 0))
            headers = {"Cookie": self.cookie} if self.cookie else {}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers.update({"Content-Type": "application/json", "Origin": self.origin,
                                "X-CSRF-Token": self.csrf})
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                payload = resp.read()
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = None          # the server closed an idle keep-alive connection: as a browser, retry once
                self.reconnects += 1
                if attempt == 2:
                    raise
                continue
            cookie = resp.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";")[0]
            return resp.status, payload
        raise AssertionError("unreachable")

    def open_stream(self) -> None:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10, source_address=(self.addr, 0))
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nCookie: {self.cookie}\r\n"
                  "Accept: text/event-stream\r\n\r\n".encode())
        first = s.recv(4096)
        self.stream_status = first.split(b"\r\n", 1)[0].decode(errors="replace")
        self.stream = s
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        s = self.stream
        try:
            s.settimeout(DEADLINE)
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                self.stream_bytes += len(chunk)
        except OSError:
            pass
        self.stream_ended = True

    def close(self) -> None:
        for c in (self.conn, self.stream):
            try:
                if c is not None:
                    c.close()
            except OSError:
                pass


def open_idle_streams(port: int, n: int, addr: str) -> tuple[list[socket.socket], dict[str, int]]:
    """Open ``n`` connections from ``addr`` asking for /api/events, read at most the first answer, then idle."""
    socks, answers = [], {}
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(addr, 0))
            s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            socks.append(s)
        except OSError as exc:
            answers[f"connect failed ({type(exc).__name__})"] = answers.get(f"connect failed ({type(exc).__name__})", 0) + 1
    for s in socks:
        try:
            s.settimeout(3)
            head = s.recv(4096)
            key = head.split(b"\r\n", 1)[0].decode(errors="replace") if head else "closed by the server"
        except ConnectionResetError:
            key = "reset by the server"
        except socket.timeout:
            key = "no answer in 3 s"
        except OSError as exc:
            key = f"error ({type(exc).__name__})"
        key = key.replace("HTTP/1.1 ", "")
        answers[key] = answers.get(key, 0) + 1
    return socks, answers


def open_half_requests(port: int, n: int, addr: str) -> list[socket.socket]:
    """Open ``n`` connections from ``addr`` that send half a request line and then nothing."""
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(addr, 0))
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1")
            socks.append(s)
        except OSError:
            pass
    return socks


def held_open(socks: list[socket.socket]) -> list[socket.socket]:
    """Return those of ``socks`` the server has not closed (reading, and dropping, whatever it answered)."""
    alive = []
    for s in socks:
        try:
            s.setblocking(False)
            while True:
                if not s.recv(65536):
                    raise ConnectionResetError    # closed by the server
        except BlockingIOError:
            alive.append(s)                       # open, nothing (more) to read
        except OSError:
            s.close()
    return alive


class Holder:
    """An attacker that keeps ``per_addr`` connections open from each of ``addrs``, each sending ``payload``.

    It runs in its own process (so that its loop does not share the phones'
    interpreter lock and slow down their measurements): every 0.1 s it checks
    which connections the server closed and opens new ones in their place,
    until :meth:`stop` or ``deadline`` seconds (bounded).
    """

    def __init__(self, port: int, addrs: list[str], per_addr: int, payload: bytes, deadline: float) -> None:
        ctx = multiprocessing.get_context("fork")
        self._stop, self._report = ctx.Event(), ctx.Queue()
        ready = ctx.Event()
        self._proc = ctx.Process(target=_hold, daemon=True,
                                 args=(port, addrs, per_addr, payload, deadline - time.monotonic(),
                                       self._stop, ready, self._report))
        self._proc.start()
        ready.wait(30)                                # every connection opened once

    def stop(self) -> dict[str, int]:
        """Stop topping up, close every connection, and return what happened."""
        self._stop.set()
        try:
            report = self._report.get(timeout=15)
        except Exception:                             # queue.Empty: the attacker died; say so
            report = {"attacker report": 0}
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
        return report


def _hold(port: int, addrs: list[str], per_addr: int, payload: bytes, seconds: float, stop, ready, report) -> None:
    end = time.monotonic() + seconds
    socks: dict[str, list[socket.socket]] = {a: [] for a in addrs}
    opened = refused = 0

    def top_up() -> None:
        nonlocal opened, refused
        for addr in addrs:
            alive = held_open(socks[addr])
            while len(alive) < per_addr and not stop.is_set():
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=(addr, 0))
                    s.sendall(payload)
                    alive.append(s)
                    opened += 1
                except OSError:
                    refused += 1
                    break
            socks[addr] = alive

    top_up()
    ready.set()
    while not stop.wait(0.1) and time.monotonic() < end:
        top_up()
    held = sum(len(v) for v in socks.values())
    report.put({"opened": opened, "closed by the server": opened - held, "refused at connect": refused})
    for v in socks.values():
        for s in v:
            s.close()


def play(phones: list[Phone], rounds: int, deadline: float) -> dict[str, list[float]]:
    """Return the latencies (s) of ``GET /`` and of commands while every phone plays ``rounds`` rounds at once."""
    times: dict[str, list[float]] = {"GET /": [], "POST /api/command": []}
    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def run(i: int, phone: Phone) -> None:
        for r in range(rounds):
            if time.monotonic() > deadline:
                return
            for kind, method, path, body in (
                    ("GET /", "GET", "/", None),         # on a new connection, as after the server closed an idle one
                    ("POST /api/command", "POST", "/api/command",
                     {"type": "peg", "side": "p1" if i % 2 else "p2", "points": 1} if r % 2 == 0 else {"type": "undo"})):
                t = time.perf_counter()
                try:
                    status, _ = phone.request(method, path, body, fresh=method == "GET")
                except (OSError, http.client.HTTPException):
                    status = 0
                dt = time.perf_counter() - t
                with lock:
                    times[kind].append(dt)
                    statuses[status] = statuses.get(status, 0) + 1
            time.sleep(0.01)              # a person taps; a phone is never a tight loop

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(phones)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, deadline - time.monotonic()))
    times["statuses"] = statuses          # type: ignore[assignment]
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="30 rounds per phone instead of 80")
    ap.add_argument("--streams", type=int, default=200, help="idle event streams from one address (200)")
    ap.add_argument("--half-open", type=int, default=100, help="connections that never finish their headers (100)")
    args = ap.parse_args(argv)
    rounds = 30 if args.quick else 80
    deadline = time.monotonic() + DEADLINE
    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="landsend-bench-streams-"))
    (tmp / "config.toml").write_text("")
    env = dict(os.environ, LANDSEND_STATE_DIR=str(tmp), LANDSEND_CONFIG=str(tmp / "config.toml"), LANDSEND_LOG="WARNING")
    log = open(tmp / "daemon.log", "wb")
    proc = subprocess.Popen(serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(port),
                                               "--db", str(tmp / "landsend.db")],
                            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    phones = [Phone(a, port) for a in PHONES]
    held: list[socket.socket] = []
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the daemon did not start: {(tmp / 'daemon.log').read_text()[-2000:]}")
                time.sleep(0.05)
        for p in phones:
            status, body = p.request("GET", "/api/session")
            p.csrf = json.loads(body)["csrf"]
        status, body = phones[0].request("POST", "/api/claim", {})
        code = json.loads(body)["join_code"]
        for p in phones[1:]:
            status, body = p.request("POST", "/api/join", {"code": code})
            assert status == 200, body
        for p in phones:
            p.open_stream()
        play(phones, 5, deadline)                           # warm-up: imports, caches, first snapshot

        results = []
        base = play(phones, rounds, min(deadline, time.monotonic() + PHASE))
        rss_base = rss_kib(proc.pid)
        results.append(("baseline: 8 phones playing", base, rss_base, {}))

        def phase(name: str, attack) -> None:
            before = sum(p.reconnects for p in phones)
            stop = attack()
            time.sleep(0.3)                                 # let the server take in what it was sent
            t = play(phones, rounds, min(deadline, time.monotonic() + PHASE))
            rss = rss_kib(proc.pid)
            report = stop()
            report["phone reconnects"] = sum(p.reconnects for p in phones) - before
            results.append((name, t, rss, report))
            time.sleep(0.5)                                 # the server sees the closes before the next phase

        stream_ask = f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        half_ask = b"GET / HTTP/1.1\r\nHost: 127.0.0.1"

        def one_address_streams():
            socks, answers = open_idle_streams(port, args.streams, STREAMER)
            held.extend(socks)
            return lambda: answers

        def one_address_half_open():
            half = open_half_requests(port, args.half_open, SLOWLORIS)
            held.extend(half)
            time.sleep(0.2)
            alive = len(held_open(half))
            return lambda: {"accepted and held": alive, "refused at accept": len(half) - alive}

        def many(addrs, per_addr, payload):
            def start():
                holder = Holder(port, addrs, per_addr, payload, deadline)
                return holder.stop
            return start

        def both():
            stops = [many(STREAMERS, 1, stream_ask)(), many(LORISES, 10, half_ask)()]
            def stop():
                a, b = (s() for s in stops)
                return {f"streams {k}": v for k, v in a.items()} | {f"half-open {k}": v for k, v in b.items()}
            return stop

        for name, attack in (
                (f"+ {args.streams} idle event streams from {STREAMER}", one_address_streams),
                (f"+ {args.half_open} half-open connections from {SLOWLORIS}", one_address_half_open),
                (f"+ {len(STREAMERS)} idle streams from {len(STREAMERS)} addresses", many(STREAMERS, 1, stream_ask)),
                (f"+ 10 half-open from each of {len(LORISES)} addresses", many(LORISES, 10, half_ask)),
                ("+ both of the last two at once", both),
                ("baseline again (every attacker gone): the noise of this machine", lambda: lambda: {})):
            phase(name, attack)
            for s in held:
                s.close()
            held.clear()

        print(f"# bench_streams: {platform.machine()}, {os.cpu_count()} CPUs, CPython {platform.python_version()}, "
              f"{rounds} rounds x 8 phones per phase\n")
        print("| phase | GET / p50 | GET / p99 | p99 vs baseline | command p50 | command p99 | p99 vs baseline "
              "| RSS growth | statuses |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        ok = True
        for name, t, rss, _ in results:
            g, c = t["GET /"], t["POST /api/command"]
            gr = pct(g, 99) / pct(base["GET /"], 99)
            cr = pct(c, 99) / pct(base["POST /api/command"], 99)
            growth = (rss - rss_base) / 1024
            ok &= pct(g, 99) < 0.1 and pct(c, 99) < 0.1 and growth < 20
            print(f"| {name} | {pct(g, 50) * 1e3:.1f} ms | {pct(g, 99) * 1e3:.1f} ms | {gr:.2f}x "
                  f"| {pct(c, 50) * 1e3:.1f} ms | {pct(c, 99) * 1e3:.1f} ms | {cr:.2f}x | {growth:+.1f} MiB "
                  f"| {dict(sorted(t['statuses'].items()))} |")
        print()
        for name, _, _, answers in results[1:]:
            print(f"* {name}: {answers}")
        granted = sum(1 for p in phones if p.stream_status.endswith("200 OK"))
        kept = sum(1 for p in phones if p.stream_status.endswith("200 OK") and not p.stream_ended)
        print(f"* the phones' own live streams: {granted} of 8 opened, {kept} still open after every phase, "
              f"{min(p.stream_bytes for p in phones)} bytes or more received by each")
        print(f"* daemon RSS: {rss_base / 1024:.1f} MiB at the baseline")
        print(f"\ntargets (p99 < 100 ms in every phase, RSS growth < 20 MB): {'met' if ok else 'MISSED'}")
        return 0 if ok else 1
    finally:
        for s in held:
            try:
                s.close()
            except OSError:
                pass
        for p in phones:
            p.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
