"""Benchmark: a press to the ``state`` event on listening phones, the product beside its anchor (issue 25).

Run from the repository root::

    .venv/bin/python bench/bench_press.py            # ~2 min: 400 presses per row, 5 start-ups each
    .venv/bin/python bench/bench_press.py --quick    # 100 presses per row, 3 start-ups

Two servers run at once on loopback, each on its own database in a
temporary folder on disk (not tmpfs: the fsync is part of the press):

* the **product**: ``landsend serve --sim`` as a Pi runs it (the simulated
  strip and buttons, the render loop, the voice, the page's guards);
* the **anchor**: ``bench/anchor_app.py``, a few dozen lines of Flask on
  waitress with the same durability: each press commits one SQLite row
  (WAL, ``synchronous=FULL``, one fdatasync before the answer) and publishes
  the new state to every open Server-Sent Events stream.

A press is one ``POST`` on a keep-alive connection from the presser's own
address: ``/api/command`` with a one-point ``peg`` and a ``client_id`` (what
a phone's tap sends; the host's phone, which claimed the table) on the
product, ``/press`` on the anchor. With 1 and then 8 phones listening, each
phone on its own source address (127.0.0.x, loopback only) with its live
stream open, the presses alternate between the two servers (which goes
first swaps every round), 20 ms apart, and the bench times, from the
moment the request is sent:

* **press -> state**: until the ``state`` event of the new seq has reached
  a listening phone (every phone's arrival is a sample), and until it has
  reached *every* phone (one sample per press);
* **press -> LED frame** (product only): until the ``board`` event of the
  new seq reaches the first phone. The render loop sends it after it has
  handed the frame to the strip driver (the simulator here), so this is an
  upper bound of press -> frame on the strip, one loopback hop late.

Everything runs in one thread of the bench (a ``selectors`` loop over the
presser's connection and every stream), so the bench's own threads do not
add their scheduling to one server and not the other. A Land's End game
ends after about 30 one-point pegs: the bench then starts a new game on the
product (untimed) and waits for the board to settle.

Start-up: each server is started ``--startups`` times, alternately, on a new
empty database: the time from spawn to the first answer (``GET /api/table``;
``GET /state``), and VmRSS right then.

It prints every figure with the product / anchor ratio and the load average
before and after. Targets (issue 25): the press -> state ratio at most 1.5x
at p50 and 2x at p99, with 1 and 8 listeners, the LED frame likewise
against the anchor's press -> state, start-up at most 1.5x.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_streams import ROOT, Phone, free_port, pct, rss_kib, serve_command  # noqa: E402

ANCHOR = Path(__file__).resolve().parent / "anchor_app.py"
GAP = 0.02                       # seconds between two presses
DEADLINE = 900.0                 # the whole bench stops by then, whatever happens


class Stream:
    """One phone's live stream: a raw socket, read without blocking; every SSE message with its arrival time."""

    def __init__(self, addr: str, port: int, path: str, cookie: str = "") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(addr, 0))
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        self.sock.sendall((head + "\r\n").encode())
        self.sock.setblocking(False)
        self.buf = b""
        self.headers_done = False
        self.got: list[tuple[float, str, dict]] = []     # (when, kind, data) of every message

    def read(self, now: float) -> None:
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise SystemExit("a live stream was closed by the server")
        self.buf += chunk
        if not self.headers_done:
            if b"\r\n\r\n" not in self.buf:
                return
            self.buf = self.buf.split(b"\r\n\r\n", 1)[1]
            self.headers_done = True
        # waitress streams with chunked encoding: drop the chunk-size lines, keep the SSE text
        while b"\n\n" in self.buf:
            msg, self.buf = self.buf.split(b"\n\n", 1)
            kind, data = "", None
            for line in msg.split(b"\n"):
                line = line.strip(b"\r")
                if line.startswith(b"event: "):
                    kind = line[7:].decode()
                elif line.startswith(b"data: "):
                    data = json.loads(line[6:])
            if kind and isinstance(data, dict):
                self.got.append((now, kind, data))

    def first(self, kind: str, seq: int, since: float) -> float | None:
        for when, k, data in self.got:
            if k == kind and when >= since and isinstance(data.get("seq"), int) and data["seq"] >= seq:
                return when
        return None

    def close(self) -> None:
        self.sock.close()


