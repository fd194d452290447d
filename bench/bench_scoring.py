"""Benchmark the rules core: hands scored per second and the full ``stats`` enumeration.

Run from the repository root::

    .venv/bin/python bench/bench_scoring.py                 # all numbers, ~30 s
    .venv/bin/python bench/bench_scoring.py --quick         # fewer hands, ~10 s
    .venv/bin/python bench/bench_scoring.py --with-cribbage-scorer   # also PyPI's cribbage-scorer 0.2.5

Every speed is measured in this one process against a plain reference scorer
(itertools over every combination, written below) scoring the same deals, and
printed as a ratio. ``--with-cribbage-scorer`` pip-installs cribbage-scorer
0.2.5 (and its dependency more-itertools) into ``bench/results/vendor`` (git
ignores it; nothing is added to the project's dependencies) when it is not
importable already, and compares against it on the same deals.
The results table is printed as Markdown, ready for bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import DECK, score_hand  # noqa: E402
from companion import scoring as _scoring  # noqa: E402
from companion.stats import distribution  # noqa: E402

VENDOR = ROOT / "bench" / "results" / "vendor"
FULL_DEALS = 12_994_800


# --- the plain reference scorer ----------------------------------------------------------


def reference_score(hand, starter, crib=False) -> int:
    """Return the cribbage show score of ``hand`` + ``starter``, the obvious way."""
    cards = list(hand) + [starter]
    pts = 0
    for n in range(2, 6):
        for combo in combinations(cards, n):
            if sum(c.value for c in combo) == 15:
                pts += 2
    for a, b in combinations(cards, 2):
        if a.rank == b.rank:
            pts += 2
    for n in (5, 4, 3):
        runs = 0
        for combo in combinations(cards, n):
            ranks = sorted(c.rank for c in combo)
            if all(y == x + 1 for x, y in zip(ranks, ranks[1:])):
                runs += 1
        if runs:
            pts += n * runs
            break
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            pts += 5
        elif not crib:
            pts += 4
    if any(c.rank == 11 and c.suit == starter.suit for c in hand):
        pts += 1
    return pts


# --- helpers ---------------------------------------------------------------------------------


def deals(n: int, seed: int = 2026):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cs = rng.sample(DECK, 5)
        out.append((tuple(cs[:4]), cs[4]))
    return out


def rate(fn, items, *, repeat: int = 3) -> float:
    """Return the best hands/second of ``fn`` over ``items`` in ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t)
    return len(items) / best


def best_time(fn, *, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def load_cribbage_scorer(install: bool):
    if VENDOR.exists():
        sys.path.insert(0, str(VENDOR))
    try:
        from cribbage_scorer import cribbage_scorer
        return cribbage_scorer
    except ImportError:
        if not install:
            return None
    print(f"installing cribbage-scorer==0.2.5 into {VENDOR} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(VENDOR),
                    "cribbage-scorer==0.2.5"], check=True)
    if str(VENDOR) not in sys.path:
        sys.path.insert(0, str(VENDOR))
    from cribbage_scorer import cribbage_scorer
    return cribbage_scorer


# --- the benchmark ---------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer hands (noisier numbers)")
    ap.add_argument("--with-cribbage-scorer", action="store_true",
                    help="install cribbage-scorer 0.2.5 into bench/results/vendor if missing and compare")
    args = ap.parse_args(argv)

    n_fast = 100_000 if args.quick else 300_000
    n_slow = 10_000 if args.quick else 40_000
    sample = deals(n_fast)
    slow = sample[:n_slow]

    # correctness first: the fast scorer and the reference agree on every sampled deal
    bad = [d for d in slow if score_hand(*d).total != reference_score(*d)]
    if bad:
        print(f"MISMATCH on {len(bad)} deals, e.g. {bad[0]}", file=sys.stderr)
        return 1

    rows = []

    def fast_objects(items):
        for h, s in items:
            score_hand(h, s)

    def fast_strings(items):
        for h, s in items:
            score_hand(h, s)

    def fast_with_items(items):
        for h, s in items:
            score_hand(h, s).items

    def ref(items):
        for h, s in items:
            reference_score(h, s)

    text_sample = [([str(c) for c in h], str(s)) for h, s in sample[:n_slow]]
    ref_rate = rate(ref, slow)
    fast_rate = rate(fast_objects, sample)
    rows.append(("score_hand, Card objects (total)", fast_rate, fast_rate / ref_rate))
    r = rate(fast_strings, text_sample)
    rows.append(("score_hand, card strings (total)", r, r / ref_rate))
    r = rate(fast_with_items, slow)
    rows.append(("score_hand + full breakdown (.items)", r, r / ref_rate))
    rows.append(("reference scorer (itertools)", ref_rate, 1.0))

    cs = load_cribbage_scorer(args.with_cribbage_scorer)
    cs_rate = None
    if cs is not None:
        cs_sample = [([(c.rank, c.suit) for c in h], (s.rank, s.suit)) for h, s in slow]

        def run_cs(items):
            for h, s in items:
                cs.show_calc_score(s, h, False)

        assert all(cs.show_calc_score(s, h, False)[0] == score_hand(hh, ss).total
                   for (h, s), (hh, ss) in zip(cs_sample[:2000], slow[:2000]))
        cs_rate = rate(run_cs, cs_sample)
        rows.append(("cribbage-scorer 0.2.5 show_calc_score", cs_rate, cs_rate / ref_rate))

    # full stats: in-process cold (rank cache cleared) and the CLI as a new process
    def cold_stats():
        _scoring._RANK_POINTS.clear()
        distribution("cribbage")

    stats_t = best_time(cold_stats)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "companion", "stats", "--json"], capture_output=True, text=True, check=True)
    cli_t = time.perf_counter() - t
    assert '"0": 1009008' in proc.stdout
    ref_full = FULL_DEALS / ref_rate
    fast_full = FULL_DEALS / fast_rate

    print(f"\nMachine: {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs; {n_fast:,} random deals (reference and cribbage-scorer: {n_slow:,})\n")
    print("| single-hand scoring | hands/s | vs reference |")
    print("|---|---:|---:|")
    for name, r, ratio in rows:
        print(f"| {name} | {r:,.0f} | {ratio:.1f}x |")
    if cs_rate:
        print(f"\nscore_hand (Card objects) vs cribbage-scorer 0.2.5: **{fast_rate / cs_rate:.1f}x**")
    print("\n| all 12,994,800 hands (`stats`) | seconds | vs reference |")
    print("|---|---:|---:|")
    print(f"| reference scorer, one by one (extrapolated) | {ref_full:,.1f} | 1x |")
    print(f"| score_hand, one by one (extrapolated) | {fast_full:,.1f} | {ref_full / fast_full:.0f}x |")
    print(f"| `distribution()` by rank multiset, in process | {stats_t:.3f} | {ref_full / stats_t:,.0f}x |")
    print(f"| `python -m companion stats --json`, new process | {cli_t:.3f} | {ref_full / cli_t:,.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
