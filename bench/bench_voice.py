"""Benchmark the voice: a button press reaches the LEDs as fast with speech on as with it off.

Run from the repository root::

    .venv/bin/python bench/bench_voice.py            # ~40 s
    .venv/bin/python bench/bench_voice.py --quick    # fewer presses, noisier

In one process, the daemon's own ``build(sim=True)`` on a SQLite table in a
temporary directory, with the real voice: espeak-ng rendering every
announcement ("Ann pegs one. 1 to Ann") and the simulator's sink writing it
as a WAV. A simulated button press (mock pin low, clock on, pin high ->
``table.submit`` -> subscribers -> render thread -> strip) is timed until
the simulated strip accepts the frame of the new state, as in
``bench_board.py``. Presses come every ``--gap`` ms (default 30), faster
than espeak-ng speaks, so speech is being rendered during almost every press
and the voice's bounded queue is full: the worst case for the board.

Rounds alternate speech off / speech on / speech off / ... on the same
daemon (the page's switch, ``Voice.configure(enabled=...)``); the result is
the ratio of the p50 and p99 with speech on to those with it off, and, as
the measure of noise, the ratio between the two halves of the speech-off
presses. The speech engine is required (``sudo apt install espeak-ng``).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.table import Table  # noqa: E402
from firmware.config import DEFAULTS  # noqa: E402
from firmware.daemon import build  # noqa: E402


def pct(values: list[float], p: float) -> float:
    """Return the ``p``-th percentile (nearest rank) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def run(rounds: int, per_round: int, gap_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.open(str(Path(tmp) / "bench.db"))
        config = DEFAULTS.replace("voice", enabled=False, sink="wav", wav_dir=str(Path(tmp) / "said"), queue=3)
        d = build(config, sim=True, table=table, web=False)
        shown: dict[int, float] = {}
        cond = threading.Condition()

        def on_show(frame) -> None:
            seq = (d.loop.snapshot or {}).get("seq")
            with cond:
                shown[seq] = time.perf_counter()
                cond.notify_all()
        d.strip.on_show = on_show
        off: list[list[float]] = []
        on: list[float] = []
        i = 0
        try:
            for r in range(rounds * 2):
                speaking = r % 2 == 1
                d.voice.configure(enabled=speaking)
                if not speaking:
                    off.append([])
                for _ in range(per_round):
                    time.sleep(gap_s)
                    start = time.perf_counter()
                    d.buttons.press("p1", hold=bool(i % 2))
                    i += 1
                    seq = table.snapshot()["seq"]
                    with cond:
                        cond.wait_for(lambda: seq in shown, timeout=5)
                    (on if speaking else off[-1]).append(shown[seq] - start)
                if speaking:
                    d.voice.wait_idle(30)
            spoken, dropped, fault = d.voice.spoken, d.voice.dropped, d.voice.fault
        finally:
            d.close()
            table.close()
    flat_off = [x for block in off for x in block]
    first = [x for k, block in enumerate(off) for x in block if k % 2 == 0]
    second = [x for k, block in enumerate(off) for x in block if k % 2 == 1]
    return {"off": flat_off, "on": on, "off_a": first, "off_b": second, "spoken": spoken, "dropped": dropped,
            "fault": fault}


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 rounds of 50 presses each way instead of 8 of 100")
    ap.add_argument("--gap", type=float, default=30.0, help="milliseconds between presses (default 30)")
    args = ap.parse_args(argv)
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is not installed (sudo apt install espeak-ng): nothing to measure", file=sys.stderr)
        return 1
    rounds, per_round = (4, 50) if args.quick else (8, 100)
    res = run(rounds, per_round, args.gap / 1000.0)
    if res["fault"]:
        print(f"the voice failed: {res['fault']}", file=sys.stderr)
        return 1
    print(f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"CPython {platform.python_version()}; simulator backend, espeak-ng writing WAVs; "
          f"{rounds} rounds each way of {per_round} presses, {args.gap:.0f} ms apart.\n")
    print("| button press -> frame pushed | presses | p50 | p99 |")
    print("|---|---:|---:|---:|")
    for label, xs in (("speech off", res["off"]), ("speech on", res["on"]),
                      ("speech off, odd rounds", res["off_a"]), ("speech off, even rounds", res["off_b"])):
        print(f"| {label} | {len(xs)} | {ms(statistics.median(xs))} | {ms(pct(xs, 99))} |")
    p50 = statistics.median(res["on"]) / statistics.median(res["off"])
    p99 = pct(res["on"], 99) / pct(res["off"], 99)
    noise50 = statistics.median(res["off_b"]) / statistics.median(res["off_a"])
    noise99 = pct(res["off_b"], 99) / pct(res["off_a"], 99)
    print(f"\nspeech on / off: p50 {p50:.2f}x, p99 {p99:.2f}x; noise (speech off, even / odd rounds): "
          f"p50 {noise50:.2f}x, p99 {noise99:.2f}x")
    print(f"announcements spoken {res['spoken']}, dropped from the full queue {res['dropped']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
