"""Benchmark pegging advice: leads, mid-count positions and discards with the matching phase, against brute force.

Run from the repository root::

    .venv/bin/python bench/bench_pegging.py            # 200 positions a row (the issue-25 targets), then the rest
    .venv/bin/python bench/bench_pegging.py --quick    # 30 positions a row, 10/100 brute-force positions, 10 discards
    .venv/bin/python bench/bench_pegging.py --full     # also 1,000 discard rankings (~10 min)
    .venv/bin/python bench/bench_pegging.py --before /tmp/old --targets-only
                                                       # the target rows for an older checkout too, side by side

* **The target rows** (issue 25 item 3): the same seeded positions for every row (200 by
  default, ``--positions N``): a two-hand four-card lead ranking, a two-hand mid-count
  position, and a four-card lead of every three- and four-hand preset (sampled, 1,000
  deals). Each row reports the mean, p50 and p99 of CPU and wall time. They run in a worker
  process per code tree: the checkout itself and, with ``--before DIR``, an older checkout
  (its ``companion`` imported in its own process), both at the same time on the same
  positions, so the load is shared alike; every figure of every position (points, nets and
  standard errors) is checked equal between the two.

* "lead": ``rank_plays`` on a random four-card hand with a turn-up (Land's End and
  cribbage alternately): every lead over all 178,365 hands the other player could hold.
* "mid-count": ``rank_plays`` at a random position after some cards were played at
  random (the other player holding 1 to 3 cards).
* three- and four-hand (``companion.advice.pegging_multi``): a four-card lead of every such preset
  (a seeded sample of 1,000 deals of the other players' cards, standard errors reported), and
  late positions (the others holding at most 2 cards together: exact) against the brute force
  of tests/test_pegging_multi.py over explicit card deals, checked equal.
* "discards": ``advise(..., pegging=True)`` on a random six-card deal: 15 discards, each
  with its kept hand's whole matching phase over every hand the other player could keep.
* "brute force", the baseline: the explicit-card enumeration of tests/test_pegging_advice.py
  (its own rules, its own policy in Fractions, every card hand) on mid-count positions where
  the other player holds at most 2 cards, in the same process. At 10, 100 and 1,000 positions
  the fast path runs on all of them and the brute force on the first 100 at most (10 with
  ``--quick``; it takes about 0.3 s a position, so 1,000 would be ~5 minutes on its own); both
  are timed, then the bench checks that they gave the same figures on that subset and reports
  the ratio brute force / fast on the same positions.

The target rows' workers are warmed first as the product's job worker warms itself while it waits for its first
call (web/jobworker.py ``warm_steps`` and ``warm_multi_steps``: a few seeded rankings of the table's game, here the
rows' games, other positions than these: the two-hand ones until the warm-up's memory budget, then the few leads
of the three-/four-hand ones);
``--cold-worker`` times them in cold workers instead (a worker's first calls).

Times are CPU seconds of this process per position (``time.process_time``) and wall seconds
(``time.perf_counter``), p50/p99 over the run, after one cold call (reported apart: the policy's caches start empty in a fresh
process). CPU time, not wall time, because the development machine is shared by several
engineers' test runs (load average 20-40 on 2 cores while this was written: wall times
ran 10-30x the CPU time); the load average and the run's wall time are printed too, and
the ratio to the brute force in the same run is the figure to compare.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# --code DIR (a worker for an older checkout): its companion, this checkout's position generators
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv else ROOT
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(CODE))

from companion import DECK, get_ruleset  # noqa: E402
from companion.advice.discard import advise  # noqa: E402
from companion.advice.pegging import rank_plays  # noqa: E402
from test_pegging_advice import brute_rank, random_position  # noqa: E402
import test_pegging_multi as multi  # noqa: E402
from companion.advice.pegging_multi import rank_plays_multi  # noqa: E402

GAMES = ("lands-end", "cribbage")
MULTI_LEADS = 10        # three- and four-hand rows: positions per game
BRUTE_SUBSET = 100      # the brute force takes ~0.3 s a position: at most this many of a row's positions


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


WALL: list = []      # the wall seconds of every timed call, in order (printed beside the CPU figures)


def timed(fn):
    """CPU seconds of ``fn()`` in this process (the shared machine's wall clock runs far slower under load);
    its wall seconds go to WALL."""
    w0, t0 = time.perf_counter(), time.process_time()
    fn()
    t = time.process_time() - t0
    WALL.append(time.perf_counter() - w0)
    return t


def lead_positions(n, rng):
    out = []
    for i in range(n):
        cards = rng.sample(DECK, 5)
        out.append((get_ruleset(GAMES[i % 2]), cards[:4], cards[4]))
    return out


def mid_positions(n, rng, max_other=3):
    out = []
    while len(out) < n:
        rules = get_ruleset(GAMES[len(out) % 2])
        pos = random_position(rules, rng, max_other=rng.randint(1, max_other))
        if pos is not None:
            out.append((rules, pos))
    return out


def row(name, n, times, wall=None):
    ms = [1000 * t for t in times]
    wall = [1000 * t for t in (wall if wall is not None else WALL[-len(times):])]
    return (f"| {name} | {n} | {pct(ms, 0.5):.1f} ms | {pct(ms, 0.99):.1f} ms | {pct(wall, 0.5):.1f} ms | "
            f"{pct(wall, 0.99):.1f} ms | {sum(ms) / 1000:.1f} s |")


MULTI_GAMES = ("lands-end-3", "lands-end-4", "lands-end-casino-3", "lands-end-casino-4")
TARGET_ROWS = ("lead", "mid") + MULTI_GAMES


def target_positions(kind, n):
    """The seeded positions of a target row (the same in every worker and every run)."""
    rng = random.Random(f"bench-pegging-{kind}")
    if kind == "lead":
        return [("lead", r, h, u) for r, h, u in lead_positions(n, rng)]
    if kind == "mid":
        return [("mid", r, pos) for r, pos in mid_positions(n, rng)]
    rules = get_ruleset(kind)
    return [("multi", rules, h, u) for _, h, u in lead_positions(n, rng)]


def run_position(p):
    """Rank one target position; return its figures (compared between code trees)."""
    if p[0] == "lead":
        _, r, h, u = p
        a = rank_plays(h, game=r, turnup=u)
    elif p[0] == "mid":
        _, r, (m, _, t, d, u) = p
        a = rank_plays(m, game=r, played=t, dealer=d, turnup=u)
    else:
        _, r, h, u = p
        a = rank_plays_multi(h, game=r, seat=1, turnup=u)
        return [(x.card.rank, sorted((k, str(v)) for k, v in x.by_side.items()), str(x.net), x.stderr) for x in a.plays]
    return [(x.card.rank, str(x.points[0]), str(x.points[1]), str(x.net),
             None if x.reply is None else sorted((k, str(v)) for k, v in x.reply.items())) for x in a.plays]


def job_worker():
    """The product's job worker module (web/jobworker.py), loaded by path from the code tree under test."""
    import importlib.util
    path = CODE / "web" / "jobworker.py"
    spec = importlib.util.spec_from_file_location("_bench_jobworker", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def job_worker_after_call():
    """The product's job worker's ``after_call`` (what it does after each answer; an older tree without one:
    nothing)."""
    return getattr(job_worker(), "after_call", lambda calls: None)


def worker(n_by_row, warm=True):
    """Time every target row in this process as the job worker runs advice: warmed first as a fresh worker
    warms itself while it waits (its ``warm_steps``, all of them: no call interrupts it here; ``warm`` False, or an
    older tree without one: a cold worker), then one call after another, each followed by its ``after_call``
    outside the timing as in the product (after the answer is written); one JSON line per row: CPU and wall
    seconds and figures, and the warm-up's CPU seconds."""
    import hashlib
    import json
    mod = job_worker()
    after_call = getattr(mod, "after_call", lambda calls: None)
    if hasattr(mod, "warm_rules_value"):        # the product warms the table's game: here the rows' games
        games = list(GAMES) + [k for k, _ in n_by_row if k in MULTI_GAMES]
        os.environ[mod.WARM_RULES_ENV] = mod.warm_rules_value([get_ruleset(g) for g in games])
    steps = getattr(mod, "warm_steps", lambda: None)() if warm else None
    # a table plays one game, so the product's worker warms one: this one times the two-hand rows and the three-/
    # four-hand ones, so it warms the two-hand games to the budget as before, then the others' few leads
    multi_steps = getattr(mod, "warm_multi_steps", lambda: None)() if warm else None
    t0 = time.process_time()
    n_warm = 0
    if steps is not None:                       # as the worker warms while idle: until its memory budget
        budget = mod.max_rss_mb() / 2 if hasattr(mod, "max_rss_mb") else None
        for _ in steps:
            n_warm += 1
            if budget is not None and mod.rss_mb() > budget:
                break
    for _ in multi_steps or ():
        n_warm += 1
    print(json.dumps({"row": "warm-up", "cpu": [time.process_time() - t0], "wall": [0], "figs": [n_warm]}),
          flush=True)
    calls = 0
    after_call(calls)
    for kind, n in n_by_row:
        pos = target_positions(kind, n)
        cpu, wall, figs = [], [], []
        for p in pos:
            w0, t0 = time.perf_counter(), time.process_time()
            f = run_position(p)
            cpu.append(time.process_time() - t0)
            wall.append(time.perf_counter() - w0)
            figs.append(hashlib.sha1(repr(f).encode()).hexdigest()[:16])
            calls += 1
            after_call(calls)
        print(json.dumps({"row": kind, "cpu": cpu, "wall": wall, "figs": figs}), flush=True)


def target_rows(n, before, n_before, n_multi=None, n_before_multi=None, jobs=1, warm=True, rows=TARGET_ROWS):
    """Run the target rows in a worker for this checkout and (``before``) one for an older one, side by side
    (``warm``: each worker warmed first as the product's is; False: cold workers)."""
    cold = [] if warm else ["--cold-worker"]
    import json
    import subprocess
    n_multi = n if n_multi is None else n_multi
    n_before_multi = n_before if n_before_multi is None else n_before_multi
    rows_new = [(k, n if k in ("lead", "mid") else n_multi) for k in rows]
    rows_old = [(k, min(n, n_before) if k in ("lead", "mid") else min(n_multi, n_before_multi)) for k in rows]
    # the new code's rows in ``jobs`` workers (the three-/four-hand rows are the long ones: one worker each)
    parts = [rows_new] if jobs <= 1 else [rows_new[:3]] + [[r] for r in rows_new[3:]]
    procs = {f"after{i}": subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker",
                                             json.dumps(part)] + cold, stdout=subprocess.PIPE, text=True)
             for i, part in enumerate(parts)}
    if before:
        procs["before"] = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker",
                                            json.dumps(rows_old), "--code", str(before)] + cold,
                                           stdout=subprocess.PIPE, text=True)
    out = {}
    for name, pr in procs.items():
        stdout, _ = pr.communicate()
        if pr.returncode:
            raise SystemExit(f"the {name} worker failed ({pr.returncode})")
        got = {d["row"]: d for d in map(json.loads, stdout.splitlines())}
        out.setdefault("after" if name.startswith("after") else name, {}).update(got)
    for name, got in out.items():
        w = got.get("warm-up")
        if w and w["figs"][0]:
            print(f"the {name} worker's warm-up: {w['figs'][0]} rankings, {w['cpu'][0]:.2f} s of CPU, before the timing")
        elif w:
            print(f"the {name} worker: cold (no warm-up)")
    print()
    names = {"lead": "two-hand lead: a four-card hand's leads", "mid": "two-hand mid-count: the next card"}
    print("| what | code | positions | CPU mean | CPU p50 | CPU p99 | wall p50 | wall p99 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kind in rows:
        for name in ("before", "after"):
            if name not in out:
                continue
            d = out[name][kind]
            ms = [1000 * t for t in d["cpu"]]
            wall = [1000 * t for t in d["wall"]]
            label = names.get(kind, f"{kind} lead (sampled, {multi.SAMPLES} deals)")
            print(f"| {label} | {name} | {len(ms)} | {sum(ms) / len(ms):.1f} ms | {pct(ms, 0.5):.1f} ms | "
                  f"{pct(ms, 0.99):.1f} ms | {pct(wall, 0.5):.1f} ms | {pct(wall, 0.99):.1f} ms |")
        if "before" in out:
            a, b = out["after"][kind]["figs"], out["before"][kind]["figs"]
            k = min(len(a), len(b))
            assert a[:k] == b[:k], f"{kind}: the figures differ between the two code trees"
    if "before" in out:
        print(f"\nevery figure of every position equal between before and after "
              f"({', '.join(f'{k}: {m}' for k, m in rows_old)} positions)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--positions", type=int, default=None, help="positions per target row (200; --quick 30)")
    ap.add_argument("--before", default=None, help="an older checkout: its target rows beside this one's")
    ap.add_argument("--before-positions", type=int, default=None,
                    help="positions per target row for --before (default: the same)")
    ap.add_argument("--multi-positions", type=int, default=None,
                    help="positions per three-/four-hand target row (default: --positions)")
    ap.add_argument("--before-multi-positions", type=int, default=None,
                    help="positions per three-/four-hand target row for --before (default: --before-positions)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="workers for this checkout's target rows (5: one per three-/four-hand row; CPU times "
                         "are per process, so they stay comparable)")
    ap.add_argument("--targets-only", action="store_true", help="only the target rows")
    ap.add_argument("--rows", default=",".join(TARGET_ROWS),
                    help=f"the target rows to run, comma-separated (default: all: {','.join(TARGET_ROWS)})")
    ap.add_argument("--cold-worker", action="store_true",
                    help="time the target rows in cold workers (no warm-up: a worker's first calls, as before it)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--code", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        import json
        worker(json.loads(args.worker), warm=not args.cold_worker)
        return
    n_rows = args.positions or (30 if args.quick else 200)
    rows = tuple(r.strip() for r in args.rows.split(",") if r.strip())
    unknown = [r for r in rows if r not in TARGET_ROWS]
    if unknown or not rows:
        ap.error(f"--rows: {', '.join(unknown) or 'none given'}; choose from {', '.join(TARGET_ROWS)}")
    print(f"Pegging advice, {platform.python_implementation()} {platform.python_version()}, "
          f"load average {'/'.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores (uptime)\n")
    t0 = time.perf_counter()
    target_rows(n_rows, args.before, args.before_positions or n_rows, args.multi_positions,
                args.before_multi_positions, args.jobs, warm=not args.cold_worker, rows=rows)
    print(f"\nthe target rows took {time.perf_counter() - t0:.0f} s of wall time, load average now "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    if args.targets_only:
        return
    sizes = (10, 100) if args.quick else (10, 100, 1000)
    deal_sizes = (10,) if args.quick else ((10, 100, 1000) if args.full else (10, 100))
    brute_max = 10 if args.quick else BRUTE_SUBSET
    rng = random.Random("bench-pegging")
    wall = time.perf_counter()

    # cold: the very first lead in this process (empty caches)
    rules, hand, up = lead_positions(1, rng)[0]
    cold = timed(lambda: rank_plays(hand, game=rules, turnup=up))

    print(f"Pegging advice, {platform.python_implementation()} {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; cold first lead ranking: {1000 * cold:.0f} ms\n")
    print("| what | positions | CPU p50 | CPU p99 | wall p50 | wall p99 | CPU total |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        pos = lead_positions(n, rng)
        print(row("lead: a four-card hand's leads", n, [timed(lambda: rank_plays(h, game=r, turnup=u)) for r, h, u in pos]))
    for n in sizes:
        pos = mid_positions(n, rng)
        print(row("mid-count: the next card", n,
                  [timed(lambda: rank_plays(m, game=r, played=t, dealer=d, turnup=u)) for r, (m, _, t, d, u) in pos]))
    for n in deal_sizes:
        deals = [(get_ruleset(GAMES[i % 2]), rng.sample(DECK, 6), rng.random() < 0.5) for i in range(n)]
        print(row("discards with the matching phase", n,
                  [timed(lambda: advise(c, game=r, dealer=d, pegging=True)) for r, c, d in deals]))
    ratios = []
    for n in sizes:
        # the baseline: the brute force on the first min(n, brute_max) of the same positions, checked equal first
        pos = mid_positions(n, rng, max_other=2)
        sub = pos[:brute_max]
        got, want = [], []
        fast = [timed(lambda: got.append(rank_plays(m, game=r, played=t, dealer=d, turnup=u)))
                for r, (m, _, t, d, u) in pos]
        fast_wall = WALL[-len(fast):]
        slow = [timed(lambda: want.append(brute_rank(r, m, t, d, u))) for r, (m, _, t, d, u) in sub]
        for a, w in zip(got, want):        # the same figures, or the ratio means nothing
            assert {p.card.rank: p.points for p in a.plays} == {r: (x[0], x[1]) for r, x in w.items()}
        print(row("mid-count (other holds <= 2), fast", n, fast, fast_wall))
        print(row("the first of them, brute force", len(sub), slow))
        ratios.append((n, len(sub), sum(slow) / sum(fast[:len(sub)]), sum(fast) / len(fast)))
    # three- and four-hand: leads (a sample of the others' deals), late positions (exact) against their brute force
    for game in multi.MULTI:
        rules = get_ruleset(game)
        pos = lead_positions(MULTI_LEADS, rng)
        print(row(f"{game} lead (sampled)", MULTI_LEADS,
                  [timed(lambda: rank_plays_multi(h, game=rules, seat=1, turnup=u)) for _, h, u in pos]))
    for game in multi.MULTI:
        rules = get_ruleset(game)
        pos = []
        while len(pos) < MULTI_LEADS:
            seat = 1 + len(pos) % 2
            p = multi.random_position(rules, rng, seat, max_others=2)
            if p is not None:
                pos.append((seat, p))
        got, want = [], []
        fast = [timed(lambda: got.append(rank_plays_multi(m, game=rules, seat=s, played=t, turnup=u)))
                for s, (m, t, u) in pos]
        fast_wall = WALL[-len(fast):]
        slow = [timed(lambda: want.append(multi.brute_rank(rules, s, m, t, u))) for s, (m, t, u) in pos]
        for a, w in zip(got, want):
            assert a.exact and {p.card.rank: {k: v for k, v in p.by_side.items() if v} for p in a.plays} == \
                {r: x[0] for r, x in w.items()}
        print(row(f"{game} late (others hold <= 2), exact", MULTI_LEADS, fast, fast_wall))
        print(row(f"the same, brute force over card deals", MULTI_LEADS, slow))
        ratios.append((f"{game} late", MULTI_LEADS, sum(slow) / sum(fast), sum(fast) / len(fast)))
    print()
    for n, k, ratio, mean in ratios:
        where = f"of the {n}; fast mean over all {n}" if isinstance(n, int) else f"{n} positions; fast mean"
        print(f"brute force / fast on the same {k} positions ({where}: {1000 * mean:.2f} ms): {ratio:.0f}x, "
              f"every figure equal")
    print(f"the whole run took {time.perf_counter() - wall:.0f} s of wall time, "
          f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
