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

What a command costs does not grow with the history. Beside each event the
store keeps data derived from the events (they stay the only truth, and the
table rebuilds the derived data whenever it is missing, from an older file,
or was written by another version of the code): the score steps the event
produced (:meth:`Table.history` reads them by ``seq``), how many events are
live after it, and every :data:`CHECKPOINT_EVERY` live events a checkpoint
of the folded state. An undo re-folds from the last checkpoint below it (at
most ``CHECKPOINT_EVERY - 1`` events); start-up loads the newest checkpoint
(one is written when the table closes) and folds what came after it. The
money won and lost in finished matches is written with the event that
replaces them, so start-up reads one row instead of folding every match.
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import logging
import pickle
import random
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import events
from . import fixes as _fixes
from .announce import said
from .commands import COMMANDS, apply_event, open_doubts
from .errors import IllegalAction, RulesError, StaleCommand, StoreError
from .host import follow_names
from .match import Context, MatchState, _num
from .record import export_record
from .store import MemoryStore, SQLiteStore

log = logging.getLogger(__name__)

DEFAULT_MATCH = {"type": "new_match", "game": "lands-end", "players": ["Player 1", "Player 2"],
                 "stake": 1, "first_dealer": "Player 2"}
MAX_CLIENT_ID = 64
CHECKPOINT_EVERY = 16   # live events between two stored checkpoints of the folded state
ENTRY_FIELDS = ("seq", "type", "player", "card", "row", "col", "crib", "side", "points")


