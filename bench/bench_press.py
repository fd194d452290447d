"""Benchmark: a press to the ``state`` event on listening phones, the product beside its anchor (issue 25).

Run from the repository root::

    .venv/bin/python bench/bench_press.py            # ~4 min: 1,000 presses per row, 5 start-ups each
    .venv/bin/python bench/bench_press.py --quick    # 100 presses per row, 3 start-ups
    .venv/bin/python bench/bench_press.py --strace   # the syncs each press made before its answer
    .venv/bin/python bench/bench_press.py --trace 3  # what every thread did in the 3 slowest presses

Two servers run at once on loopback, each on its own database in a
temporary folder on disk (not tmpfs: the fsync is part of the press):

* the **product**: ``landsend serve --sim`` as a Pi runs it (the simulated
  strip and buttons, the render loop, the voice, the page's guards), with
  the environment its unit gives it (``systemd/landsend.service``: the C
  allocator's tunables) and its modules' bytecode compiled, as installing
  it compiles them;
* the **anchor**: ``bench/anchor_app.py``, a few dozen lines of Flask on
  waitress with the same durability: each press commits one SQLite row
  (WAL, ``synchronous=FULL``, one fdatasync before the answer, and its WAL
  copied into the file and started over as the table's store does it, so
  both press into a reused WAL of the same size) and publishes the new
  state to every open Server-Sent Events stream.

A press is one ``POST`` on a keep-alive connection from the presser's own
address: ``/api/command`` with a one-point ``peg`` and a ``client_id`` (what
a phone's tap sends; the host's phone, which claimed the table) on the
product, ``/press`` on the anchor. With 1 and then 8 phones listening, each
phone on its own source address (127.0.0.x, loopback only) with its live
stream open, the presses alternate between the two servers (which goes
first swaps every round), 20 ms apart, and the bench times, from the
moment the request is sent:

* **press -> state**: until the ``state`` event of the new seq has reached
  a listening phone (every phone's arrival is a sample), the *first* phone
  and *every* phone (one sample per press each);
* **press -> LED frame** (product only): until the ``board`` event of the
  new seq reaches the first phone (beside the anchor's first phone). The render loop sends it after it has
  handed the frame to the strip driver (the simulator here), so this is an
  upper bound of press -> frame on the strip, one loopback hop late.

Everything runs in one thread of the bench (a ``selectors`` loop over the
presser's connection and every stream), so the bench's own threads do not
add their scheduling to one server and not the other. A Land's End game
ends after about 30 one-point pegs: the bench then starts a new game on the
product (untimed) and waits for the board to settle. Before the first row
300 rounds are pressed untimed (20 before the second), so each server's WAL
has been started over once.

Start-up: each server is started ``--startups`` times, alternately, on a new
empty database: the time from spawn to the first answer (``GET /api/table``;
``GET /state``), and VmRSS right then.

It prints p50, p99 and max with the product / anchor ratio, the CPU time each
server used per press (every thread, user + system: the figure a busy machine
moves least, and the one a Pi's slower core multiplies), and the load average
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
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_streams import ROOT, Phone, free_port, pct, rss_kib, serve_command, stop_server, unit_environment  # noqa: E402

ANCHOR = Path(__file__).resolve().parent / "anchor_app.py"
GAP = 0.02                       # seconds between two presses
WARM_FIRST = 300                 # untimed rounds before the first row (20 before the second)
WALL = time.time() - time.perf_counter()     # time.time() = WALL + time.perf_counter() (strace stamps wall time)
DEADLINE = 900.0                 # the whole bench stops by then, whatever happens


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)     # Linux: the kernel stamps each segment's arrival
OFFSET = [time.time() - time.perf_counter()]                # CLOCK_REALTIME - perf_counter, taken at each press
STAMP = ["kernel"]               # what a phone's arrival is: "kernel" (its stamp) or "bench" (when the bench read it)


def receive(conn, what: str) -> "float | None":
    """Add what ``conn.sock`` has (non-blocking) to ``conn.buf``; return False when nothing came yet, else the
    moment (perf_counter seconds) the kernel received the last of it (True when it gave no stamp)."""
    try:
        chunk, anc, _, _ = conn.sock.recvmsg(1 << 20, socket.CMSG_SPACE(16))
    except BlockingIOError:
        return False
    if not chunk:
        raise SystemExit(f"{what} was closed by the server")
    conn.buf += chunk
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, ns = struct.unpack("qq", data[:16])
            return sec + ns / 1e9 - OFFSET[0]
    return True


class Stream:
    """One phone's live stream: a raw socket, read without blocking; every SSE message with its arrival time."""

    def __init__(self, addr: str, port: int, path: str, cookie: str = "") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(addr, 0))
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        self.sock.sendall((head + "\r\n").encode())
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.setblocking(False)
        self.buf = b""
        self.headers_done = False
        self.got: list[tuple[float, str, dict, float]] = []     # (when, kind, data, read) of every message

    def read(self, now: float) -> None:
        stamp = receive(self, "a live stream")
        if not stamp:
            return
        read, now = now, (now if stamp is True or STAMP[0] == "bench" else stamp)
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
                self.got.append((now, kind, data, read))

    def first(self, kind: str, seq: int, since: float, *, read: bool = False) -> float | None:
        """Return when the first ``kind`` message of ``seq`` or later arrived (the kernel's stamp), or with
        ``read`` when the bench read it (its select woke, after parsing what came before)."""
        for when, k, data, bench in self.got:
            if k == kind and when >= since and isinstance(data.get("seq"), int) and data["seq"] >= seq:
                return bench if read else when
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
        self.when = 0.0

    def send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        head = f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: application/json\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        head += f"Content-Length: {len(data)}\r\n\r\n"
        self.buf, self.answer = b"", None
        self.sock.sendall(head.encode() + data)

    def read(self, now: float) -> None:
        if not receive(self, "the presser's connection"):
            return
        if b"\r\n\r\n" not in self.buf:
            return
        head, body = self.buf.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if len(body) >= length:
            self.when = now
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
        self.state_first: list[float] = []   # ms, one per press (the first phone told)
        self.frame: list[float] = []         # ms, one per press (product only)
        self.read: dict[str, list[float]] = {}   # the same, stamped when the bench read them (--stamp below)
        self.log: list[dict] = []            # every timed press: row, t0 (perf_counter ns), seq, arrivals (ms)
        self.timed = False
        self.listeners = 0
        self.n = 0
        self.phones: list[Phone] = []
        self.closers: list = []
        self.listen = None                   # listeners -> their new streams
        self.cpu = 0.0                       # CPU seconds used when the timed presses of a row began
        self.body: "Callable[[], dict] | None" = None   # makes the next press's request body (open_product/open_anchor)

    def after(self, state: dict) -> None:
        """Hook after a timed press, with the state it made (the product starts a new game when one is over)."""


