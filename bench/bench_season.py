"""Benchmark the night and the season views as the database grows: 10, 100 and 1,000 nights.

Run from the repository root::

    .venv/bin/python bench/bench_season.py            # 10, 100 and 1,000 nights (~2-5 min, mostly building)
    .venv/bin/python bench/bench_season.py --quick    # 10 and 100 nights

Each night is three matches played by hand-pegged games (a three-hand match of
three games, a two-hand match of two, a four-hand casino game), settled, a day
apart: 6 games and 3 matches a night, on a SQLite table in a temporary directory
(built with synchronous=OFF, then reopened as the daemon opens it). Measured, as
medians of several calls on a fresh ``Season`` after a first one:

1. the first view on an old database: every match that is over is summarised once
   and its summary stored (what the first look after an upgrade costs);
2. ``GET /api/night`` (the More tab) and ``GET /api/season`` (the season view) through
   the Flask test client, each as a ratio to ``GET /api/table`` measured in the same
   process on the same table (the baseline every phone reads);
3. ``GET /api/night`` right after one more event (a peg): the match in play is folded again, and only it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.season import Season  # noqa: E402
from companion.store import SQLiteStore  # noqa: E402
from companion.table import Table  # noqa: E402
from web import create_app  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2024, 1, 1, 19, tzinfo=dt.timezone.utc)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=30)
        return self.now


def build(path: Path, nights: int) -> None:
    store = SQLiteStore(path)
    store._db.execute("PRAGMA synchronous=OFF")
    clock = Clock()
    t = Table(store, clock=clock, default_match=None)
    names = ["Ann", "Bob", "Cy", "Dee", "Eve"]
    for n in range(nights):
        a, b, c, d = (names[(n + k) % 5] for k in range(4))
        t.submit({"type": "new_match", "game": "lands-end-3", "players": [a, b, c], "stake": 1, "first_dealer": a})
        for g in range(3):
            if g:
                t.submit({"type": "new_game"})
            t.submit({"type": "peg", "side": f"p{1 + g % 3}", "points": 7})
            t.submit({"type": "peg", "side": f"p{1 + (g + 1) % 3}", "points": 16})
        t.submit({"type": "new_match", "game": "lands-end", "players": [a, d], "stake": 2, "first_dealer": a})
        for g in range(2):
            if g:
                t.submit({"type": "new_game"})
            t.submit({"type": "peg", "side": f"p{1 + g}", "points": 12})
            t.submit({"type": "peg", "side": f"p{2 - g}", "points": 16})
        t.submit({"type": "new_match", "game": "lands-end-casino-4", "players": [a, b, c, d],
                  "teams": [[a, c], [b, d]], "stake": 1})
        t.submit({"type": "peg", "side": "team1", "points": 16})
        t.submit({"type": "settle"})
        clock.now = dt.datetime.combine(clock.now.date() + dt.timedelta(days=1), dt.time(19), tzinfo=dt.timezone.utc)
    t.close()


def timed(fn, repeat: int) -> float:
    """Return the median wall time of ``fn()`` in milliseconds."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


def measure(nights: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.db"
        t0 = time.perf_counter()
        build(path, nights)
        built = time.perf_counter() - t0
        table = Table.open(path)
        table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1,
                      "first_dealer": "Bob"})        # a match in play (the last night's casino game is over)
        t0 = time.perf_counter()
        Season(table.store).night()
        first = (time.perf_counter() - t0) * 1000
        app = create_app({"TESTING": True, "STATE_DIR": d, "TRUSTED_HOSTS": ["localhost"]}, table=table)
        c = app.test_client()
        c.get("/api/night")

        def get(url):
            return lambda: c.get(url).close()
        base = timed(get("/api/table"), repeat)
        night = timed(get("/api/night"), repeat)
        season = timed(get("/api/season"), repeat)

        after = []
        for _ in range(repeat):          # the match in play moved: it alone is folded again
            table.submit({"type": "peg", "side": "p1", "points": 1})
            after.append(timed(get("/api/night"), 1))
            table.submit({"type": "undo"})
        after = statistics.median(after)
        table.close()
    return {"nights": nights, "built_s": built, "first_ms": first, "table_ms": base, "night_ms": night,
            "season_ms": season, "night_after_event_ms": after}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 and 100 nights only")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--nights", type=int, nargs="*", help="these sizes instead")
    args = ap.parse_args()
    sizes = args.nights or ((10, 100) if args.quick else (10, 100, 1000))
    print("| nights | built in | first view (summarise all) | GET /api/table | GET /api/night (x table) | "
          "GET /api/season (x table) | night after an event |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        r = measure(n, args.repeat)
        print(f"| {n:,} | {r['built_s']:.1f} s | {r['first_ms']:.0f} ms | {r['table_ms']:.2f} ms | "
              f"{r['night_ms']:.2f} ms ({r['night_ms'] / r['table_ms']:.1f}x) | "
              f"{r['season_ms']:.2f} ms ({r['season_ms'] / r['table_ms']:.1f}x) | {r['night_after_event_ms']:.2f} ms |",
              flush=True)


if __name__ == "__main__":
    main()
