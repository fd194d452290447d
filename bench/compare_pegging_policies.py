"""Compare the two candidate pegging policies head to head on random hands, by each game's goal.

Run from the repository root::

    .venv/bin/python bench/compare_pegging_policies.py            # 3,000 deals per game, ~1 min
    .venv/bin/python bench/compare_pegging_policies.py --deals 500

The same deals serve every game (seed fixed). Each deal gives both players ``held`` random cards; every deal is played twice,
``lookahead`` dealing against ``greedy`` leading and then the other way round, so
seat and cards even out. Reported: the mean net per deal to ``lookahead`` by the
game's goal (goal x points credited to it - goal x points credited to its
opponent) with its standard error, and how often it did better, equal, worse.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import DECK, get_ruleset  # noqa: E402
from companion.advice.pegging import State, game_for, play_out  # noqa: E402

GAMES = ("lands-end", "cribbage", "reverse-cribbage", "five-card")


def duel(rules, rng, deals):
    held = rules.held
    nets = []
    for _ in range(deals):
        cards = rng.sample(DECK, 2 * held)
        a = [c.rank for c in cards[:held]]
        b = [c.rank for c in cards[held:]]
        total = 0
        for seat in (0, 1):                      # lookahead deals, then leads
            g = game_for(rules, seat, ("lookahead", "greedy"))
            st = State(turn=0 if seat == 1 else 1, left=(held, held))
            pts = play_out(g, st, a, b)
            total += g.net(pts)
        nets.append(total / 2)
    return nets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--seed", default="policies")
    args = ap.parse_args()
    print("| game | deals | lookahead's mean net vs greedy (per deal) | better / equal / worse |")
    print("|---|---:|---:|---|")
    for name in GAMES:
        rules = get_ruleset(name)
        nets = duel(rules, random.Random(args.seed), args.deals)
        mean = statistics.fmean(nets)
        se = statistics.stdev(nets) / len(nets) ** 0.5
        better = sum(1 for x in nets if x > 0)
        worse = sum(1 for x in nets if x < 0)
        print(f"| {rules.title} | {len(nets)} | {mean:+.3f} ± {se:.3f} | {better} / {len(nets) - better - worse} / {worse} |")


if __name__ == "__main__":
    main()
