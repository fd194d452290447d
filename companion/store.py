"""Event stores: where every accepted command is kept before it is acknowledged.

Two stores pass one contract (``tests/test_store.py``): :class:`MemoryStore`
for tests and :class:`SQLiteStore` for the table. Events are JSON objects with
a ``type``; the key is ``(match_id, seq)`` so a lost race becomes a
:class:`~companion.errors.ConflictError`, and a repeated client id is found
instead of stored twice.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime
import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

from .errors import ConflictError, StoreError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4
"""The layout of a table database, stamped in the file (``PRAGMA user_version``). Every released layout:

1. ``events``, ``matches`` (the first table, 2026-11-21)
2. + ``checkpoints``, ``closed``, and the events' derived columns ``steps``, ``depth``, ``undone``
3. + ``meta`` (the page's secret key, who holds the table)
4. + ``summaries`` (the season's one row per finished match); the first stamped in the file

An older file is migrated forward in one transaction when it is opened (:data:`MIGRATIONS`); a newer one is
refused with the versions named, never read. Files written before the stamp (layouts 1 to 4) are told apart by
what they hold (:func:`schema_of`). ``tests/data/schemas/`` keeps a database made by each released layout's
own code."""

EVENT_VERSION = 1
"""The format of a stored event's body (the ``version`` column of ``events``)."""

CHECKPOINT_AFTER = 256
"""Commits after which :class:`SQLiteStore`'s own thread copies the WAL into the database file (about 800 pages
of a two-hand match: SQLite's own threshold is 1,000). SQLite would do it inside the commit that crosses its
threshold, so that one press paid two more fsyncs and the writing of the pages, and the next press a third (the
restarted WAL's header): issue 38's tail."""

CHECKPOINT_IDLE = 0.02
"""Seconds without a commit the store's checkpoint waits for (at most :data:`CHECKPOINT_WAIT`), so that it
does not share the disk with a press: counted from the end of the last write, and never while one is in flight
(a press slow in its fdatasync is not a pause)."""

CHECKPOINT_WAIT = 2.0
"""Seconds the checkpoint waits at most for :data:`CHECKPOINT_IDLE` (commits that never pause: it goes on)."""

APPLICATION_ID = 0x4C454E44
"""``PRAGMA application_id`` of a Land's End table ("LEND"): a database of another program is told apart."""

_SCHEMA = (
    # the events: the only truth; steps, depth and undone are derived data the table writes with them
    """CREATE TABLE IF NOT EXISTS events (
        match_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        version INTEGER NOT NULL,
        client_id TEXT UNIQUE,
        body TEXT NOT NULL,
        steps TEXT,
        depth INTEGER,
        undone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (match_id, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS matches (
        ord INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id TEXT NOT NULL UNIQUE
    )""",
    # derived: the folded state every few live events of the current match
    """CREATE TABLE IF NOT EXISTS checkpoints (
        match_id TEXT NOT NULL,
        depth INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        state BLOB NOT NULL,
        PRIMARY KEY (match_id, depth)
    ) WITHOUT ROWID""",
    # derived: the money won and lost over every match up to a finished one
    """CREATE TABLE IF NOT EXISTS closed (
        match_id TEXT PRIMARY KEY,
        ledger TEXT NOT NULL
    ) WITHOUT ROWID""",
    # derived: what the season views keep of a match that is over (companion.season), so they read one row
    # per match instead of folding its events; written by the code version that made it, rebuilt otherwise
    """CREATE TABLE IF NOT EXISTS summaries (
        match_id TEXT PRIMARY KEY,
        version TEXT NOT NULL,
        body TEXT NOT NULL
    ) WITHOUT ROWID""",
    # what the table keeps beside its matches (the page's secret key, who holds the table): appended, never
    # overwritten, so a value that cannot be stored (a full disk) is refused and the last stored one stands
    """CREATE TABLE IF NOT EXISTS meta (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        value TEXT NOT NULL
    )""",
)


class MemoryStore:
    """An event store in memory (tests, quick counts): same contract as SQLite."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int], dict] = {}      # (match, seq) -> row (see _row)
        self._by_match: dict[str, list[int]] = {}          # match -> its seqs, in the order stored
        self._clients: dict[str, tuple[str, int]] = {}
        self._checkpoints: dict[str, dict[int, tuple[int, bytes]]] = {}
        self._closed: dict[str, dict] = {}
        self._summaries: dict[str, tuple[str, str]] = {}
        self._meta: dict[str, str] = {"created": _now()}   # a new table every time

    @staticmethod
    def _row(event: dict, steps: list | None, depth: int | None) -> dict:
        return {"body": json.dumps(event), "steps": None if steps is None else json.dumps(steps),
                "depth": depth, "undone": False, "type": event.get("type", "?")}

    def append(self, match_id: str, seq: int, event: dict, *, client_id: str | None = None,
               steps: list | None = None, depth: int | None = None, checkpoint: bytes | None = None,
               closes: tuple[str, dict] | None = None) -> None:
        """Store ``event`` as number ``seq`` of ``match_id`` with its derived data (see :class:`SQLiteStore`).

        :raises ConflictError: ``seq`` is taken, or ``client_id`` was used before.
        """
        self.append_many(match_id, [(seq, event, client_id, steps, depth, checkpoint)], closes=closes)

    def append_many(self, match_id: str, rows: list[tuple], *, closes: tuple[str, dict] | None = None) -> None:
        """Store several events at once, all or none: ``rows`` of
        ``(seq, event, client_id, steps, depth, checkpoint)``."""
        keys = set()
        clients = set()
        for seq, event, client_id, *_ in rows:
            if (match_id, seq) in self._rows or (match_id, seq) in keys:
                raise ConflictError(f"event {seq} of match {match_id} exists already")
            if client_id is not None and (client_id in self._clients or client_id in clients):
                raise ConflictError(f"client id {client_id!r} was used already")
            keys.add((match_id, seq))
            if client_id is not None:
                clients.add(client_id)
        for seq, event, client_id, steps, depth, checkpoint in rows:
            self._rows[(match_id, seq)] = self._row(event, steps, depth)
            bisect.insort(self._by_match.setdefault(match_id, []), seq)
            if client_id is not None:
                self._clients[client_id] = (match_id, seq)
            if event.get("type") == "undo" and (match_id, event.get("undoes")) in self._rows:
                self._rows[(match_id, event["undoes"])]["undone"] = True
            if checkpoint is not None:
                self._checkpoints.setdefault(match_id, {})[depth] = (seq, bytes(checkpoint))
        if closes is not None:
            self._closed[closes[0]] = json.loads(json.dumps(closes[1]))
            for m in [m for m in self._checkpoints if m != match_id]:
                del self._checkpoints[m]

    def events(self, match_id: str) -> list[dict]:
        """Return the events of ``match_id`` in order (copies)."""
        return [json.loads(self._rows[(match_id, s)]["body"]) for s in self._by_match.get(match_id, [])]

    def _seqs(self, match_id: str, lo: int, hi: int | None = None) -> list[int]:
        seqs = self._by_match.get(match_id, [])
        return seqs[bisect.bisect_left(seqs, lo):None if hi is None else bisect.bisect_right(seqs, hi)]

    def history(self, match_id: str, since: int = 0, until: int | None = None) -> list[dict]:
        """Return the events of ``match_id`` with ``since <= seq <= until``, each with ``undone`` and
        ``steps`` (None when the table did not record them)."""
        out = []
        for s in self._seqs(match_id, since, until):
            row = self._rows[(match_id, s)]
            ev = json.loads(row["body"])
            ev["undone"] = row["undone"]
            ev["steps"] = None if row["steps"] is None else json.loads(row["steps"])
            out.append(ev)
        return out

    def live_events(self, match_id: str, after: int) -> list[dict]:
        """Return the events after ``after`` that are neither undos nor undone, in order."""
        return [json.loads(self._rows[(match_id, s)]["body"]) for s in self._seqs(match_id, after + 1)
                if self._rows[(match_id, s)]["type"] != "undo"
                and not self._rows[(match_id, s)]["undone"]]

    def head(self, match_id: str) -> tuple[int, int | None] | None:
        """Return ``(seq, depth)`` of the last event of ``match_id`` (depth None when not recorded)."""
        seqs = self._by_match.get(match_id)
        if not seqs:
            return None
        s = seqs[-1]
        return s, self._rows[(match_id, s)]["depth"]

    def checkpoint(self, match_id: str, depth: int) -> tuple[int, int, bytes] | None:
        """Return ``(depth, seq, state)`` of the deepest checkpoint of ``match_id`` at ``depth`` or
        less whose event is not undone, or None."""
        best = None
        for d, (seq, blob) in self._checkpoints.get(match_id, {}).items():
            row = self._rows.get((match_id, seq))
            if d <= depth and row is not None and not row["undone"] and (best is None or d > best[0]):
                best = (d, seq, blob)
        return best

    def put_checkpoint(self, match_id: str, depth: int, seq: int, state: bytes) -> None:
        """Store a checkpoint (derived data) of ``match_id`` at live ``depth`` (event ``seq``)."""
        self._checkpoints.setdefault(match_id, {})[depth] = (seq, bytes(state))

    def put_derived(self, match_id: str, rows: list[tuple[int, list, int, bool]]) -> None:
        """Record ``(seq, steps, depth, undone)`` for stored events (migrating an older file)."""
        for seq, steps, depth, undone in rows:
            row = self._rows[(match_id, seq)]
            row.update(steps=json.dumps(steps), depth=depth, undone=undone)

    def closed(self, match_id: str) -> dict | None:
        """Return the ledger of every match up to and including the closed ``match_id``, or None."""
        led = self._closed.get(match_id)
        return None if led is None else dict(led)

    def put_closed(self, match_id: str, ledger: dict) -> None:
        """Record the ledger of every match up to and including ``match_id`` (migrating an older file)."""
        self._closed[match_id] = dict(ledger)

    def summaries(self, version: str, ids: "list[str] | None" = None) -> dict[str, dict]:
        """Return the summaries of ``version`` (:meth:`put_summary`) by match id, oldest match first (of the
        matches ``ids`` only, when given)."""
        return {m: json.loads(self._summaries[m][1]) for m in (self._by_match if ids is None else ids)
                if m in self._summaries and self._summaries[m][0] == version}

    def put_summary(self, match_id: str, version: str, body: dict) -> None:
        """Record the season's summary of ``match_id`` (derived data), made by code ``version``."""
        self._summaries[match_id] = (version, json.dumps(body))

    def matches(self, last: int | None = None) -> list[str]:
        """Return every match id (or the ``last`` newest), oldest first."""
        ids = list(self._by_match)
        return ids if last is None else ids[-last:] if last else []

    def find_client(self, client_id: str) -> dict | None:
        """Return the event stored with ``client_id``, or None."""
        hit = self._clients.get(client_id)
        return None if hit is None else json.loads(self._rows[hit]["body"])

    def clients_of(self, match_id: str, since: int = 0) -> dict[int, str]:
        """Return the client id each event of ``match_id`` from ``since`` on was stored with (seq -> id)."""
        return {seq: cid for cid, (m, seq) in self._clients.items() if m == match_id and seq >= since}

    def get_meta(self, key: str) -> str | None:
        """Return the value last stored under ``key`` (see :meth:`SQLiteStore.put_meta`), or None."""
        return self._meta.get(key)

    def put_meta(self, key: str, value: str, *, what: str | None = None) -> None:
        """Store ``value`` under ``key``."""
        self._meta[key] = str(value)

    def event_count(self) -> int:
        """Return how many events the store holds, of every match."""
        return len(self._rows)

    def close(self) -> None:
        """Nothing to release."""


class SQLiteStore:
    """An append-only event store in one SQLite file (WAL, synchronous=FULL).

    A row is committed before :meth:`append` returns, so an acknowledged
    event survives a process kill or a power cut at any instant: each commit
    is one fdatasync of the WAL, and nothing else. Copying the WAL into the
    database file (a checkpoint) is not left to SQLite, which does it inside
    the commit that crosses its threshold: every ``checkpoint_after``
    commits the store's own thread does it (:meth:`copy_wal`) once the
    commits pause for :data:`CHECKPOINT_IDLE` s, on a connection of its own,
    while commits go on.
    """

    def __init__(self, path: "str | os.PathLike[str]", *, busy_timeout: float = 5.0,
                 checkpoint_after: "int | None" = CHECKPOINT_AFTER) -> None:
        """Open (or create) the database at ``path``.

        :param busy_timeout: seconds to wait for another writer's lock before giving up.
        :param checkpoint_after: commits between two copies of the WAL into the file by the store's thread
            (None: only :meth:`copy_wal` and the close copy it).
        :raises StoreError: the file is not a database (an empty, 0-byte file included), is locked, or
            cannot be created.
        """
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = None
        self._busy_ms = max(0, int(busy_timeout * 1000))
        self._checkpoint_after = checkpoint_after if str(path) != ":memory:" else None
        self._commits = 0                  # since the last checkpoint
        self._last_commit = 0.0            # time.monotonic() of the end of the last write
        self._writing = False              # a write is in flight (BEGIN .. COMMIT and its fdatasync)
        self._wake = threading.Condition()
        self._closing = False
        self._checkpointer: "threading.Thread | None" = None
        self._side: "sqlite3.Connection | None" = None     # the checkpoint's own connection
        self._side_lock = threading.Lock()
        if str(path) != ":memory:" and self.path.is_file() and self.path.stat().st_size == 0:
            # SQLite would take an empty file for a new database: a truncated table must not start afresh
            raise StoreError(f"cannot open the table database {path}: the file is empty (0 bytes), so it is not "
                             f"a table database; move it away (or delete it) to start a fresh table")
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if not self.path.exists():
                    _create(self.path)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            readable(self._db, str(path))      # another program's file, or a newer table's, is left untouched
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA wal_autocheckpoint=0")      # the store's thread checkpoints (checkpoint)
            # the page cache is what memory holds of the file: 2 MB (SQLite's default, said here as the bound
            # the daemon's memory relies on however long the match grows; bench/bench_memory.py)
            self._db.execute("PRAGMA cache_size=-2000")
            self.schema_before = migrate(self._db, str(path))
            self._db.execute("SELECT seq FROM events LIMIT 1").fetchone()     # a damaged file fails here, in one read
        except (sqlite3.Error, OSError) as exc:
            if self._db is not None:
                self._db.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StoreError(f"cannot open the table database {path}: {reason}") from exc
        except StoreError:
            self._db.close()
            raise

    def append(self, match_id: str, seq: int, event: dict, *, client_id: str | None = None,
               steps: list | None = None, depth: int | None = None, checkpoint: bytes | None = None,
               closes: tuple[str, dict] | None = None) -> None:
        """Store ``event`` as number ``seq`` of ``match_id``, durably, in one transaction.

        The rest is data derived from the events, written in the same transaction
        (the events stay the only truth; the table can rebuild it all):
        ``steps``, the score steps the event produced (:meth:`history` returns them);
        ``depth``, how many events are live (not undone) after it; ``checkpoint``,
        the folded state after it (kept under ``depth``, read by :meth:`checkpoint`);
        ``closes``, ``(match_id, ledger)`` when this event replaces a finished match:
        the money won and lost over every match up to that one (:meth:`closed`).
        An ``undo`` event marks the event it ``undoes`` as undone.

        :raises ConflictError: ``seq`` is taken, or ``client_id`` was used before.
        """
        self.append_many(match_id, [(seq, event, client_id, steps, depth, checkpoint)], closes=closes)

    def append_many(self, match_id: str, rows: list[tuple], *, closes: tuple[str, dict] | None = None) -> None:
        """Store several events of ``match_id`` in one transaction, all or none: ``rows`` of
        ``(seq, event, client_id, steps, depth, checkpoint)`` as for :meth:`append`.

        :raises ConflictError: a ``seq`` or a ``client_id`` is taken; nothing is stored.
        """
        what = rows[-1][1].get("type", "event") if len(rows) == 1 else f"{len(rows)} events"
        with self._writer():
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for seq, event, client_id, steps, depth, checkpoint in rows:
                    body = json.dumps(event, separators=(",", ":"), sort_keys=True)
                    if seq == 0:
                        self._db.execute("INSERT OR IGNORE INTO matches (match_id) VALUES (?)", (match_id,))
                    self._db.execute(
                        "INSERT INTO events (match_id, seq, type, version, client_id, body, steps, depth) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (match_id, seq, event.get("type", "?"), EVENT_VERSION, client_id, body,
                         None if steps is None else json.dumps(steps, separators=(",", ":")), depth),
                    )
                    if event.get("type") == "undo" and isinstance(event.get("undoes"), int):
                        self._db.execute("UPDATE events SET undone = 1 WHERE match_id = ? AND seq = ?",
                                         (match_id, event["undoes"]))
                    if checkpoint is not None:
                        self._db.execute("INSERT OR REPLACE INTO checkpoints (match_id, depth, seq, state) "
                                         "VALUES (?, ?, ?, ?)", (match_id, depth, seq, checkpoint))
                if closes is not None:
                    self._db.execute("INSERT OR REPLACE INTO closed (match_id, ledger) VALUES (?, ?)",
                                     (closes[0], json.dumps(closes[1])))
                    self._db.execute("DELETE FROM checkpoints WHERE match_id != ?", (match_id,))
                self._db.execute("COMMIT")
                self._committed()
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                seq, client_id = rows[-1][0], rows[-1][2]
                raise ConflictError(f"event {seq} of match {match_id} or client id {client_id!r} exists already") from exc
            except sqlite3.Error as exc:   # locked by another writer, disk full, I/O error
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"table database {self.path}: could not store the {what}: "
                                 f"{exc}; nothing changed") from exc
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def _parse(self, match_id: str, seq: int, body: str) -> dict:
        try:
            event = json.loads(body)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            raise StoreError(f"table database {self.path}: event {seq} of match {match_id} is not JSON "
                             f"(the file is damaged)")
        return event

    def events(self, match_id: str) -> list[dict]:
        """Return the events of ``match_id`` in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE match_id = ? ORDER BY seq", (match_id,)).fetchall()
        return [self._parse(match_id, seq, body) for seq, body in rows]

    def history(self, match_id: str, since: int = 0, until: int | None = None) -> list[dict]:
        """Return the events of ``match_id`` with ``since <= seq <= until``, each with ``undone`` and
        ``steps`` (None when the table did not record them); one indexed read."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, body, steps, undone FROM events WHERE match_id = ? AND seq >= ? AND seq <= ? "
                "ORDER BY seq", (match_id, since, 2 ** 62 if until is None else until)).fetchall()
        out = []
        for seq, body, steps, undone in rows:
            ev = self._parse(match_id, seq, body)
            ev["undone"] = bool(undone)
            ev["steps"] = None if steps is None else json.loads(steps)
            out.append(ev)
        return out

    def live_events(self, match_id: str, after: int) -> list[dict]:
        """Return the events after ``after`` that are neither undos nor undone, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE match_id = ? AND seq > ? AND type != 'undo' AND undone = 0 "
                "ORDER BY seq", (match_id, after)).fetchall()
        return [self._parse(match_id, seq, body) for seq, body in rows]

    def head(self, match_id: str) -> tuple[int, int | None] | None:
        """Return ``(seq, depth)`` of the last event of ``match_id`` (depth None when not recorded)."""
        with self._lock:
            row = self._db.execute("SELECT seq, depth FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1",
                                   (match_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def checkpoint(self, match_id: str, depth: int) -> tuple[int, int, bytes] | None:
        """Return ``(depth, seq, state)`` of the deepest checkpoint of ``match_id`` at ``depth`` or
        less whose event is not undone, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT c.depth, c.seq, c.state FROM checkpoints c JOIN events e "
                "ON e.match_id = c.match_id AND e.seq = c.seq "
                "WHERE c.match_id = ? AND c.depth <= ? AND e.undone = 0 ORDER BY c.depth DESC LIMIT 1",
                (match_id, depth)).fetchone()
        return None if row is None else (row[0], row[1], bytes(row[2]))

    def _write(self, sql_rows: list[tuple[str, tuple]]) -> None:
        """Run derived-data writes in one transaction (a failure leaves the events as they were)."""
        with self._writer():
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for sql, args in sql_rows:
                    self._db.execute(sql, args)
                self._db.execute("COMMIT")
                self._committed()
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"table database {self.path}: could not record derived data: {exc}") from exc

    def put_checkpoint(self, match_id: str, depth: int, seq: int, state: bytes) -> None:
        """Store a checkpoint (derived data) of ``match_id`` at live ``depth`` (event ``seq``)."""
        self._write([("INSERT OR REPLACE INTO checkpoints (match_id, depth, seq, state) VALUES (?, ?, ?, ?)",
                      (match_id, depth, seq, state))])

    def put_derived(self, match_id: str, rows: list[tuple[int, list, int, bool]]) -> None:
        """Record ``(seq, steps, depth, undone)`` for stored events (migrating an older file)."""
        self._write([("UPDATE events SET steps = ?, depth = ?, undone = ? WHERE match_id = ? AND seq = ?",
                      (json.dumps(steps, separators=(",", ":")), depth, int(undone), match_id, seq))
                     for seq, steps, depth, undone in rows])

    def closed(self, match_id: str) -> dict | None:
        """Return the ledger of every match up to and including the closed ``match_id``, or None."""
        with self._lock:
            row = self._db.execute("SELECT ledger FROM closed WHERE match_id = ?", (match_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_closed(self, match_id: str, ledger: dict) -> None:
        """Record the ledger of every match up to and including ``match_id`` (migrating an older file)."""
        self._write([("INSERT OR REPLACE INTO closed (match_id, ledger) VALUES (?, ?)", (match_id, json.dumps(ledger)))])

    def summaries(self, version: str, ids: "list[str] | None" = None) -> dict[str, dict]:
        """Return the summaries of ``version`` (:meth:`put_summary`) by match id, oldest match first
        (one read; of the matches ``ids`` only, when given: a build reads them a batch at a time)."""
        with self._lock:
            if ids is None:
                rows = self._db.execute(
                    "SELECT s.match_id, s.body FROM summaries s JOIN matches m ON m.match_id = s.match_id "
                    "WHERE s.version = ? ORDER BY m.ord", (version,)).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT s.match_id, s.body FROM summaries s JOIN matches m ON m.match_id = s.match_id "
                    f"WHERE s.version = ? AND s.match_id IN ({','.join('?' * len(ids))}) ORDER BY m.ord",
                    (version, *ids)).fetchall()
        return {m: json.loads(body) for m, body in rows}

    def put_summary(self, match_id: str, version: str, body: dict) -> None:
        """Record the season's summary of ``match_id`` (derived data), made by code ``version``."""
        self._write([("INSERT OR REPLACE INTO summaries (match_id, version, body) VALUES (?, ?, ?)",
                      (match_id, version, json.dumps(body, separators=(",", ":"))))])

    def matches(self, last: int | None = None) -> list[str]:
        """Return every match id (or the ``last`` newest), oldest first."""
        with self._lock:
            if last is None:
                rows = self._db.execute("SELECT match_id FROM matches ORDER BY ord").fetchall()
            else:
                rows = self._db.execute("SELECT match_id FROM matches ORDER BY ord DESC LIMIT ?", (last,)).fetchall()[::-1]
        return [r[0] for r in rows]

    def find_client(self, client_id: str) -> dict | None:
        """Return the event stored with ``client_id``, or None."""
        with self._lock:
            row = self._db.execute("SELECT body FROM events WHERE client_id = ?", (client_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def clients_of(self, match_id: str, since: int = 0) -> dict[int, str]:
        """Return the client id each event of ``match_id`` from ``since`` on was stored with (seq -> id);
        one indexed read."""
        with self._lock:
            rows = self._db.execute("SELECT seq, client_id FROM events WHERE match_id = ? AND seq >= ? "
                                    "AND client_id IS NOT NULL", (match_id, since)).fetchall()
        return dict(rows)

    def get_meta(self, key: str) -> str | None:
        """Return the value last stored under ``key`` by :meth:`put_meta`, or None."""
        with self._lock:
            try:
                row = self._db.execute("SELECT value FROM meta WHERE key = ? ORDER BY id DESC LIMIT 1",
                                       (key,)).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"table database {self.path}: cannot read {key}: {exc}") from exc
        return None if row is None else row[0]

    def put_meta(self, key: str, value: str, *, what: str | None = None) -> None:
        """Store ``value`` under ``key``, durably, before returning (a new row: the old values stay).

        :param what: how the error names the value (default ``key``).
        :raises StoreError: it cannot be stored (a full disk, a read-only file); the last value stands.
        """
        with self._writer():
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, str(value)))
                self._db.execute("COMMIT")
                self._committed()
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"table database {self.path}: could not store {what or key}: {exc}; "
                                 "nothing changed") from exc

    def event_count(self) -> int:
        """Return how many events the file holds, of every match (a backup's manifest counts them)."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    @contextlib.contextmanager
    def _writer(self):
        """Hold the store for a write; the checkpoint thread sees it in flight until it ends (its fdatasync
        included), and counts the quiet it waits for from its end."""
        with self._lock:
            self._writing = True
            try:
                yield
            finally:
                self._writing = False
                self._last_commit = time.monotonic()

    def _committed(self) -> None:
        """Count a commit (under ``_lock``); wake, or start, the checkpoint thread when one is due."""
        self._commits += 1
        if self._checkpoint_after is None or self._commits < self._checkpoint_after:
            return
        if self._checkpointer is None:
            self._checkpointer = threading.Thread(target=self._checkpoints, name="store-checkpoint", daemon=True)
            self._checkpointer.start()
        else:
            with self._wake:
                self._wake.notify()

    def _checkpoints(self) -> None:
        """The checkpoint thread: a checkpoint each time ``checkpoint_after`` commits are due, once the commits
        pause (:data:`CHECKPOINT_IDLE`, waited for at most :data:`CHECKPOINT_WAIT`); until :meth:`close`."""
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._closing or self._commits >= self._checkpoint_after)
                if self._closing:
                    return
                until = time.monotonic() + CHECKPOINT_WAIT
                while not self._closing:
                    # a write in flight is not a pause: a press slow in its fdatasync (a loaded disk) would
                    # otherwise have the copy start under it and wait for it (bench/README.md, bench_cost)
                    if self._writing:
                        self._wake.wait(0.001 if time.monotonic() >= until else CHECKPOINT_IDLE / 4)
                        continue
                    quiet = time.monotonic() - self._last_commit
                    if quiet >= CHECKPOINT_IDLE or time.monotonic() >= until:
                        break
                    self._wake.wait(CHECKPOINT_IDLE - quiet)
                if self._closing:
                    return
            try:
                self.copy_wal()
            except sqlite3.Error as exc:      # a full disk, a reader in the way: the next one tries again
                log.warning("table database %s: the WAL could not be copied into the file: %s", self.path, exc)

    def copy_wal(self) -> bool:
        """Copy the WAL into the database file (a checkpoint, in SQLite's words), then restart the WAL; return True when all of it was copied.

        The copy runs on the store's second connection (commits go on meanwhile: a passive checkpoint
        takes no writer's lock); then a one-page write on the store's own connection (the schema stamp
        written again, unchanged) starts the WAL over from its beginning, with the fsync of its new header
        that SQLite would otherwise leave to the next commit. Both fsync the WAL and the file as SQLite's
        own checkpoint does (``synchronous=FULL``).
        """
        with self._side_lock:
            self._commits = 0
            if self._closing:
                return False
            if self._side is None:
                self._side = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
                self._side.execute(f"PRAGMA busy_timeout={self._busy_ms}")
                self._side.execute("PRAGMA synchronous=FULL")
            busy, frames, copied = self._side.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if busy or frames != copied:
            return False
        with self._lock:
            stamp = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            self._db.execute(f"PRAGMA user_version={stamp}")
        return True

    def close(self) -> None:
        """Stop the checkpoint thread, close the database file (SQLite copies the WAL into it then)."""
        with self._wake:
            self._closing = True
            self._wake.notify_all()
        if self._checkpointer is not None and self._checkpointer is not threading.current_thread():
            self._checkpointer.join(timeout=30.0)
        with self._side_lock:
            if self._side is not None:
                self._side.close()
                self._side = None
        with self._lock:
            self._db.close()


_CREATE = {sql.split("EXISTS ", 1)[1].split()[0]: sql for sql in _SCHEMA}
"""Each table's ``CREATE`` by its name."""


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def schema_of(db: sqlite3.Connection) -> int:
    """Return the layout a database holds: its stamp, or for a file from before the stamp what it holds.

    0 is an empty database (no tables: a new table is made in it).

    :raises StoreError: it is not a Land's End table (another program's database).
    """
    app = db.execute("PRAGMA application_id").fetchone()[0]
    stamp = db.execute("PRAGMA user_version").fetchone()[0]
    tables = _tables(db) - {"sqlite_sequence"}
    columns = {r[1] for r in db.execute("PRAGMA table_info(events)")}
    first = {"match_id", "seq", "type", "version", "client_id", "body"}       # layout 1's events
    if app not in (0, APPLICATION_ID) or (tables and (not {"events", "matches"} <= tables or not first <= columns
                                                      or not tables <= set(_CREATE))):
        raise StoreError(f"it is not a Land's End table (it holds {', '.join(sorted(tables)) or 'no tables'}"
                         f"{f', application id {app:#x}' if app else ''})")
    if stamp:
        return stamp
    if not tables:
        return 0
    if "steps" not in columns:
        return 1
    return 2 if "meta" not in tables else 3 if "summaries" not in tables else 4


def _to_2(db: sqlite3.Connection) -> None:
    for column, decl in (("steps", "TEXT"), ("depth", "INTEGER"), ("undone", "INTEGER NOT NULL DEFAULT 0")):
        db.execute(f"ALTER TABLE events ADD COLUMN {column} {decl}")     # derived: the table fills them
    db.execute(_CREATE["checkpoints"])     # the table makes them again
    db.execute(_CREATE["closed"])          # likewise


MIGRATIONS = {
    # from layout N to N + 1, in the one transaction of migrate(); each is what that release added
    1: _to_2,
    2: lambda db: db.execute(_CREATE["meta"]),
    3: lambda db: db.execute(_CREATE["summaries"]),
}
assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION)), "one migration from every older layout"