def wait_until(sel: selectors.BaseSelector, done, deadline: float) -> None:
    while not done():
        left = deadline - time.perf_counter()
        if left <= 0:
            raise SystemExit("no answer in 10 s")
        ready = sel.select(min(left, 0.5))
        now = time.perf_counter()           # what is ready arrived by now: reading and parsing one phone's
        for key, _ in ready:                # message must not make the next phone's arrival look later
            key.data.read(now)


def press(server: Server, sel: selectors.BaseSelector, *, frame: bool) -> None:
    """Send one press to ``server`` and record when its state (and frame) reached the phones."""
    body = server.body()
    OFFSET[0] = time.time() - time.perf_counter()
    t0 = time.perf_counter()
    server.presser.send(body)
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
    server.state_first.append((min(times) - t0) * 1000)
    if frame:
        server.frame.append((min(t for s in server.streams if (t := s.first("board", seq, t0))) - t0) * 1000)
    read = [s.first("state", seq, t0, read=True) for s in server.streams]
    for key, values in (("any", [(t - t0) * 1000 for t in read]), ("all", [(max(read) - t0) * 1000]),
                        ("first", [(min(read) - t0) * 1000])) + ((("frame", [(min(
                            t for s in server.streams if (t := s.first("board", seq, t0, read=True))) - t0) * 1000]),)
                            if frame else ()):
        server.read.setdefault(key, []).extend(values)
    if server.timed:
        server.log.append({"row": server.listeners, "t0": t0, "seq": seq, "answer": server.presser.when,
                           "wall": WALL + t0, "wall_answer": WALL + server.presser.when,
                           "state": [(t - t0) * 1000 for t in times],
                           "frame": server.frame[-1] if frame else None})
    state = [d for _, k, d, _ in server.streams[0].got if k == "state"]
    for s in server.streams:
        s.got.clear()
    server.after(state[-1])


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system, every thread) process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(cmd: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)


