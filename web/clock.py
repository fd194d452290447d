"""The board's clock from the phones (``firmware.clock``): a joined phone offers its time, the host may set it.

=======================  ======  ==================================================================
``GET /api/clock``       joined  ``{"board": ISO time, "synced", "last": {"from", "to", "by"}|null}``
``POST /api/clock``      joined  ``{"now": ms since 1970[, "force": true (host only)]}``: the board takes
                                 the phone's time when it is behind it (firmware.clock's rules) →
                                 ``{"board", "synced", "last", "set", "reason"}``
=======================  ======  ==================================================================

The daemon puts its clock control at ``app.extensions["landsend.clock"]`` (an object with ``state()`` and
``offer(ms, by=, force=)``, which raises ``ValueError`` for a time out of range); without it (``--sim``: the
computer keeps its own time) both routes answer 404. The page offers its clock once it is joined.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify

from .api.access import phone_name
from .guard import hub, json_body, require_joined, role

bp = Blueprint("clock", __name__, url_prefix="/api")

MAX_MS = 2 ** 53 - 1


def _clock():
    clock = current_app.extensions.get("landsend.clock")
    if clock is None:
        abort(404, "this board keeps the computer's own time here (the simulator)")
    return clock


@bp.get("/clock")
@require_joined
def get_clock():
    return jsonify(_clock().state())


@bp.post("/clock")
@require_joined
def offer_clock():
    body = json_body()
    now, force = body.get("now"), body.get("force", False)
    if not isinstance(now, int) or isinstance(now, bool) or not 0 < now <= MAX_MS:
        abort(400, "now is this phone's time in milliseconds since 1970 (a whole number)")
    if not isinstance(force, bool):
        abort(400, "force is true or false")
    if force and role() != "host":
        abort(403, "only the host's phone may set the board's time whatever it says")
    clock = _clock()
    try:
        answer = clock.offer(now, by=phone_name(hub()), force=force)
    except ValueError as exc:
        abort(400, str(exc))
    return jsonify(answer)
