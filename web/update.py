"""Update the board from the host's phone: a signed update file uploaded in pieces, checked, then installed by
the root unit (:mod:`firmware.update`); and going back to the previous release.

=================================  ======  ==========================================================
``GET /api/update``                host    the running version, the releases on the board, the previous one,
                                           what the last update did (``last``), whether one is under way
``POST /api/update/upload``        host    ``?offset=N``, a piece of the update file (raw bytes, at most
                                           ``PIECE`` each; offset 0 starts anew); 409 with the size received
                                           when the offset is not where the upload stands
``POST /api/update``               host    ``{"bytes"[, "allow_older"]}``: check the uploaded file whole (the
                                           signature by gpgv first, the manifest, the architecture, the
                                           version); 202 and the board installs it, or 400 and nothing changed
``POST /api/update/previous``      host    go back to the previous release (202), 409 when there is none
=================================  ======  ==========================================================

The checks and the queue are the daemon's (:class:`firmware.update.Queue`, ``app.extensions["landsend.updates"]``,
set by :mod:`firmware.daemon` on an installed board; none elsewhere: 404). The daemon cannot write ``/opt`` (the
unit's ``ProtectSystem=strict``): it leaves the checked file and ``request.json`` in its own state folder, and
``landsend-update.path`` starts the root unit that installs it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, jsonify

from .backup import PIECE, piece_route, receive_piece
from .guard import json_body, role

bp = Blueprint("update", __name__, url_prefix="/api")

def _updates() -> Any:
    if role() != "host":
        abort(403, "only the host's phone may update the board")
    return _queue()


def _queue() -> Any:
    updates = current_app.extensions.get("landsend.updates")
    if updates is None:
        abort(404, "this board is not an installed one (a checkout: update it with git pull and systemd/install.sh)")
    return updates


@bp.get("/update")
def update_info():
    return jsonify({**_updates().info(), "piece": PIECE})


@bp.post("/update/upload")
def update_piece():
    u = _updates()

    def receive(offset: int, data: bytes) -> int:
        with u.lock:
            return receive_piece(u.upload_path, offset, data, u.max_upload, "an update")
    return piece_route(receive, "the update file")


@bp.post("/update")
def update_install():
    if role() != "host":
        abort(403, "only the host's phone may update the board")
    body = json_body()                      # a malformed body is refused as on every route, queue or none
    u = _queue()
    size, allow_older = body.get("bytes"), body.get("allow_older", False)
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= u.max_upload:
        abort(400, f"bytes is the uploaded file's size (1 to {u.max_upload})")
    if not isinstance(allow_older, bool):
        abort(400, "allow_older is true or false")
    try:
        manifest = u.submit(size, allow_older)
    except LookupError as exc:              # busy, or nothing to go back to
        abort(409, str(exc))
    except ValueError as exc:               # refused: what is wrong with the file
        abort(400, str(exc))
    return jsonify({"installing": manifest["version"], "from": u.info()["version"],
                    "text": f"Installing {manifest['version']}: the board checks it, keeps a backup, and starts "
                            "again on it (a few minutes); it goes back by itself if the new version fails."}), 202


@bp.post("/update/previous")
def update_previous():
    if role() != "host":
        abort(403, "only the host's phone may update the board")
    json_body()                             # {} (JSON like every other POST)
    u = _queue()
    try:
        prev = u.go_back()
    except LookupError as exc:
        abort(409, str(exc))
    return jsonify({"going_back_to": prev}), 202
