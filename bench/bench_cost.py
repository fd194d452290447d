"""Benchmark what a command costs as the history grows: 10, 100 and 1,000 hands; an empty vs a years-old database.

Run from the repository root::

    .venv/bin/python bench/bench_cost.py            # ~2 min
    .venv/bin/python bench/bench_cost.py --quick    # 10 and 100 hands, 100 stored matches; ~20 s
    .venv/bin/python bench/bench_cost.py --detail   # and the press rows' WAL copies and slowest presses

Every cost is printed as a curve over the length of the current match (a
Land's End match of N hands: whole games played card by card by the tests'
random player, ``new_game`` after each, on a SQLite table in a temporary
directory) and as a ratio to an **ordinary command** measured in the same
process on the same table: a ``peg`` of one point, stored with
synchronous=FULL (what a board press does).

1. ``undo`` (of that peg) -- target: at most 3x an ordinary command at 1,000 hands;
1b. ``amend`` of a peg of the current hand (issue 14) -- flat: it refolds that hand only, at any length;
2. ``table.snapshot()`` and ``GET /api/table`` (Flask test client);
3. ``GET /api/history?since=<last seq>`` -- target: at most 2x ``GET /api/table`` at 1,000 hands;
4. start-up: ``Table.open`` of the database (median of several opens after a first one,
   which may migrate an old file once);
5. start-up with 500 stored matches of 20 hands each -- target: at most 1.5x start-up on
   an empty database;
6. a board press (``table.submit`` of a peg or a hold-undo, alternating) p99, at 1,000
   hands, while another phone polls ``GET /api/history?since=<seq>`` every 20 ms --
   target: at most 2x the p99 without the poller. Rounds alternate poller off / on on
   the same table, so the disk's varying fsync time (a shared machine) hits both alike.

The database set-up writes with synchronous=OFF to build the history quickly;
every measurement reopens the file as the daemon does (synchronous=FULL).
The results are printed as Markdown.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion.table import Table  # noqa: E402
from engine_play import RandomPlayer  # noqa: E402
from web import create_app  # noqa: E402

MATCH = {"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"}


def pct(values: list[float], p: float) -> float:
    """Return the ``p``-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def ms(v: float) -> str:
    return f"{v * 1000:.3f} ms"


def fast(table: Table) -> None:
    """Set-up only: write without waiting for the disk (the measurements reopen the file normally)."""
    db = getattr(table.store, "_db", None)
    if db is not None:
        db.execute("PRAGMA synchronous=OFF")


def play_hands(table: Table, hands: int, seed: int) -> None:
    """Play ``hands`` hands of whole games on ``table``'s current match (new_game between games)."""
    rng = random.Random(seed)
    player = RandomPlayer(table, rng)
    done = 0
    while done < hands:
        if table.state.over:
            table.submit({"type": "new_game"})
        player.deal_hand()
        done += 1
    if table.state.over:
        table.submit({"type": "new_game"})


def build(path: Path, hands: int, *, matches: int = 1, seed: int = 1) -> None:
    t = Table.open(path, rng=random.Random(seed), default_match=None)
    fast(t)
    for m in range(matches):
        t.submit(MATCH)
        play_hands(t, hands, seed + m)
    t.close()


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def first_open(path: Path) -> float:
    """Return the time of one open (and close) of the table in ``path``."""
    t0 = time.perf_counter()
    Table.open(path).close()
    return time.perf_counter() - t0


def startup(path: Path, n: int) -> tuple[float, float]:
    """Return (first open, median of the next ``n`` opens) of the table in ``path``."""
    return first_open(path), startups_in_turn([path], n)[0]


def startups_in_turn(paths: list[Path], n: int) -> list[float]:
    """Return the median of ``n`` opens of each table in ``paths``, opened in turn (A, B, A, B, ...), so that
    whatever the machine does meanwhile (the disk flushing a set-up's writes) falls on each alike."""
    opens: list[list[float]] = [[] for _ in paths]
    for _ in range(n):
        for times, path in zip(opens, paths):
            t0 = time.perf_counter()
            t = Table.open(path)
            times.append(time.perf_counter() - t0)
            t.close()
    return [statistics.median(times) for times in opens]


