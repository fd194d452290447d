"""Server-Sent Events: the broadcaster that keeps every phone on the same state.

The broadcaster keeps only the *latest* message of each kind (``state``: the
table snapshot; ``access``: the access epoch; ``faults``; ``board``: the LED
frame), each with a version number.
A stream waits until some kind has a version it has not sent yet, then sends
that kind's latest message. Slow phones therefore skip intermediate states
instead of queueing them, and nothing grows without bound. A new or
reconnecting stream first gets the current snapshot (unless its
``Last-Event-ID`` already names it), which is the catch-up after a dropped
connection. A ``ping`` event is sent after every ``heartbeat`` seconds of
silence so phones (and proxies) can tell a live connection from a dead one
(an event, not an SSE comment, because pages cannot see comments).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, Callable, Iterator

log = logging.getLogger(__name__)


HEARTBEAT = "event: ping\ndata: {}\n\n"


def state_id(snapshot: dict) -> str:
    """Return the SSE event id of a snapshot: ``<match_id>:<seq>``."""
    return f"{snapshot.get('match_id', '')}:{snapshot.get('seq', 0)}"


def format_event(kind: str, data: Any, *, event_id: "str | None" = None) -> str:
    """Return one SSE message (``event:``, optional ``id:``, one ``data:`` line, blank line)."""
    head = f"event: {kind}\n"
    if event_id is not None:
        head += f"id: {event_id}\n"
    return head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n"


class StreamSlots:
    """Counts open SSE streams, overall, per client address and of strangers, and refuses one past any cap.

    Each stream holds one server thread while it is open (waitress runs the
    app on a thread pool), so an uncapped number of streams, even idle ones
    opened by visitors, would leave no thread for ``GET /`` or a command; and
    streams of strangers (not joined phones), from however many addresses, are
    capped apart so that they can never take the joined phones' own.
    Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_client: dict[str, int] = {}
        self.open = 0
        self.strangers = 0

    def acquire(self, client: str, *, overall: int, per_client: int, member: bool = True,
                strangers: "int | None" = None) -> "Callable[[], None] | None":
        """Return a release function for a new stream of ``client``, or None when a cap is reached.

        A stream that is not a ``member``'s (a joined phone's) is also refused
        when ``strangers`` streams of non-members are open. The release
        function may be called any number of times; only the first counts.
        """
        with self._lock:
            mine = self._by_client.get(client, 0)
            if self.open >= overall or mine >= per_client:
                return None
            if not member and strangers is not None and self.strangers >= strangers:
                return None
            self._by_client[client] = mine + 1
            self.open += 1
            if not member:
                self.strangers += 1
        released = []

        def release() -> None:
            with self._lock:
                if released:
                    return
                released.append(True)
                self.open -= 1
                if not member:
                    self.strangers -= 1
                left = self._by_client[client] - 1
                if left:
                    self._by_client[client] = left
                else:
                    del self._by_client[client]
        return release

    def of(self, client: str) -> int:
        """Return how many streams ``client`` has open."""
        with self._lock:
            return self._by_client.get(client, 0)


