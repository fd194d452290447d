"""Two code trees' pegging advice, position by position, interleaved: the per-position CPU ratio new / old.

Run from the repository root::

    .venv/bin/python bench/ab_pegging.py OLD_DIR                 # this tree against OLD_DIR, the lead row, 200 positions
    .venv/bin/python bench/ab_pegging.py OLD_DIR --row mid --positions 200 --rounds 3
    git archive <commit> | tar -x -C /tmp/old                   # an older checkout to compare with

This machine's speed swings by a third from one run to the next at a load average under 1 (bench/README.md), so two
runs of ``bench_pegging.py`` minutes apart cannot tell a 10% change. Here each tree answers in its own worker
process (its ``companion`` imported from its own directory, cold: no warm-up), both pinned to one core
(``taskset``), and the seeded positions of a target row go to them alternately (old then new, then new then old):
a swing of the machine falls on both. It prints each tree's mean, p50 and p99 and the median and overall ratio of
new to old, per round. Both trees must answer with the same figures (checked per position).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def worker(code: str, kind: str, n: int) -> None:
    """Answer position indexes on stdin with ``cpu_ms figures_hash`` lines, from the tree ``code``."""
    sys.argv = [sys.argv[0], "--code", code]          # bench_pegging imports that tree's companion
    sys.path.insert(0, str(HERE.parent))
    import bench_pegging as bp
    import companion
    assert Path(companion.__file__).resolve().is_relative_to(Path(code).resolve()), companion.__file__
    after_call = bp.job_worker_after_call()
    after_call(0)
    pos = bp.target_positions(kind, n)
    print("ready", flush=True)
    calls = 0
    for line in sys.stdin:
        i = int(line)
        t0 = time.process_time()
        figs = bp.run_position(pos[i])
        t = time.process_time() - t0
        calls += 1
        after_call(calls)
        print(f"{1000 * t:.4f} {hashlib.sha1(repr(figs).encode()).hexdigest()[:16]}", flush=True)


def stats(ms: list[float]) -> str:
    s = sorted(ms)
    return (f"mean {sum(s) / len(s):.1f} p50 {s[len(s) // 2]:.1f} p99 {s[min(len(s) - 1, int(0.99 * len(s)))]:.1f} "
            f"max {s[-1]:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", nargs="?", help="the older tree's directory")
    ap.add_argument("--row", default="lead", help="a target row of bench_pegging.py (lead, mid, lands-end-3, ...)")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--cpu", default="1", help="the core both workers are pinned to (taskset -c)")
    ap.add_argument("--worker", nargs=3, metavar=("CODE", "ROW", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return
    if not args.old:
        ap.error("give the older tree's directory")
    pin = ["taskset", "-c", args.cpu] if shutil.which("taskset") else []
    root = HERE.parent.parent
    print(f"{args.row}: {args.positions} positions, new = {root}, old = {args.old}, "
          f"load average {os.getloadavg()[0]:.1f}" + ("" if pin else " (no taskset: not pinned)"))

    def spawn(code):
        p = subprocess.Popen(pin + [sys.executable, str(HERE), "--worker", str(code), args.row, str(args.positions)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(code))
        if p.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker for {code} did not start")
        return p

    for rnd in range(args.rounds):
        old, new = spawn(Path(args.old).resolve()), spawn(root)
        t_old, t_new = [], []
        for i in range(args.positions):
            answers = {}
            for name, p in ((("old", old), ("new", new)) if i % 2 == 0 else (("new", new), ("old", old))):
                p.stdin.write(f"{i}\n")
                p.stdin.flush()
                answers[name] = p.stdout.readline().split()
            if answers["old"][1] != answers["new"][1]:
                raise SystemExit(f"position {i}: the two trees' figures differ")
            t_old.append(float(answers["old"][0]))
            t_new.append(float(answers["new"][0]))
        for p in (old, new):
            p.stdin.close()
            p.wait()
        ratios = sorted(b / a for a, b in zip(t_old, t_new))
        print(f"round {rnd + 1}: old {stats(t_old)} | new {stats(t_new)} | new / old: median "
              f"{ratios[len(ratios) // 2]:.3f}, of the sums {sum(t_new) / sum(t_old):.3f}; every figure equal")


if __name__ == "__main__":
    main()
