"""Benchmark the board: button press -> frame pushed (p50/p99), daemon start, RSS and idle CPU.

Run from the repository root::

    .venv/bin/python bench/bench_board.py            # ~25 s
    .venv/bin/python bench/bench_board.py --quick    # fewer presses, shorter idle window

What it measures, all with the simulator backend (``--sim``):

1. **In process**: the daemon's own ``build(sim=True)`` on a SQLite table in
   a temporary directory. A simulated button press (mock pin low, clock on,
   pin high -> ``table.submit`` -> subscriber -> render thread -> strip) is
   timed until the simulated strip accepts the frame showing the new state.
   Presses alternate peg / hold-undo so the game never ends. The baseline,
   measured in the same process, is a bare ``render()`` of the same snapshot
   and a bare ``table.submit`` of the same commands; latencies are also given
   as ratios to them.
2. **The real process**: ``python -m firmware.daemon --sim`` started as
   systemd would (a notify socket): time from spawn to ``READY=1`` and to the
   first HTTP answer, ``POST /api/sim/press`` -> ``GET /api/board`` showing the
   new seq over HTTP (p50/p99), resident memory (VmRSS) after start and after
   the presses, and CPU time and context switches (all threads) over an idle
   window -- the board is static then, so it should cost (almost) nothing.

The results are printed as Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.table import Table  # noqa: E402
from firmware.config import DEFAULTS  # noqa: E402
from firmware.daemon import build  # noqa: E402
from firmware.render import Light, render  # noqa: E402


def pct(values: list[float], p: float) -> float:
    """Return the ``p``-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def in_process(presses: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.open(str(Path(tmp) / "bench.db"))
        d = build(DEFAULTS, sim=True, table=table, web=False)
        shown: dict[int, float] = {}
        cond = threading.Condition()

        def on_show(frame) -> None:
            seq = (d.loop.snapshot or {}).get("seq")
            with cond:
                shown[seq] = time.perf_counter()
                cond.notify_all()
        d.strip.on_show = on_show
        latencies, submits = [], []
        try:
            for i in range(presses):
                start = time.perf_counter()
                d.buttons.press("p1", hold=bool(i % 2))
                submitted = time.perf_counter()
                seq = table.snapshot()["seq"]
                with cond:
                    cond.wait_for(lambda: seq in shown, timeout=5)
                latencies.append(shown[seq] - start)
                submits.append(submitted - start)
            snap = table.snapshot()
            geometry, light = d.geometry, Light.from_config(DEFAULTS.strip)
            renders = []
            for _ in range(2000):
                t = time.perf_counter()
                render(snap, geometry, settings=light)
                renders.append(time.perf_counter() - t)
            bare_submit = []
            for i in range(min(presses, 200)):
                cmd = {"type": "undo"} if i % 2 else {"type": "peg", "side": "p2", "points": 1}
                t = time.perf_counter()
                table.submit(cmd)
                bare_submit.append(time.perf_counter() - t)
        finally:
            d.close()
            table.close()
    return {"latency": latencies, "press_to_submitted": submits, "render": renders, "submit": bare_submit}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_stats(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])           # utime + stime, all threads
    switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches += int(line.split()[1])
    return {"rss_kb": rss, "cpu_s": ticks / os.sysconf("SC_CLK_TCK"), "switches": switches,
            "threads": len(list(Path(f"/proc/{pid}/task").iterdir()))}


