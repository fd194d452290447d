"""Benchmark: nobody can starve the server (issue 8 item 2, issue 11's half-open connections).

Run from the repository root::

    .venv/bin/python bench/bench_streams.py            # ~40 s
    .venv/bin/python bench/bench_streams.py --quick    # fewer requests, noisier

A real ``landsend serve --sim`` on loopback (its own temporary database and
state folder). Eight phones, each from its own loopback address
(127.0.0.11-18), read the session, one claims the table and the others join
with its code, each opens its live stream (``/api/events``, drained by a
thread as a page does), then all eight play at once: each phone in turn
``GET /`` and ``POST /api/command`` (a peg, then an undo, so the game never
ends). Three phases, the same requests in each:

1. **baseline**: just the phones;
2. **200 idle streams**: first a visitor at 127.0.0.2 opens 200 connections,
   each asking for ``/api/events`` and then reading nothing;
3. **100 half-open connections**: a visitor at 127.0.0.3 opens 100 more that
   send half a request line and never finish their headers (the 200 stay).

It prints, per phase, the p50 and p99 of ``GET /`` and of a command as
measured by the phones, each p99 as a ratio to the baseline's, how the
visitor's connections were answered, and the daemon's resident memory
(VmRSS) growth over the baseline. Targets (issue 8): p99 < 100 ms in every
phase, memory growth < 20 MB. Every loop is bounded in count and time; every
socket and the daemon are closed at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import http.client
import json
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
DEADLINE = 240.0                       # seconds: the whole bench stops by then whatever happens


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command() -> list[str]:
    exe = shutil.which("landsend", path=str(Path(sys.executable).parent))
    return [exe, "serve"] if exe else [sys.executable, "-m", "firmware.daemon"]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
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

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
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
                    return
                self.stream_bytes += len(chunk)
        except OSError:
            return

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
                    ("GET /", "GET", "/", None),
                    ("POST /api/command", "POST", "/api/command",
                     {"type": "peg", "side": "p1" if i % 2 else "p2", "points": 1} if r % 2 == 0 else {"type": "undo"})):
                t = time.perf_counter()
                try:
                    status, _ = phone.request(method, path, body)
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
        base = play(phones, rounds, deadline)
        rss_base = rss_kib(proc.pid)
        results.append(("baseline: 8 phones playing", base, rss_base, {}))

        socks, answers = open_idle_streams(port, args.streams, STREAMER)
        held += socks
        attacked = play(phones, rounds, deadline)
        results.append((f"+ {args.streams} idle event streams from {STREAMER}", attacked, rss_kib(proc.pid), answers))

        half = open_half_requests(port, args.half_open, SLOWLORIS)
        held += half
        time.sleep(0.2)
        alive = 0
        for s in half:
            try:
                s.setblocking(False)
                s.recv(1)                                   # b"" (closed) or an error answer: not held
            except BlockingIOError:
                alive += 1                                  # open, nothing to read: still held by the server
            except OSError:
                pass
        loris = play(phones, rounds, deadline)
        results.append((f"+ {args.half_open} half-open connections from {SLOWLORIS}", loris, rss_kib(proc.pid),
                        {"accepted and held": alive, "refused at accept": len(half) - alive}))

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
        print(f"* the phones' own live streams: {granted} of 8 open, "
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