def product_cmd(port: int, folder: Path) -> tuple[list[str], dict]:
    (folder / "config.toml").write_text("")
    env = dict(os.environ, **unit_environment(), LANDSEND_STATE_DIR=str(folder),
               LANDSEND_CONFIG=str(folder / "config.toml"), LANDSEND_LOG="WARNING")
    return serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(port),
                              "--db", str(folder / "landsend.db")], env


def before_cmd(root: Path, port: int, folder: Path) -> tuple[list[str], dict]:
    """The product as another checkout at ``root`` has it (run from there, with this venv's packages)."""
    cmd, env = product_cmd(port, folder)
    for name in unit_environment():
        env.pop(name, None)
    env.update(unit_environment(root))          # the environment its own unit gave it
    env["PYTHONPATH"] = str(root)
    return [sys.executable, "-m", "firmware.cli"] + cmd[cmd.index("serve"):], env


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


def compile_bytecode(*roots: Path) -> None:
    """Write the bytecode of the product's packages under each checkout ``root``, as installing it does.

    ``pip install`` (``systemd/install.sh`` on a Pi) compiles every module; a
    checkout run in place, where ``PYTHONDONTWRITEBYTECODE`` is set (as on
    this development machine), would otherwise compile its ~70 modules from
    source at every start, a cost no board pays. Flask, waitress and the
    anchor's other packages are installed, so already compiled; the anchor is
    one script, which Python never caches."""
    for root in roots:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "companion", "firmware", "web"], cwd=root,
                       check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONDONTWRITEBYTECODE=""))


def startups(tmp: Path, rounds: int, deadline: float, makers: dict) -> dict[str, list[tuple[float, int, float]]]:
    """Return, per server, ``(seconds to the first answer, VmRSS KiB then, CPU seconds used by then)`` of each
    start on an empty database (the servers take turns, who starts first rotating)."""
    out: dict[str, list[tuple[float, int, float]]] = {name: [] for name in makers}
    names = list(makers)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            folder = tmp / f"start-{name}-{r}"
            folder.mkdir()
            port = free_port()
            cmd, env = makers[name](port, folder)
            t0 = time.monotonic()
            proc = start(cmd, ROOT if name != "before" else Path(env["PYTHONPATH"]), env, folder / "log")
            try:
                first_answer(port, "/state" if name == "anchor" else "/api/table", proc, deadline)
                out[name].append((time.monotonic() - t0, rss_kib(proc.pid), cpu_seconds(proc.pid)))
            finally:
                stop_server(proc)
    return out


def summary(values: list[float]) -> tuple[float, float, float]:
    """Return the p50, p99 and max of ``values``."""
    return pct(values, 50), pct(values, 99), max(values)


