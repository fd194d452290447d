"""Benchmark the night and the season views as the database grows: 10, 100 and 1,000 nights.

Run from the repository root::

    .venv/bin/python bench/bench_season.py            # 10, 100 and 1,000 nights (~2-5 min, mostly building)
    .venv/bin/python bench/bench_season.py --quick    # 10 and 100 nights

Each night is three matches played by hand-pegged games (a three-hand match of
three games, a two-hand match of two, a four-hand casino game), settled, a day
apart: 6 games and 3 matches a night, on a SQLite table in a temporary directory
(built with synchronous=OFF, then reopened as the daemon opens it). Measured, as
medians of several calls on a fresh ``Season`` after a first one:

1. the first view on an old database (what the first look after an upgrade costs): it is
   answered at once (202) and every match that is over is summarised once, its summary stored,
   in the background (a job, web.jobs); while it runs a phone's ``GET /api/table`` is timed
   against the same read on the quiet table; then the same after a restart, when the summaries
   kept are only read back;
2. ``GET /api/night`` (the More tab) and ``GET /api/season`` (the season view) through
   the Flask test client, each as a ratio to ``GET /api/table`` measured in the same
   process on the same table (the baseline every phone reads);
3. ``GET /api/night`` right after one more event (a peg): the match in play is folded again, and only it;
4. ``GET /api/season`` right after a match ends: it alone is folded and added to the figures kept.
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


def follow(c, first) -> tuple[float, list[float]]:
    """Follow the season's build that ``first`` (a 202) started to its end, reading ``GET /api/table`` between
    polls as a phone does; return (seconds to the end, the table reads' times in ms)."""
    t0 = time.perf_counter()
    job, reads = first.get_json(), []
    while job["state"] == "running":
        r0 = time.perf_counter()
        c.get("/api/table").close()
        reads.append((time.perf_counter() - r0) * 1000)
        job = c.get(job["url"]).get_json()
        time.sleep(0.02)
    assert job["state"] == "done", job
    return time.perf_counter() - t0, reads


def measure(nights: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.db"
        t0 = time.perf_counter()
        build(path, nights)
        built = time.perf_counter() - t0
        table = Table.open(path)
        table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1,
                      "first_dealer": "Bob"})        # a match in play (the last night's casino game is over)
        app = create_app({"TESTING": True, "STATE_DIR": d, "TRUSTED_HOSTS": ["localhost"]}, table=table)
        c = app.test_client()

        def get(url):
            return lambda: c.get(url).close()
        quiet = timed(get("/api/table"), repeat)
        # the first view of the old database: answered at once (202), the build in the background
        t0 = time.perf_counter()
        r = c.get("/api/night")
        answer = (time.perf_counter() - t0) * 1000
        assert r.status_code == 202, r.status_code
        first, reads = follow(c, r)
        assert c.get("/api/night").status_code == 200
        # after a restart the summaries are kept: the build only reads them back
        app2 = create_app({"TESTING": True, "STATE_DIR": d, "TRUSTED_HOSTS": ["localhost"]}, table=table)
        c2 = app2.test_client()
        r = c2.get("/api/night")
        kept = follow(c2, r)[0] if r.status_code == 202 else 0.0

        base = timed(get("/api/table"), repeat)
        night = timed(get("/api/night"), repeat)
        season = timed(get("/api/season"), repeat)

        after = []
        for _ in range(repeat):          # the match in play moved: it alone is folded again
            table.submit({"type": "peg", "side": "p1", "points": 1})
            after.append(timed(get("/api/night"), 1))
            table.submit({"type": "undo"})
        after = statistics.median(after)
        closed = []
        for _ in range(3):               # a match ends: it alone is folded and added to the figures kept
            table.submit({"type": "peg", "side": "p2", "points": 16})
            table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1,
                          "first_dealer": "Bob"})
            closed.append(timed(get("/api/season"), 1))
        for a in (app, app2):
            jobs = a.extensions.get("landsend.jobs")
            if jobs is not None:
                jobs.close()
        table.close()
    return {"nights": nights, "built_s": built, "answer_ms": answer, "first_s": first, "kept_s": kept,
            "reads_p50": statistics.median(reads) if reads else 0.0, "reads_max": max(reads, default=0.0),
            "quiet_ms": quiet, "table_ms": base, "night_ms": night, "season_ms": season,
            "night_after_event_ms": after, "season_after_close_ms": statistics.median(closed)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 and 100 nights only")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--nights", type=int, nargs="*", help="these sizes instead")
    args = ap.parse_args()
    sizes = args.nights or ((10, 100) if args.quick else (10, 100, 1000))
    print("| nights | built in | first view answered (202) | season built in the background | GET /api/table "
          "meanwhile p50 / max (x quiet) | rebuilt after a restart (kept) | GET /api/table | GET /api/night (x table) "
          "| GET /api/season (x table) | night after an event | season after a match ends |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        r = measure(n, args.repeat)
        print(f"| {n:,} | {r['built_s']:.1f} s | {r['answer_ms']:.1f} ms | {r['first_s']:.2f} s | "
              f"{r['reads_p50']:.2f} / {r['reads_max']:.1f} ms ({r['reads_p50'] / r['quiet_ms']:.1f}x / "
              f"{r['reads_max'] / r['quiet_ms']:.1f}x) | {r['kept_s']:.2f} s | {r['table_ms']:.2f} ms | "
              f"{r['night_ms']:.2f} ms ({r['night_ms'] / r['table_ms']:.1f}x) | "
              f"{r['season_ms']:.2f} ms ({r['season_ms'] / r['table_ms']:.1f}x) | {r['night_after_event_ms']:.2f} ms | "
              f"{r['season_after_close_ms']:.1f} ms |", flush=True)


if __name__ == "__main__":
    main()
