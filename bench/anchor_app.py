"""The anchor of ``bench_press.py``: the least a Flask app with the table's durability can do.

Run as ``python bench/anchor_app.py --port P --db FILE [--threads N]``. One
SQLite file in WAL mode with ``synchronous=FULL``: each ``POST /press``
commits one row in its own transaction (one fdatasync of the WAL before the
answer, as the table's commands, and nothing else: SQLite's own checkpoint,
which a commit would do every ~1,000 pages with two more syncs and the next
commit a third, is off, as the table's store has it off), then publishes the new state to every
open ``GET /events`` stream (Server-Sent Events, latest value wins, as
``web.live.Broadcaster``). ``GET /state`` answers the state. Served by
waitress with the daemon's thread count. Nothing else: no sessions, no
rules, no board.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading

from flask import Flask, Response, jsonify, request


def create_app(db_path: str) -> Flask:
    app = Flask(__name__)
    db = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA wal_autocheckpoint=0")      # one fdatasync per press, always (a bench's WAL stays small)
    db.execute("CREATE TABLE IF NOT EXISTS presses (seq INTEGER PRIMARY KEY, side TEXT NOT NULL, body TEXT NOT NULL)")
    lock = threading.Lock()
    cond = threading.Condition()
    state = {"seq": db.execute("SELECT COALESCE(MAX(seq), -1) FROM presses").fetchone()[0], "scores": {}}
    latest = [0, json.dumps(state)]                   # version, the state's JSON

    @app.post("/press")
    def press():
        side = (request.get_json(silent=True) or {}).get("side", "p1")
        with lock:
            seq = state["seq"] + 1
            body = json.dumps({"type": "peg", "side": side, "points": 1, "seq": seq})
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO presses (seq, side, body) VALUES (?, ?, ?)", (seq, side, body))
            db.execute("COMMIT")
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