def readable(db: sqlite3.Connection, name: str) -> int:
    """Return the layout an open database holds, when this code can read it (it writes nothing).

    :raises StoreError: a newer layout (named, with the one this code reads), or another program's database.
    """
    try:
        before = schema_of(db)
    except StoreError as exc:
        raise StoreError(f"cannot open the table database {name}: {exc}") from None
    if before > SCHEMA_VERSION:
        raise StoreError(f"cannot open the table database {name}: it holds schema {before}, made by a newer "
                         f"version of Land's End; this version reads schemas 1 to {SCHEMA_VERSION}: update "
                         f"the board's software to open it")
    return before


def migrate(db: sqlite3.Connection, name: str) -> int:
    """Bring an open database to :data:`SCHEMA_VERSION` in one transaction; return the layout it held.

    A file already at this layout is only read (it may be read-only); a layout from before the stamp that
    needs nothing but the stamp is read as it is when the file cannot be written.

    :raises StoreError: as :func:`readable`.
    """
    before = readable(db, name)
    if before == SCHEMA_VERSION and db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
        return before
    db.execute("BEGIN IMMEDIATE")
    try:
        if before == 0:                    # an empty database (``:memory:``, or one made outside _create)
            for sql in _SCHEMA:
                db.execute(sql)
        else:
            for n in range(before, SCHEMA_VERSION):
                MIGRATIONS[n](db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        if before == SCHEMA_VERSION and "readonly" in str(exc):
            return before                  # an unstamped file of this layout, on a read-only card: read it
        raise
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return before


def _create(path: Path) -> None:
    """Create an empty table database at ``path`` whole: built under another name, then linked in.

    It is stamped ``created`` (:meth:`SQLiteStore.get_meta`): a table this
    version made, which has nothing to take over from an older layout. Its
    mode is 0600: it keeps the page's secret key.

    SQLite writes nothing to a new file until its first write, so a kill or a
    power cut at the first start could leave an empty file behind, which an
    open would then refuse as a truncated table. Built aside and linked, the
    file at ``path`` is either absent or a database.
    """
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        db = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            # no syncs while it is built: under its temporary name nobody can open it, and the whole file is
            # fsynced below before it is linked in (then its folder); SQLite's own syncs (9 here: switching
            # to WAL, the commit, the checkpoint at close) bought nothing more, each a wait on an SD card
            db.execute("PRAGMA synchronous=OFF")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN")
            for sql in _SCHEMA:
                db.execute(sql)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("INSERT INTO meta (key, value) VALUES ('created', ?)", (_now(),))
            db.execute("COMMIT")
        finally:
            db.close()
        if os.path.exists(f"{tmp}-wal"):   # the close folds the WAL into the file; what it left is not linked
            raise sqlite3.OperationalError(f"{tmp}: the new database's WAL was not checkpointed at close")
        os.chmod(tmp, 0o600)            # it keeps the page's secret key: its owner's only (SQLite gives the
        with open(tmp, "rb") as f:      # -wal and -shm files the same mode)
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)          # never replaces a database another process made meanwhile
        except FileExistsError:
            pass
        try:
            dir_fd = os.open(path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    finally:
        tmp.unlink(missing_ok=True)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def iter_all(store: "MemoryStore | SQLiteStore") -> Iterator[tuple[str, list[dict]]]:
    """Yield ``(match_id, events)`` for every match, oldest first."""
    for m in store.matches():
        yield m, store.events(m)
