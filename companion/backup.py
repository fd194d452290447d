"""The whole table kept in one file: backups taken while the board plays, checked whole before a restore.

A backup is a zip file named ``landsend-backup-<board>-<date>.landsend`` holding two members:

* ``table.db``: the table's database, copied with SQLite's online backup API from a connection of its own
  (the board keeps playing: in WAL mode a reader never blocks the writer, and the copy is one consistent
  moment of the table), then made one self-contained file (no WAL);
* ``manifest.json``: what the file is, for a person and for the checks of a restore::

      {"product": "landsend", "format": 1, "version": "0.1.0", "schema": 4, "board": "Lands End 4F2A",
       "taken_at": "2026-11-28T21:40:00+00:00", "reason": "phone",
       "matches": 12, "nights": 3, "events": 4210, "db_bytes": 1236992, "db_sha256": "..."}

:func:`check` reads a backup whole before anything is touched: a zip of exactly those members, a manifest of
the right shape, the database's size and SHA-256 as the manifest says, ``PRAGMA integrity_check``, a Land's
End table (its application id and tables) of a schema this code reads (an older one is migrated forward, on
the checked copy only; a newer one is refused with the versions named), and as many events as the manifest
counts. :func:`stage` then puts the checked database beside the live one under one name, and
:func:`apply_staged`, at the daemon's next start, keeps the current table as a backup and switches to the
restored one by one ``rename``: a power cut at any moment leaves the old table or the new one, never a mix.

The board keeps its own last backups in a folder beside the database (:class:`Kept`): at every settle-up and
once a night.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import StoreError
from .store import SCHEMA_VERSION, SQLiteStore, readable

FORMAT = 1
"""The backup file's own layout (members and manifest fields); a newer one is refused."""

SUFFIX = ".landsend"
MANIFEST = "manifest.json"
DATABASE = "table.db"
MAX_DB_BYTES = 512 * 1024 * 1024
"""The largest database a backup may unpack to (a years-old table is a few tens of MB)."""

LAST_RESTORE = "last-restore.json"
"""What the last restore did, in the kept folder (the page shows it)."""

STAGED = ".restore"
"""A checked database waiting for the daemon's next start: ``<database>.restore``."""

KEEP = 8
"""How many of the board's own backups the kept folder holds (the oldest go first)."""

NIGHTLY_HOURS = 20.0
"""A kept backup is taken after an event when the newest kept one is older than this."""


class BackupError(ValueError):
    """A backup cannot be used: not a backup, damaged, another program's, or made by a newer version.

    A refusal changes nothing; its message says what is wrong, for the host's phone.
    """


@dataclass(frozen=True)
class Checked:
    """A backup that passed every check: its manifest, and its database (migrated to this schema) on disk."""

    manifest: dict
    database: Path
    schema_before: int


def version() -> str:
    """Return this software's version (the installed package's, or the source tree's)."""
    try:
        from importlib.metadata import version as _v
        return _v("landsend")
    except Exception:                                   # pragma: no cover - run from a bare source tree
        return "0+source"


def file_name(board: str, when: _dt.datetime, reason: str | None = None) -> str:
    """Return ``landsend-backup-<board>-<date>[-<reason>].landsend``, the board's name made safe for a file."""
    safe = re.sub(r"[^A-Za-z0-9]+", "-", board).strip("-") or "board"
    stamp = when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d")
    return f"landsend-backup-{safe}-{stamp}{'-' + reason if reason else ''}{SUFFIX}"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_database(source: "str | os.PathLike[str]", target: Path) -> None:
    """Copy the table database ``source`` to ``target`` with SQLite's online backup API, as one file.

    The copy reads from a connection of its own, in one step: one read transaction, one consistent moment of
    the table. In WAL mode the daemon's writes go on meanwhile (a reader never blocks the writer).
    """
    src = sqlite3.connect(f"file:{Path(source)}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(str(target), isolation_level=None)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")          # the copy is one file, no -wal beside it
        finally:
            dst.close()
    finally:
        src.close()


def count(database: Path) -> dict:
    """Return ``{"matches", "nights", "events"}`` of a table database (read through a store of its own)."""
    from .season import Season, group_nights                  # the season is loaded only when counting
    store = SQLiteStore(database)
    try:
        matches = store.matches()
        events = store.event_count()
        try:
            nights = len(group_nights(Season(store).summaries()))
        except Exception:                                      # a table the season cannot read still backs up
            nights = None
        return {"matches": len(matches), "nights": nights, "events": int(events)}
    finally:
        store.close()


