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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=100_000, help="events in the match (100,000)")
    ap.add_argument("--bare", action="store_true", help="without the environment the board's unit gives the "
                    "daemon (systemd/landsend.service: the allocator's tunables)")
    args = ap.parse_args(argv)
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
