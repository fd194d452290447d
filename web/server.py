"""The page's HTTP server: waitress, guarded so that no visitor can starve it.

Waitress reads requests on one thread (asyncore) and runs the app on a pool
of worker threads; an SSE stream holds its worker for as long as it is open.
The guards keep the pool and the connection table for the players, whatever
strangers (connections not carrying a joined phone's cookie) do, and from
however many addresses:

* **joined phones come first**: each complete request is checked, on the
  loop thread, for the session cookie of a phone joined to the table now
  (``is_member``; :func:`web.guard.joined_cookie`). A joined phone's request
  goes ahead of every stranger's in the queue for a worker thread, and its
  connection is never closed to make room;
* **streams are capped** (``SSE_MAX_STREAMS`` overall, ``SSE_MAX_PER_CLIENT``
  per address, and strangers half of ``SSE_MAX_STREAMS`` at most;
  :class:`web.live.StreamSlots`): the excess gets a 503 with ``Retry-After``
  and the page polls until a slot frees. :func:`stream_cap` leaves a third
  of the workers (at least two) that a stream can never take, so ``GET /``
  and commands always find a thread, and the other half of the streams is
  kept for joined phones;
* **strangers have a connection budget** (``stranger_limit``, default 768):
  when that many connections not known to be a joined phone's are open, a
  new one makes room by closing the stranger's connection that has waited
  longest (a request that has not finished arriving, by its first byte, or
  an idle keep-alive, by its last), so half-open connections from any
  number of addresses can never fill the table; ``member_room`` (default
  128) more connections are for joined phones only;
* **connections are capped per address** (``per_client``, default 32): a
  connection beyond it is closed as soon as it is accepted;
* **slow or silent connections are dropped**: a request whose headers and
  body have not all arrived ``header_timeout`` seconds (default 10) after its
  first byte, and a keep-alive connection idle for ``idle_timeout`` seconds
  (default 30), are closed by the maintenance pass, which runs every
  ``cleanup_interval`` seconds (default 2). Waitress alone waits
  ``channel_timeout`` (120 s) of silence;
* **a client that goes away is seen at once**: the loop keeps reading a
  connection while its request is served (``channel_request_lookahead``), and
  a close during a request wakes the app's streams (``on_client_gone``), so a
  closed stream frees its slot within moments instead of at its next
  heartbeat.

Nothing here holds a thread per connection: the guards run on waitress's
own loop thread, which polls (``poll(2)``, not ``select``, so file numbers
past 1024 are no limit).
"""

from __future__ import annotations

import json
import logging
import socket
import struct
import time
import warnings
from typing import Any, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher

log = logging.getLogger(__name__)

PER_CLIENT = 32
HEADER_TIMEOUT = 10.0
IDLE_TIMEOUT = 30.0
STRANGER_LIMIT = 768
MAX_HEADER_BYTES = 16 * 1024
MEMBER_ROOM = 128