def open_product(name: str, port: int, proc: subprocess.Popen, first: int, deadline: float) -> Server:
    """Return the product server ``name`` with its host (who claimed it, at 127.0.0.``first``, who presses)
    and eight joined phones (at the next eight addresses); a new Land's End match started."""
    server = Server(name, proc, port)
    first_answer(port, "/api/table", proc, deadline)
    host = Phone(f"127.0.0.{first}", port)
    _, body = host.request("GET", "/api/session")
    host.csrf = json.loads(body)["csrf"]
    status, body = host.request("POST", "/api/claim", {})
    assert status == 200, body
    code = json.loads(body)["join_code"]
    server.phones = [Phone(f"127.0.0.{first + 1 + i}", port) for i in range(8)]
    for p in server.phones:
        _, body = p.request("GET", "/api/session")
        p.csrf = json.loads(body)["csrf"]
        status, body = p.request("POST", "/api/join", {"code": code})
        assert status == 200, body
    server.presser = Presser(host.addr, port, "/api/command",
                             {"Cookie": host.cookie, "Origin": host.origin, "X-CSRF-Token": host.csrf})
    host.request("POST", "/api/command", {"type": "new_match", "game": "lands-end",
                                          "players": ["Ann", "Bob"], "first_dealer": "Bob"})

    def body() -> dict:
        server.n += 1
        return {"type": "peg", "side": ("p1", "p2")[server.n % 2], "points": 1, "client_id": f"bench-{server.n}"}

    def new_game_when_over(state: dict) -> None:
        if state.get("result"):
            status, answer = host.request("POST", "/api/command", {"type": "new_game"})
            assert status == 200, answer
            time.sleep(0.3)                   # the peg-out animation is over by then
    server.body, server.after = body, new_game_when_over
    server.closers = [host.close] + [p.close for p in server.phones]
    server.listen = lambda n: [Stream(p.addr, port, "/api/events", p.cookie) for p in server.phones[:n]]
    return server


