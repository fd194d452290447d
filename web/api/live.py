"""The table's state, the board's frame and the live stream (``/api/table``, ``/api/board``, ``/api/events``)."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, abort, current_app, jsonify, request

from ..guard import hub, role

log = logging.getLogger(__name__)

bp = Blueprint("live", __name__, url_prefix="/api")

DEFAULT_MAX_STREAMS = 16                      # without create_server (which sets it from the thread count)


@bp.get("/table")
def table():
    """Return the table snapshot (the schema of ``docs/architecture.md``)."""
    return jsonify(hub().current())


@bp.get("/board")
def board():
    """Return the LED frame the strip last showed; 404 when no board is attached."""
    b = hub().board
    if b is None:
        abort(404, "no board is attached (the page is running without the daemon)")
    return jsonify(b.frame_json())


@bp.get("/events")
def events():
    """Return the Server-Sent Events stream: ``state`` (snapshot), ``board`` (LED frame), ``access``
    (epoch) and ``faults`` events; the one source of the table's state for the page.

    503 with ``Retry-After`` when ``SSE_MAX_STREAMS`` streams are open, or
    ``SSE_MAX_PER_CLIENT`` (at most half of ``SSE_MAX_STREAMS``) from this
    address, or (for a phone that has not joined) half of ``SSE_MAX_STREAMS``
    from phones that have not joined: each stream holds a server thread, the
    threads past the cap are kept for pages and commands, and the other half
    of the streams for joined phones.
    """
    h = hub()
    cfg = current_app.config
    client = request.remote_addr or "?"
    overall = int(cfg["SSE_MAX_STREAMS"] or DEFAULT_MAX_STREAMS)
    per_client = min(int(cfg["SSE_MAX_PER_CLIENT"]), max(1, overall // 2))   # one address: half the streams at most
    release = h.slots.acquire(client, overall=overall, per_client=per_client, member=role() != "visitor",
                              strangers=max(1, overall // 2))      # the other half is kept for joined phones
    if release is None:
        mine = h.slots.of(client) >= per_client
        log.info("live stream refused for %s (%s)", client, "its cap" if mine else "all streams taken")
        resp = jsonify({"error": ("this address has too many live streams open" if mine else
                                  "the table has too many live streams open") +
                                 ": the page reads the table every few seconds and tries again"})
        resp.status_code = 503
        resp.headers["Retry-After"] = str(int(cfg["SSE_RETRY_AFTER"]))
        return resp
    last = request.headers.get("Last-Event-ID") or request.args.get("last")
    stream = h.broadcaster.stream(h.table.snapshot, last_event_id=last,
                                  heartbeat=float(cfg["SSE_HEARTBEAT"]), max_age=float(cfg["SSE_MAX_AGE"]),
                                  clock=cfg["CLOCK"], catch_up=("board",),
                                  gone=request.environ.get("waitress.client_disconnected"))

    def held():
        try:
            yield from stream
        finally:
            release()
    resp = Response(held(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    resp.call_on_close(release)          # also when the server closes it before the first message
    return resp