def stream_cap(threads: int) -> int:
    """Return how many SSE streams ``threads`` workers may hold: all but a third (at least 2) kept for requests.

    >>> stream_cap(24), stream_cap(12), stream_cap(4)
    (16, 8, 2)
    """
    return max(1, threads - max(2, threads // 3))


class MembersFirstDispatcher(ThreadedTaskDispatcher):
    """Waitress's worker pool, serving a joined phone's request before any stranger's waiting one."""

    def add_task(self, task: Any) -> None:
        if not getattr(task, "member", False):
            super().add_task(task)
            return
        with self.lock:
            queue = self.queue
            at = next((i for i, t in enumerate(queue) if not getattr(t, "member", False)), len(queue))
            queue.insert(at, task)                  # behind the members already waiting, ahead of strangers
            self.queue_cv.notify()


def error_json(code: int, reason: str, detail: str = "") -> bytes:
    """Return the JSON body of an error the server answers itself: ``{"error": "<one sentence>"}``."""
    detail = " ".join(str(detail).split())[:200]
    return json.dumps({"error": f"{reason.lower()}: {detail}" if detail else reason.lower()}).encode()


class JsonErrorTask(ErrorTask):
    """Waitress's answer to a request it refuses before the app sees it (a bad request line, headers or a body
    too large, an app that crashed before answering), with the app's JSON error body instead of plain text."""

    def execute(self) -> None:
        e = self.request.error
        detail = e.body
        if e.code == 413:
            detail = f"request body too large (limit {self.channel.adj.max_request_body_size // 1024} KB)"
        elif e.code == 500:
            detail = "the server met an unexpected error"
        body = error_json(e.code, e.reason, detail)
        self.status = f"{e.code} {e.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def _answer(channel: Any, status: str, message: str) -> None:
    """Send ``status`` with a JSON error to a connection whose request never finished arriving (to be closed)."""
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode()
    try:
        channel.socket.send(head + body)            # non-blocking, a few hundred bytes: whatever fits
    except OSError:
        pass


class GuardedChannel(HTTPChannel):
    """Waitress's channel, noting when the request being read got its first byte and whose its last request was."""

    error_task_class = JsonErrorTask
    request_started = 0.0
    member = False                            # its last complete request carried a joined phone's cookie

    def waiting_since(self) -> float:
        """Return since when this connection has waited: its partial request's first byte, else its last activity."""
        return self.request_started if self.request is not None else self.last_activity

    def received(self, data: bytes) -> bool:
        if data and self.request is None:
            self.request_started = time.time()
        return super().received(data)

    def handle_close(self) -> None:
        serving = bool(self.requests) and self.connected
        super().handle_close()
        if serving:                           # the client left while its request (a live stream) was served
            self.server.client_gone()


class GuardedServer(TcpWSGIServer):
    """A waitress TCP server with a per-address connection cap and short header and idle timeouts."""

    channel_class = GuardedChannel
    per_client = PER_CLIENT
    header_timeout = HEADER_TIMEOUT
    idle_timeout = IDLE_TIMEOUT

    stranger_limit = STRANGER_LIMIT

    def __init__(self, *args: Any, **kw: Any) -> None:
        self._warned: dict[str, float] = {}
        self._evicted = 0
        self.on_client_gone: "Callable[[], None] | None" = None
        self.is_member: "Callable[[str], bool] | None" = None
        super().__init__(*args, **kw)

    def add_task(self, task: Any) -> None:
        """Queue a channel whose request is complete, marking it a member's when its cookie says so."""
        if self.is_member is not None and task.requests:
            try:
                task.member = bool(self.is_member(task.requests[0].headers.get("COOKIE", "")))
            except Exception:                 # a check that fails makes a stranger, never a dead loop
                log.exception("checking a request's cookie failed")
                task.member = False
        super().add_task(task)

    def make_room(self) -> bool:
        """Return whether a new stranger's connection may open, closing the longest-waiting idle stranger if need be.

        Strangers' connections being served (a live stream, a request on a
        worker) are never closed here; when all of them are, the new one is refused.
        """
        strangers = [ch for ch in list(self.active_channels.values()) if not ch.member and not ch.will_close]
        if len(strangers) < self.stranger_limit:
            return True
        idle = [ch for ch in strangers if not ch.requests]
        if not idle:
            return False
        oldest = min(idle, key=GuardedChannel.waiting_since)
        self._evicted += 1
        if self._evicted % 100 == 1:
            log.warning("%d connections of strangers are open: closing the one that waited longest (from %s; "
                        "%d closed so far)", len(strangers), _host(oldest.addr), self._evicted)
        if oldest.request is not None:          # an idle keep-alive connection is closed without a word
            _answer(oldest, "408 Request Timeout", "request timeout: the server is busy and the request had "
                                                   "not all arrived")
        oldest.handle_close()
        return True

    def client_gone(self) -> None:
        """Tell the app that a client closed a connection whose request was being served (wakes its streams)."""
        if self.on_client_gone is not None:
            self.on_client_gone()

    def connections_from(self, host: str) -> int:
        """Return how many open connections come from address ``host``."""
        return sum(1 for ch in list(self.active_channels.values()) if _host(ch.addr) == host)

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
            if accepted is None:
                return
            conn, addr = accepted
            self.set_socket_options(conn)
        except OSError:
            return
        addr = self.fix_addr(addr)
        host = _host(addr)
        over_cap = self.connections_from(host) >= self.per_client
        if over_cap or not self.make_room():
            now = time.monotonic()
            if over_cap and now - self._warned.get(host, -60.0) >= 60.0:      # once a minute per address
                self._warned[host] = now
                log.warning("refusing connections from %s: it has %d open already", host, self.per_client)
            try:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))   # reset, no TIME_WAIT
            except OSError:
                pass
            conn.close()
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        for channel in list(self.active_channels.values()):
            if channel.requests or channel.will_close:
                continue                      # a request is being served (an SSE stream included)
            partial = channel.request is not None
            if partial and now - channel.request_started > self.header_timeout:
                log.info("closing a connection from %s: its request was not complete after %.0f s",
                         _host(channel.addr), self.header_timeout)
                _answer(channel, "408 Request Timeout",
                        f"request timeout: the request had not all arrived after {self.header_timeout:.0f} s")
                channel.will_close = True
            elif not partial and now - channel.last_activity > self.idle_timeout:
                channel.will_close = True


