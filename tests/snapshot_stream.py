"""The engine's whole observable behaviour as digests: a refactor of the rules must not change one.

Every record in tests/data/records and a set of seeded random games of every preset
(tests/engine_play.py's random player, in counting and in claim mode) are played on a
memory table; after every command the harness digests the table snapshot, and for
every game also its history (every event with its score steps and undone flag), the
exported record and the snapshot of that record imported on a second table. Between
the player's commands a probe command drawn from its own generator (a random card
played by a random player, a go, a show, a claim...) is submitted too: its refusal
(class and message) goes into the digest, and one that is accepted is undone again,
so the refusals and the undo fold are covered as well.

The digests of the current code are stored in tests/data/snapshot_stream.json and
checked by tests/test_snapshot_stream.py. When a change is *meant* to change
behaviour (a ruling), regenerate them and say why in the commit:

    .venv/bin/python tests/snapshot_stream.py --write      # rewrite the golden file
    .venv/bin/python tests/snapshot_stream.py              # compare, listing the games that differ
    .venv/bin/python tests/snapshot_stream.py --dump NAME  # print one case's stream, one JSON line per item

To find where two versions of the code part, dump a case under each (an older checkout on
PYTHONPATH) and diff the two outputs.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from companion.cards import DECK  # noqa: E402
from companion.errors import RulesError  # noqa: E402
from companion.record import drive  # noqa: E402
from companion.replay import import_record  # noqa: E402
from companion.table import Table  # noqa: E402
from engine_play import GAMES, RandomPlayer  # noqa: E402

GOLDEN = HERE / "data" / "snapshot_stream.json"
RECORDS = HERE / "data" / "records"
SEEDS = (1, 2, 3, 4)          # seeded games of every preset, in counting mode and in claim mode
CLAIM_GAMES = ("lands-end", "lands-end-3", "lands-end-4", "cribbage", "five-card", "lands-end-tabletop",
               "table-top-cribbage", "table-top-cribbage-31")
PROBE_KINDS = ("play", "play", "go", "show", "pocket", "claim", "muggins", "turnup", "place", "layout", "peg")
CLOCK = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)


def _clock() -> _dt.datetime:
    return CLOCK


class Digest:
    """A running sha256 over JSON values, with the table's random match ids taken out."""

    dump = None            # a stream to print every item to (--dump)

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.ids: dict[str, str] = {}

    def add(self, label: str, value) -> None:
        text = json.dumps(value, sort_keys=True, default=repr)
        for real, fake in self.ids.items():
            text = text.replace(real, fake)
        self.h.update(label.encode() + b"\0" + text.encode() + b"\n")
        if self.dump is not None:
            print(label, text, file=self.dump)

    def table(self, t: Table) -> None:
        mid = t.state.match_id
        if mid and mid not in self.ids:
            self.ids[mid] = f"match{len(self.ids)}"
        self.add("snapshot", t.snapshot())

    def refusal(self, exc: RulesError) -> None:
        self.add("refused", [type(exc).__name__, str(exc)])

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _finish(d: Digest, t: Table) -> None:
    """Digest what a game leaves: its history, its exported record and that record imported."""
    if t.state.rules is None:
        return
    d.add("history", t.history())
    rec = t.export_record()
    d.add("record", rec)
    other = Table.memory(default_match=None, rng=random.Random(0), clock=_clock)
    try:
        d.add("import", import_record(other, rec))
    except RulesError as exc:
        d.refusal(exc)
    d.table(other)


def record_case(path: Path) -> str:
    d = Digest()
    t = Table.memory(default_match=None, rng=random.Random(0), clock=_clock)

    def on_step(where, cmd):
        d.add("step", [where, cmd])
        d.table(t)

    try:
        drive(t, json.loads(path.read_text()), on_step)
        error = None
    except RulesError as exc:
        error = str(exc)
    d.add("error", error)
    _finish(d, t)
    return d.hexdigest()


def _probe(t: Table, prng: random.Random) -> dict:
    kind = prng.choice(PROBE_KINDS)
    st = t.state
    cmd: dict = {"type": kind}
    card = str(prng.choice(DECK))
    if kind in ("play", "turnup", "place"):
        cmd["card"] = card
    if kind in ("play", "go", "show") and prng.random() < 0.6:
        cmd["player"] = prng.choice(st.seats)
    if kind in ("show", "pocket", "layout"):
        cmd["cards"] = [str(c) for c in prng.sample(DECK, prng.choice((4, 4, 5, 25)))]
    if kind == "place":
        if prng.random() < 0.3:
            cmd["crib"] = True
        else:
            cmd["row"], cmd["col"] = prng.randrange(5), prng.randrange(5)
    if kind in ("claim", "pocket", "show") and prng.random() < 0.7:
        cmd["points" if kind == "claim" else "claimed"] = prng.randrange(0, 14)
    if kind in ("claim", "muggins") and prng.random() < 0.5:
        cmd["side"] = prng.choice([s.id for s in st.sides])
    if kind == "peg":
        cmd.update(side=prng.randrange(len(st.sides)), points=prng.randrange(1, 4))
    return cmd


def game_case(game: str, players: list[str], options: dict, teams, seed: int, claims: bool, *,
              digest: type = Digest) -> str:
    d = digest()
    t = Table.memory(rng=random.Random(seed), default_match=None, clock=_clock)
    cmd = {"type": "new_match", "game": game, "players": players, "stake": 1, "first_dealer": None,
           "options": dict(options, **({"claim_mode": True} if claims else {}))}
    if teams:
        cmd["teams"] = teams
    t.submit(cmd)
    d.table(t)
    prng = random.Random(f"probe-{seed}")

    def submit(cmd):
        if not t.state.over and prng.random() < 0.5:
            probe = _probe(t, prng)
            try:
                d.add("probe", [probe, t.submit(dict(probe))])
                d.table(t)
                d.add("undo", t.submit({"type": "undo"}))
            except RulesError as exc:
                d.refusal(exc)
            d.table(t)
        ev = t.submit(cmd)
        d.add("event", ev)
        d.table(t)
        return ev

    p = RandomPlayer(t, random.Random(seed), submit=submit, claim_miss=0.3 if claims else 0.0)
    p.play_game()
    _finish(d, t)
    return d.hexdigest()


def cases():
    """Yield ``(name, thunk)`` for every case, in a fixed order."""
    for path in sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".result.json")):
        yield f"record/{path.stem}", (lambda p=path: record_case(p))
    for game, players, options, teams in GAMES:
        for claims in (False, True):
            if claims and game not in CLAIM_GAMES:
                continue
            for seed in SEEDS:
                name = f"game/{game}-{len(players)}{'-claims' if claims else ''}/{seed}"
                yield name, (lambda a=(game, players, options, teams, seed, claims): game_case(*a))


def compute() -> dict[str, str]:
    return {name: run() for name, run in cases()}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dump"]:
        Digest.dump = sys.stdout
        dict(cases())[argv[1]]()
        return 0
    got = compute()
    if "--write" in argv:
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} digests to {GOLDEN}")
        return 0
    want = json.loads(GOLDEN.read_text())
    bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    for k in bad:
        print(f"differs: {k}")
    print(f"{len(got) - len(bad)} of {len(got)} cases as recorded")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