def open_anchor(port: int, proc: subprocess.Popen, deadline: float) -> Server:
    """Return the anchor server: its presser at 127.0.0.31, its listeners from 127.0.0.41."""
    server = Server("anchor", proc, port)
    first_answer(port, "/state", proc, deadline)
    server.presser = Presser("127.0.0.31", port, "/press", {})

    def body() -> dict:
        server.n += 1
        return {"side": ("p1", "p2")[server.n % 2]}
    server.body = body
    server.listen = lambda n: [Stream(f"127.0.0.{41 + i}", port, "/events") for i in range(n)]
    return server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presses", type=int, default=None, help="timed presses per server and row (1000; --quick 100)")
    ap.add_argument("--startups", type=int, default=None, help="start-ups of each server (5; --quick 3)")
    ap.add_argument("--before", metavar="DIR", help="also run the product from this other checkout (an older "
                    "commit, e.g. `git archive <commit> | tar -x -C DIR`) in the same interleaving")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--startup-only", action="store_true", help="measure the start-ups only (no presses)")
    ap.add_argument("--trace", type=int, metavar="N", default=0, help="run the servers under bench/press_trace.py "
                    "and print what every thread did during the N slowest presses of each server and row "
                    "(the ratios of a traced run are not the product's)")
    ap.add_argument("--dir", metavar="DIR", help="make the servers' databases under DIR (default: the temporary "
                    "folder, on disk; /dev/shm takes the fsync's wait out of the figures, for diagnosis only)")
    ap.add_argument("--strace", action="store_true", help="run the servers under strace and print, for every timed "
                    "press, how many fsync/fdatasync calls the thread that served it made on its database before "
                    "the answer, and what other threads synced meanwhile (the figures of such a run are strace's)")
    ap.add_argument("--stamp", choices=("kernel", "bench"), default="kernel", help="a phone's message arrives "
                    "when the kernel received it (SO_TIMESTAMPNS; default) or when the bench's loop read it, after "
                    "parsing what came before (before issue 38's press pass); the other is printed below")
    ap.add_argument("--keep", metavar="DIR", help="with --trace or --strace: keep each server's notes, presses or "
                    "strace log in DIR")
    args = ap.parse_args(argv)
    presses = args.presses or (100 if args.quick else 1000)
    STAMP[0] = args.stamp
    rounds = args.startups or (3 if args.quick else 5)
    before = Path(args.before).resolve() if args.before else None
    deadline = time.monotonic() + DEADLINE
    load0 = os.getloadavg()
    # on disk: the fsync is part of a press (--dir /dev/shm takes the disk out, to look at the CPU's share alone)
    tmp = Path(tempfile.mkdtemp(prefix="landsend-bench-press-", dir=args.dir))
    servers: list[Server] = []
    try:
        makers = {"product": product_cmd, "anchor": anchor_cmd}
        if before is not None:
            makers["before"] = lambda port, folder: before_cmd(before, port, folder)
        compile_bytecode(ROOT, *([before] if before is not None else []))
        starts = startups(tmp, rounds, deadline, makers)
        if args.startup_only:
            report([], starts, None, presses=0, rounds=rounds, load=(load0[0], os.getloadavg()[0]))
            return 0
        for name, make in makers.items():
            port = free_port()
            (tmp / name).mkdir()
            cmd, env = make(port, tmp / name)
            if args.trace:
                cmd = traced(cmd, tmp / name / "trace")
            if args.strace:
                cmd = ["strace", "-f", "-y", "-ttt", "-e", "trace=fsync,fdatasync", "-o",
                       str(tmp / name / "strace")] + cmd
            proc = start(cmd, before if name == "before" else ROOT, env, tmp / name / "log")
            servers.append(Server(name, proc, port))
        servers = [open_product(sv.name, sv.port, sv.proc, 11 if sv.name == "product" else 51, deadline)
                   if sv.name != "anchor" else open_anchor(sv.port, sv.proc, deadline) for sv in servers]
        anchor = next(sv for sv in servers if sv.name == "anchor")
        sel = selectors.DefaultSelector()
        for sv in servers:
            sel.register(sv.presser.sock, selectors.EVENT_READ, sv.presser)
        rows = []
        for listeners in (1, 8):
            for sv in servers:
                for st in sv.streams:
                    sel.unregister(st.sock)
                    st.close()
                sv.streams = sv.listen(listeners)
                for st in sv.streams:
                    sel.register(st.sock, selectors.EVENT_READ, st)
            wait_until(sel, lambda: all(st.got for sv in servers for st in sv.streams), time.perf_counter() + 10)
            # the first rounds warm every server up: 20, and before the first row enough for each server's WAL to
            # have been copied into its file and started over once (256 commits), so both press into a reused WAL
            warm = WARM_FIRST if listeners == 1 else 20
            for i in range(warm + presses):
                if i == warm:
                    for sv in servers:
                        sv.state_any, sv.state_all, sv.state_first, sv.frame, sv.read = [], [], [], [], {}
                        sv.cpu = cpu_seconds(sv.proc.pid)
                        sv.timed, sv.listeners = True, listeners
                for sv in servers[i % len(servers):] + servers[:i % len(servers)]:    # who goes first rotates
                    press(sv, sel, frame=sv is not anchor)
                    time.sleep(GAP)
                if time.monotonic() > deadline:
                    raise SystemExit("stopped at the deadline")
            for sv in servers:
                sv.timed = False
            rows.append((listeners, {sv.name: (summary(sv.state_any), summary(sv.state_all),
                                               summary(sv.state_first), summary(sv.frame) if sv.frame else None,
                                               (cpu_seconds(sv.proc.pid) - sv.cpu) * 1000 / presses,
                                               {k: summary(v) for k, v in sv.read.items()})
                                     for sv in servers}))
        rss_after = {sv.name: rss_kib(sv.proc.pid) for sv in servers}
        for sv in servers:
            for st in sv.streams:
                st.close()
            sv.presser.close()
            for close in sv.closers:
                close()
    finally:
        for sv in servers:
            children = traced_children(sv.proc.pid) if args.strace else []
            for child in children:            # strace detaches on SIGINT and leaves the server running: stop it,
                os.kill(child, 2)             # and strace ends with it
            if children:
                try:
                    sv.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
            stop_server(sv.proc)
            for child in children:            # a SIGINT that strace let fall while it detached: once more, untraced
                stop_pid(child)
        if args.strace:
            for sv in servers:
                strace_report(sv, tmp / sv.name / "strace", tmp / sv.name)
                if args.keep:
                    Path(args.keep).mkdir(parents=True, exist_ok=True)
                    shutil.copy(tmp / sv.name / "strace", Path(args.keep) / f"{sv.name}.strace")
        if args.trace:
            for sv in servers:
                trace_report(sv, tmp / sv.name / "trace", args.trace)
                if args.keep:
                    keep = Path(args.keep)
                    keep.mkdir(parents=True, exist_ok=True)
                    shutil.copy(tmp / sv.name / "trace", keep / f"{sv.name}.trace")
                    (keep / f"{sv.name}.presses").write_text("\n".join(json.dumps(p) for p in sv.log))
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()
    report(rows, starts, rss_after, presses=presses, rounds=rounds, load=(load0[0], load1[0]))
    return 0