def _host(addr: Any) -> str:
    return addr[0] if isinstance(addr, (tuple, list)) and addr else str(addr)


def _room_for_files(needed: int) -> None:
    """Raise this process's soft limit of open files to ``needed`` when it is lower and the hard limit allows.

    Every connection is a file; systemd's and most shells' default soft limit
    (1,024) would otherwise stop ``accept`` before the connection table fills.
    """
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < needed:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (needed if hard == resource.RLIM_INFINITY else min(needed, hard), hard))
    except (ImportError, ValueError, OSError) as exc:        # not on Unix, or not allowed: the limit stays
        log.warning("could not raise the open-file limit to %d: %s", needed, exc)


def create_server(app: Any, *, host: str = "0.0.0.0", port: int = 8000, threads: int = 24,
                  per_client: int = PER_CLIENT, header_timeout: float = HEADER_TIMEOUT,
                  idle_timeout: float = IDLE_TIMEOUT, stranger_limit: int = STRANGER_LIMIT,
                  member_room: int = MEMBER_ROOM, is_member: "Callable[[str], bool] | None" = None, **kw: Any):
    """Return a guarded waitress server for ``app`` (call ``.run()`` to serve, ``.close()`` to stop).

    Sets the app's ``SSE_MAX_STREAMS`` to :func:`stream_cap` of ``threads``
    unless it was configured. ``send_bytes=1`` makes waitress send each SSE
    message at once instead of waiting up to a second for its main loop.
    ``is_member(cookie_header)`` tells a joined phone's request (default: the
    app's :func:`web.guard.joined_cookie`). Other keywords are waitress
    adjustments.
    """
    if app.config.get("SSE_MAX_STREAMS") is None:
        app.config["SSE_MAX_STREAMS"] = stream_cap(threads)
    opts: dict[str, Any] = {"threads": threads, "send_bytes": 1, "channel_timeout": 120, "ident": "landsend",
                            "connection_limit": stranger_limit + member_room, "asyncore_use_poll": True,
                            "cleanup_interval": 2, "host": host, "port": port,
                            # a stream whose reader stopped reading blocks its own thread at 256 KB of
                            # unsent messages instead of buffering up to waitress's 16 MB (then a file)
                            "outbuf_high_watermark": 256 * 1024,
                            # keep reading a connection while its request is served, so that a client that
                            # goes away is seen at once (a live stream then ends and frees its slot)
                            "channel_request_lookahead": 1,
                            # no request of the page comes near these; waitress would buffer 256 KB of
                            # headers and 1 GB of body (to a file) per connection
                            "max_request_header_size": MAX_HEADER_BYTES,
                            "max_request_body_size": int(app.config.get("MAX_CONTENT_LENGTH") or 256 * 1024)}
    opts.update(kw)
    with warnings.catch_warnings():
        # waitress marks send_bytes deprecated, but it is the only switch that flushes small writes at once
        warnings.simplefilter("ignore", DeprecationWarning)
        adj = Adjustments(**opts)
    _room_for_files(adj.connection_limit + 128)
    dispatcher = MembersFirstDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict = {}
    servers = []
    hub = app.extensions.get("landsend")
    if is_member is None and hub is not None:
        from .guard import joined_cookie
        is_member = joined_cookie(app)
    for sockinfo in adj.listen:
        server = GuardedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo)
        server.per_client, server.header_timeout, server.idle_timeout = per_client, header_timeout, idle_timeout
        server.stranger_limit, server.is_member = stranger_limit, is_member
        server.on_client_gone = hub.broadcaster.wake if hub is not None else None
        servers.append(server)
    if len(servers) == 1:
        return servers[0]
    return MultiSocketServer(socket_map, adj, [(s.effective_host, s.effective_port) for s in servers], dispatcher)