def costs(path: Path, reps: int) -> dict:
    table = Table.open(path)
    app = create_app({"TESTING": True, "STATE_DIR": str(path.parent), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    client = app.test_client()
    peg_t, undo_t = [], []
    for i in range(reps):
        side = "p1" if i % 2 else "p2"
        t0 = time.perf_counter()
        table.submit({"type": "peg", "side": side, "points": 1})
        t1 = time.perf_counter()
        table.submit({"type": "undo"})
        t2 = time.perf_counter()
        peg_t.append(t1 - t0)
        undo_t.append(t2 - t1)
    amend_t = []
    for i in range(reps):     # an amend of the hand's entry (issue 14): refolds the current hand only
        ev = table.submit({"type": "peg", "side": "p1", "points": 1})
        t0 = time.perf_counter()
        table.submit({"type": "amend", "seq": ev["seq"], "points": 2})
        amend_t.append(time.perf_counter() - t0)
        table.submit({"type": "undo"})
        table.submit({"type": "undo"})
    snap_t = timed(table.snapshot, reps)
    seq = table.snapshot()["seq"]

    def get_table():
        r = client.get("/api/table")
        assert r.status_code == 200
    get_t = timed(get_table, reps)

    def get_history():
        r = client.get(f"/api/history?since={seq}")
        assert r.status_code == 200 and r.get_json()["events"]
    hist_t = timed(get_history, reps)
    table.close()
    return {"peg": statistics.median(peg_t), "undo": statistics.median(undo_t), "amend": statistics.median(amend_t),
            "snapshot": statistics.median(snap_t), "get_table": statistics.median(get_t),
            "history": statistics.median(hist_t)}


def press_p99(path: Path, presses: int, rounds: int = 8, detail: bool = False) -> dict:
    """Return board-press latencies (p50, p99) alone and while a phone polls history every 20 ms.

    Rounds alternate poller off / on on the same table, so a change of the machine's load (the
    disk's fsync time above all) hits both sides alike; the two halves of the poller-off rounds
    give the noise of the run.
    """
    table = Table.open(path)
    app = create_app({"TESTING": True, "STATE_DIR": str(path.parent), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    lat: dict[str, list[float]] = {"alone": [], "polled": [], "alone_a": [], "alone_b": []}
    t_start = time.perf_counter()
    timeline: list[tuple] = []          # --detail: (start s, took s, round, index) of each press
    copies: list[tuple] = []            # --detail: (start s, took s, all copied) of each copy of the WAL
    copy_wal = getattr(table.store, "copy_wal", None)
    if detail and copy_wal is not None:
        def timed_copy():
            t = time.perf_counter()
            ok = copy_wal()
            copies.append((t - t_start, time.perf_counter() - t, ok))
            return ok
        table.store.copy_wal = timed_copy
    passes: list[tuple] = []            # --detail: (start s, took s, generation) of the collector's passes
    began: dict = {}

    def collector(phase, info):
        if phase == "start":
            began["t"] = time.perf_counter()
        elif "t" in began:
            passes.append((began["t"] - t_start, time.perf_counter() - began.pop("t"), info["generation"]))
    if detail:
        gc.callbacks.append(collector)
    for r in range(rounds):
        stop = threading.Event()

        def poller():
            client = app.test_client()
            while not stop.is_set():
                client.get(f"/api/history?since={table.snapshot()['seq']}")
                stop.wait(0.02)
        poll = r % 2 == 1
        th = threading.Thread(target=poller, daemon=True)
        if poll:
            th.start()
            time.sleep(0.05)
        for i in range(presses // rounds):
            cmd = {"type": "peg", "side": "p1", "points": 1} if i % 2 == 0 else {"type": "undo"}
            t0 = time.perf_counter()
            table.submit(cmd)
            took = time.perf_counter() - t0
            timeline.append((t0 - t_start, took, r, i))
            lat["polled" if poll else "alone"].append(took)
            if not poll:
                lat["alone_a" if r % 4 == 0 else "alone_b"].append(took)
            time.sleep(0.005)           # a person presses a few times a second at most
        stop.set()
        if poll:
            th.join()
    table.close()
    if detail:
        gc.callbacks.remove(collector)
        full = [x for x in passes if x[2] == 2]
        print(f"\n(--detail) the collector: {len(passes)} passes, {len(full)} full: "
              + ("; ".join(f"at {a:.3f} s, {b * 1000:.1f} ms" for a, b, _ in full) or "none"))
        print("(--detail) the store's copies of the WAL: "
              + ("; ".join(f"at {a:.3f} s, {b * 1000:.1f} ms, all copied {ok}" for a, b, ok in copies) or "none"))
        for side in (0, 1):
            worst = sorted((x for x in timeline if x[2] % 2 == side), key=lambda x: -x[1])[:5]
            print(f"(--detail) slowest presses {'polled' if side else 'alone'}: "
                  + "; ".join(f"{took * 1000:.1f} ms at {at:.3f} s (round {r + 1}, press {i + 1})"
                              for at, took, r, i in worst))
    return {k: (pct(v, 50), pct(v, 99), len(v)) for k, v in lat.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 and 100 hands, 100 stored matches")
    ap.add_argument("--detail", action="store_true",
                    help="before the press table: the store's WAL copies and the five slowest presses of each side")
    ap.add_argument("--presses", type=int, metavar="N",
                    help="board presses in the press rows, both sides together (default 2,000; --quick 160)")
    args = ap.parse_args(argv)
    sizes = [10, 100] if args.quick else [10, 100, 1000]
    stored = 100 if args.quick else 500
    reps = 30 if args.quick else 60
    print(f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"CPython {platform.python_version()}\n")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for n in sizes:
            path = tmp / f"h{n}" / "landsend.db"
            t0 = time.perf_counter()
            build(path, n)
            built = time.perf_counter() - t0
            first, start = startup(path, 7)
            c = costs(path, reps)
            c.update(start=start, first_start=first, built=built)
            rows.append((n, c))
        print("| hands in the match | peg (ordinary) | undo | undo / peg | amend | amend / peg | snapshot() "
              "| GET /api/table | history?since=last | history / table | start-up | first start-up |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n, c in rows:
            print(f"| {n:,} | {ms(c['peg'])} | {ms(c['undo'])} | {c['undo'] / c['peg']:.2f}x | {ms(c['amend'])} "
                  f"| {c['amend'] / c['peg']:.2f}x | {ms(c['snapshot'])} "
                  f"| {ms(c['get_table'])} | {ms(c['history'])} | {c['history'] / c['get_table']:.2f}x "
                  f"| {ms(c['start'])} | {ms(c['first_start'])} |")
        base = rows[0][1]
        print("\nAs ratios to the same cost at 10 hands: "
              + "; ".join(f"{n:,} hands: undo {c['undo'] / base['undo']:.2f}x, amend {c['amend'] / base['amend']:.2f}x, history {c['history'] / base['history']:.2f}x, "
                          f"snapshot {c['snapshot'] / base['snapshot']:.2f}x, start-up {c['start'] / base['start']:.2f}x"
                          for n, c in rows[1:]))

        empty = tmp / "empty" / "landsend.db"
        Table.open(empty).close()
        old = tmp / "old" / "landsend.db"
        t0 = time.perf_counter()
        build(old, 20, matches=stored)
        built = time.perf_counter() - t0
        first = first_open(old)
        # in turn, after the set-up: the empty database used to be opened before the 500 matches were built and
        # the stored one right after, while the disk was still taking the set-up's writes (bench/README)
        start_empty, start_old = startups_in_turn([empty, old], 15)
        print(f"\n| start-up | median of 15, in turn | vs empty |\n|---|---:|---:|\n| empty database | {ms(start_empty)} | 1.00x |\n"
              f"| {stored} stored matches of 20 hands | {ms(start_old)} | {start_old / start_empty:.2f}x |\n"
              f"| same, first open after the set-up | {ms(first)} | "
              f"{first / start_empty:.2f}x |")
        print(f"\n(set-up: {stored} matches built in {built:.1f} s)")

        n = sizes[-1]
        path = tmp / f"h{n}" / "landsend.db"
        # 1,000 presses a side: the p99 of 200 (the second or third slowest) was flipped either way by one stall
        # of this machine's disk (its noise row went from 0.18x to 1.56x over 8 quiet runs; bench/README)
        presses = args.presses or (160 if args.quick else 2000)
        got = press_p99(path, presses, detail=args.detail)
        (p50a, p99a, na), (p50b, p99b, nb) = got["alone"], got["polled"]
        print(f"\n| board press at {n:,} hands (peg / hold-undo) | presses | p50 | p99 |\n|---|---:|---:|---:|\n"
              f"| alone | {na} | {ms(p50a)} | {ms(p99a)} |\n"
              f"| while a phone polls history every 20 ms | {nb} | {ms(p50b)} | {ms(p99b)} |\n"
              f"| ratio polled / alone | | {p50b / p50a:.2f}x | {p99b / p99a:.2f}x |\n"
              f"| noise: alone, rounds 1, 5, … / rounds 3, 7, … | | "
              f"{got['alone_a'][0] / got['alone_b'][0]:.2f}x | {got['alone_a'][1] / got['alone_b'][1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