def real_process(presses: int, idle_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        notify = str(Path(tmp) / "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify)
        sock.settimeout(30)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = dict(os.environ, NOTIFY_SOCKET=notify, LANDSEND_STATE_DIR=tmp, LANDSEND_LOG="WARNING")
        env.pop("WATCHDOG_USEC", None)
        spawned = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "firmware.daemon", "--sim", "--host", "127.0.0.1",
                                 "--port", str(port), "--db", str(Path(tmp) / "bench.db")],
                                env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
        try:
            while b"READY=1" not in sock.recv(200):
                pass
            ready = time.perf_counter() - spawned
            with urllib.request.urlopen(base + "/api/board", timeout=10) as r:
                r.read()
            first_http = time.perf_counter() - spawned
            time.sleep(1.0)
            after_start = proc_stats(proc.pid)
            http = []
            for i in range(presses):
                start = time.perf_counter()
                req = urllib.request.Request(base + "/api/sim/press", method="POST",
                                             data=json.dumps({"button": "p3", "hold": bool(i % 2)}).encode(),
                                             headers={"Content-Type": "application/json", "Origin": base})
                with urllib.request.urlopen(req, timeout=10) as r:
                    seq = json.loads(r.read())["table"]["seq"]
                while True:
                    with urllib.request.urlopen(base + "/api/board", timeout=10) as r:
                        if json.loads(r.read())["seq"] == seq:
                            break
                http.append(time.perf_counter() - start)
            time.sleep(1.0)
            idle0 = proc_stats(proc.pid)
            time.sleep(idle_s)
            idle1 = proc_stats(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            sock.close()
    return {"ready_s": ready, "first_http_s": first_http, "http": http, "rss_start_kb": after_start["rss_kb"],
            "rss_after_kb": idle1["rss_kb"], "threads": idle1["threads"],
            "idle_cpu_pct": 100 * (idle1["cpu_s"] - idle0["cpu_s"]) / idle_s,
            "idle_switches_per_s": (idle1["switches"] - idle0["switches"]) / idle_s, "idle_s": idle_s,
            "exit": proc.returncode}


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer presses and a 5 s idle window")
    args = ap.parse_args(argv)
    presses, idle = (100, 5.0) if args.quick else (400, 10.0)

    a = in_process(presses)
    b = real_process(presses // 2, idle)
    render_p50 = statistics.median(a["render"])
    submit_p50 = statistics.median(a["submit"])
    print(f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"CPython {platform.python_version()}; simulator backend.\n")
    print("| button press -> frame pushed | p50 | p99 | p50 vs bare render | p50 vs bare submit |")
    print("|---|---:|---:|---:|---:|")
    lat = a["latency"]
    print(f"| in process, {len(lat)} presses (peg / hold-undo) | {ms(statistics.median(lat))} | "
          f"{ms(pct(lat, 99))} | {statistics.median(lat) / render_p50:.0f}x | "
          f"{statistics.median(lat) / submit_p50:.1f}x |")
    sub = a["press_to_submitted"]
    print(f"| of which press -> table stored | {ms(statistics.median(sub))} | {ms(pct(sub, 99))} | | |")
    h = b["http"]
    print(f"| over HTTP, {len(h)} presses: POST /api/sim/press -> GET /api/board shows it | "
          f"{ms(statistics.median(h))} | {ms(pct(h, 99))} | {statistics.median(h) / render_p50:.0f}x | "
          f"{statistics.median(h) / submit_p50:.1f}x |")
    print(f"| baseline: bare `render()` of the same snapshot | {ms(render_p50)} | {ms(pct(a['render'], 99))} | 1x | |")
    print(f"| baseline: bare `table.submit` (SQLite) | {ms(submit_p50)} | {ms(pct(a['submit'], 99))} | | 1x |")
    print()
    print("| daemon process (`python -m firmware.daemon --sim`) | value |")
    print("|---|---:|")
    print(f"| spawn -> READY=1 (imports included) | {b['ready_s']:.2f} s |")
    print(f"| spawn -> first HTTP answer | {b['first_http_s']:.2f} s |")
    print(f"| RSS after start | {b['rss_start_kb'] / 1024:.1f} MiB |")
    print(f"| RSS after {len(h)} presses | {b['rss_after_kb'] / 1024:.1f} MiB |")
    print(f"| threads | {b['threads']} |")
    print(f"| idle CPU over {b['idle_s']:.0f} s | {b['idle_cpu_pct']:.2f} % |")
    print(f"| idle context switches (all threads) | {b['idle_switches_per_s']:.1f} /s |")
    print(f"| exit status after SIGTERM | {b['exit']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
