"""CPU per board press through ``Table.submit``: a peg of 1, stored, one subscriber told.

Runs batches of 200 pegs on a fresh cribbage match each (so no game ends) and
prints the best and the median batch's CPU time per press. CPU time, not wall
time: on a busy machine the wall clock measures the other processes, the
process's own CPU time much less so. To compare two versions of the code, run
it with each checkout first on the path, alternately, a few times each::

    PYTHONPATH=<old checkout> .venv/bin/python bench/bench_submit.py 10 sqlite
    PYTHONPATH=.              .venv/bin/python bench/bench_submit.py 10 sqlite

``sqlite`` is the board's store (one fsync per press); ``memory`` leaves the
disk out and shows the code's own cost.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from companion.table import Table

BATCH = 200


def main(argv: list[str]) -> None:
    batches = int(argv[0]) if argv else 10
    kind = argv[1] if len(argv) > 1 else "memory"
    with tempfile.TemporaryDirectory() as d:
        table = Table.open(os.path.join(d, "t.db")) if kind == "sqlite" else Table.memory()
        told = []
        table.subscribe(lambda snap: told.append(snap["seq"]))
        per_press = []
        for _ in range(batches):
            table.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
            t0 = time.process_time()
            for i in range(BATCH):
                table.submit({"type": "peg", "side": "p1" if i % 2 else "p2", "points": 1})
            per_press.append((time.process_time() - t0) / BATCH)
        table.close()
    assert len(told) == batches * (BATCH + 1)
    per_press.sort()
    print(f"{kind}: {batches * BATCH:,} presses, CPU per press best batch {per_press[0] * 1e6:.0f} us, "
          f"median batch {per_press[len(per_press) // 2] * 1e6:.0f} us")


if __name__ == "__main__":
    main(sys.argv[1:])
