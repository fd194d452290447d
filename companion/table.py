"""The table: the one writer. Commands in, events stored, new state out.

>>> t = Table.memory()
>>> t.snapshot()["game"], [s["score"] for s in t.snapshot()["sides"]]
('lands-end', [0, 0])
>>> _ = t.submit({"type": "peg", "side": "p1", "points": 2})
>>> _ = t.submit({"type": "undo"})
>>> [s["score"] for s in t.snapshot()["sides"]]
[0, 0]

Every accepted command becomes one event, appended to the store *before*
:meth:`Table.submit` returns; the state is a fold over the events of the
current match with undone events removed, so a restart rebuilds exactly the
acknowledged state. Undo is itself an event, so history is never lost.
"""

from __future__ import annotations

import copy
import datetime as _dt
import logging
import random
import threading
import uuid
from typing import Any, Callable

from . import hand as _hand  # noqa: F401  (registers card-entry handlers)
from .announce import said
from .errors import IllegalAction, RulesError, StaleCommand, StoreError
from .match import HANDLERS, Context, MatchState, apply_event, fold
from .store import MemoryStore, SQLiteStore

log = logging.getLogger(__name__)

DEFAULT_MATCH = {"type": "new_match", "game": "lands-end", "players": ["Player 1", "Player 2"],
                 "stake": 1, "first_dealer": "Player 2"}
MAX_CLIENT_ID = 64


def effective(events: list[dict]) -> list[dict]:
    """Return ``events`` without the undo events and the events they undid."""
    stack: list[dict] = []
    for ev in events:
        if ev["type"] == "undo":
            if len(stack) > 1:
                stack.pop()
        else:
            stack.append(ev)
    return stack


