"""The anchor of ``bench_press.py``: the least a Flask app with the table's durability can do.

Run as ``python bench/anchor_app.py --port P --db FILE [--threads N]``. One
SQLite file in WAL mode with ``synchronous=FULL``: each ``POST /press``
commits one row in its own transaction (one fdatasync of the WAL before the
answer, as the table's commands, and nothing else), then publishes the new state to every
open ``GET /events`` stream (Server-Sent Events, latest value wins, as
``web.live.Broadcaster``). ``GET /state`` answers the state. Served by
waitress with the daemon's thread count. Nothing else: no sessions, no
rules, no board.

The WAL is handled as the table's store handles it (``companion.store``):
SQLite's own checkpoint, which a commit would make every ~1,000 pages with
two more syncs (and the next commit a third), is off; a thread of the app
copies the WAL into the file every 256 commits once the presses pause 20 ms
(a passive checkpoint on a second connection) and starts the WAL over (a
one-page write), so that both servers write their presses into a WAL of the
same size, reused: a WAL that grows makes every fdatasync also commit the
file's new size (here 0.58 ms a commit against 0.45 reused, p50).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading
import time

from flask import Flask, Response, jsonify, request


COPY_AFTER = 256      # commits between two copies of the WAL into the file (companion.store.CHECKPOINT_AFTER)
IDLE = 0.02           # seconds without a commit the copy waits for (companion.store.CHECKPOINT_IDLE)


def create_app(db_path: str) -> Flask:
    app = Flask(__name__)
    db = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA wal_autocheckpoint=0")      # one fdatasync per press, always: the copier below copies
    db.execute("CREATE TABLE IF NOT EXISTS presses (seq INTEGER PRIMARY KEY, side TEXT NOT NULL, body TEXT NOT NULL)")
    lock = threading.Lock()
    cond = threading.Condition()
    state = {"seq": db.execute("SELECT COALESCE(MAX(seq), -1) FROM presses").fetchone()[0], "scores": {}}
    latest = [0, json.dumps(state)]                   # version, the state's JSON
    due = threading.Condition()
    commits = [0, 0.0]                                # since the last copy; time.monotonic() of the last one

    def copier() -> None:
        side = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
        side.execute("PRAGMA synchronous=FULL")
        while True:
            with due:
                due.wait_for(lambda: commits[0] >= COPY_AFTER)
                while (quiet := time.monotonic() - commits[1]) < IDLE:
                    due.wait(IDLE - quiet)
                commits[0] = 0
            busy, frames, copied = side.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if not busy and frames == copied:
                with lock:
                    db.execute("PRAGMA user_version=0")          # the WAL starts over (header synced) here
    threading.Thread(target=copier, name="wal-copy", daemon=True).start()

    @app.post("/press")
    def press():
        side = (request.get_json(silent=True) or {}).get("side", "p1")
        with lock:
            seq = state["seq"] + 1
            body = json.dumps({"type": "peg", "side": side, "points": 1, "seq": seq})
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO presses (seq, side, body) VALUES (?, ?, ?)", (seq, side, body))
            db.execute("COMMIT")
            commits[0] += 1
            commits[1] = time.monotonic()
            if commits[0] >= COPY_AFTER:
                with due:
                    due.notify()
            state["seq"] = seq
            state["scores"][side] = state["scores"].get(side, 0) + 1
            text = json.dumps(state, separators=(",", ":"))
        with cond:
            latest[0] += 1
            latest[1] = text
            cond.notify_all()
        return jsonify({"seq": seq})

    @app.get("/state")
    def get_state():
        with lock:
            return jsonify(state)

    @app.get("/events")
    def events():
        def stream():
            with cond:
                seen, text = latest
            yield f"event: state\ndata: {text}\n\n"
            while True:
                with cond:
                    cond.wait_for(lambda: latest[0] != seen, timeout=15.0)
                    fresh = latest[0] != seen
                    seen, text = latest
                yield f"event: state\ndata: {text}\n\n" if fresh else "event: ping\ndata: {}\n\n"
        return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-store"})

    return app


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--threads", type=int, default=24)
    args = ap.parse_args()
    import waitress
    waitress.serve(create_app(args.db), host="127.0.0.1", port=args.port, threads=args.threads, _quiet=True)


if __name__ == "__main__":
    main()
