"""The page's link to the table: ``app.hub`` (also ``app.extensions["landsend"]``).

One :class:`Hub` per app holds what the daemon passed in (table, board,
buttons, faults) and what the web side owns (access state, join limiter, SSE
broadcaster). :func:`web.create_app` returns the app with its hub; the daemon
keeps that hub and calls :meth:`Hub.release` when the board's menu button is
held. Everything the pages see live goes out through the broadcaster: the
table's ``state``, ``access``, ``faults`` and the board's ``board`` frame.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any, Callable

from companion.errors import StoreError

from .live import Broadcaster, StreamSlots
from .seats import Seats, follow_names
from .security import Access, JoinLimiter

log = logging.getLogger(__name__)

NOTES_STATE = "web.notes"
"""The ``meta`` row that keeps each phone's unread notes (what another phone's amend moved of its entries)."""

SETTLE = 0.005
"""Seconds a change's thread waits at most for the phones' streams to have written it (:meth:`Broadcaster.publish`)."""

FRAME_INTERVAL = 0.1
"""Seconds between two ``board`` events while the board animates (it draws at its fps; pages need fewer)."""


class Hub:
    """The table, board, buttons and faults of one app, with its access state and broadcaster."""

    def __init__(self, table: Any, *, board: Any = None, buttons: Any = None,
                 faults: "list[str] | None" = None, access: Access, limiter: JoinLimiter,
                 owns_table: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.table = table
        self.board = board
        self.buttons = buttons
        self.faults = faults if faults is not None else []
        self.access = access
        self.limiter = limiter
        # which phone is whose (issue 14), kept beside the access state; freed when the table is released
        self.seats = Seats(access.store, access.epoch)
        self.entered_by: dict[int, str] = {}   # seq -> which phone entered it (the newest few, in memory)
        self.entered_on: dict[int, str] = {}   # seq -> the device that entered it (told when an amend moves it)
        # device -> what amends moved of its entries, until it has read them: kept in the table's database
        # (``meta`` row ``web.notes``, written only when a note comes or is read), so a power cut keeps them
        self.notes: dict[str, list[dict]] = {}
        self._note_id = 0
        self._seat_epoch = access.epoch
        self._load_notes()
        self.broadcaster = Broadcaster(settle=SETTLE)     # a change's thread lets the phones' streams write first
        self.slots = StreamSlots()
        self.owns_table = owns_table
        self.boot = os.urandom(6).hex()      # this start of the board: a phone waiting out a restart sees it change
        self._store_fault: str | None = None
        self._fault_lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = table.subscribe(self._on_state)
        self._unfollow: Callable[[], None] | None = follow_names(table, self.seats)   # seats follow renames
        access.on_change(self._on_access)
        self.broadcaster.publish("state", table.snapshot())
        self._clock = clock
        self._frame_at: float | None = None
        self._frame_seq: int | None = None        # the table state of the last frame pushed
        self._unwatch: Callable[[], None] | None = None
        if board is not None:
            watch = getattr(board, "subscribe", None)
            self._unwatch = watch(self._on_frame) if watch is not None else None
            self.broadcaster.publish("board", board.frame_json())

    def current(self) -> dict:
        """Return the table's snapshot as it was last published to the pages (shared: read it, never change it).

        The table publishes before :meth:`Table.submit` returns, so this is the
        state after the last acknowledged command, without the copy that
        ``table.snapshot()`` makes for its caller.
        """
        return self.broadcaster.latest("state")

    def _on_state(self, snapshot: dict) -> None:
        self.broadcaster.publish("state", snapshot)
        if self._store_fault is not None:      # the table stored an event: the store works again
            self.store_fault(None)

    def _on_frame(self) -> None:
        """Push the frame the board has just drawn (at most every FRAME_INTERVAL s while it animates, but
        the first frame of a new table state at once: a press during a peg-out shows on the phones' board
        with its state, not up to FRAME_INTERVAL later).

        Without the settling wait: the board draws a new state's frame on the table's thread before the
        state is published (:meth:`firmware.render_loop.RenderLoop.update`), and the state's publish then
        lets the streams write both at once; the render thread goes back to its wait anyway."""
        frame = self.board.frame_json()
        now = self._clock()
        if (frame.get("animating") and self._frame_at is not None and now - self._frame_at < FRAME_INTERVAL
                and frame.get("seq") == self._frame_seq):
            return
        self._frame_at, self._frame_seq = now, frame.get("seq")
        self.broadcaster.publish("board", frame, settle=False)

    def store_fault(self, message: "str | None") -> None:
        """Show ``message`` (the store's refusal: a full disk...) as the page's fault, or clear it with None.

        Open pages hear it as a ``faults`` SSE event (the list of faults now).
        """
        with self._fault_lock:
            old = self._store_fault
            if old == message:
                return
            if old is not None and old in self.faults:
                self.faults.remove(old)
            if message is not None:
                log.error("store fault: %s", message)
                self.faults.append(message)
            else:
                log.info("the table's store works again")
            self._store_fault = message
        self.broadcaster.publish("faults", {"faults": list(self.faults)})

    def add_fault(self, message: str) -> None:
        """Show ``message`` (a strip, button or voice failure met while running) on every open page, once."""
        with self._fault_lock:
            if message in self.faults:
                return
            self.faults.append(message)
        log.error("fault: %s", message)
        self.broadcaster.publish("faults", {"faults": list(self.faults)})

    def clear_fault(self, message: str) -> None:
        """Take ``message`` off the open pages (a fault that has gone: avahi answers to the board's name again)."""
        with self._fault_lock:
            if message not in self.faults:
                return
            self.faults.remove(message)
        log.info("fault gone: %s", message)
        self.broadcaster.publish("faults", {"faults": list(self.faults)})

    def note_entered(self, seq: "int | None", phone: str, device: "str | None" = None) -> None:
        """Remember which phone (named ``phone``, its session's ``device``) entered event ``seq``: a late phone
        is told what came meanwhile and from whom, and the phone whose entry an amend moves is told."""
        if seq is None:
            return
        self.entered_by[seq] = phone
        if device is not None:
            self.entered_on[seq] = device
        for kept in (self.entered_by, self.entered_on):
            if len(kept) > 256:
                for k in sorted(kept)[:64]:
                    del kept[k]

    def tell(self, device: str, note: dict) -> None:
        """Keep ``note`` (``{"text", "by", "seq"}``: what an amend changed of this phone's entries) for ``device``
        until it says it has read it (:meth:`read_notes`): a phone whose stream is down at that moment, or
        that reloads, is still told. Every page hears ``moved`` and re-reads its session."""
        with self._fault_lock:
            self._note_id += 1
            kept = self.notes.setdefault(device, [])
            kept.append({**note, "id": self._note_id})
            del kept[:-8]                       # the newest 8 per phone
            self._store_notes("a note to a phone whose entry an amend moved")
        self.broadcaster.publish("moved", {"seq": note.get("seq")})

    def notes_of(self, device: str) -> list[dict]:
        """Return the notes kept for ``device`` (oldest first)."""
        with self._fault_lock:
            return [dict(n) for n in self.notes.get(device, [])]

    def read_notes(self, device: str, upto: int) -> None:
        """Forget ``device``'s notes up to id ``upto`` (it has shown them and the phone's owner has read them)."""
        with self._fault_lock:
            had = self.notes.get(device, [])
            left = [n for n in had if n["id"] > upto]
            if len(left) == len(had):
                return
            if left:
                self.notes[device] = left
            else:
                self.notes.pop(device, None)
            self._store_notes("a phone's notes read")

    def _load_notes(self) -> None:
        """Take back the notes stored for this access epoch (a restart or power cut keeps them; a release
        of the table forgets them, as it forgets the seats)."""
        raw = self.access.store.get_meta(NOTES_STATE)
        if raw is None:
            return
        try:
            data = json.loads(raw)
            if int(data["epoch"]) != self._seat_epoch:
                return
            notes = {d: [dict(n) for n in kept] for d, kept in data["notes"].items()
                     if isinstance(d, str) and isinstance(kept, list)}
            self.notes, self._note_id = notes, int(data["next"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring unreadable phone notes in the table database: %s", exc)

    def _store_notes(self, what: str) -> None:
        """Store the notes (under ``_fault_lock``); a store that refuses keeps them in memory and logs it
        (the table's events, which the notes only describe, are stored already)."""
        try:
            self.access.store.put_meta(NOTES_STATE, json.dumps({"epoch": self._seat_epoch, "next": self._note_id,
                                                                "notes": self.notes}), what=what)
        except StoreError as exc:
            log.error("the notes to phones could not be stored: %s", exc)

    def _on_access(self, epoch: int) -> None:
        if epoch != self._seat_epoch:        # released: every phone is read-only, and nobody's
            self._seat_epoch = epoch
            self.seats.clear(epoch)
            with self._fault_lock:
                self.notes = {}
                self._store_notes("the phones' notes forgotten (the table was released)")
        self.broadcaster.publish("access", {"epoch": epoch, "claimed": self.access.claimed})
        if self._store_fault is not None:      # the access state was stored: the store works again
            self.store_fault(None)

    def seats_changed(self) -> None:
        """Tell every page that a phone's seat changed (each re-reads its session: whose phone confirms a show)."""
        self.broadcaster.publish("access", {"epoch": self.access.epoch, "claimed": self.access.claimed})

    def release(self) -> int:
        """Return the new access epoch after making every phone read-only (the board's menu hold).

        The next phone to claim the table becomes the host with a new join
        code; open pages are told through the ``access`` SSE event. Failed
        join codes are forgotten too.

        :raises StoreError: the release cannot be stored (a full disk): it is refused (the host and
            joined phones keep the table) and every page shows the fault.
        """
        self.limiter.clear()
        try:
            return self.access.release()
        except StoreError as exc:
            self.store_fault(str(exc))
            raise

    def clear_join_lock(self) -> int:
        """Return how many failed join codes were forgotten (any press of the board's menu button)."""
        return self.limiter.clear()

    def close(self) -> None:
        """End the SSE streams, unsubscribe from the table, and close it if the app opened it."""
        self.broadcaster.close()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        for off in (self._unsubscribe, self._unfollow):
            if off is not None:
                off()
        self._unsubscribe = self._unfollow = None
        if self.owns_table:
            self.table.close()
