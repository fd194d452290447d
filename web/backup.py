"""Keep the season: the whole table backed up to the host's phone, kept on the board, and restored from a file.

=================================  ======  ==========================================================
``GET /api/backups``               host    the board's kept backups, its version, the last restore
``GET /api/backup``                host    a backup of the table now, as a file (the board keeps playing)
``GET /api/backups/<file>``        host    one of the board's kept backups, as a file
``POST /api/restore/upload``       host    ``?offset=N``, a piece of the backup file (raw bytes, at most
                                           ``PIECE`` each; offset 0 starts a new upload); 409 with the size
                                           received when the offset is not where the upload stands
``POST /api/restore``              host    ``{"bytes"[, "sha256"]}`` of the uploaded file: check it whole, then
                                           202 and the board restarts on the restored table
=================================  ======  ==========================================================

A restore changes nothing until the backup has passed every check (:func:`companion.backup.check`); then
the checked table waits beside the live one and the daemon restarts (``app.extensions["landsend.restart"]``,
set by :mod:`firmware.daemon`), keeps the table it replaces as a backup, and switches to the restored one in
one rename (:func:`companion.backup.apply_staged`). Every phone hears ``restoring`` on its stream and reloads
when the board answers again. Uploads come in pieces, so the page's own size limit holds for every request
and a phone that drops off the Wi-Fi mid-upload goes on from where it stood.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import queue
import re
import socket
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from flask import Blueprint, abort, current_app, jsonify, request, send_file

from companion import backup as bk

from .guard import hub, json_body, role

log = logging.getLogger(__name__)

bp = Blueprint("backup", __name__, url_prefix="/api")

PIECE = 192 * 1024
"""The largest piece of an upload (under the page's 256 KB request limit)."""

MAX_UPLOAD = 256 * 1024 * 1024
"""The largest backup file the board takes (a years-old table compresses to a few MB)."""

UPLOAD = "restore-upload.part"


def board_name(hotspot: Any = None) -> str:
    """Return the board's name: its own Wi-Fi's (``Lands End 4F2A``), else the machine's host name."""
    return getattr(hotspot, "ssid", None) or socket.gethostname() or "board"


class Backups:
    """The board's backups of one table: kept ones taken in the background, and the upload of a restore.

    :param database: the table's database file (None: a table in memory, which keeps no backups).
    :param folder: where the kept backups and an upload live (``<state dir>/backups``).
    """

    def __init__(self, table: Any, database: "Path | None", folder: Path, *, board: str) -> None:
        self.table = table
        self.database = database
        self.folder = folder
        self.kept = bk.Kept(folder, board=board)
        self.board = board
        self._queue: "queue.Queue[int | None]" = queue.Queue()
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._upload_lock = threading.Lock()
        self._seen = -1
        self.error: str | None = None

    # -- kept backups: at every settle-up and once a night, never in the thread that stored the event
    def start(self) -> None:
        """Start taking kept backups after the events that call for one (a thread of its own)."""
        if self.database is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="backups", daemon=True)
        self._thread.start()
        self._unsubscribe = self.table.subscribe(lambda snap: self._queue.put(snap.get("seq", -1)))

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self) -> None:
        while True:
            seq = self._queue.get()
            if seq is None:
                return
            try:
                self.after(seq)
            except Exception as exc:                       # a full card: say so, keep playing
                self.error = f"the board could not keep a backup: {exc}"
                log.error("backups: %s", self.error)

    def after(self, seq: int) -> dict | None:
        """Take a kept backup if the events from ``seq`` on call for one; return it, or None."""
        events = [e for e in self.table.history(since=max(0, seq)) if e.get("seq") == seq]
        reason = None
        for ev in events:
            reason = bk.due(ev, self.kept.newest_age_hours()) or reason
        if reason is None:
            return None
        made = self.kept.take(self.database, reason=reason)
        self.error = None
        log.info("backups: kept %s (%s)", made["file"], reason)
        return made

    # -- restore
    @property
    def upload_path(self) -> Path:
        return self.folder / UPLOAD

    def receive(self, offset: int, data: bytes) -> int:
        """Write a piece of an upload at ``offset`` (0 starts anew); return the size received so far."""
        with self._upload_lock:
            return receive_piece(self.upload_path, offset, data, MAX_UPLOAD, "a backup")

    def restore(self, size: int, sha256: "str | None" = None) -> dict:
        """Check the uploaded file whole and stage it; return its manifest. Nothing changes on a refusal."""
        if self.database is None:
            raise bk.BackupError("this table is kept in memory only: there is nothing to restore into")
        with self._upload_lock:
            path = self.upload_path
            if not path.exists():
                raise bk.BackupError("no backup file has been uploaded")
            got = path.stat().st_size
            if got != size:
                raise bk.BackupError(f"the upload is incomplete: {got:,} of {size:,} bytes arrived; send it again")
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            # a page over plain http has no SHA-256 (browsers keep crypto.subtle for secure pages); the
            # backup's own checks (the zip's CRCs, the manifest's checksum of the table) cover the transfer
            if sha256 is not None and h.hexdigest() != sha256:
                raise bk.BackupError("the upload arrived damaged (its checksum differs from the phone's); send it again")
            try:
                with tempfile.TemporaryDirectory(dir=self.folder, prefix=".check-") as work:
                    checked = bk.check(path, work)
                    bk.stage(checked, self.database)
            finally:
                path.unlink(missing_ok=True)
            return checked.manifest

    def last_restore(self) -> dict | None:
        try:
            return json.loads((self.folder / bk.LAST_RESTORE).read_text())
        except (OSError, ValueError):
            return None