def _fold_version() -> str:
    """Return a fingerprint of the code that folds events: a checkpoint written by other code is not used."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for f in sorted(here.rglob("*.py")):
        h.update(str(f.relative_to(here)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


FOLD_VERSION = _fold_version()


_ATOMS = frozenset((str, int, float, bool, type(None)))


def copy_json(data: Any) -> Any:
    """Return a deep copy of JSON data (dicts, lists and scalars; anything else is deep-copied).

    A snapshot is copied for every caller and on every change; this is about
    four times cheaper than :func:`copy.deepcopy`, which memoises every object.

    >>> a = {"sides": [{"score": 3}]}; b = copy_json(a); b["sides"][0]["score"] = 5; a
    {'sides': [{'score': 3}]}
    """
    kind = type(data)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else copy_json(v) for k, v in data.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else copy_json(v) for v in data]
    if kind in _ATOMS:
        return data
    return copy.deepcopy(data)


def fold_undos(events: list[dict]) -> tuple[list[dict], list[int]]:
    """Return the live events of a match (``events`` without the undos and the events they undid; the
    first event, new_match, is never undone) and, for each event, how many are live after it."""
    stack: list[dict] = []
    depths: list[int] = []
    for ev in events:
        if ev.get("type") == "undo":
            if len(stack) > 1:
                stack.pop()
        else:
            stack.append(ev)
        depths.append(len(stack))
    return stack, depths


def effective(events: list[dict]) -> list[dict]:
    """Return ``events`` without the undo events and the events they undid."""
    return fold_undos(events)[0]


class Table:
    """One match at a time, kept in an event store.

    :param store: a :class:`~companion.store.SQLiteStore` or :class:`~companion.store.MemoryStore`.
    :param rng: the randomness for cuts (``random.Random``); injectable for tests.
    :param clock: returns the current time as an aware datetime; injectable.
    :param default_match: the command that starts a match on a fresh store (None: none).
    :param checkpoint_every: live events between two checkpoints (an undo re-folds fewer than this).
    """

    def __init__(self, store, *, rng: random.Random | None = None,
                 clock: Callable[[], _dt.datetime] | None = None,
                 default_match: dict | None = DEFAULT_MATCH, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self.store = store
        self.rng = rng or random.Random()
        self.clock = clock or (lambda: _dt.datetime.now(_dt.timezone.utc))
        # the judge of the host's events against every game kept (Context.host_check; the web app sets the
        # season's): called under the table's lock, in the submitting thread, before anything is stored
        self.host_check: Callable[[dict], None] | None = None
        self._every = max(1, int(checkpoint_every))
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict], None]] = []
        self._state = MatchState()
        self._depth = 0                  # live (not undone) events of the current match, new_match included
        self._top = -1                   # seq of the newest live event
        self._top_event: dict | None = None   # that event (what the snapshot's "said" announces)
        self._seq = -1                   # seq of the newest event (an undo included)
        self._first: dict | None = None  # the current match's new_match event
        self._saved = -1                 # seq of the live event whose state was last stored as a checkpoint
        self._loaded_from = -1           # seq of the checkpoint the last refold started from
        self._snapshot: dict | None = None
        self._past_ledger: dict[str, float] = {}
        self._last_at: _dt.datetime | None = None   # the newest stored event's time (no event is stamped before it)
        ids = store.matches(last=2)
        if ids:
            if len(ids) == 2:
                led = store.closed(ids[0])
                self._past_ledger = led if led is not None else self._migrate_ledger()
            self._load(ids[-1])
        elif default_match is not None:
            self.submit(default_match)
        self._refresh()

    # --- folding stored events --------------------------------------------------------
    def _apply_stored(self, state: MatchState, match_id: str, ev: dict) -> None:
        """Fold one stored event; a damaged one raises :class:`StoreError` naming it."""
        try:
            if ev.get("type") not in COMMANDS:
                raise KeyError("unknown event type")
            apply_event(state, ev)
        except Exception as exc:
            where = getattr(self.store, "path", "in memory")
            reason = exc.args[0] if exc.args else repr(exc)
            raise StoreError(f"table database {where}: event {ev.get('seq')} ({ev.get('type')}) of match "
                             f"{match_id} cannot be applied: {reason}") from exc

    def _fold_stored(self, match_id: str, events: list[dict]) -> MatchState:
        state = MatchState()
        for ev in events:
            self._apply_stored(state, match_id, ev)
        return state

    @staticmethod
    def _dump(state: MatchState) -> bytes:
        return pickle.dumps((FOLD_VERSION, state), protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def _undump(blob: bytes) -> MatchState | None:
        try:
            version, state = pickle.loads(blob)
        except Exception:          # damaged derived data is rebuilt from the events
            return None
        return state if version == FOLD_VERSION and isinstance(state, MatchState) else None

    def _event(self, match_id: str, seq: int) -> dict:
        """Return stored event ``seq`` of ``match_id`` (one indexed read)."""
        ev = self.store.history(match_id, seq, seq)[0]
        return {k: v for k, v in ev.items() if k not in ("undone", "steps")}

    def _from_checkpoint(self, match_id: str, depth: int, live: int) -> tuple[MatchState, dict] | None:
        """Return ``(state, top event)`` of the first ``depth`` live events (``live`` being how many
        there are now), folded from the deepest usable checkpoint at ``depth`` or less; None if none."""
        ck = self.store.checkpoint(match_id, depth)
        if ck is None:
            return None
        d, seq, blob = ck
        self._loaded_from = seq
        state = self._undump(blob)
        if state is None:
            return None
        tail = self.store.live_events(match_id, seq)
        if len(tail) != live - d:
            log.warning("checkpoint %s of match %s does not fit the events: folding from the start", d, match_id)
            return None
        tail = tail[:depth - d]
        for ev in tail:
            self._apply_stored(state, match_id, ev)
        state.fresh = []
        return state, tail[-1] if tail else self._event(match_id, seq)

    def _refold(self, match_id: str, depth: int, live: int) -> tuple[MatchState, dict]:
        """As :meth:`_from_checkpoint`, folding from the first event when no checkpoint serves."""
        got = self._from_checkpoint(match_id, depth, live)
        if got is not None:
            return got
        events = effective(self.store.events(match_id))[:depth]
        state = self._fold_stored(match_id, events)
        state.fresh = []
        return state, events[-1]

    def _load(self, match_id: str) -> None:
        """Take up ``match_id`` as the current match (start-up)."""
        seq, depth = self.store.head(match_id)
        got = self._from_checkpoint(match_id, depth, depth) if depth is not None else None
        if got is not None:
            state, top = got
            self._saved = self._loaded_from      # a checkpoint of the head needs no rewriting at close
        else:
            state, depth, top = self._rebuild(match_id)
        state.seq = seq
        self._state, self._depth, self._top, self._seq = state, depth, top["seq"], seq
        self._top_event = top
        self._first = self._event(match_id, 0)
        self._last_at = _parse_at(self._event(match_id, seq).get("at"))

    def last_at(self) -> "_dt.datetime | None":
        """Return the newest stored event's time (the board's clock is checked against it), or None."""
        return self._last_at

    def _now(self) -> _dt.datetime:
        """Return the time to stamp an event with: the clock's, but never before the newest stored event's.

        A board without a real-time clock (a Pi) can start on a clock set back (systemd's build date after a
        power cut, before the network or a phone sets it): its events keep the order they were entered in, and
        the nights the season splits them into stay in order (a night is never dated before the one it follows).
        """
        now = self.clock()
        if self._last_at is not None and now < self._last_at:
            now = self._last_at
        return now.replace(microsecond=0)                  # as it is stored: to the second

    def _rebuild(self, match_id: str) -> tuple[MatchState, int, dict]:
        """Fold ``match_id`` from its first event and record its derived data (once, for a file
        written before it was kept or by other code); return ``(state, depth, top event)``."""
        events = self.store.events(match_id)
        stack, depths = fold_undos(events)
        live = {id(e) for e in stack}
        state = MatchState()
        steps: dict[int, list] = {}
        checkpoints = []
        for d, ev in enumerate(stack, start=1):
            self._apply_stored(state, match_id, ev)
            steps[ev["seq"]] = state.fresh
            state.fresh = []
            if (d - 1) % self._every == 0 or d == len(stack):
                checkpoints.append((d, ev["seq"], self._dump(state)))
        rows = [(ev["seq"], steps.get(ev["seq"], []), depth,
                 ev.get("type") != "undo" and id(ev) not in live) for ev, depth in zip(events, depths)]
        try:
            self.store.put_derived(match_id, rows)
            for d, seq, blob in checkpoints:
                self.store.put_checkpoint(match_id, d, seq, blob)
            self._saved = stack[-1]["seq"]
        except StoreError as exc:   # a read-only file: the table still works, folding as before
            log.warning("could not record derived data: %s", exc)
        return state, len(stack), stack[-1]

    def _migrate_ledger(self) -> dict[str, float]:
        """Fold every finished match once to record its money (a file written before it was kept)."""
        ledger: dict[str, float] = {}
        ids = self.store.matches()
        for m in ids[:-1]:
            state = self._fold_stored(m, effective(self.store.events(m)))
            self._add_money(ledger, state)
            try:
                self.store.put_closed(m, ledger)
            except StoreError as exc:
                log.warning("could not record the ledger: %s", exc)
        return ledger

    # --- constructors ------------------------------------------------------------
    @classmethod
    def open(cls, path, *, busy_timeout: float = 5.0, **kwargs) -> "Table":
        """Return the table kept in the SQLite file ``path`` (created if missing).

        :param busy_timeout: seconds to wait for another writer's lock.
        :raises StoreError: the file is not a database, is locked, or holds a damaged event.
        """
        store = SQLiteStore(path, busy_timeout=busy_timeout)
        try:
            return cls(store, **kwargs)
        except BaseException:
            store.close()
            raise

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
            return copy_json(self._current_snapshot())

    def history(self, since: int = 0) -> list[dict]:
        """Return the events of the current match from seq ``since`` on, oldest first, each with
        ``undone`` (bool) and the score ``steps`` it produced (read from the store by seq: the
        cost does not grow with the match)."""
        with self._lock:
            match_id = self._state.match_id if self._state.rules is not None else None
            renames = list(getattr(self._state, "renames", None) or [])
        if match_id is None:
            return []
        out = self.store.history(match_id, since)
        for rec in out:
            if rec["undone"] or rec["steps"] is None:
                rec["steps"] = []
        return follow_names(out, renames)

    def hand_entries(self) -> list[dict]:
        """Return the current hand's entries as they stand now, oldest first, each with its event's ``seq``,
        ``type`` and what an amend can move (``player``, ``card``, ``row``, ``col``, ``crib``, ``side``,
        ``points``); [] between hands. Compared before and after an amend, they say whose entry it moved."""
        with self._lock:
            st = self._state
            if st.rules is None or st.hand_key != (st.game_no, st.hand_no):
                return []
            return [{k: v for k, v in e.items() if k in ENTRY_FIELDS} for e in st.hand_log]

    def entered(self, client_id: str) -> dict | None:
        """Return what became of the command sent with ``client_id`` in the current match: ``{"event": the
        stored event, "live": not undone, "top": the newest live event}``; None when the table never stored it
        (or stored it in an earlier match). A phone that dropped a command it could not confirm asks this."""
        with self._lock:
            ev = self.store.find_client(client_id) if isinstance(client_id, str) else None
            if ev is None or self._state.rules is None:
                return None
            rows = self.store.history(self._state.match_id, ev["seq"])
            if not rows or {k: v for k, v in rows[0].items() if k not in ("undone", "steps")} != ev:
                return None
            live = not rows[0]["undone"]
            return {"event": ev, "live": live,
                    "top": live and all(r["type"] == "undo" or r["undone"] for r in rows[1:])}

    def hand_clients(self) -> dict[int, str]:
        """Return the client id each entry of the current hand was sent with (seq -> id; entries sent
        without one are left out): read from the store, so it outlives a restart."""
        with self._lock:
            st = self._state
            if st.rules is None or st.hand_key != (st.game_no, st.hand_no) or not st.hand_log:
                return {}
            return self.store.clients_of(st.match_id, min(e["seq"] for e in st.hand_log))

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

        The path, in order: dedupe (``client_id``), fresh (``if_seq``), verify
        (:data:`TABLE_COMMANDS` for ``undo`` and ``new_match``, else the rules'
        :data:`~companion.commands.COMMANDS`), apply, store, notify.

        :raises RulesError: with a one-line reason; nothing is stored or changed.
        """
        kind = _kind_of(command, client_id)
        with self._lock:
            if client_id is not None:
                seen = self.store.find_client(client_id)
                if seen is not None:
                    return {**seen, "duplicate": True}
            now = self._now()
            ctx = Context(rng=self.rng, now=now.isoformat(timespec="seconds"), host_check=self.host_check)
            if "if_seq" in command:
                self._check_fresh(command, ctx)
            change = TABLE_COMMANDS.get(kind, Table._verify_rule)(self, command, ctx)
            change.event = events.from_json({**change.verified, "seq": change.seq, "at": ctx.now})
            event = change.stored = change.event.to_json()      # what is stored: exactly what its type writes
            try:
                steps, checkpoint = self._apply(change)
                self.store.append(change.match_id, change.seq, event, client_id=client_id, steps=steps,
                                  depth=change.depth, checkpoint=checkpoint, closes=change.closes)
            except BaseException:
                if change.state is self._state:     # folded in place: rebuilt from the stored events
                    self._state, _ = self._refold(self._state.match_id, self._depth, self._depth)
                    self._state.seq = self._seq
                raise
            self._take(change, saved=checkpoint is not None)
            self._last_at = now
            published = self._published()
        self._notify(*published)
        return copy.deepcopy(event) if change.first else {
            k: list(v) if isinstance(v, list) else v for k, v in event.items()}

    # --- the commands the table carries out itself (TABLE_COMMANDS) and the rules' ---------------------
    def _verify_rule(self, command: dict, ctx: Context) -> "Change":
        """Return the change a rule of the match makes (:data:`~companion.commands.COMMANDS`): its event
        is folded into the live state itself (no copy per command)."""
        kind = command.get("type")
        h = COMMANDS.get(kind) if isinstance(kind, str) else None
        if h is None:
            raise IllegalAction(f"unknown command {kind!r}")
        if h.needs_match and self._state.rules is None:
            raise IllegalAction("no game is set up: start a new match first")
        try:
            event = h.verify(self._state, command, ctx)
        except RulesError as exc:       # a wrong credit: offer the one amend that fixes it
            _fixes.offer_amend(self._state, command, ctx, exc)
            raise
        return Change(event, self._state, self._state.match_id, self._seq + 1, self._depth + 1)

    def _verify_undo(self, command: dict, ctx: Context) -> "Change":
        """Return the change an undo makes: the state of the live events without the top one, refolded
        from the last checkpoint below it (the undo event itself folds nothing)."""
        if self._depth <= 1:
            raise IllegalAction("nothing to undo")
        state, top = self._refold(self._state.match_id, self._depth - 1, self._depth)
        return Change({"type": "undo", "undoes": self._top}, state, self._state.match_id, self._seq + 1,
                      self._depth - 1, top=top, folded=True)

    def _verify_new_match(self, command: dict, ctx: Context) -> "Change":
        """Return the change a new match makes: a new match id, its first event, and the money of the
        match it replaces (written with it)."""
        match_id = uuid.uuid4().hex[:12]
        event = {**COMMANDS["new_match"].verify(self._state, command, ctx), "match_id": match_id}
        closes = None
        if self._state.rules is not None:
            closes = (self._state.match_id, self._add_money(dict(self._past_ledger), self._state))
        return Change(event, MatchState(), match_id, 0, 1, closes=closes, first=True)

    def _apply(self, change: "Change") -> tuple[list, bytes | None]:
        """Fold ``change``'s event into its state; return the score steps it made and, every
        ``checkpoint_every`` live events, the state to store as a checkpoint."""
        state, event = change.state, change.stored
        if change.folded:
            state.seq = change.seq
            state.fresh = []      # an undo scores nothing (the refold left the last step's there)
            return [], None
        try:
            apply_event(state, event)
        except RulesError:
            raise
        except Exception as exc:  # a bug must not corrupt the stored history
            log.exception("event %r failed to apply", event)
            raise IllegalAction(f"internal error applying {event['type']}: {exc}") from exc
        steps, state.fresh = state.fresh, []
        return steps, self._dump(state) if (change.depth - 1) % self._every == 0 else None

    def _take(self, change: "Change", *, saved: bool) -> None:
        """Make ``change`` (stored) the table's state."""
        if change.closes is not None:
            self._past_ledger = change.closes[1]
        if change.first:
            self._first = copy.deepcopy(change.stored)
        if saved:
            self._saved = change.seq
        top = change.top if change.top is not None else change.stored
        self._state, self._depth, self._top, self._seq = change.state, change.depth, top["seq"], change.seq
        self._top_event = top
        self._refresh()

    def _published(self) -> tuple[list[Callable[[dict], None]], dict | None]:
        """Return the subscribers to tell and the snapshot they get (under the lock)."""
        subscribers = list(self._subscribers)
        return subscribers, copy_json(self._current_snapshot()) if subscribers else None

    @staticmethod
    def _notify(subscribers: list[Callable[[dict], None]], snap: dict | None) -> None:
        """Call every subscriber with ``snap`` (outside the lock); a broken one does not break the table."""
        for fn in subscribers:
            try:
                fn(snap)
            except Exception:
                log.exception("table subscriber failed")

    def adopt(self, other: "Table") -> None:
        """Replace the current match by a copy of ``other``'s (every event, as ``other`` validated
        and stored it), all stored in one transaction: on any failure nothing changes.

        This is how a game record is imported (:func:`companion.replay.import_record`):
        replayed on a scratch table first, then adopted whole.
        """
        with other._lock:
            if other._state.rules is None:
                raise IllegalAction("nothing to adopt: the other table has no match")
            events = other.store.events(other._state.match_id)
        with self._lock:
            match_id = uuid.uuid4().hex[:12]
            events = copy.deepcopy(events)
            for ev in events:
                if ev["type"] == "new_match":
                    ev["match_id"] = match_id
            stack, depths = fold_undos(events)
            live = {id(e) for e in stack}
            state = MatchState()
            rows = []
            for ev, depth in zip(events, depths):
                steps, checkpoint = [], None
                if id(ev) in live:
                    apply_event(state, ev)
                    steps, state.fresh = state.fresh, []
                    if (depth - 1) % self._every == 0 or ev is stack[-1]:
                        checkpoint = self._dump(state)
                rows.append((ev["seq"], ev, None, steps, depth, checkpoint))
            old_id = self._state.match_id if self._state.rules is not None else None
            closes = (old_id, self._add_money(dict(self._past_ledger), self._state)) if old_id else None
            self.store.append_many(match_id, rows, closes=closes)
            state.seq = events[-1]["seq"]
            if closes is not None:
                self._past_ledger = closes[1]
            self._first = copy.deepcopy(stack[0])
            self._state, self._depth, self._top, self._seq = state, len(stack), stack[-1]["seq"], state.seq
            self._top_event = stack[-1]
            self._saved = self._top
            adopted = _parse_at(events[-1].get("at"))
            if adopted is not None and (self._last_at is None or adopted > self._last_at):
                self._last_at = adopted
            self._refresh()
            published = self._published()
        self._notify(*published)

    def _check_fresh(self, command: dict, ctx: Context) -> None:
        """Refuse a command made from a snapshot older than the table's (its ``if_seq``), saying what
        was entered meanwhile and the amend that fits its entry in (:func:`companion.fixes.stale_note`)."""
        seen = command["if_seq"]
        if not isinstance(seen, int) or isinstance(seen, bool):
            raise IllegalAction("if_seq must be the whole-number seq of the snapshot the command was made from")
        now = self._state.seq if self._state.rules is not None else -1
        if seen != now:
            raise StaleCommand(f"the table has moved on since this was entered (event {now}, the command was "
                               f"made at {seen}): nothing changed; look again",
                               **_fixes.stale_note(self._state, command, seen, ctx))

    def export_record(self) -> dict:
        """Return the current game as a game record (the replay format, :mod:`companion.record`).

        :raises IllegalAction: when no match is set up.
        """
        with self._lock:
            if self._state.rules is None:
                raise IllegalAction("no game is set up: nothing to export")
            return copy.deepcopy(export_record(self._state, self._first))

    def close(self) -> None:
        """Store a checkpoint of the current state (so the next start-up folds nothing), close the store."""
        with self._lock:
            if self._state.rules is not None and self._saved != self._top:
                try:
                    self.store.put_checkpoint(self._state.match_id, self._depth, self._top, self._dump(self._state))
                    self._saved = self._top
                except Exception as exc:     # derived data only: never in the way of closing
                    log.warning("could not store a checkpoint at close: %s", exc)
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
        if isinstance(snap.get("hand"), dict) and getattr(self._state.hand, "doubts", ()):
            # the fixes kept in doubt that still apply (a dry run of each: companion.commands.open_doubts)
            snap["hand"]["doubts"] = [{k: d[k] for k in ("seq", "fix", "card", "entry", "text")}
                                      for d in open_doubts(self._state)]
        snap["ledger"] = self._add_money(dict(self._past_ledger), self._state)
        snap["can_undo"] = self._depth > 1
        snap["said"] = self._said(snap)
        self._snapshot = snap

    def _said(self, snap: dict) -> dict | None:
        """Return what the newest live event announces (:func:`companion.announce.said`), or None.

        After an undo it is the announcement of the event now on top (with its
        own ``seq``, older than the snapshot's): undo restores the state exactly.
        """
        event = self._top_event
        if event is None:
            return None
        steps = []
        for st in reversed(self._state.steps):
            if st.get("seq") != event["seq"]:
                break
            steps.append(st)
        return said(event, reversed(steps), snap.get("sides") or [])

    @staticmethod
    def _add_money(ledger: dict[str, float], state: MatchState) -> dict[str, float]:
        """Add the money won and lost in ``state``'s match to ``ledger``; return it."""
        for p, v in state.money.items():
            ledger[p] = _num(ledger.get(p, 0) + v)
        return ledger