def stop_pid(pid: int) -> None:
    """Stop process ``pid`` (not a child of the bench) with SIGINT if it still runs, SIGKILL after 20 s."""
    deadline = time.monotonic() + 20
    try:
        os.kill(pid, 2)
        while time.monotonic() < deadline:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return                        # ended, not yet reaped by its parent
            time.sleep(0.05)
        os.kill(pid, 9)
    except (ProcessLookupError, FileNotFoundError):
        return


def traced_children(pid: int) -> list[int]:
    """Return the processes ``pid`` (strace) started (the server it traces)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def strace_report(server: Server, log: Path, folder: Path) -> None:
    """Print how many syncs ``server``'s serving thread made on its database (files under ``folder``) between
    sending each timed press and its answer, and how many presses saw another thread sync it meanwhile.

    The serving thread is the one whose fsync of the WAL came last before the answer (the commit's: the
    answer waits for it); its syncs in that window are the press's (SQLite's own checkpoint, made by the
    committing thread, adds its syncs there)."""
    import re
    syncs = []                               # (wall time, tid, path)
    for line in log.read_text().splitlines():
        m = re.match(r"(\d+)\s+([\d.]+)\s+f(?:data)?sync\(\d+<([^>]*)>", line)
        if m and m.group(3).startswith(str(folder)) and ".db" in m.group(3):
            syncs.append((float(m.group(2)), int(m.group(1)), m.group(3)))
    per_press: dict[int, int] = {}
    others = 0
    for p in server.log:
        inside = [(t, tid, path) for t, tid, path in syncs if p["wall"] <= t <= p["wall_answer"]]
        wal = [tid for t, tid, path in inside if path.endswith("-wal")]
        serving = wal[-1] if wal else None
        n = sum(1 for _, tid, _ in inside if tid == serving)
        per_press[n] = per_press.get(n, 0) + 1
        others += any(tid != serving for _, tid, _ in inside)
    print(f"{server.name}: {len(server.log)} timed presses; fsync/fdatasync calls on its database by the thread "
          f"that served the press, between sending it and the answer: "
          + ", ".join(f"{n} in {k} presses" for n, k in sorted(per_press.items()))
          + f"; presses during which another thread synced it (the store's WAL copy): {others}")


def traced(cmd: list[str], out: Path) -> list[str]:
    """Return ``cmd`` (a server's command line) run under ``bench/press_trace.py``, its notes written to ``out``."""
    tracer = [sys.executable, str(Path(__file__).resolve().parent / "press_trace.py"), str(out)]
    if cmd[0] == sys.executable:
        return tracer + cmd[1:]
    return tracer + ["-m", "firmware.cli"] + cmd[1:]            # the ``landsend`` console script


def trace_report(server: Server, path: Path, slowest: int) -> None:
    """Print what every thread of ``server`` noted during its ``slowest`` presses (by the last phone's state)
    of each row, and one median press of the row for comparison."""
    import press_trace
    if not path.is_file():
        print(f"{server.name}: no trace written")
        return
    notes = press_trace.load(str(path))
    for listeners in sorted({p["row"] for p in server.log}):
        row = sorted((p for p in server.log if p["row"] == listeners), key=lambda p: max(p["state"]))
        picks = [("median", row[len(row) // 2])] + [(f"slowest {i + 1}", p) for i, p in
                                                     enumerate(reversed(row[-slowest:]))]
        for label, p in picks:
            t0 = int(p["t0"] * 1e9)
            marks = {"answer": int(p["answer"] * 1e9)}
            for i, ms in enumerate(p["state"]):
                marks[f"state reached phone {i + 1}"] = t0 + int(ms * 1e6)
            if p["frame"] is not None:
                marks["frame reached a phone"] = t0 + int(p["frame"] * 1e6)
            print(f"\n{server.name}, {listeners} listener(s), {label}: seq {p['seq']}, state "
                  f"{max(p['state']):.2f} ms (every phone)" + (f", frame {p['frame']:.2f} ms" if p["frame"] else ""))
            print("\n".join(press_trace.timeline(notes, t0, max(marks.values()), marks)))


def report(rows: list, starts: dict, rss_after: dict, *, presses: int, rounds: int, load: tuple) -> None:
    """Print the tables: each server against the anchor, p50 and p99."""
    names = [n for n in ("product", "before") if n in starts]

    def ms(v: float) -> str:
        return f"{v:.2f} ms"
    print(f"CPython {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; {presses} timed "
          f"presses per server and row; load average {load[0]:.2f} before, {load[1]:.2f} after")
    for name in names:
        print()
        print(f"| listeners | what | {name} p50 | anchor p50 | ratio p50 | {name} p99 | anchor p99 | ratio p99 "
              f"| {name} max | anchor max |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for listeners, got in rows:
            (pa, pl, pf, fr, pcpu, _), (aa, al, af, _, acpu, _) = got[name], got["anchor"]

            def line(what: str, mine: tuple, theirs: tuple) -> None:
                print(f"| {listeners} | {what} | {ms(mine[0])} | {ms(theirs[0])} | {mine[0] / theirs[0]:.2f}x "
                      f"| {ms(mine[1])} | {ms(theirs[1])} | {mine[1] / theirs[1]:.2f}x | {ms(mine[2])} "
                      f"| {ms(theirs[2])} |")
            line("press -> state, each phone", pa, aa)
            if listeners > 1:
                line("press -> state, the first phone", pf, af)
                line("press -> state, every phone", pl, al)
            line("press -> LED frame (vs the anchor's state, the first phone)", fr, af)
            print(f"| {listeners} | server CPU per press (every thread, mean) | {ms(pcpu)} | {ms(acpu)} "
                  f"| {pcpu / acpu:.2f}x | | | | | |")
        other = "when the bench read them" if STAMP[0] == "kernel" else "by the kernel (SO_TIMESTAMPNS)"
        if rows:
            print(f"\nThe same presses, each phone's arrival stamped {other}: p50 {name} / anchor (ratio)")
        for listeners, got in rows:
            mine, theirs = got[name][5], got["anchor"][5]
            rows_of = (("any", "each"), ("first", "first"), ("all", "every")) if listeners > 1 else (("any", "each"),)
            parts = [f"{what} {mine[k][0]:.2f} / {theirs[k][0]:.2f} ms ({mine[k][0] / theirs[k][0]:.2f}x)"
                     for k, what in rows_of]
            if "frame" in mine:
                parts.append(f"frame {mine['frame'][0]:.2f} ms ({mine['frame'][0] / theirs['first'][0]:.2f}x)")
            print(f"  {listeners} listener(s): " + "; ".join(parts))
    print()
    print(f"| start-up ({rounds} each, median) | " + " | ".join(names + ["anchor"]) + " | " +
          " | ".join(f"{n} / anchor" for n in names) + " |")
    print("|---|" + "---:|" * (2 * len(names) + 1))

    def med(values: list) -> float:
        return sorted(values)[len(values) // 2]
    t = {n: med([x for x, _, _ in v]) for n, v in starts.items()}
    r = {n: med([x for _, x, _ in v]) / 1024 for n, v in starts.items()}
    c = {n: med([x for _, _, x in v]) for n, v in starts.items()}
    print("| spawn -> first answer | " + " | ".join(f"{t[n]:.3f} s" for n in names + ["anchor"]) + " | " +
          " | ".join(f"{t[n] / t['anchor']:.2f}x" for n in names) + " |")
    print("| CPU used by the first answer (every thread) | " + " | ".join(f"{c[n]:.3f} s" for n in names + ["anchor"])
          + " | " + " | ".join(f"{c[n] / c['anchor']:.2f}x" for n in names) + " |")
    print("| VmRSS at the first answer | " + " | ".join(f"{r[n]:.1f} MiB" for n in names + ["anchor"]) + " | " +
          " | ".join(f"{r[n] / r['anchor']:.2f}x" for n in names) + " |")
    if rss_after is None:
        return
    print("| VmRSS after the presses | " + " | ".join(f"{rss_after[n] / 1024:.1f} MiB" for n in names + ["anchor"])
          + " | " + " | ".join(f"{rss_after[n] / rss_after['anchor']:.2f}x" for n in names) + " |")


if __name__ == "__main__":
    sys.exit(main())
