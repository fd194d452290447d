"""Make the databases of every released store schema, as SQL text, from the code of its own commit.

Run from the repository (it reads git history; nothing here runs in the suite):

    python3 tests/data/schemas/make.py

For each schema it checks out that commit's ``companion`` package alone into a scratch folder, plays the
same short evening with that code (a Land's End match pegged out, an undo, a second match left in play),
and writes ``schema-N.sql`` (SQLite's ``iterdump``). ``tests/test_store_schema.py`` opens each one with
today's store, which must migrate it forward and read back exactly the evening played here.
"""

import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# schema number -> the commit that released it (the store's _SCHEMA, and what it added)
RELEASES = {
    1: "56fa791",   # events, matches
    2: "24c62ef",   # + checkpoints, closed; events' derived columns steps, depth, undone
    3: "7405e81",   # + meta (the page's secret key, who holds the table)
    4: "88a649f",   # + summaries (the season's one row per finished match)
}

# one evening every released table accepts: pegs, an undo, a peg-out, a new match left in play
PLAY = r"""
import datetime, json, random, sys
from companion.table import Table
kwargs = {}
try:
    t = Table.open(sys.argv[1], rng=random.Random(7),
                   clock=lambda: datetime.datetime(2026, 11, 20, 21, 0, tzinfo=datetime.timezone.utc))
except TypeError:                                  # the first releases took no clock
    t = Table.open(sys.argv[1], rng=random.Random(7))
t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 2,
          "first_dealer": "Bob"}, client_id="m1")
for i, (side, pts) in enumerate([("p1", 5), ("p2", 3), ("p1", 4), ("p2", 9)]):
    t.submit({"type": "peg", "side": side, "points": pts}, client_id=f"a{i}")
t.submit({"type": "undo"}, client_id="u1")
t.submit({"type": "peg", "side": "p2", "points": 13}, client_id="out")      # Bob reaches 16: he loses
t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "stake": 1,
          "first_dealer": "Ann"}, client_id="m2")
t.submit({"type": "peg", "side": "p1", "points": 7}, client_id="b1")
print(json.dumps([s["score"] for s in t.snapshot()["sides"]]))
t.close()
"""


def make(number: int, rev: str, out: Path) -> list[int]:
    with tempfile.TemporaryDirectory() as tmp:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "companion"], check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=tar, check=True)
        db = Path(tmp) / "table.db"
        res = subprocess.run([sys.executable, "-c", PLAY, str(db)], cwd=tmp, capture_output=True, text=True,
                             env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"})
        if res.returncode:
            raise SystemExit(f"schema {number} ({rev}): {res.stderr}")
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        # the secret key and access state a table keeps in meta are this run's own: not kept in the repo
        dump = "\n".join(line for line in con.iterdump()
                         if not line.startswith('INSERT INTO "meta"')) + "\n"
        con.close()
        out.write_text(dump)
        return json.loads(res.stdout)


def main() -> None:
    for number, rev in RELEASES.items():
        scores = make(number, rev, HERE / f"schema-{number}.sql")
        print(f"schema {number} ({rev}): scores in play {scores}")


if __name__ == "__main__":
    main()