class UploadOutOfStep(Exception):
    def __init__(self, have: int) -> None:
        super().__init__(f"the upload stands at {have} bytes")
        self.have = have


class UploadTooLarge(ValueError):
    pass


def receive_piece(path: Path, offset: int, data: bytes, limit: int, what: str) -> int:
    """Write ``data`` into the upload ``path`` at ``offset`` (0 starts anew); return the size received so far.

    :raises UploadOutOfStep: ``offset`` is not where the upload stands (a piece lost or sent twice).
    :raises UploadTooLarge: the file would pass ``limit`` bytes (``what`` it is, for the message).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    have = path.stat().st_size if path.exists() else 0
    if offset == 0:
        have = 0
    elif offset != have:
        raise UploadOutOfStep(have)
    if have + len(data) > limit:
        raise UploadTooLarge(f"the file is too large for {what} (more than {limit // 2**20} MB)")
    with open(path, "r+b" if offset else "wb") as f:
        f.seek(have)
        f.truncate()
        f.write(data)
    return have + len(data)


def piece_route(receive: Callable[[int, bytes], int], what: str):
    """Answer ``POST ...?offset=N`` with a piece of an upload as its body: ``{"have"}``, 409 with ``have`` when
    the offset is not where the upload stands, 400 for no body or offset, 413 for a piece or file too large."""
    raw = request.args.get("offset", "")
    if not re.fullmatch(r"\d{1,12}", raw):
        abort(400, "offset is the number of bytes already sent (0 to start)")
    data = request.get_data(cache=False)
    if not data:
        abort(400, f"a piece of {what} is the request's body (application/octet-stream)")
    if len(data) > PIECE:
        abort(413, f"a piece is at most {PIECE // 1024} KB")
    try:
        have = receive(int(raw), data)
    except UploadOutOfStep as exc:
        resp = jsonify({"error": f"the upload stands at {exc.have} bytes: go on from there", "have": exc.have})
        resp.status_code = 409
        return resp
    except UploadTooLarge as exc:
        abort(413, str(exc))
    return jsonify({"have": have})


def init_app(app: Any, table: Any, wifi: Any = None) -> Backups:
    """Make the app's :class:`Backups` (``app.extensions["landsend.backups"]``); the daemon starts its kept
    backups (:meth:`Backups.start`), so an app in a test takes none unless it asks."""
    path = getattr(getattr(table, "store", None), "path", None)
    database = Path(path) if path is not None and str(path) != ":memory:" else None
    folder = Path(app.config.get("BACKUP_DIR") or (database.parent if database else
                                                   Path(app.config["STATE_DIR"])) / "backups")
    backups = Backups(table, database, folder, board=board_name(getattr(wifi, "hotspot", None)))
    app.extensions["landsend.backups"] = backups
    return backups


def _backups() -> Backups:
    if role() != "host":
        abort(403, "only the host's phone may back up or restore the table")
    return current_app.extensions["landsend.backups"]


@bp.get("/backups")
def list_backups():
    b = _backups()
    return jsonify({"version": bk.version(), "schema": bk.SCHEMA_VERSION, "board": b.board,
                    "kept": b.kept.list() if b.database is not None else [], "error": b.error,
                    "last_restore": b.last_restore(), "piece": PIECE, "max_upload": MAX_UPLOAD,
                    "can_restore": b.database is not None})


@bp.get("/backup")
def download_backup():
    b = _backups()
    if b.database is None:
        abort(404, "this table is kept in memory only: there is no file to back up")
    now = _dt.datetime.now(_dt.timezone.utc)
    b.folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=b.folder, prefix=".download-"))
    out = tmp / bk.file_name(b.board, now)
    bk.take(b.database, out, board=b.board, reason="phone", now=lambda: now)
    resp = send_file(out, mimetype="application/octet-stream", as_attachment=True, download_name=out.name,
                     max_age=0)

    def gone() -> None:
        out.unlink(missing_ok=True)
        tmp.rmdir()
    resp.call_on_close(gone)
    return resp


@bp.get("/backups/<name>")
def download_kept(name: str):
    b = _backups()
    path = b.kept.path(name)
    if path is None:
        abort(404, f"no kept backup is named {name[:80]}")
    return send_file(path, mimetype="application/octet-stream", as_attachment=True, download_name=path.name,
                     max_age=0)


@bp.post("/restore/upload")
def upload_piece():
    return piece_route(_backups().receive, "the backup file")


@bp.post("/restore")
def restore():
    b = _backups()
    body = json_body()
    size, digest = body.get("bytes"), body.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_UPLOAD:
        abort(400, f"bytes is the uploaded file's size (1 to {MAX_UPLOAD})")
    if digest is not None and (not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest)):
        abort(400, "sha256 (optional) is the uploaded file's SHA-256, 64 hex digits")
    try:
        manifest = b.restore(size, digest)
    except bk.BackupError as exc:
        abort(400, str(exc))
    log.info("restore: %s staged; the board restarts on it", bk.describe(manifest))
    hub().broadcaster.publish("restoring", {"backup": bk.describe(manifest)})
    restart = current_app.extensions.get("landsend.restart")
    if restart is not None:
        threading.Timer(0.5, restart).start()          # after this answer has gone out
    return jsonify({"restoring": manifest, "text": bk.describe(manifest), "restarts": restart is not None}), 202
