"""Benchmark discard advice: a whole dealt hand analysed, against brute-force enumeration.

Run from the repository root::

    .venv/bin/python bench/bench_advice.py            # ~40 s
    .venv/bin/python bench/bench_advice.py --quick    # fewer hands and brute-force deals, ~15 s

"Full analysis" is ``companion.advice.discard.advise`` on one dealt hand: every legal
discard (15 for six cards, 5 for three/four-hand's five) with the kept hand's
distribution and mean over every turn-up, and the pocket's exact mean over
every turn-up and every set of the other players' cards. The brute force scores
every (other pocket cards, turn-up) case of every discard one by one with
``score_hand`` (683,100 pockets for a six-card hand), in the same process and
on the same deals; the bench first checks that both give the same figures.
Times are per dealt hand, as a curve over 10, 100 and 1,000 random hands
(p50/p99), after a cold first call in a fresh process. The results table is
printed as Markdown, ready for bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import DECK, get_ruleset, score_hand  # noqa: E402
from companion import scoring as _scoring  # noqa: E402
from companion.advice.discard import _Deal, advise  # noqa: E402


def brute_force(rules, dealt):
    """Return {discard: (hand mean, pocket mean)} by scoring every case one by one."""
    unseen = [c for c in DECK if c not in dealt]
    k = 4 - rules.discards
    out = {}
    for discard in combinations(dealt, rules.discards):
        keep = tuple(c for c in dealt if c not in discard)
        hand = sum(score_hand(keep, t, game=rules).total for t in unseen)
        pocket = cases = 0
        for t in unseen:
            rest = [c for c in unseen if c is not t]
            for others in combinations(rest, k):
                pocket += score_hand(discard + others, t, crib=True, game=rules).total
                cases += 1
        out[discard] = (Fraction(hand, len(unseen)), Fraction(pocket, cases))
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def time_hands(game, n, rng, seat, **kw):
    rules = get_ruleset(game)
    times = []
    for _ in range(n):
        dealt = tuple(rng.sample(DECK, rules.dealt))
        t0 = time.perf_counter()
        advise(dealt, game=rules, seat=seat, **kw)
        times.append(time.perf_counter() - t0)
    return times


def cold_process(game, cards, seat):
    code = (f"import time; t0 = time.perf_counter(); from companion.advice.discard import advise; t1 = time.perf_counter(); "
            f"advise({cards!r}, game={game!r}, seat={seat}); t2 = time.perf_counter(); "
            f"print(t1 - t0, t2 - t1)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [float(x) for x in out.split()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rng = random.Random(2026)
    brute_deals = 1 if args.quick else 3
    curve = (10, 100) if args.quick else (10, 100, 1000)
    print(f"# advice bench, {platform.python_implementation()} {platform.python_version()}, {platform.machine()}")

    imp, first = cold_process("lands-end", "5H 5S 6D JC 4C KD", 0)
    print(f"\ncold, new process: import companion.advice.discard {imp * 1000:.1f} ms, first six-card analysis "
          f"{first * 1000:.1f} ms (fills the rank-points memo)")

    rows = []
    for game, seat in (("lands-end", 0), ("lands-end-3", 1)):
        rules = get_ruleset(game)
        fast_t, brute_t = [], []
        for _ in range(brute_deals):
            dealt = tuple(rng.sample(DECK, rules.dealt))
            t0 = time.perf_counter()
            ref = brute_force(rules, dealt)
            brute_t.append(time.perf_counter() - t0)
            runs = []
            for _ in range(5):                      # the same deal, warm: the median of five
                t0 = time.perf_counter()
                a = advise(dealt, game=rules, seat=seat)
                runs.append(time.perf_counter() - t0)
            fast_t.append(sorted(runs)[2])
            for d in a.discards:
                if ref[d.discard] != (d.hand_mean, d.pocket_mean):
                    raise SystemExit(f"MISMATCH {game} {d.discard}: {ref[d.discard]} vs {(d.hand_mean, d.pocket_mean)}")
        fast, brute = sum(fast_t) / len(fast_t), sum(brute_t) / len(brute_t)
        rows.append((f"{game}: {rules.dealt} cards, {len(a.discards)} discards", brute, fast))
    print(f"\nbrute force agrees with advise() on every discard of {brute_deals} deal(s) per game\n")
    print("| one dealt hand, every discard | brute force | advise() | speed-up |")
    print("|---|---:|---:|---:|")
    for label, brute, fast in rows:
        print(f"| {label} | {brute:.2f} s | {fast * 1000:.1f} ms | {brute / fast:,.0f}x |")

    print("\n| advise() per dealt hand | hands | p50 | p99 | max |")
    print("|---|---:|---:|---:|---:|")
    for game, seat, kw, label in (("lands-end", 0, {}, "lands-end, 6 cards (means)"),
                                  ("cribbage", 1, {}, "cribbage, 6 cards (means)"),
                                  ("lands-end-3", 1, {}, "lands-end-3, 5 cards (means)"),
                                  ("lands-end", 0, {"scores": [9, 4]}, "lands-end, 6 cards + reach (scores)"),
                                  ("lands-end", 0, {"pocket_distribution": True}, "lands-end, 6 cards + pocket distribution")):
        for n in curve:
            ts = time_hands(game, n, rng, seat, **kw)
            print(f"| {label} | {n:,} | {pct(ts, .5) * 1000:.1f} ms | {pct(ts, .99) * 1000:.1f} ms | {max(ts) * 1000:.1f} ms |")

    deal = _Deal(get_ruleset("lands-end"), tuple(DECK[:6]))
    deal3 = _Deal(get_ruleset("lands-end-3"), tuple(DECK[:5]))
    memo = _scoring._RANK_POINTS
    size = sys.getsizeof(memo) + sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in memo.items())
    print(f"\ntables: rank-points memo {len(memo):,} entries, {size / 1e6:.2f} MB (shared with score_hand); "
          f"per deal: {len(deal.z_table())} (two-hand) / {len(deal3.z_table())} (three-hand) weighted rank multisets "
          f"for the means, {sum(map(len, deal.m_tables().values()))} / {sum(map(len, deal3.m_tables().values()))} "
          f"per turn-up rank for distributions")


if __name__ == "__main__":
    main()