class Table:
    """One match at a time, kept in an event store.

    :param store: a :class:`~companion.store.SQLiteStore` or :class:`~companion.store.MemoryStore`.
    :param rng: the randomness for cuts (``random.Random``); injectable for tests.
    :param clock: returns the current time as an aware datetime; injectable.
    :param default_match: the command that starts a match on a fresh store (None: none).
    """

    def __init__(self, store, *, rng: random.Random | None = None,
                 clock: Callable[[], _dt.datetime] | None = None,
                 default_match: dict | None = DEFAULT_MATCH) -> None:
        self.store = store
        self.rng = rng or random.Random()
        self.clock = clock or (lambda: _dt.datetime.now(_dt.timezone.utc))
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict], None]] = []
        self._events: list[dict] = []
        self._live: list[dict] = []      # effective(self._events), kept in step
        self._state = MatchState()
        self._snapshot: dict | None = None
        self._past_ledger: dict[str, float] = {}
        matches = store.matches()
        for m in matches[:-1]:
            self._add_ledger(self._past_ledger, self._fold_stored(m, effective(store.events(m))))
        if matches:
            self._events = store.events(matches[-1])
            self._live = effective(self._events)
            self._state = self._fold_stored(matches[-1], self._live)
            self._state.seq = self._events[-1]["seq"]
        elif default_match is not None:
            self.submit(default_match)
        self._refresh()

    def _fold_stored(self, match_id: str, events: list[dict]) -> MatchState:
        """Return the state folded from stored ``events``; a damaged one raises :class:`StoreError` naming it."""
        state = MatchState()
        for ev in events:
            try:
                if ev.get("type") not in HANDLERS:
                    raise KeyError("unknown event type")
                apply_event(state, ev)
            except Exception as exc:
                where = getattr(self.store, "path", "in memory")
                reason = exc.args[0] if exc.args else repr(exc)
                raise StoreError(f"table database {where}: event {ev.get('seq')} ({ev.get('type')}) of match "
                                 f"{match_id} cannot be applied: {reason}") from exc
        return state

    # --- constructors ------------------------------------------------------------
    @classmethod
    def open(cls, path, *, busy_timeout: float = 5.0, **kwargs) -> "Table":
        """Return the table kept in the SQLite file ``path`` (created if missing).

        :param busy_timeout: seconds to wait for another writer's lock.
        :raises StoreError: the file is not a database, is locked, or holds a damaged event.
        """
        return cls(SQLiteStore(path, busy_timeout=busy_timeout), **kwargs)

    @classmethod
    def memory(cls, **kwargs) -> "Table":
        """Return a table kept in memory only (tests, practice)."""
        return cls(MemoryStore(), **kwargs)

    # --- reading -------------------------------------------------------------------
    @property
    def state(self) -> MatchState:
        """The current match state (do not mutate; submit commands instead)."""
        return self._state

    def snapshot(self) -> dict:
        """Return the table state as JSON data (docs/architecture.md)."""
        with self._lock:
            return copy.deepcopy(self._current_snapshot())

    def history(self) -> list[dict]:
        """Return every event of the current match, oldest first, each with
        ``undone`` (bool) and the score ``steps`` it produced."""
        with self._lock:
            live = {id(e) for e in effective(self._events)}
            steps_by_seq: dict[int, list[dict]] = {}
            for st in self._state.steps:
                steps_by_seq.setdefault(st["seq"], []).append(st)
            out = []
            for ev in self._events:
                rec = copy.deepcopy(ev)
                rec["undone"] = ev["type"] != "undo" and id(ev) not in live
                rec["steps"] = copy.deepcopy(steps_by_seq.get(ev["seq"], [])) if not rec["undone"] else []
                out.append(rec)
            return out

    def ledger(self) -> dict[str, float]:
        """Return money won (+) and lost (-) per player over every game in the store."""
        with self._lock:
            return dict(self._current_snapshot()["ledger"])

    # --- writing -------------------------------------------------------------------
    def subscribe(self, fn: Callable[[dict], None]) -> Callable[[], None]:
        """Call ``fn(snapshot)`` after every accepted event; return an unsubscribe function."""
        with self._lock:
            self._subscribers.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._subscribers:
                    self._subscribers.remove(fn)
        return unsubscribe

    def submit(self, command: Any, client_id: str | None = None) -> dict:
        """Validate ``command``, store its event, update the state; return the event.

        A repeated ``client_id`` returns the first event (with ``"duplicate":
        true``) and changes nothing. A command carrying ``if_seq`` (the
        snapshot ``seq`` it was made from) is refused when the table has moved
        on since, so two phones acting on the same screen apply it once.

        :raises RulesError: with a one-line reason; nothing is stored or changed.
        """
        if client_id is not None:
            if not isinstance(client_id, str) or not 1 <= len(client_id) <= MAX_CLIENT_ID:
                raise IllegalAction(f"client id must be text of 1 to {MAX_CLIENT_ID} characters")
        if not isinstance(command, dict):
            raise IllegalAction("a command must be a JSON object with a type")
        kind = command.get("type")
        with self._lock:
            if client_id is not None:
                seen = self.store.find_client(client_id)
                if seen is not None:
                    return {**seen, "duplicate": True}
            if "if_seq" in command:
                self._check_fresh(command["if_seq"])
            ctx = Context(rng=self.rng, now=self.clock().isoformat(timespec="seconds"))
            if kind == "undo":
                live = self._live
                if len(live) <= 1:
                    raise IllegalAction("nothing to undo")
                event = {"type": "undo", "undoes": live[-1]["seq"]}
                new_state = fold(live[:-1])
            else:
                h = HANDLERS.get(kind) if isinstance(kind, str) else None
                if h is None:
                    raise IllegalAction(f"unknown command {kind!r}")
                if h.needs_match and self._state.rules is None:
                    raise IllegalAction("no game is set up: start a new match first")
                event = h.decide(self._state, command, ctx)
                # decide() validated the command: the event is folded into the live state
                # (no copy per command); if applying or storing fails, the state is refolded.
                new_state = self._state
            match_id = self._state.match_id
            if kind == "new_match":
                match_id = uuid.uuid4().hex[:12]
                event["match_id"] = match_id
                seq = 0
                new_state = MatchState()
            else:
                seq = self._events[-1]["seq"] + 1
            event["seq"] = seq
            event["at"] = ctx.now
            try:
                if kind != "undo":
                    try:
                        apply_event(new_state, event)
                    except RulesError:
                        raise
                    except Exception as exc:  # a bug must not corrupt the stored history
                        log.exception("event %r failed to apply", event)
                        raise IllegalAction(f"internal error applying {kind}: {exc}") from exc
                else:
                    new_state.seq = seq
                self.store.append(match_id, seq, event, client_id=client_id)
            except BaseException:
                if new_state is self._state:
                    self._state = fold(self._live)
                    if self._events:
                        self._state.seq = self._events[-1]["seq"]
                raise
            if kind == "new_match":
                if self._state.rules is not None:
                    self._add_ledger(self._past_ledger, self._state)
                self._events = []
                self._live = []
            self._events.append(event)
            if kind == "undo":
                self._live.pop()
            else:
                self._live.append(event)
            self._state = new_state
            self._refresh()
            subscribers = list(self._subscribers)
            snap = copy.deepcopy(self._current_snapshot()) if subscribers else None
        for fn in subscribers:
            try:
                fn(snap)
            except Exception:  # a broken listener must not break the table
                log.exception("table subscriber failed")
        return copy.deepcopy(event) if kind == "new_match" else {
            k: list(v) if isinstance(v, list) else v for k, v in event.items()}

    def _check_fresh(self, seen: Any) -> None:
        """Refuse a command made from a snapshot older than the table's (``if_seq``)."""
        if not isinstance(seen, int) or isinstance(seen, bool):
            raise IllegalAction("if_seq must be the whole-number seq of the snapshot the command was made from")
        now = self._state.seq if self._state.rules is not None else -1
        if seen != now:
            raise StaleCommand(f"the table has moved on since this was entered (event {now}, the command was "
                                f"made at {seen}): nothing changed; look again")

    def export_record(self) -> dict:
        """Return the current game as a game record (the replay format, :mod:`companion.record`).

        :raises IllegalAction: when no match is set up.
        """
        from .record import export_record
        with self._lock:
            if self._state.rules is None:
                raise IllegalAction("no game is set up: nothing to export")
            first = next(e for e in self._events if e["type"] == "new_match")
            return export_record(self._state, first)

    def import_record(self, record: dict) -> dict:
        """Start a new match from a game ``record``; return the replay result.

        The record is first replayed on a scratch table; only a valid record is
        then submitted here, command by command through the same validation.

        :raises RulesError: the first wrong step of the record and why; nothing changes.
        """
        from .record import drive, replay, result_of
        result = replay(record)
        if not result["valid"]:
            raise IllegalAction(f"the record is not valid: {result['error']}")
        with self._lock:
            drive(self, record)
            return result_of(self)

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    # --- internals ---------------------------------------------------------------------
    def _refresh(self) -> None:
        # the snapshot is built when first asked for after a change (cheap when nobody looks)
        self._snapshot = None

    def _current_snapshot(self) -> dict:
        if self._snapshot is None:
            self._build_snapshot()
        return self._snapshot

    def _build_snapshot(self) -> None:
        if self._state.rules is None:
            self._snapshot = {"match_id": None, "seq": -1, "game": None, "sides": [], "phase": "none",
                              "ledger": dict(self._past_ledger)}
            return
        snap = self._state.snapshot()
        ledger = dict(self._past_ledger)
        self._add_ledger(ledger, self._state)
        snap["ledger"] = ledger
        snap["can_undo"] = len(self._live) > 1
        snap["said"] = self._said(snap)
        self._snapshot = snap

    def _said(self, snap: dict) -> dict | None:
        """Return what the newest live event announces (:func:`companion.announce.said`), or None.

        After an undo it is the announcement of the event now on top (with its
        own ``seq``, older than the snapshot's): undo restores the state exactly.
        """
        if not self._live:
            return None
        event = self._live[-1]
        steps = []
        for st in reversed(self._state.steps):
            if st.get("seq") != event["seq"]:
                break
            steps.append(st)
        return said(event, reversed(steps), snap.get("sides") or [])

    @staticmethod
    def _add_ledger(ledger: dict[str, float], state: MatchState) -> None:
        for s in state.sides:
            for p in s.players:
                ledger.setdefault(p, 0)
        for rec in state.settlements:
            for side_id, amount in rec["settlement"].items():
                players = rec["players"][side_id]
                share = amount / len(players)
                for p in players:
                    v = ledger.get(p, 0) + share
                    ledger[p] = int(v) if float(v).is_integer() else round(v, 2)
