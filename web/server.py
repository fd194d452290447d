"""The page's HTTP server: waitress, guarded so that no visitor can starve it.

Waitress reads requests on one thread (asyncore) and runs the app on a pool
of worker threads; an SSE stream holds its worker for as long as it is open.
Three guards keep the pool and the connection table for the players:

* **streams are capped** (``SSE_MAX_STREAMS`` overall, ``SSE_MAX_PER_CLIENT``
  per address; :class:`web.live.StreamSlots`): the excess gets a 503 with
  ``Retry-After`` and the page polls until a slot frees. :func:`stream_cap`
  leaves a third of the workers (at least two) that a stream can never take,
  so ``GET /`` and commands always find a thread;
* **connections are capped per address** (``per_client``, default 32): a
  connection beyond it is closed as soon as it is accepted, so one address
  cannot fill waitress's table of ``connection_limit`` connections;
* **slow or silent connections are dropped**: a request whose headers and
  body have not all arrived ``header_timeout`` seconds (default 10) after its
  first byte, and a keep-alive connection idle for ``idle_timeout`` seconds
  (default 30), are closed by the maintenance pass, which runs every
  ``cleanup_interval`` seconds (default 2). Waitress alone waits
  ``channel_timeout`` (120 s) of silence, so 100 connections that never
  finished their headers took the page down for two minutes.

Nothing here holds a thread per connection: the guards run on waitress's
own loop thread.
"""

from __future__ import annotations

import logging
import socket
import struct
import time
import warnings
from typing import Any, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger(__name__)

PER_CLIENT = 32
HEADER_TIMEOUT = 10.0
IDLE_TIMEOUT = 30.0


def stream_cap(threads: int) -> int:
    """Return how many SSE streams ``threads`` workers may hold: all but a third (at least 2) kept for requests.

    >>> stream_cap(24), stream_cap(12), stream_cap(4)
    (16, 8, 2)
    """
    return max(1, threads - max(2, threads // 3))


class GuardedChannel(HTTPChannel):
    """Waitress's channel, noting when the request being read got its first byte."""

    request_started = 0.0

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

    def __init__(self, *args: Any, **kw: Any) -> None:
        self._warned: dict[str, float] = {}
        self.on_client_gone: "Callable[[], None] | None" = None
        super().__init__(*args, **kw)

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
        if self.connections_from(host) >= self.per_client:
            now = time.monotonic()
            if now - self._warned.get(host, -60.0) >= 60.0:      # once a minute per address: no log flood
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
                channel.will_close = True
            elif not partial and now - channel.last_activity > self.idle_timeout:
                channel.will_close = True


def _host(addr: Any) -> str:
    return addr[0] if isinstance(addr, (tuple, list)) and addr else str(addr)


def create_server(app: Any, *, host: str = "0.0.0.0", port: int = 8000, threads: int = 24,
                  per_client: int = PER_CLIENT, header_timeout: float = HEADER_TIMEOUT,
                  idle_timeout: float = IDLE_TIMEOUT, **kw: Any):
    """Return a guarded waitress server for ``app`` (call ``.run()`` to serve, ``.close()`` to stop).

    Sets the app's ``SSE_MAX_STREAMS`` to :func:`stream_cap` of ``threads``
    unless it was configured. ``send_bytes=1`` makes waitress send each SSE
    message at once instead of waiting up to a second for its main loop.
    Other keywords are waitress adjustments.
    """
    if app.config.get("SSE_MAX_STREAMS") is None:
        app.config["SSE_MAX_STREAMS"] = stream_cap(threads)
    opts: dict[str, Any] = {"threads": threads, "send_bytes": 1, "channel_timeout": 120, "ident": "landsend",
                            "connection_limit": 256, "cleanup_interval": 2, "host": host, "port": port,
                            # a stream whose reader stopped reading blocks its own thread at 256 KB of
                            # unsent messages instead of buffering up to waitress's 16 MB (then a file)
                            "outbuf_high_watermark": 256 * 1024,
                            # keep reading a connection while its request is served, so that a client that
                            # goes away is seen at once (a live stream then ends and frees its slot)
                            "channel_request_lookahead": 1}
    opts.update(kw)
    with warnings.catch_warnings():
        # waitress marks send_bytes deprecated, but it is the only switch that flushes small writes at once
        warnings.simplefilter("ignore", DeprecationWarning)
        adj = Adjustments(**opts)
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict = {}
    servers = []
    hub = app.extensions.get("landsend")
    for sockinfo in adj.listen:
        server = GuardedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo)
        server.per_client, server.header_timeout, server.idle_timeout = per_client, header_timeout, idle_timeout
        server.on_client_gone = hub.broadcaster.wake if hub is not None else None
        servers.append(server)
    if len(servers) == 1:
        return servers[0]
    return MultiSocketServer(socket_map, adj, [(s.effective_host, s.effective_port) for s in servers], dispatcher)
