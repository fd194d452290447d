"""Benchmark pegging advice: leads, mid-count positions and discards with the matching phase, against brute force.

Run from the repository root::

    .venv/bin/python bench/bench_pegging.py            # 10/100/1,000 leads and mid-count positions, 10/100 discards
    .venv/bin/python bench/bench_pegging.py --quick    # 10/100 positions, 10 discards
    .venv/bin/python bench/bench_pegging.py --full     # also 1,000 discard rankings (~10 min)

* "lead": ``rank_plays`` on a random four-card hand with a turn-up (Land's End and
  cribbage alternately): every lead over all 178,365 hands the other player could hold.
* "mid-count": ``rank_plays`` at a random position after some cards were played at
  random (the other player holding 1 to 3 cards).
* "discards": ``advise(..., pegging=True)`` on a random six-card deal: 15 discards, each
  with its kept hand's whole matching phase over every hand the other player could keep.
* "brute force": the explicit-card enumeration of tests/test_pegging_advice.py (its own
  rules, its own policy in Fractions, every card hand) on mid-count positions where the
  other player holds at most 2 cards, in the same process; the bench first checks that both
  give the same figures, then times both on the same positions.

Times are CPU seconds of this process per position (``time.process_time``), p50/p99 over
the run, after one cold call (reported apart: the policy's caches start empty in a fresh
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
from companion.advice import advise  # noqa: E402
from companion.pegging_advice import rank_plays  # noqa: E402
from test_pegging_advice import brute_rank, random_position  # noqa: E402

GAMES = ("lands-end", "cribbage")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timed(fn):
    """CPU seconds of ``fn()`` in this process: the shared machine's wall clock runs 10-30x slower under load."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


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


def row(name, n, times):
    ms = [1000 * t for t in times]
    return f"| {name} | {n} | {pct(ms, 0.5):.1f} ms | {pct(ms, 0.99):.1f} ms | {sum(ms) / 1000:.1f} s |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    args = ap.parse_args()
    sizes = (10, 100) if args.quick else (10, 100, 1000)
    deal_sizes = (10,) if args.quick else ((10, 100, 1000) if args.full else (10, 100))
    rng = random.Random("bench-pegging")
    wall = time.perf_counter()

    # cold: the very first lead in this process (empty caches)
    rules, hand, up = lead_positions(1, rng)[0]
    cold = timed(lambda: rank_plays(hand, game=rules, turnup=up))

    # correctness first: fast == brute force on the brute-force positions
    brute_pos = mid_positions(10 if not args.full else 100, random.Random("bench-brute"), max_other=2)
    for rules, (mine, theirs, toks, dealer, turnup) in brute_pos:
        a = rank_plays(mine, game=rules, played=toks, dealer=dealer, turnup=turnup)
        want = brute_rank(rules, mine, toks, dealer, turnup)
        assert {p.card.rank: p.points for p in a.plays} == {r: (w[0], w[1]) for r, w in want.items()}

    print(f"Pegging advice, {platform.python_implementation()} {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; cold first lead ranking: {1000 * cold:.0f} ms\n")
    print("| what | positions | p50 | p99 | total |")
    print("|---|---:|---:|---:|---:|")
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
    fast = [timed(lambda: rank_plays(m, game=r, played=t, dealer=d, turnup=u)) for r, (m, _, t, d, u) in brute_pos]
    slow = [timed(lambda: brute_rank(r, m, t, d, u)) for r, (m, _, t, d, u) in brute_pos]
    print(row("mid-count (other holds <= 2), fast", len(brute_pos), fast))
    print(row("the same positions, brute force", len(brute_pos), slow))
    print(f"\nbrute force / fast on the same {len(brute_pos)} positions: {sum(slow) / sum(fast):.0f}x "
          f"(figures checked equal first); the whole run took {time.perf_counter() - wall:.0f} s of wall time, "
          f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