class Broadcaster:
    """Latest-value fan-out to any number of SSE streams (thread-safe)."""

    def __init__(self, *, settle: float = 0.0) -> None:
        self.settle = settle                              # seconds: see publish
        lock = threading.RLock()
        self._cond = threading.Condition(lock)            # streams wait here for a message
        self._caught_up = threading.Condition(lock)       # a publisher waits here for the streams (settle)
        self._latest: dict[str, tuple[int, Any]] = {}
        self._texts: dict[str, tuple[int, str]] = {}      # kind -> (version, its SSE text), shared by streams
        self._version = 0
        self._closed = False
        self._parked: dict[int, int] = {}                 # stream -> the version it had sent all of, while it waits
        self._settles: list[set[int]] = []               # per settling publisher: the streams it waits for
        self._tokens = 0
        self.streams = 0

    def publish(self, kind: str, data: Any, *, settle: bool = True) -> None:
        """Make ``data`` the latest message of ``kind`` and wake every stream.

        Its SSE text is made here, once, before any stream wakes: the streams
        only write it (a snapshot that cannot be written as JSON is formatted,
        and refused, by the stream instead).

        With ``settle`` (seconds, given to the broadcaster), return only once every stream that was
        waiting for a message has written this one and waits again (or has
        ended), or after ``settle``: the publishing thread steps aside, so
        that the phones are told before it goes on (a command's own answer,
        the board's next frame). Without it the streams must wait for the
        interpreter lock until the publisher next blocks, which on the press
        path was after the command's whole answer (issue 25: 0.47 ms of a
        3 ms press). A stream that is not waiting (writing to a slow phone)
        is not waited for. ``settle=False`` returns at once all the same (the board's frame: the state that
        follows it settles, and the streams write the two together).
        """
        try:
            text = format_event(kind, data, event_id=state_id(data) if kind == "state" else None)
        except (TypeError, ValueError, AttributeError):
            text = None
        with self._cond:
            self._version += 1
            self._latest[kind] = (self._version, data)
            if text is not None:
                self._texts[kind] = (self._version, text)
            self._cond.notify_all()
            if not settle or self.settle <= 0 or not self._parked:
                return
            behind = set(self._parked)        # each is taken out as it waits again (or ends), and the last
            self._settles.append(behind)      # one out wakes this thread: once, not once per stream
            until = time.monotonic() + self.settle
            try:
                while behind:
                    left = until - time.monotonic()
                    if left <= 0:
                        return
                    self._caught_up.wait(left)
            finally:
                self._settles.remove(behind)

    def latest(self, kind: str) -> Any:
        """Return the latest message of ``kind`` (None if never published)."""
        with self._cond:
            entry = self._latest.get(kind)
            return None if entry is None else entry[1]

    def close(self) -> None:
        """End every stream at its next wake-up."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def wake(self) -> None:
        """Wake every waiting stream so that each asks whether its client is gone (nothing is sent otherwise).

        The server calls it when a client closes a connection that a stream is
        being served on, so the stream ends, and frees its slot, at once
        instead of at its next heartbeat.
        """
        with self._cond:
            self._cond.notify_all()

    def stream(self, current: Callable[[], dict], *, last_event_id: "str | None" = None,
               heartbeat: float = 15.0, max_age: float = 600.0, retry_ms: int = 2000,
               clock: Callable[[], float] = time.monotonic, catch_up: tuple[str, ...] = (),
               gone: "Callable[[], bool] | None" = None) -> Iterator[str]:
        """Yield SSE text: the current snapshot, then each newer message, heartbeats between.

        ``current()`` returns the table's snapshot now; after it come the latest
        messages of the ``catch_up`` kinds (the board's frame), so a new stream
        starts with everything it shows. The stream ends after
        ``max_age`` seconds (the browser reconnects at once and catches up),
        which bounds how long a vanished phone can hold a server thread, and
        as soon as ``gone()`` is true when :meth:`wake` (or a message) wakes it:
        the server's word that the client closed the connection.
        """
        with self._cond:
            self._tokens += 1
            me = self._tokens                 # this stream's number
            seen = {k: v for k, (v, _) in self._latest.items()}
            known = [(k, self._latest[k]) for k in catch_up if k in self._latest]
            self.streams += 1
        try:
            yield f"retry: {retry_ms}\n\n"
            snap = current()
            sid = state_id(snap)
            if sid != last_event_id:
                yield format_event("state", snap, event_id=sid)
            else:
                yield ": up to date\n\n"
            for kind, (version, data) in known:
                yield self._formatted(kind, version, data, None)
            sent_sid = sid
            started = clock()
            while True:
                with self._cond:
                    quiet_until = time.monotonic() + heartbeat
                    while True:
                        fresh = self._fresh(seen)
                        closed = self._closed
                        left = quiet_until - time.monotonic()
                        ended = gone is not None and gone()
                        if fresh or closed or left <= 0 or ended:
                            break
                        self._parked[me] = self._version      # everything so far is sent: a publisher may go on
                        if self._settles:
                            self._caught_up_by(me)
                        try:
                            self._cond.wait(timeout=left)
                        finally:
                            self._parked.pop(me, None)
                    if ended:
                        return
                    # what is fresh, and its text, taken while the lock is held anyway (one hold per wake: the
                    # phones' streams run one after another, and each hold is a stream's time on the press path)
                    entries = [(kind, *self._latest[kind], self._texts.get(kind)) for kind in fresh]
                texts = []
                for kind, version, data, hit in entries:
                    seen[kind] = version
                    sid = None
                    if kind == "state":
                        sid = state_id(data)
                        if sid == sent_sid:
                            continue
                        sent_sid = sid
                    texts.append(hit[1] if hit is not None and hit[0] == version else
                                 self._formatted(kind, version, data, sid))
                if texts:               # what came together leaves in one write (the state and its frame)
                    yield "".join(texts)
                if closed or clock() - started >= max_age:
                    return
                if not fresh:
                    yield HEARTBEAT
        finally:
            with self._cond:
                self.streams -= 1
                self._parked.pop(me, None)
                if self._settles:
                    self._caught_up_by(me)

    def _caught_up_by(self, me: int) -> None:
        """Stream ``me`` has sent everything (or ended): wake each publisher it was the last one behind for."""
        for behind in self._settles:
            if me in behind:
                behind.discard(me)
                if not behind:
                    self._caught_up.notify_all()

    def _fresh(self, seen: dict[str, int]) -> list[str]:
        return [k for k, (v, _) in self._latest.items() if seen.get(k, 0) < v]

    def _formatted(self, kind: str, version: int, data: Any, event_id: "str | None") -> str:
        """Return the SSE text of message ``version``, formatted once for every stream that sends it."""
        with self._cond:
            hit = self._texts.get(kind)
            if hit is not None and hit[0] == version:
                return hit[1]
        text = format_event(kind, data, event_id=event_id)
        with self._cond:
            self._texts[kind] = (version, text)
        return text