def take(source: "str | os.PathLike[str]", out: "str | os.PathLike[str]", *, board: str, reason: str = "phone",
         now: Callable[[], _dt.datetime] | None = None) -> dict:
    """Write a backup of the table database ``source`` to ``out`` (built aside, then renamed); return its manifest.

    :raises StoreError: ``source`` is not a table database this code reads.
    """
    source, out = Path(source), Path(out)
    when = (now or (lambda: _dt.datetime.now(_dt.timezone.utc)))()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".backup-") as tmp:
        db = Path(tmp) / DATABASE
        copy_database(source, db)
        counts = count(db)
        manifest = {"product": "landsend", "format": FORMAT, "version": version(), "schema": SCHEMA_VERSION,
                    "board": board, "taken_at": when.isoformat(timespec="seconds"), "reason": reason, **counts,
                    "db_bytes": db.stat().st_size, "db_sha256": _sha256(db)}
        part = Path(tmp) / "backup.zip"
        with zipfile.ZipFile(part, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            z.writestr(MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
            z.write(db, DATABASE)
        with open(part, "rb") as f:
            os.fsync(f.fileno())
        os.replace(part, out)
    _fsync_dir(out.parent)
    return manifest


_FIELDS = {"product": str, "format": int, "version": str, "schema": int, "board": str, "taken_at": str,
           "matches": int, "events": int, "db_bytes": int, "db_sha256": str}


def _manifest(z: zipfile.ZipFile) -> dict:
    try:
        data = json.loads(z.read(MANIFEST).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BackupError(f"the backup's manifest is not readable JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict) or data.get("product") != "landsend":
        raise BackupError("this is not a Land's End backup (its manifest names another product)")
    for key, kind in _FIELDS.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise BackupError(f"the backup's manifest is damaged: {key} is missing or not a {kind.__name__}")
    if data["format"] > FORMAT:
        raise BackupError(f"this backup was made by a newer version of Land's End ({data['version']}, backup "
                          f"format {data['format']}); this board reads format {FORMAT}: update the board first")
    if not re.fullmatch(r"[0-9a-f]{64}", data["db_sha256"]):
        raise BackupError("the backup's manifest is damaged: db_sha256 is not a SHA-256")
    return data


def check(path: "str | os.PathLike[str]", work: "str | os.PathLike[str]") -> Checked:
    """Check the backup file ``path`` whole; unpack its database into the folder ``work``.

    Nothing outside ``work`` is touched. An older schema is migrated forward there.

    :raises BackupError: with what is wrong, for the host's phone.
    """
    path, work = Path(path), Path(work)
    try:
        if not zipfile.is_zipfile(path):
            with open(path, "rb") as f:
                if f.read(4) == b"PK\x03\x04":           # a zip's start without its end: the download stopped
                    raise BackupError("the backup is damaged or cut short (its end is missing: download it again)")
            raise BackupError("this file is not a Land's End backup (not a backup file at all; a backup is the "
                              f"{SUFFIX} file the board's page downloads)")
        with zipfile.ZipFile(path) as z:
            names = sorted(i.filename for i in z.infolist())
            if names != sorted([MANIFEST, DATABASE]):
                raise BackupError(f"this file is not a Land's End backup (it holds {', '.join(names[:5]) or 'nothing'})")
            manifest = _manifest(z)
            info = z.getinfo(DATABASE)
            if info.file_size != manifest["db_bytes"] or info.file_size > MAX_DB_BYTES:
                raise BackupError(f"the backup is damaged: its table is {info.file_size:,} bytes, the manifest "
                                  f"says {manifest['db_bytes']:,}" if info.file_size <= MAX_DB_BYTES else
                                  f"the backup's table is too large ({info.file_size:,} bytes; at most "
                                  f"{MAX_DB_BYTES:,})")
            db = work / DATABASE
            with z.open(info) as src, open(db, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    except zipfile.BadZipFile as exc:
        raise BackupError(f"the backup is damaged or cut short ({exc})") from None
    except (zipfile.LargeZipFile, EOFError, zlib.error) as exc:     # a member cut short or garbled
        raise BackupError(f"the backup is damaged or cut short ({exc})") from None
    if _sha256(db) != manifest["db_sha256"]:
        raise BackupError("the backup is damaged: its table does not match the checksum in its manifest")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        try:
            ok = [r[0] for r in con.execute("PRAGMA integrity_check")]
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"the backup's table is not a readable database ({exc})") from None
        if ok != ["ok"]:
            raise BackupError(f"the backup's table is damaged (SQLite's check: {'; '.join(ok[:3])})")
        try:
            readable(con, "in the backup")
        except StoreError as exc:
            raise BackupError(str(exc).replace("cannot open the table database in the backup: ",
                                               "cannot restore this backup: ")) from None
    finally:
        con.close()
    try:
        store = SQLiteStore(db)                       # migrates an older schema forward, on this copy only
    except StoreError as exc:
        raise BackupError(f"cannot restore this backup: {exc}") from None
    try:
        events = store.event_count()
        before = store.schema_before
    finally:
        store.close()
    if events != manifest["events"]:
        raise BackupError(f"the backup is damaged: it holds {events:,} events, its manifest says "
                          f"{manifest['events']:,}")
    for extra in (f"{db}-wal", f"{db}-shm"):
        Path(extra).unlink(missing_ok=True)
    return Checked(manifest, db, before)


def staged_path(database: "str | os.PathLike[str]") -> Path:
    """Return where a checked restore waits for the next start: ``<database>.restore``."""
    database = Path(database)
    return database.with_name(database.name + STAGED)


def stage(checked: Checked, database: "str | os.PathLike[str]") -> Path:
    """Put a checked backup's database beside ``database`` under one name (written aside, synced, renamed).

    The daemon switches to it at its next start (:func:`apply_staged`); until then nothing else changes.
    """
    target = staged_path(database)
    part = target.with_name(target.name + ".part")
    shutil.copyfile(checked.database, part)
    os.chmod(part, 0o600)
    with open(part, "rb") as f:
        os.fsync(f.fileno())
    meta = target.with_name(target.name + ".json")
    meta_part = meta.with_name(meta.name + ".part")
    meta_part.write_text(json.dumps(checked.manifest, sort_keys=True))
    os.replace(meta_part, meta)
    os.replace(part, target)                 # the last step: a staged database is always whole
    _fsync_dir(target.parent)
    return target


def _checkpoint(database: Path) -> None:
    """Fold the live database's WAL into the file and remove the -wal and -shm beside it."""
    if not database.exists():
        return
    con = sqlite3.connect(str(database), isolation_level=None)
    try:
        con.execute("PRAGMA busy_timeout=5000")
        row = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if row is not None and row[0] != 0:
            raise StoreError(f"cannot restore over {database}: its log could not be folded in (busy)")
        con.execute("PRAGMA journal_mode=DELETE")
    finally:
        con.close()
    for extra in (f"{database}-wal", f"{database}-shm"):
        Path(extra).unlink(missing_ok=True)


def _carry(database: Path, staged: Path, prefixes: tuple[str, ...]) -> None:
    """Write the newest value of every ``meta`` key of ``database`` starting with one of ``prefixes`` into the
    staged table (appended: the newest row of a key is its value), so what belongs to the board and not to the
    table (the page's secret key, who hosts it, its phones) stays as it was across a restore."""
    if not prefixes or not database.exists():
        return
    src = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = src.execute("SELECT key, value FROM meta WHERE id IN (SELECT MAX(id) FROM meta GROUP BY key) "
                           "ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        rows = []                                        # a table from before meta: nothing to carry
    finally:
        src.close()
    rows = [(k, v) for k, v in rows if k.startswith(prefixes)]
    if not rows:
        return
    dst = sqlite3.connect(str(staged), isolation_level=None)
    try:
        dst.execute("PRAGMA journal_mode=DELETE")       # no -wal beside the staged file: it is renamed whole
        dst.execute("PRAGMA synchronous=FULL")
        dst.execute("BEGIN IMMEDIATE")
        dst.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", rows)
        dst.execute("COMMIT")
    finally:
        dst.close()


def apply_staged(database: "str | os.PathLike[str]", kept: "Kept | None" = None, *,
                 carry: tuple[str, ...] = ()) -> dict | None:
    """Switch to a staged restore, if one waits: keep the current table as a backup, then one ``rename``.

    Called at the daemon's start, before the table is opened. Safe to run again after a power cut at any
    step: the staged file is removed only by the rename that puts it in place. Returns the restored backup's
    manifest (with ``"kept_before"``: the name of the backup of the table it replaced), or None.

    :param carry: prefixes of the ``meta`` keys that belong to the board rather than the table (the page's:
        ``("web.",)``): their values in the current table are written into the restored one, so the phones
        that hold the board (its host among them) keep it.
    """
    database = Path(database)
    staged = staged_path(database)
    meta = staged.with_name(staged.name + ".json")
    if not staged.exists():
        for leftover in (meta, staged.with_name(staged.name + ".part")):
            leftover.unlink(missing_ok=True)
        return None
    try:
        manifest = json.loads(meta.read_text())
    except (OSError, ValueError):
        manifest = {}
    kept_name = None
    if database.exists() and kept is not None:
        kept_name = kept.take(database, reason="before-restore").get("file")
    _carry(database, staged, carry)
    _checkpoint(database)
    os.replace(staged, database)
    _fsync_dir(database.parent)
    meta.unlink(missing_ok=True)
    done = {**manifest, "kept_before": kept_name,
            "restored_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    if kept is not None:                     # what the page says under More → Board
        kept.folder.mkdir(parents=True, exist_ok=True)
        (kept.folder / LAST_RESTORE).write_text(json.dumps(done, sort_keys=True))
    return done


class Kept:
    """The board's own last backups, in a folder beside the database; the oldest beyond :data:`KEEP` go.

    :param folder: where they are kept (``<state dir>/backups``).
    :param board: the board's name (for the file names and manifests).
    :param keep: how many are kept.
    """

    def __init__(self, folder: "str | os.PathLike[str]", *, board: str, keep: int = KEEP,
                 now: Callable[[], _dt.datetime] | None = None) -> None:
        self.folder = Path(folder)
        self.board = board
        self.keep = keep
        self.now = now or (lambda: _dt.datetime.now(_dt.timezone.utc))
        self._lock = threading.Lock()
        self._newest: _dt.datetime | None = None        # read from the folder once, then kept up to date
        self._read = False

    def list(self) -> list[dict]:
        """Return the kept backups, newest first: ``{"file", "bytes", "taken_at", "reason", "matches", ...}``."""
        out = []
        for path in self.folder.glob(f"*{SUFFIX}") if self.folder.is_dir() else ():
            try:
                with zipfile.ZipFile(path) as z:
                    manifest = _manifest(z)
            except (BackupError, zipfile.BadZipFile, OSError, KeyError):
                continue                                      # a file someone put there, or cut short
            out.append({"file": path.name, "bytes": path.stat().st_size,
                        **{k: manifest.get(k) for k in ("taken_at", "reason", "version", "schema", "board",
                                                        "matches", "nights", "events")}})
        return sorted(out, key=lambda b: (b["taken_at"] or "", b["file"]), reverse=True)

    def path(self, name: str) -> Path | None:
        """Return the path of the kept backup ``name`` (a bare file name of this folder), or None."""
        if not isinstance(name, str) or "/" in name or "\\" in name or not name.endswith(SUFFIX):
            return None
        path = self.folder / name
        return path if path.is_file() else None

    def take(self, database: "str | os.PathLike[str]", *, reason: str) -> dict:
        """Take a backup of ``database`` into the folder now; drop the oldest beyond ``keep``; return it."""
        with self._lock:
            when = self.now()
            name = file_name(self.board, when, reason)
            stamp = when.astimezone(_dt.timezone.utc).strftime("%H%M%S")
            name = name[: -len(SUFFIX)] + f"-{stamp}{SUFFIX}"          # several on one day keep their own files
            manifest = take(database, self.folder / name, board=self.board, reason=reason, now=lambda: when)
            for old in self.list()[self.keep:]:
                (self.folder / old["file"]).unlink(missing_ok=True)
            self._newest, self._read = when, True
            return {"file": name, **manifest}

    def newest_age_hours(self) -> float | None:
        """Return how many hours ago the newest kept backup was taken, or None when there is none.

        Asked after every stored event: the folder is read once, then the time is kept in memory.
        """
        if not self._read:
            newest = self.list()[:1]
            try:
                self._newest = _dt.datetime.fromisoformat(newest[0]["taken_at"]) if newest else None
            except (TypeError, ValueError):
                self._newest = None
            self._read = True
        if self._newest is None:
            return None
        return (self.now() - self._newest).total_seconds() / 3600


def due(event: dict, age_hours: float | None) -> str | None:
    """Return why a kept backup is due after a stored ``event`` (``"settle"``, ``"nightly"``), or None."""
    if event.get("type") == "settle":
        return "settle"
    if age_hours is None or age_hours >= NIGHTLY_HOURS:
        return "nightly"
    return None


def describe(manifest: dict) -> str:
    """Return one line saying what a backup holds, for the page and the console."""
    nights = manifest.get("nights")
    return (f"{manifest.get('board', '?')}, taken {manifest.get('taken_at', '?')} by version "
            f"{manifest.get('version', '?')}: {manifest.get('matches', 0)} matches"
            f"{f', {nights} nights' if nights is not None else ''}, {manifest.get('events', 0):,} events")


__all__ = ["BackupError", "Checked", "Kept", "FORMAT", "SUFFIX", "take", "check", "stage", "apply_staged",
           "staged_path", "file_name", "copy_database", "due", "describe"]
