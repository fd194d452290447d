"""Benchmark: the daemon's memory stays flat as one match grows (issue 18 item 9).

Run from the repository root::

    .venv/bin/python bench/bench_memory.py                   # 100,000 events (minutes; see bench/README.md)
    .venv/bin/python bench/bench_memory.py --events 20000    # a shorter curve

A real ``landsend serve --sim`` on loopback, its database on ``/dev/shm``
when there is one (SQLite still syncs every commit; on tmpfs that costs
nothing, so the bench measures memory, not the disk). One phone claims the
table and opens its live stream (drained by a thread, as a page does), a
second phone keeps a stream open too; then the phone sends commands, each
with a ``client_id`` as the page does, all in **one match**: pegs (every
third one a press of the simulated board's first button, ``/api/sim/press``),
and a new game whenever one is over, with an undo every 50 commands and
``GET /api/history?since=<seq>`` every 10 (as the page asks for a card's
steps); after each command it reads ``GET /api/table``. The daemon's resident memory (VmRSS from ``/proc``) is read after 1k,
10k and then every 10k events, up to ``--events``.

Target (issue 18): RSS after 100,000 events within 5 MB of RSS after 10,000.
It prints the curve, the growth per event between 10k and the end, and the
ratio of the final RSS to the 10k one.

``--workers`` (issue 38 item 3) measures the advice's job worker instead, as the daemon runs it: the real
``python web/jobworker.py`` with the unit's environment, the table's game to warm (``--game``) and the retire line
of a Zero 2 W (``--line``, MiB, what ``LANDSEND_WORKER_MAX_MB`` sets: 96, the worker's own line there, where
``MemTotal`` is about 430 MiB and a fifth of it is under the line's floor of 96). Its RSS and PSS (``/proc/PID/smaps_rollup``) are read when its imports are done,
when its warm-up (while it waits, up to half the line) has ended, after each answer of a stream of the game's
advice (leads, discards with the matching phase, the two kinds the page asks most), and every 10 ms in between
(the peak inside a call); it runs until the worker retires (past the line, after its answer). Then two workers
at once, as the job pool runs them (``RUNNING`` 2), each with its own stream: the peak of their sum. And the
daemon itself, idle with a table (``landsend serve --sim``), for the budget beside them::

    .venv/bin/python bench/bench_memory.py --workers                          # lands-end-4, then lands-end
    .venv/bin/python bench/bench_memory.py --workers --game lands-end-3 --line 102
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_streams import ROOT, Phone, free_port, rss_kib, serve_command, stop_server, unit_environment  # noqa: E402

DEADLINE = 3600.0                      # seconds: the whole bench stops by then whatever happens
TARGET_MB = 5.0


def checkpoints(total: int) -> list[int]:
    """Return the event counts at which memory is read: 1k, 10k, then every 10k up to ``total``."""
    marks = [m for m in (1_000, 10_000) if m < total]
    marks += list(range(20_000, total, 10_000))
    return marks + [total]


def mem_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of ``pid`` in KiB, from ``/proc/PID/smaps_rollup`` ((0, 0) once it is gone)."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def cpu_ticks(pid: int) -> int:
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except (OSError, IndexError, ValueError):
        return -1


def advice_calls(game: str, n: int, seed: str) -> list:
    """``n`` calls of the job worker as the page's jobs make them (web/advice.py's plans) for a table of ``game``:
    leads (``/api/lead``) and, every third call, a dealt hand's discards with the matching phase (``/api/advise``)."""
    import random
    from companion import DECK, get_ruleset
    rules = get_ruleset(game)
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 3 == 2:
            cards = [str(c) for c in rng.sample(DECK, rules.dealt)]
            kw = {"cards": cards, "game": game, "dealer": None, "seat": 1 if rules.players > 2 else None,
                  "pocket_owner": 0 if rules.pocket_owner == "rotate" else None, "scores": None,
                  "pegging": True}
            if rules.players == 2:
                kw["dealer"] = bool(i % 2)
            out.append(("companion.advice.discard", "advise", kw,
                        [("ranking the discards by the hand", {"pegging": False}),
                         ("adding what each keeps in the pegging", {"pegging": True})]))
        else:
            cards = [str(c) for c in rng.sample(DECK, rules.held + 1)]
            out.append(("companion.advice.pegging_multi", "rank_plays",
                        {"hand": cards[:-1], "seen": [], "game": game, "played": [], "dealer": False,
                         "turnup": cards[-1], "seat": 1 if rules.players > 2 else None},
                        [("ranking every play", {})]))
    return out