@dataclass
class Change:
    """What one verified command does to the table, before it is applied and stored."""

    verified: dict               # the event as verified (submit numbers it and reads it into its type)
    state: MatchState            # the state the event is folded into (a rule's: the live state itself)
    match_id: str
    seq: int
    depth: int                   # live events after it
    top: dict | None = None      # the live event on top after it (None: the event itself)
    folded: bool = False         # the state already stands after the event (an undo's refold)
    closes: tuple[str, dict[str, float]] | None = None   # (match id, ledger) of the match it replaces
    first: bool = False          # the event starts a match
    event: events.Event | None = None   # its typed event, numbered and timed
    stored: dict | None = None          # the event as stored: what its type writes (to_json)


#: The commands the table carries out itself, each returning the :class:`Change` it makes: they change
#: which events are live (undo) or which match is current (new_match). Every other kind is a rule of
#: the match (:data:`companion.commands.COMMANDS`, :meth:`Table._verify_rule`).
TABLE_COMMANDS: dict[str, Callable[[Table, dict, Context], Change]] = {
    "undo": Table._verify_undo,
    "new_match": Table._verify_new_match,
}


def _parse_at(text: Any) -> "_dt.datetime | None":
    """Return a stored event's ``at`` as an aware datetime, or None (an event from before times were kept)."""
    if not isinstance(text, str):
        return None
    try:
        when = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=_dt.timezone.utc)


def _kind_of(command: Any, client_id: Any) -> str | None:
    """Return a command's ``type`` (None when it is not text), once its envelope (a JSON object, a
    client id of 1 to :data:`MAX_CLIENT_ID` characters or None) is checked."""
    if client_id is not None:
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= MAX_CLIENT_ID:
            raise IllegalAction(f"client id must be text of 1 to {MAX_CLIENT_ID} characters")
    if not isinstance(command, dict):
        raise IllegalAction("a command must be a JSON object with a type")
    kind = command.get("type")
    return kind if isinstance(kind, str) else None
