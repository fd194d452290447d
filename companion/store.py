"""Event stores: where every accepted command is kept before it is acknowledged.

Two stores pass one contract (``tests/test_store.py``): :class:`MemoryStore`
for tests and :class:`SQLiteStore` for the table. Events are JSON objects with
a ``type``; the key is ``(match_id, seq)`` so a lost race becomes a
:class:`~companion.errors.ConflictError`, and a repeated client id is found
instead of stored twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterator

from .errors import ConflictError, StoreError

SCHEMA_VERSION = 1


class MemoryStore:
    """An event store in memory (tests, quick counts): same contract as SQLite."""

    def __init__(self) -> None:
        self._events: list[tuple[str, int, dict, str | None]] = []
        self._clients: dict[str, tuple[str, int]] = {}

    def append(self, match_id: str, seq: int, event: dict, *, client_id: str | None = None) -> None:
        """Store ``event`` as number ``seq`` of ``match_id``.

        :raises ConflictError: ``seq`` is taken, or ``client_id`` was used before.
        """
        if any(m == match_id and s == seq for m, s, _, _ in self._events):
            raise ConflictError(f"event {seq} of match {match_id} exists already")
        if client_id is not None and client_id in self._clients:
            raise ConflictError(f"client id {client_id!r} was used already")
        self._events.append((match_id, seq, json.loads(json.dumps(event)), client_id))
        if client_id is not None:
            self._clients[client_id] = (match_id, seq)

    def events(self, match_id: str) -> list[dict]:
        """Return the events of ``match_id`` in order (copies)."""
        rows = sorted((s, e) for m, s, e, _ in self._events if m == match_id)
        return [json.loads(json.dumps(e)) for _, e in rows]

    def matches(self) -> list[str]:
        """Return every match id, oldest first."""
        seen: list[str] = []
        for m, _, _, _ in self._events:
            if m not in seen:
                seen.append(m)
        return seen

    def find_client(self, client_id: str) -> dict | None:
        """Return the event stored with ``client_id``, or None."""
        hit = self._clients.get(client_id)
        if hit is None:
            return None
        for m, s, e, _ in self._events:
            if (m, s) == hit:
                return json.loads(json.dumps(e))
        return None

    def close(self) -> None:
        """Nothing to release."""


class SQLiteStore:
    """An append-only event store in one SQLite file (WAL, synchronous=FULL).

    A row is committed before :meth:`append` returns, so an acknowledged
    event survives a process kill or a power cut at any instant.
    """

    def __init__(self, path: "str | os.PathLike[str]", *, busy_timeout: float = 5.0) -> None:
        """Open (or create) the database at ``path``.

        :param busy_timeout: seconds to wait for another writer's lock before giving up.
        :raises StoreError: the file is not a database, is locked, or cannot be created.
        """
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = None
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout={max(0, int(busy_timeout * 1000))}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS events (
                    match_id TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    client_id TEXT UNIQUE,
                    body TEXT NOT NULL,
                    PRIMARY KEY (match_id, seq)
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS matches (
                    ord INTEGER PRIMARY KEY AUTOINCREMENT,
                    match_id TEXT NOT NULL UNIQUE
                );
                """
            )
            self._db.execute("SELECT count(*) FROM events").fetchone()
        except (sqlite3.Error, OSError) as exc:
            if self._db is not None:
                self._db.close()
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StoreError(f"cannot open the table database {path}: {reason}") from exc

    def append(self, match_id: str, seq: int, event: dict, *, client_id: str | None = None) -> None:
        """Store ``event`` as number ``seq`` of ``match_id``, durably, in one transaction.

        :raises ConflictError: ``seq`` is taken, or ``client_id`` was used before.
        """
        body = json.dumps(event, separators=(",", ":"), sort_keys=True)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                if seq == 0:
                    self._db.execute("INSERT OR IGNORE INTO matches (match_id) VALUES (?)", (match_id,))
                self._db.execute(
                    "INSERT INTO events (match_id, seq, type, version, client_id, body) VALUES (?, ?, ?, ?, ?, ?)",
                    (match_id, seq, event.get("type", "?"), SCHEMA_VERSION, client_id, body),
                )
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                raise ConflictError(f"event {seq} of match {match_id} or client id {client_id!r} exists already") from exc
            except sqlite3.Error as exc:   # locked by another writer, disk full, I/O error
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"table database {self.path}: could not store the {event.get('type', 'event')}: "
                                 f"{exc}; nothing changed") from exc
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def events(self, match_id: str) -> list[dict]:
        """Return the events of ``match_id`` in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE match_id = ? ORDER BY seq", (match_id,)).fetchall()
        out = []
        for seq, body in rows:
            try:
                event = json.loads(body)
            except ValueError:
                event = None
            if not isinstance(event, dict):
                raise StoreError(f"table database {self.path}: event {seq} of match {match_id} is not JSON "
                                 f"(the file is damaged)")
            out.append(event)
        return out

    def matches(self) -> list[str]:
        """Return every match id, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT match_id FROM matches ORDER BY ord").fetchall()
        return [r[0] for r in rows]

    def find_client(self, client_id: str) -> dict | None:
        """Return the event stored with ``client_id``, or None."""
        with self._lock:
            row = self._db.execute("SELECT body FROM events WHERE client_id = ?", (client_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def close(self) -> None:
        """Close the database file."""
        with self._lock:
            self._db.close()


def iter_all(store: "MemoryStore | SQLiteStore") -> Iterator[tuple[str, list[dict]]]:
    """Yield ``(match_id, events)`` for every match, oldest first."""
    for m in store.matches():
        yield m, store.events(m)
