"""Benchmark pegging advice: leads, mid-count positions and discards with the matching phase, against brute force.

Run from the repository root::

    .venv/bin/python bench/bench_pegging.py            # 10/100/1,000 leads and mid-count positions, 10/100 discards
    .venv/bin/python bench/bench_pegging.py --quick    # 10/100 positions, 10 discards
    .venv/bin/python bench/bench_pegging.py --full     # also 1,000 discard rankings (~10 min)

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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    args = ap.parse_args()
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