class Presser:
    """A keep-alive HTTP connection that sends a POST and is read by the bench's selector loop."""

    def __init__(self, addr: str, port: int, path: str, headers: dict[str, str]) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(addr, 0))
        self.sock.setblocking(False)
        self.port, self.path, self.headers = port, path, headers
        self.buf = b""
        self.answer: dict | None = None
        self.status = 0

    def send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        head = f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: application/json\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        head += f"Content-Length: {len(data)}\r\n\r\n"
        self.buf, self.answer = b"", None
        self.sock.sendall(head.encode() + data)

    def read(self, now: float) -> None:
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise SystemExit("the presser's connection was closed by the server")
        self.buf += chunk
        if b"\r\n\r\n" not in self.buf:
            return
        head, body = self.buf.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if len(body) >= length:
            self.status = int(head.split(b" ", 2)[1])
            self.answer = json.loads(body[:length])

    def close(self) -> None:
        self.sock.close()


class Server:
    """One server under test: its process, presser, streams, and the samples of its presses."""

    def __init__(self, name: str, proc: subprocess.Popen, port: int) -> None:
        self.name, self.proc, self.port = name, proc, port
        self.presser: Presser | None = None
        self.streams: list[Stream] = []
        self.state_any: list[float] = []     # ms, one per phone per press
        self.state_all: list[float] = []     # ms, one per press (the last phone told)
        self.frame: list[float] = []         # ms, one per press (product only)
        self.n = 0

    def body(self) -> dict:
        raise NotImplementedError

    def after(self, state: dict) -> None:
        """Hook after a timed press, with the state it made (the product starts a new game when one is over)."""


def wait_until(sel: selectors.BaseSelector, done, deadline: float) -> None:
    while not done():
        left = deadline - time.perf_counter()
        if left <= 0:
            raise SystemExit("no answer in 10 s")
        for key, _ in sel.select(min(left, 0.5)):
            key.data.read(time.perf_counter())


def press(server: Server, sel: selectors.BaseSelector, *, frame: bool) -> None:
    """Send one press to ``server`` and record when its state (and frame) reached the phones."""
    t0 = time.perf_counter()
    server.presser.send(server.body())
    wait_until(sel, lambda: server.presser.answer is not None, t0 + 10)
    answer = server.presser.answer
    if server.presser.status != 200:
        raise SystemExit(f"{server.name}: press answered {server.presser.status}: {answer}")
    seq = answer["seq"]

    def told() -> bool:
        if any(s.first("state", seq, t0) is None for s in server.streams):
            return False
        return not frame or any(s.first("board", seq, t0) is not None for s in server.streams)
    wait_until(sel, told, t0 + 10)
    times = [s.first("state", seq, t0) for s in server.streams]
    server.state_any += [(t - t0) * 1000 for t in times]
    server.state_all.append((max(times) - t0) * 1000)
    if frame:
        server.frame.append((min(t for s in server.streams if (t := s.first("board", seq, t0))) - t0) * 1000)
    state = [d for _, k, d in server.streams[0].got if k == "state"]
    for s in server.streams:
        s.got.clear()
    server.after(state[-1])


def start(cmd: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)


def product_cmd(port: int, folder: Path) -> tuple[list[str], dict]:
    (folder / "config.toml").write_text("")
    env = dict(os.environ, LANDSEND_STATE_DIR=str(folder), LANDSEND_CONFIG=str(folder / "config.toml"),
               LANDSEND_LOG="WARNING")
    return serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(port),
                              "--db", str(folder / "landsend.db")], env


def anchor_cmd(port: int, folder: Path) -> tuple[list[str], dict]:
    return [sys.executable, str(ANCHOR), "--port", str(port), "--db", str(folder / "anchor.db")], dict(os.environ)


