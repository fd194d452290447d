"""Crash safety: a child process plays scripted games into SQLite and is killed with SIGKILL at random.

After each kill the table is reopened from the file: every event the child had
acknowledged is there (at most one more, committed but not yet acknowledged),
and the rebuilt state equals the state an uninterrupted table had after that
many commands. On restart the child first retries its last command with the
same client id, as a phone on bad Wi-Fi would: it must not be applied twice.
"""

import multiprocessing
import os
import random
import signal
import time

import pytest

from companion.table import Table
from engine_play import RandomPlayer, new_table

KILLS = 300


def _script(game, players, seed, options=None):
    """Return (commands, snapshots after each command) of one seeded game."""
    t = new_table(game, players, seed=seed, first_dealer=players[-1], options=options)
    cmds = [{"type": "new_match", "game": game, "players": players, "first_dealer": players[-1],
             "options": options or {}}]
    snaps = [t.snapshot()]

    def submit(cmd):
        ev = t.submit(cmd)
        cmds.append(dict(cmd))
        snaps.append(t.snapshot())
        if len(cmds) % 7 == 3 and not t.state.over:          # an undo now and then, redone at once
            t.submit({"type": "undo"})
            cmds.append({"type": "undo"})
            snaps.append(t.snapshot())
            t.submit(cmd)
            cmds.append(dict(cmd))
            snaps.append(t.snapshot())
        return ev

    RandomPlayer(t, random.Random(seed), submit=submit).play_game()
    return cmds, snaps


def _child(path, scripts, ack_fd):
    """Play the scripts from where the file says they got to; ack each stored event on ``ack_fd``."""
    try:
        t = Table.open(path, default_match=None)
        matches = t.store.matches()
        k = max(len(matches) - 1, 0)
        done = len(t.store.events(matches[-1])) if matches else 0
        if done:   # retry the last command with its client id: acknowledged once, never applied twice
            ev = t.submit(scripts[k][0][done - 1], client_id=f"s{k}-{done - 1}")
            assert ev.get("duplicate") is True and ev["seq"] == done - 1
            os.write(ack_fd, f"{k}:{done - 1}\n".encode())
        if matches and done == len(scripts[k][0]):
            k, done = k + 1, 0
        for k in range(k, len(scripts)):
            cmds = scripts[k][0]
            for i in range(done, len(cmds)):
                t.submit(cmds[i], client_id=f"s{k}-{i}")
                os.write(ack_fd, f"{k}:{i}\n".encode())
            done = 0
        t.close()
    finally:
        os._exit(0)


def _strip(snap):
    return {k: v for k, v in snap.items() if k not in ("match_id", "ledger")}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_sigkill_at_random_moments_never_loses_an_acknowledged_event(tmp_path):
    scripts = [_script("cribbage", ["Ann", "Bob"], 3), _script("lands-end-3", ["Ann", "Bob", "Cy"], 5),
               _script("table-top-cribbage", ["Ann", "Bob"], 7), _script("five-card", ["Ann", "Bob"], 11)]
    total = sum(len(c) for c, _ in scripts)
    path = tmp_path / "crash.db"
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(2024)
    acked: dict[int, int] = {}       # script -> highest acknowledged command index
    kills = 0
    finished = 0
    in_flight = 0                    # kills that caught an event committed but not yet acknowledged
    while kills < KILLS:
        r, w = os.pipe()
        proc = ctx.Process(target=_child, args=(path, scripts, w))
        proc.start()
        os.close(w)
        # mostly within the first few commands; now and then later, so the games do reach their end
        time.sleep(rng.random() * (0.2 if kills % 15 == 14 else 0.02))
        if proc.is_alive():
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.join()
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        for line in data.decode().splitlines():
            k, i = map(int, line.split(":"))
            acked[k] = max(acked.get(k, -1), i)
        t = Table.open(path, default_match=None)
        matches = t.store.matches()
        k = len(matches) - 1
        stored = len(t.store.events(matches[-1])) if matches else 0
        if matches:
            # every acknowledged event is there; at most one more was committed before the kill
            assert all(acked.get(j, -1) == len(scripts[j][0]) - 1 for j in range(k))
            assert acked.get(k, -1) + 1 <= stored <= acked.get(k, -1) + 2
            in_flight += stored == acked.get(k, -1) + 2
            assert _strip(t.snapshot()) == _strip({**scripts[k][1][stored - 1], "seq": stored - 1})
        t.close()
        if k == len(scripts) - 1 and stored == len(scripts[-1][0]):
            finished += 1
            path.unlink()
            for suffix in ("-wal", "-shm"):
                p = path.with_name(path.name + suffix)
                if p.exists():
                    p.unlink()
            acked = {}
    assert kills == KILLS and total > 150
    # Last, a run nobody kills carries on from wherever the kills left the file and finishes every game
    # (on a loaded machine the random kills may never let a whole run through: that is load, not loss).
    r, w = os.pipe()
    proc = ctx.Process(target=_child, args=(path, scripts, w))
    proc.start()
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    proc.join()
    acks = [tuple(map(int, line.split(":"))) for line in data.decode().splitlines()]
    assert acks and acks[-1] == (len(scripts) - 1, len(scripts[-1][0]) - 1)
    t = Table.open(path, default_match=None)
    matches = t.store.matches()
    assert len(matches) == len(scripts)
    assert [len(t.store.events(m)) for m in matches] == [len(c) for c, _ in scripts]
    assert _strip(t.snapshot()) == _strip({**scripts[-1][1][-1], "seq": len(scripts[-1][0]) - 1})
    t.close()
    print(f"{kills} kills, {finished} full runs of {total} commands, {in_flight} kills with an event in flight")