class BenchWorker:
    """One ``python web/jobworker.py``, started as web.jobpool starts it, fed calls, its memory sampled."""

    def __init__(self, game: str, line: float, unit: dict) -> None:
        from web.jobworker import WARM_RULES_ENV, warm_rules_value
        from companion import get_ruleset
        env = dict(os.environ, **unit, LANDSEND_WORKER_MAX_MB=str(line),
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        env[WARM_RULES_ENV] = warm_rules_value([get_ruleset(game)])
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "web" / "jobworker.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=str(ROOT), env=env)
        self.peak = (0, 0)
        self.retired = False

    def sample(self) -> tuple[int, int]:
        m = mem_kib(self.proc.pid)
        self.peak = max(self.peak, m)
        return m

    def settled(self, quiet: float = 1.5, limit: float = 300.0) -> float:
        """Wait until the worker's CPU time stops moving for ``quiet`` seconds (its warm-up is over); its seconds."""
        t0 = time.monotonic()
        last, since = cpu_ticks(self.proc.pid), time.monotonic()
        while time.monotonic() - t0 < limit:
            time.sleep(0.1)
            self.sample()
            now = cpu_ticks(self.proc.pid)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
        return since - t0

    def call(self, frame) -> bool:
        """Send one call, wait for its answer; True while the worker stays (False: it retired after this one)."""
        from web.jobworker import read_frame, write_frame
        write_frame(self.proc.stdin, frame)
        while True:
            out = read_frame(self.proc.stdout)
            if out is None:
                raise SystemExit("the worker ended without an answer")
            if out[0] == "done":
                self.retired = bool(out[2])
                return not self.retired
            if out[0] == "failed":
                raise SystemExit(f"the worker failed a call: {out[1:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def sampler(workers: list, stop, sums: list) -> None:
    """Every 10 ms: each worker's memory, and the peak of their sum."""
    while not stop.is_set():
        tot = [0, 0]
        for w in workers:
            r, p = w.sample()
            tot[0] += r
            tot[1] += p
        sums[0] = max(sums[0], tot[0])
        sums[1] = max(sums[1], tot[1])
        time.sleep(0.01)


def worker_memory(game: str, line: float, calls: int, unit: dict) -> None:
    """The job worker's memory for a table of ``game``: one worker's life to its retirement, then two at once."""
    import threading
    mib = lambda kib: f"{kib / 1024:.1f}"        # noqa: E731
    print(f"\n### {game}: the job worker, retire line {line:g} MiB, warm-up budget {line / 2:g} MiB "
          f"(load average {os.getloadavg()[0]:.1f})\n")
    w = BenchWorker(game, line, unit)
    time.sleep(0.5)
    start = w.sample()
    warm_s = w.settled()
    warm = w.sample()
    print("| when | RSS (MiB) | PSS (MiB) |\n|---|---:|---:|")
    print(f"| 0.5 s after its start (its imports; warming) | {mib(start[0])} | {mib(start[1])} |")
    print(f"| warm (idle again after {warm_s:.1f} s) | {mib(warm[0])} | {mib(warm[1])} |")
    stop = threading.Event()
    sums = [0, 0]
    th = threading.Thread(target=sampler, args=([w], stop, sums), daemon=True)
    th.start()
    stream = advice_calls(game, calls, f"memory-{game}")
    done, after = 0, []
    before_last = warm
    for frame in stream:
        before_last = w.sample()
        stays = w.call(frame)
        done += 1
        after.append(w.sample())
        if done in (1, 10, 50, 100, 200) and stays:
            print(f"| after {done} calls | {mib(after[-1][0])} | {mib(after[-1][1])} |")
        if not stays:
            break
    stop.set()
    th.join()
    if w.retired:
        w.proc.wait(timeout=30)
    else:
        w.stop()
    if w.retired:
        print(f"| the answer it retired after (call {done}; before it {mib(before_last[0])}) | "
              f"{mib(after[-1][0])} | {mib(after[-1][1])} |")
    else:
        print(f"| after the stream's {done} calls: not retired | {mib(after[-1][0])} | {mib(after[-1][1])} |")
    print(f"| peak, sampled every 10 ms | {mib(w.peak[0])} | {mib(w.peak[1])} |")
    grew = max(b[0] - a[0] for a, b in zip([warm] + after, after))
    print(f"\nthe most one call added: {mib(grew)} MiB RSS; calls to retirement: {done if w.retired else 'more than ' + str(done)}")
    # two at once: both warm at the same time, then each its own stream, at the same time
    ws = [BenchWorker(game, line, unit) for _ in range(2)]
    time.sleep(0.5)
    for x in ws:
        x.settled()
    warm2 = [x.sample() for x in ws]
    stop = threading.Event()
    sums = [0, 0]
    th = threading.Thread(target=sampler, args=(ws, stop, sums), daemon=True)
    th.start()

    def feed(x, seed):
        for frame in advice_calls(game, calls, seed):
            if not x.call(frame):
                break
    feeders = [threading.Thread(target=feed, args=(x, f"memory-{game}-{i}")) for i, x in enumerate(ws)]
    for f in feeders:
        f.start()
    for f in feeders:
        f.join()
    stop.set()
    th.join()
    for x in ws:
        x.stop()
    print(f"two workers at once: warm {mib(warm2[0][0] + warm2[1][0])} MiB RSS / {mib(warm2[0][1] + warm2[1][1])} "
          f"MiB PSS together; the peak of their sum {mib(sums[0])} MiB RSS / {mib(sums[1])} MiB PSS "
          f"(each to its retirement: {', '.join('retired' if x.retired else 'not retired' for x in ws)})")


def daemon_memory(unit: dict) -> None:
    """The daemon's memory idle with a table (``landsend serve --sim``, two phones' streams open)."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    tmp = Path(tempfile.mkdtemp(prefix="landsend-bench-memory-", dir=base))
    (tmp / "config.toml").write_text("")
    env = dict(os.environ, **unit, LANDSEND_STATE_DIR=str(tmp), LANDSEND_CONFIG=str(tmp / "config.toml"),
               LANDSEND_LOG="WARNING")
    port = free_port()
    proc = subprocess.Popen(serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(port),
                                               "--db", str(tmp / "landsend.db")],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=ROOT)
    host = Phone("127.0.0.11", port)
    try:
        for _ in range(600):
            try:
                status, body = host.request("GET", "/api/session")
                break
            except OSError:
                time.sleep(0.05)
        host.csrf = json.loads(body)["csrf"]
        host.request("POST", "/api/claim", {})
        host.open_stream()
        for i in range(50):
            host.request("POST", "/api/command", {"type": "peg", "side": ("p1", "p2")[i % 2], "points": 1,
                                                  "client_id": f"mem-{i}"})
        time.sleep(6)             # the daemon starts its first job worker 5 s after the page first answers
        rss, pss = mem_kib(proc.pid)
        kids = [int(x) for x in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        print(f"\nthe daemon, idle with a table after 50 commands: RSS {rss / 1024:.1f} MiB, PSS {pss / 1024:.1f} MiB "
              f"(its worker started ahead: {', '.join(f'{mem_kib(k)[0] / 1024:.1f} MiB RSS' for k in kids) or 'none'})")
    finally:
        host.close()
        stop_server(proc)
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=100_000, help="events in the match (100,000)")
    ap.add_argument("--bare", action="store_true", help="without the environment the board's unit gives the "
                    "daemon (systemd/landsend.service: the allocator's tunables)")
    ap.add_argument("--workers", action="store_true", help="the job worker's memory instead (issue 38 item 3)")
    ap.add_argument("--game", default=None, help="--workers: the table's game (default: lands-end-4, then lands-end)")
    ap.add_argument("--line", type=float, default=96.0,
                    help="--workers: the retire line, MiB (96: a Zero 2 W's, web/jobworker.py max_rss_mb)")
    ap.add_argument("--calls", type=int, default=400, help="--workers: calls at most in a worker's stream")
    args = ap.parse_args(argv)
    if args.workers:
        unit = {} if args.bare else unit_environment()
        sys.path.insert(0, str(ROOT))
        print(f"CPython {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; the unit's "
              f"environment: {' '.join(f'{k}={v}' for k, v in unit.items()) or 'none (--bare)'}")
        for game in ([args.game] if args.game else ["lands-end-4", "lands-end"]):
            worker_memory(game, args.line, args.calls, unit)
        daemon_memory(unit)
        return 0
    if args.events < 1_000:
        ap.error("--events must be at least 1000")
    deadline = time.monotonic() + DEADLINE
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    tmp = Path(tempfile.mkdtemp(prefix="landsend-bench-memory-", dir=base))
    (tmp / "config.toml").write_text("")
    unit = {} if args.bare else unit_environment()
    env = dict(os.environ, **unit, LANDSEND_STATE_DIR=str(tmp), LANDSEND_CONFIG=str(tmp / "config.toml"),
               LANDSEND_LOG="WARNING")
    port = free_port()
    log = open(tmp / "daemon.log", "wb")
    proc = subprocess.Popen(serve_command() + ["--sim", "--host", "127.0.0.1", "--port", str(port),
                                               "--db", str(tmp / "landsend.db")],
                            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    host, watcher = Phone("127.0.0.11", port), Phone("127.0.0.12", port)
    curve: list[tuple[int, int, float]] = []
    try:
        while True:
            try:
                status, body = host.request("GET", "/api/session")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the daemon did not start: {(tmp / 'daemon.log').read_text()[-2000:]}")
                time.sleep(0.05)
        host.csrf = json.loads(body)["csrf"]
        status, body = host.request("POST", "/api/claim", {})
        assert status == 200, body
        status, body = watcher.request("GET", "/api/session")
        host.open_stream()
        watcher.open_stream()
        status, body = host.request("GET", "/api/table")
        table = json.loads(body)
        match = table["match_id"]
        started = time.monotonic()
        events = table["seq"] + 1
        sent = 0
        marks = checkpoints(args.events)
        while events < args.events:
            if time.monotonic() > deadline:
                raise SystemExit(f"stopped at the deadline after {events} events")
            if sent % 50 == 49 and table.get("can_undo"):
                command = {"type": "undo"}
            elif table.get("result"):
                command = {"type": "new_game"}
            else:
                command = {"type": "peg", "side": ("p1", "p2")[sent % 2], "points": 1}
            if command["type"] == "peg" and sent % 3 == 2:     # a press of the board's first button
                command, route = {"button": "p1"}, "/api/sim/press"
            else:
                command["client_id"] = f"bench-{sent}"
                route = "/api/command"
            status, body = host.request("POST", route, command)
            if status != 200:
                raise SystemExit(f"{route} {command} answered {status}: {body[:300]!r}")
            answer = json.loads(body)
            if "table" in answer:                      # the button's answer carries the table
                table = answer["table"]
            else:                                      # a command's answers its event: the page's state comes
                status, body = host.request("GET", "/api/table")     # on the stream; the bench reads it
                table = json.loads(body)
            sent += 1
            events = table["seq"] + 1
            if sent % 10 == 0:
                status, _ = host.request("GET", f"/api/history?since={table['seq']}")
                assert status == 200
            while marks and events >= marks[0]:
                curve.append((marks.pop(0), rss_kib(proc.pid), time.monotonic() - started))
                print(f"{curve[-1][0]:>8,} events  RSS {curve[-1][1] / 1024:7.1f} MB  ({curve[-1][2]:.0f} s)",
                      flush=True)
        assert table["match_id"] == match, "the bench left its match"
    finally:
        for p in (host, watcher):
            p.close()
        stop_server(proc)
        log.close()
        db = tmp / "landsend.db"
        size = db.stat().st_size if db.exists() else 0
        shutil.rmtree(tmp, ignore_errors=True)          # the database, its log, the voice's files: all of it

    at = dict((n, kib) for n, kib, _ in curve)
    ten, last = at.get(10_000), curve[-1]
    print()
    print(f"CPython {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"{sent:,} commands, one match of {last[0]:,} events; database {size / 1e6:.1f} MB on "
          f"{'tmpfs' if base else 'disk'}; {last[2]:.0f} s; the daemon's environment from its unit: "
          f"{' '.join(f'{k}={v}' for k, v in unit.items()) or 'none (--bare)'}")
    print("| events | daemon RSS (MB) |")
    print("|---:|---:|")
    for n, kib, _ in curve:
        if n in (1_000, 10_000, last[0]):
            print(f"| {n:,} | {kib / 1024:.1f} |")
    if ten is not None:
        growth = (last[1] - ten) / 1024
        print(f"\nRSS({last[0]:,}) - RSS(10,000) = {growth:+.2f} MB "
              f"({(last[1] - ten) * 1024 / max(1, last[0] - 10_000):+.1f} bytes per event; "
              f"ratio {last[1] / ten:.3f}); target: within {TARGET_MB:.0f} MB: "
              f"{'met' if abs(growth) <= TARGET_MB else 'NOT met'}")
        fifty = at.get(50_000)
        if fifty is not None:
            grew = (fifty - ten) / 1024
            print(f"RSS(50,000) - RSS(10,000) = {grew:+.2f} MB; issue 25's target: within 1 MB: "
                  f"{'met' if abs(grew) <= 1.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