def first_answer(port: int, path: str, proc: subprocess.Popen, deadline: float) -> None:
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{path}: the server did not start")
        time.sleep(0.002)


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(2)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def startups(tmp: Path, rounds: int, deadline: float) -> dict[str, list[tuple[float, int]]]:
    """Return, per server, ``(seconds to the first answer, VmRSS KiB then)`` of each start on an empty database."""
    out: dict[str, list[tuple[float, int]]] = {"product": [], "anchor": []}
    for r in range(rounds):
        order = [("product", product_cmd, "/api/table"), ("anchor", anchor_cmd, "/state")]
        for name, make, path in (order if r % 2 == 0 else order[::-1]):
            folder = tmp / f"start-{name}-{r}"
            folder.mkdir()
            port = free_port()
            cmd, env = make(port, folder)
            t0 = time.monotonic()
            proc = start(cmd, ROOT, env, folder / "log")
            try:
                first_answer(port, path, proc, deadline)
                out[name].append((time.monotonic() - t0, rss_kib(proc.pid)))
            finally:
                stop(proc)
    return out


def summary(values: list[float]) -> tuple[float, float]:
    return pct(values, 50), pct(values, 99)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presses", type=int, default=None, help="timed presses per server and row (400; --quick 100)")
    ap.add_argument("--startups", type=int, default=None, help="start-ups of each server (5; --quick 3)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    presses = args.presses or (100 if args.quick else 400)
    rounds = args.startups or (3 if args.quick else 5)
    deadline = time.monotonic() + DEADLINE
    load0 = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="landsend-bench-press-"))      # on disk: the fsync is part of a press
    procs: list[subprocess.Popen] = []
    try:
        starts = startups(tmp, rounds, deadline)

        pport, aport = free_port(), free_port()
        (tmp / "product").mkdir()
        (tmp / "anchor").mkdir()
        cmd, env = product_cmd(pport, tmp / "product")
        product = Server("product", start(cmd, ROOT, env, tmp / "product" / "log"), pport)
        cmd, env = anchor_cmd(aport, tmp / "anchor")
        anchor = Server("anchor", start(cmd, ROOT, env, tmp / "anchor" / "log"), aport)
        procs += [product.proc, anchor.proc]
        first_answer(pport, "/api/table", product.proc, deadline)
        first_answer(aport, "/state", anchor.proc, deadline)

        host = Phone("127.0.0.11", pport)
        _, body = host.request("GET", "/api/session")
        host.csrf = json.loads(body)["csrf"]
        status, body = host.request("POST", "/api/claim", {})
        assert status == 200, body
        code = json.loads(body)["join_code"]
        phones = [Phone(f"127.0.0.{21 + i}", pport) for i in range(8)]
        for p in phones:
            _, body = p.request("GET", "/api/session")
            p.csrf = json.loads(body)["csrf"]
            status, body = p.request("POST", "/api/join", {"code": code})
            assert status == 200, body
        product.presser = Presser("127.0.0.11", pport, "/api/command",
                                  {"Cookie": host.cookie, "Origin": host.origin, "X-CSRF-Token": host.csrf})
        anchor.presser = Presser("127.0.0.31", aport, "/press", {})

        def product_body() -> dict:
            product.n += 1
            return {"type": "peg", "side": ("p1", "p2")[product.n % 2], "points": 1,
                    "client_id": f"bench-{product.n}"}

        def anchor_body() -> dict:
            anchor.n += 1
            return {"side": ("p1", "p2")[anchor.n % 2]}
        product.body, anchor.body = product_body, anchor_body
        host.request("POST", "/api/command", {"type": "new_match", "game": "lands-end",
                                              "players": ["Ann", "Bob"], "first_dealer": "Bob"})

        def new_game_when_over(state: dict) -> None:
            if state.get("result"):
                status, body = host.request("POST", "/api/command", {"type": "new_game"})
                assert status == 200, body
                time.sleep(0.3)                   # the peg-out animation is over by then
        product.after = new_game_when_over

        sel = selectors.DefaultSelector()
        sel.register(product.presser.sock, selectors.EVENT_READ, product.presser)
        sel.register(anchor.presser.sock, selectors.EVENT_READ, anchor.presser)
        rows = []
        for listeners in (1, 8):
            for server in (product, anchor):
                for s in server.streams:
                    sel.unregister(s.sock)
                    s.close()
                server.state_any, server.state_all, server.frame = [], [], []
            product.streams = [Stream(p.addr, pport, "/api/events", p.cookie) for p in phones[:listeners]]
            anchor.streams = [Stream(f"127.0.0.{41 + i}", aport, "/events") for i in range(listeners)]
            for server in (product, anchor):
                for s in server.streams:
                    sel.register(s.sock, selectors.EVENT_READ, s)
            wait_until(sel, lambda: all(s.got for s in product.streams + anchor.streams), time.perf_counter() + 10)
            for i in range(20 + presses):                      # the first 20 rounds warm both up
                if i == 20:
                    for server in (product, anchor):
                        server.state_any, server.state_all, server.frame = [], [], []
                for server in ((product, anchor) if i % 2 == 0 else (anchor, product)):
                    press(server, sel, frame=server is product)
                    time.sleep(GAP)
                if time.monotonic() > deadline:
                    raise SystemExit("stopped at the deadline")
            rows.append((listeners, summary(product.state_any), summary(anchor.state_any),
                         summary(product.state_all), summary(anchor.state_all), summary(product.frame)))
        rss_after = rss_kib(product.proc.pid), rss_kib(anchor.proc.pid)
        for s in product.streams + anchor.streams:
            s.close()
        product.presser.close()
        anchor.presser.close()
        host.close()
        for p in phones:
            p.close()
    finally:
        for p in procs:
            stop(p)
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()

    def ms(v: float) -> str:
        return f"{v:.2f} ms"
    print(f"CPython {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"{presses} timed presses per server and row; load average {load0[0]:.2f} before, {load1[0]:.2f} after")
    print()
    print("| listeners | what | product p50 | anchor p50 | ratio p50 | product p99 | anchor p99 | ratio p99 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for listeners, pa, aa, pl, al, fr in rows:
        print(f"| {listeners} | press -> state, each phone | {ms(pa[0])} | {ms(aa[0])} | {pa[0] / aa[0]:.2f}x "
              f"| {ms(pa[1])} | {ms(aa[1])} | {pa[1] / aa[1]:.2f}x |")
        if listeners > 1:
            print(f"| {listeners} | press -> state, every phone | {ms(pl[0])} | {ms(al[0])} | {pl[0] / al[0]:.2f}x "
                  f"| {ms(pl[1])} | {ms(al[1])} | {pl[1] / al[1]:.2f}x |")
        print(f"| {listeners} | press -> LED frame (vs the anchor's state) | {ms(fr[0])} | {ms(aa[0])} "
              f"| {fr[0] / aa[0]:.2f}x | {ms(fr[1])} | {ms(aa[1])} | {fr[1] / aa[1]:.2f}x |")
    print()
    ps = sorted(t for t, _ in starts["product"])
    as_ = sorted(t for t, _ in starts["anchor"])
    prss = sorted(r for _, r in starts["product"])
    arss = sorted(r for _, r in starts["anchor"])
    print(f"| start-up ({rounds} each, median) | product | anchor | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| spawn -> first answer | {ps[len(ps) // 2]:.3f} s | {as_[len(as_) // 2]:.3f} s "
          f"| {ps[len(ps) // 2] / as_[len(as_) // 2]:.2f}x |")
    print(f"| VmRSS at the first answer | {prss[len(prss) // 2] / 1024:.1f} MiB | {arss[len(arss) // 2] / 1024:.1f} MiB "
          f"| {prss[len(prss) // 2] / arss[len(arss) // 2]:.2f}x |")
    print(f"| VmRSS after the presses | {rss_after[0] / 1024:.1f} MiB | {rss_after[1] / 1024:.1f} MiB "
          f"| {rss_after[0] / rss_after[1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
