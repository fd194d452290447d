"""Signed software updates without the internet: one file from the host's phone (or the boot partition),
checked by Debian's ``gpgv``, installed beside the running release, switched atomically, rolled back by itself.

The update file, ``landsend-<version>-arm64.update``, is an uncompressed tar of exactly two members:

* ``payload.tar``: ``manifest.json`` and ``wheels/*.whl`` (the project and every Python dependency, built for
  the board by ``scripts/build-update.sh`` in the image's own arm64 root);
* ``payload.tar.sig``: a detached OpenPGP signature of ``payload.tar``.

The signature is checked with ``gpgv`` (what apt itself uses; no signature code here) against the release key
baked into the image (``/usr/share/keyrings/landsend-release.gpg``, from ``keys/`` in the repository) and the
keys the owner lists in ``landsend.toml`` (``[update] keys``, written to ``/etc/landsend/update-keys.gpg`` at
every boot) *before* anything of the payload is read. Then the manifest::

    {"product": "landsend", "format": 1, "version": "0.1.1", "arch": "arm64", "python": "3.11",
     "made_at": "...", "wheels": [{"file": "landsend-0.1.1-py3-none-any.whl", "sha256": "..."}, ...]}

must name this board's architecture, a newer version than the one running (an older one only when the host
asks to go back), and exactly the wheels the payload holds, each with its SHA-256.

The board's layout (``systemd/install.sh`` makes it)::

    /opt/landsend/releases/<version>/     a venv with the project installed; landsend-release.json when whole
    /opt/landsend/current -> releases/<v> what the units run (replaced by rename, the folder synced)
    /var/lib/landsend/update/             the upload, the request to the root unit, status.json

The daemon (user ``landsend``, no write access to ``/opt``) receives the upload, checks it as above (a refusal
is a clear 4xx and changes nothing) and leaves it with a request file; ``landsend-update.path`` starts the root
unit ``landsend-update.service`` (``python -m firmware.update run``), which checks it again and then, step by
step with each step written to ``status.json`` first: takes a backup (:mod:`companion.backup`), installs a new
release folder from the bundle's wheels alone (``pip --no-index``), checks it (it imports, and it replays the
table's current match on a scratch copy of the database to the same state as the running release does),
switches ``current``, restarts the daemon and waits for it to be READY (:data:`READY_S`) and to stay up for
:data:`FIRST_S`; otherwise it switches back (and restores the backup if the new release migrated the table).
At every start ``landsend-update-boot.service`` (``python -m firmware.update boot``, before the daemon)
finishes what a power cut interrupted: before the switch the half-made release goes, after it (unconfirmed)
the board goes back to the release it ran; and an ``.update`` file dropped on the ``LANDSEND`` partition is
moved into the queue, to be installed once the board is up.
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

FORMAT = 1
ARCH = "arm64"
SUFFIX = ".update"
PAYLOAD = "payload.tar"
SIGNATURE = "payload.tar.sig"
MANIFEST = "manifest.json"
MARKER = "landsend-release.json"
"""In a release folder: written last, when the release is whole and checked."""
MAX_BUNDLE = 192 * 1024 * 1024
"""The largest update file the board takes (a release is some 10 MB)."""
READY_S = 300.0
"""How long the new daemon may take to be READY (a first start with cold caches on a Zero 2 W)."""
FIRST_S = 60.0
"""How long it must then stay up: a daemon that fails in its first minute is rolled back."""
KEEP_RELEASES = 2
"""The running release and the previous one (to go back to); older ones are removed."""

BUSY_STEPS = ("verify", "backup", "install", "check", "switch", "start")
"""The steps of an update in progress, as ``status.json`` records them (written before each step)."""

RELEASE_KEY = "usr/share/keyrings/landsend-release.gpg"
OWNER_KEYS = "etc/landsend/update-keys.gpg"


class UpdateError(ValueError):
    """An update file is refused: its message says why, for the host's phone. Nothing was changed."""


# ---------------------------------------------------------------- versions

def version_key(text: str) -> tuple[int, ...]:
    """Return ``"0.1.10"`` as ``(0, 1, 10)``; :class:`UpdateError` for anything but dot-separated numbers."""
    if not isinstance(text, str) or not re.fullmatch(r"\d{1,6}(\.\d{1,6}){0,3}", text):
        raise UpdateError(f"the update's version {str(text)[:40]!r} is not a version (numbers with dots: 0.1.1)")
    return tuple(int(p) for p in text.split("."))


def running_version() -> str:
    try:
        from importlib.metadata import version as _v
        return _v("landsend")
    except Exception:                                   # pragma: no cover - a bare source tree
        return "0+source"


# ---------------------------------------------------------------- the layout of a board

@dataclass
class Layout:
    """Where everything lives under ``root`` (``/`` on a board; a folder in the tests)."""

    root: Path = Path("/")

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.prefix = self.root / "opt/landsend"
        self.releases = self.prefix / "releases"
        self.current = self.prefix / "current"
        self.spool = self.root / "var/lib/landsend/update"
        self.status = self.spool / "status.json"
        self.request = self.spool / "request.json"
        self.bundle = self.spool / f"ready{SUFFIX}"
        self.db = self.root / "var/lib/landsend/landsend.db"
        self.backups = self.root / "var/lib/landsend/backups"
        self.boot = self.root / "boot/firmware"
        self.keyrings = [self.root / RELEASE_KEY, self.root / OWNER_KEYS]

    def running(self) -> str | None:
        """Return the version ``current`` points at, or None."""
        try:
            return Path(os.readlink(self.current)).name
        except OSError:
            return None

    def release(self, version: str) -> Path:
        return self.releases / version

    def whole(self, version: str) -> dict | None:
        """Return the marker of a whole, checked release, or None."""
        try:
            return json.loads((self.release(version) / MARKER).read_text())
        except (OSError, ValueError):
            return None

    def versions(self) -> list[str]:
        """Return the whole releases, newest first."""
        out = []
        for p in self.releases.iterdir() if self.releases.is_dir() else ():
            try:
                version_key(p.name)
            except UpdateError:
                continue
            if self.whole(p.name) is not None:
                out.append(p.name)
        return sorted(out, key=version_key, reverse=True)

    def previous(self) -> str | None:
        """Return the release to go back to: the newest whole one that is not running."""
        now = self.running()
        return next((v for v in self.versions() if v != now), None)

    def read_status(self) -> dict:
        try:
            data = json.loads(self.status.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def write_status(self, data: dict) -> None:
        _write_json(self.status, data, 0o644)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: Path, data: dict, mode: int) -> None:
    """Write ``data`` to ``path`` atomically and durably (aside, synced, renamed, the folder synced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.unlink(missing_ok=True)             # never through a link someone left there (the folder is the daemon's)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(data, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.chmod(part, mode)
    os.replace(part, path)
    _fsync_dir(path.parent)


def switch(layout: Layout, version: str) -> None:
    """Point ``current`` at ``releases/<version>`` in one rename (a symlink made aside), then sync the folder."""
    new = layout.prefix / "current.new"
    if new.is_symlink() or new.exists():
        new.unlink()
    os.symlink(f"releases/{version}", new)
    os.replace(new, layout.current)
    _fsync_dir(layout.prefix)


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the bundle: verify, then read

@dataclass
class Bundle:
    """A verified update file: its manifest, the key that signed it, its wheels unpacked in ``wheels``."""

    manifest: dict
    signer: str
    wheels: Path | None

    @property
    def version(self) -> str:
        return self.manifest["version"]


def dearmor(text: str) -> bytes:
    """Return the binary OpenPGP packets of an ASCII-armoured public key block (what ``gpg --dearmor`` does).

    :raises ValueError: not an armoured public key block.
    """
    lines = [x.strip() for x in text.strip().splitlines()]
    if not lines or lines[0] != "-----BEGIN PGP PUBLIC KEY BLOCK-----" or lines[-1] != "-----END PGP PUBLIC KEY BLOCK-----":
        raise ValueError("not an OpenPGP public key block (-----BEGIN PGP PUBLIC KEY BLOCK----- ... END ...)")
    body = lines[1:-1]
    while body and body[0] and ":" in body[0]:           # armour headers (Comment: ...) up to a blank line
        body.pop(0)
    data = "".join(x for x in body if x and not x.startswith("="))    # "=abcd" is the CRC-24 line
    try:
        raw = base64.b64decode(data, validate=True)
    except (ValueError, TypeError):
        raise ValueError("the key block is damaged (not base64)") from None
    if not raw or not raw[0] & 0x80 or (raw[0] & 0x40 and raw[0] & 0x3F != 6) or (not raw[0] & 0x40 and (raw[0] >> 2) & 0xF != 6):
        raise ValueError("the key block holds no public key")
    return raw


def verify_signature(payload: Path, signature: Path, keyrings: list[Path], *, gpgv: str = "gpgv") -> str:
    """Check ``signature`` of ``payload`` with ``gpgv`` against ``keyrings``; return the signing key's fingerprint.

    :raises UpdateError: no key to check with, or the signature is not good by any of them.
    """
    rings = [k for k in keyrings if k.is_file() and k.stat().st_size > 0]
    if not rings:
        raise UpdateError("this board has no release key to check updates with (reinstall its image)")
    with tempfile.TemporaryDirectory(prefix="landsend-gpgv-") as home:
        cmd = [gpgv, "--homedir", home, "--status-fd", "1"]
        for ring in rings:
            cmd += ["--keyring", str(ring.resolve())]
        try:
            r = subprocess.run([*cmd, str(signature), str(payload)], capture_output=True, text=True, timeout=120)
        except FileNotFoundError:
            raise UpdateError("gpgv is missing on this board: updates cannot be checked") from None
    valid = re.search(r"^\[GNUPG:\] VALIDSIG ([0-9A-F]{40,64})", r.stdout, re.M)
    if r.returncode != 0 or valid is None:
        if "NO_PUBKEY" in r.stdout:
            raise UpdateError("the update is signed by a key this board does not trust (not the release key, "
                              "nor one listed in landsend.toml [update] keys): not installed")
        if "BADSIG" in r.stdout:
            raise UpdateError("the update's signature does not match its contents (changed or damaged after "
                              "signing): not installed")
        raise UpdateError("the update's signature cannot be checked (damaged or not a signature): not installed")
    return valid.group(1)


def _copy_member(tar: tarfile.TarFile, info: tarfile.TarInfo, dest: Path) -> None:
    src = tar.extractfile(info)
    if src is None:
        raise UpdateError(f"the update file is damaged: {info.name} is not a file")
    with open(dest, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    if dest.stat().st_size != info.size:
        raise UpdateError("the update file is cut short (download or copy it again)")


def read_bundle(path: Path, work: Path, keyrings: list[Path], *, unpack: bool = True, gpgv: str = "gpgv") -> Bundle:
    """Check the update file ``path`` and return what it holds; its wheels unpacked into ``work/wheels``.

    The outer file is read for its two members only; the signature is checked before the payload is opened.
    Nothing outside ``work`` is touched.

    :raises UpdateError: not an update file, cut short, a bad signature, a manifest that does not match.
    """
    path, work = Path(path), Path(work)
    size = path.stat().st_size
    if size > MAX_BUNDLE:
        raise UpdateError(f"the file is too large for an update ({size:,} bytes; at most {MAX_BUNDLE:,})")
    with open(path, "rb") as f:
        head = f.read(512)
    if len(head) < 512 or head[257:262] != b"ustar":
        raise UpdateError("this file is not a Land's End update (not an update file at all)")
    if size % tarfile.RECORDSIZE:             # a tar file is whole records of 10 KiB (tarfile and GNU tar pad to it)
        raise UpdateError("the update file is cut short (download or copy it again)")
    payload, signature = work / PAYLOAD, work / SIGNATURE
    try:
        return _read(path, work, payload, signature, keyrings, unpack=unpack, gpgv=gpgv)
    finally:
        payload.unlink(missing_ok=True)             # the outer file's members: never left behind
        signature.unlink(missing_ok=True)


def _read(path: Path, work: Path, payload: Path, signature: Path, keyrings: list[Path], *, unpack: bool,
          gpgv: str) -> Bundle:
    """:func:`read_bundle` once the file looks like a whole tar: its two members, the signature, the payload."""
    try:
        with tarfile.open(path, "r:") as outer:
            members = outer.getmembers()
            names = sorted(m.name for m in members)
            if names != sorted([PAYLOAD, SIGNATURE]) or not all(m.isfile() for m in members):
                raise UpdateError("this file is not a Land's End update (an update is the "
                                  f"landsend-<version>-arm64{SUFFIX} file of a release)")
            for m in members:
                if m.size > MAX_BUNDLE:
                    raise UpdateError("the update file is damaged (a member larger than the file)")
                _copy_member(outer, m, payload if m.name == PAYLOAD else signature)
    except UpdateError:
        raise
    except (tarfile.ReadError, EOFError, OSError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, tarfile.TarError) and exc.errno is not None:
            raise
        raise UpdateError("the update file is cut short or damaged (download or copy it again)") from None
    signer = verify_signature(payload, signature, keyrings, gpgv=gpgv)
    # signed: from here on the payload is the release maker's
    try:
        with tarfile.open(payload, "r:") as inner:
            infos = inner.getmembers()
            by_name = {m.name: m for m in infos}
            if MANIFEST not in by_name or not by_name[MANIFEST].isfile():
                raise UpdateError("the update holds no manifest")
            manifest = _manifest(json.loads(inner.extractfile(by_name[MANIFEST]).read().decode("utf-8")))
            if manifest["arch"] != ARCH:
                raise UpdateError(f"this update is for {manifest['arch']} boards; this board is {ARCH}: not installed")
            listed = {f"wheels/{w['file']}": w["sha256"] for w in manifest["wheels"]}
            extra = sorted(set(by_name) - set(listed) - {MANIFEST, "wheels"})
            missing = sorted(set(listed) - set(by_name))
            if extra or missing:
                raise UpdateError(f"the update's manifest does not match its wheels (extra: {extra[:3]}, "
                                  f"missing: {missing[:3]})")
            wheels = work / "wheels" if unpack else None
            if wheels is not None:
                wheels.mkdir()
            for name, digest in listed.items():
                info = by_name[name]
                if not info.isfile():
                    raise UpdateError(f"the update is damaged: {name} is not a file")
                h = hashlib.sha256()
                src = inner.extractfile(info)
                out = open(wheels / Path(name).name, "wb") if wheels is not None else None
                try:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        h.update(block)
                        if out is not None:
                            out.write(block)
                finally:
                    if out is not None:
                        out.close()
                if h.hexdigest() != digest:
                    raise UpdateError(f"the update is damaged: {Path(name).name} does not match its checksum")
    except (tarfile.TarError, EOFError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, UpdateError):
            raise
        raise UpdateError(f"the update's payload is damaged ({str(exc)[:80]})") from None
    return Bundle(manifest, signer, wheels)


def _manifest(data: Any) -> dict:
    if not isinstance(data, dict) or data.get("product") != "landsend":
        raise UpdateError("this is not a Land's End update (its manifest names another product)")
    for key, kind in (("format", int), ("version", str), ("arch", str), ("wheels", list)):
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise UpdateError(f"the update's manifest is damaged: {key} is missing or not a {kind.__name__}")
    if data["format"] > FORMAT:
        raise UpdateError(f"this update needs a newer board software to install it (update format {data['format']}, "
                          f"this board reads {FORMAT})")
    version_key(data["version"])
    for w in data["wheels"]:
        if not (isinstance(w, dict) and isinstance(w.get("file"), str) and isinstance(w.get("sha256"), str)
                and re.fullmatch(r"[A-Za-z0-9_.+-]+\.whl", w["file"]) and re.fullmatch(r"[0-9a-f]{64}", w["sha256"])):
            raise UpdateError("the update's manifest is damaged: a wheel entry is not {file, sha256}")
    project = [w["file"] for w in data["wheels"] if w["file"].startswith(f"landsend-{data['version']}-")]
    if len(project) != 1:
        raise UpdateError(f"the update holds no landsend {data['version']} wheel")
    return data


def check_version(manifest: dict, running: str | None, *, allow_older: bool = False) -> None:
    """Refuse the same version as the one running, and an older one unless the host asks to go back."""
    if running is None:
        return
    try:
        now = version_key(running)
    except UpdateError:
        return                                   # a source tree: any version goes
    new = version_key(manifest["version"])
    if new == now:
        raise UpdateError(f"the board already runs {running}: nothing to install")
    if new < now and not allow_older:
        raise UpdateError(f"this update ({manifest['version']}) is older than the version the board runs "
                          f"({running}): not installed (tick \"go back to an older version\" to install it anyway)")


# ---------------------------------------------------------------- making a bundle (scripts/build-update.sh)

def pack(wheels: list[Path], out: Path, *, version: str, arch: str = ARCH, python: str = "3.11",
         sign: Callable[[Path, Path], None]) -> dict:
    """Write the update file ``out`` from ``wheels``; ``sign(payload, signature)`` makes the detached signature.

    Returns the manifest.
    """
    version_key(version)
    manifest = {"product": "landsend", "format": FORMAT, "version": version, "arch": arch, "python": python,
                "made_at": now_iso(),
                "wheels": [{"file": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest()}
                           for w in sorted(wheels, key=lambda p: p.name)]}
    _manifest(json.loads(json.dumps(manifest)))
    with tempfile.TemporaryDirectory(prefix="landsend-pack-") as tmp:
        tmp = Path(tmp)
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        payload = tmp / PAYLOAD
        with tarfile.open(payload, "w", format=tarfile.PAX_FORMAT) as t:
            t.add(tmp / MANIFEST, MANIFEST)
            for w in sorted(wheels, key=lambda p: p.name):
                t.add(w, f"wheels/{w.name}")
        sign(payload, tmp / SIGNATURE)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_name(out.name + ".part")
        with tarfile.open(part, "w", format=tarfile.PAX_FORMAT) as t:
            t.add(payload, PAYLOAD)
            t.add(tmp / SIGNATURE, SIGNATURE)
        os.replace(part, out)
    return manifest


def gpg_signer(homedir: str | None, key: str | None) -> Callable[[Path, Path], None]:
    """Return a signer that runs ``gpg --detach-sign`` (the maker's machine; gpg is never on the board)."""
    def sign(payload: Path, signature: Path) -> None:
        cmd = ["gpg", "--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", ""]
        if homedir:
            cmd += ["--homedir", homedir]
        if key:
            cmd += ["--local-user", key]
        r = subprocess.run([*cmd, "--detach-sign", "--output", str(signature), str(payload)],
                           capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"gpg could not sign the update: {r.stderr.strip()}")
    return sign


# ---------------------------------------------------------------- the table's state, for the check of a release

VOLATILE = ("version", "now", "clock", "boot")


def table_state(db: Path) -> dict:
    """Return the current match's state in the table database ``db`` (opened, replayed, closed): what a release
    must get to from the same events. ``db`` is a scratch copy: opening it may migrate it."""
    from companion.store import SQLiteStore
    from companion.table import Table
    store = SQLiteStore(db)
    before = store.schema_before
    table = Table(store)
    try:
        snap = table.snapshot()
    finally:
        table.close()
    for key in VOLATILE:
        snap.pop(key, None)
    return {"schema_before": before, "state": snap}


def selfcheck(db: Path | None) -> dict:
    """What the new release says of itself (run with its own Python): its version, that it imports, and the
    state of the current match in ``db`` (a scratch copy)."""
    import companion.table  # noqa: F401
    import firmware.daemon  # noqa: F401
    import web  # noqa: F401
    import web.server  # noqa: F401
    from companion.store import SCHEMA_VERSION
    out = {"version": running_version(), "schema": SCHEMA_VERSION}
    if db is not None:
        out.update(table_state(db))
    return out


# ---------------------------------------------------------------- the system the root unit drives

class System:
    """The real board: venvs, pip, systemctl. The tests give :func:`install` a stand-in."""

    unit = "landsend.service"

    def __init__(self, layout: Layout, *, ready_s: float = READY_S, first_s: float = FIRST_S) -> None:
        self.layout, self.ready_s, self.first_s = layout, ready_s, first_s

    def make_release(self, folder: Path, wheels: Path, version: str) -> None:
        r = subprocess.run(["python3", "-m", "venv", "--system-site-packages", str(folder)],
                           capture_output=True, text=True)
        if r.returncode:
            raise UpdateError(f"could not make the release folder: {r.stderr.strip()[-300:]}")
        # every wheel of the bundle (the project, its dependencies, lgpio for a plain Debian's gpiozero), nothing else
        r = subprocess.run([str(folder / "bin/python"), "-m", "pip", "install", "-q", "--no-index",
                            "--find-links", str(wheels), "--no-cache-dir",
                            *sorted(str(p) for p in wheels.glob("*.whl"))], capture_output=True, text=True)
        if r.returncode:
            raise UpdateError(f"the update's wheels do not install: {(r.stderr or r.stdout).strip()[-400:]}")

    def selfcheck(self, folder: Path, scratch: Path | None) -> dict:
        args = [str(folder / "bin/python"), "-P", "-m", "firmware.update", "selfcheck"]
        if scratch is not None:
            args += ["--db", str(scratch)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd="/")
        if r.returncode:
            raise UpdateError(f"the new release does not start: {(r.stderr or r.stdout).strip()[-400:]}")
        return json.loads(r.stdout.strip().splitlines()[-1])

    def _show(self) -> dict:
        out = {}
        for key in ("ActiveState", "SubState", "NRestarts", "MainPID"):
            r = subprocess.run(["systemctl", "show", self.unit, "-P", key], capture_output=True, text=True)
            out[key] = r.stdout.strip()
        return out

    def stop(self) -> None:
        subprocess.run(["systemctl", "stop", self.unit], capture_output=True)

    def start(self) -> tuple[bool, str, float]:
        """Start the daemon anew; return (healthy, why not, seconds to READY)."""
        subprocess.run(["systemctl", "reset-failed", self.unit], capture_output=True)
        t0 = time.monotonic()
        subprocess.run(["systemctl", "restart", "--no-block", self.unit], capture_output=True)
        time.sleep(1.0)
        restarts0 = None
        while True:
            s = self._show()
            if restarts0 is None:
                restarts0 = int(s["NRestarts"] or 0)
            if s["ActiveState"] == "active" and s["SubState"] == "running":
                break
            if s["ActiveState"] == "failed" or int(s["NRestarts"] or 0) > restarts0:
                return False, f"the new daemon exited at start ({s['ActiveState']}/{s['SubState']})", 0.0
            if time.monotonic() - t0 > self.ready_s:
                return False, f"the new daemon was not READY within {self.ready_s:.0f} s", 0.0
            time.sleep(1.0)
        ready = time.monotonic() - t0
        pid = s["MainPID"]
        end = time.monotonic() + self.first_s
        while time.monotonic() < end:
            time.sleep(2.0)
            s = self._show()
            if s["ActiveState"] != "active" or s["MainPID"] != pid:
                return False, f"the new daemon failed in its first {self.first_s:.0f} s", ready
        return True, "", ready

    def journal(self) -> str:
        # the daemon's own last lines (what it said as it failed), not systemd's about the unit
        r = subprocess.run(["journalctl", f"_SYSTEMD_UNIT={self.unit}", "-n", "3", "-o", "cat", "--no-pager"],
                           capture_output=True, text=True)
        return " | ".join(x.strip() for x in r.stdout.splitlines() if x.strip())[-300:]


def _board_name(root: Path) -> str:
    try:
        text = (root / "etc/landsend/wifi.toml").read_text()
        m = re.search(r'^ssid = "(.*)"$', text, re.M)
        if m:
            return m.group(1)
    except OSError:
        pass
    import socket
    return socket.gethostname() or "board"


# ---------------------------------------------------------------- the daemon's side: upload, check, queue

class Queue:
    """The daemon's side of updates (``app.extensions["landsend.updates"]``, :mod:`web.update`): the upload, its
    checks, and the request to the root unit. ``layout``: where the board's releases and spool folder are."""

    max_upload = MAX_BUNDLE

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.lock = threading.Lock()

    @property
    def upload_path(self) -> Path:
        return self.layout.spool / "upload.part"

    def busy(self) -> bool:
        return self.layout.request.exists() or self.layout.read_status().get("step") in BUSY_STEPS

    def info(self) -> dict:
        lay = self.layout
        return {"version": running_version(), "current": lay.running(), "releases": lay.versions(),
                "previous": lay.previous(), "last": lay.read_status() or None, "busy": self.busy(),
                "max_upload": MAX_BUNDLE}

    def submit(self, size: int, allow_older: bool) -> dict:
        """Check the uploaded file whole; queue it for the root unit. Nothing changes on a refusal."""
        with self.lock:
            path = self.upload_path
            if self.busy():
                raise Busy("an update is already under way: wait for its outcome")
            if not path.exists():
                raise UpdateError("no update file has been uploaded")
            got = path.stat().st_size
            if got != size:
                raise UpdateError(f"the upload is incomplete: {got:,} of {size:,} bytes arrived; send it again")
            try:
                with tempfile.TemporaryDirectory(dir=self.layout.spool, prefix=".check-") as work:
                    bundle = read_bundle(path, Path(work), self.layout.keyrings, unpack=False)
                check_version(bundle.manifest, running_version(), allow_older=allow_older)
            except UpdateError:
                path.unlink(missing_ok=True)                # refused: nothing is kept, nothing changed
                raise
            with open(path, "rb") as f:               # whole on the card before the root unit is asked for it
                os.fsync(f.fileno())
            os.replace(path, self.layout.bundle)
            _write_json(self.layout.request, {"action": "install", "allow_older": allow_older,
                                                 "version": bundle.version}, 0o644)
            return bundle.manifest

    def go_back(self) -> str:
        with self.lock:
            if self.busy():
                raise Busy("an update is already under way: wait for its outcome")
            prev = self.layout.previous()
            if prev is None:
                raise Busy("there is no previous release on this board to go back to")
            from companion.store import SCHEMA_VERSION
            schema = (self.layout.whole(prev) or {}).get("schema")
            if isinstance(schema, int) and schema < SCHEMA_VERSION:
                raise Busy(f"{prev} reads table schema {schema}, and the table is at schema {SCHEMA_VERSION} since "
                           f"the update: restore the backup taken before the update (Keep the season) first")
            _write_json(self.layout.request, {"action": "previous", "version": prev}, 0o644)
            return prev


class Busy(LookupError):
    """An update is under way, or there is nothing to go back to (409 on the page)."""


def make_queue(env: dict | None = None) -> Queue | None:
    """Return the daemon's update queue on an installed board (``/opt/landsend/current`` exists, or
    ``$LANDSEND_ROOT`` names a root laid out so), else None (a checkout: updated with git pull)."""
    env = os.environ if env is None else env
    layout = Layout(Path(env.get("LANDSEND_ROOT") or "/"))
    return Queue(layout) if layout.current.is_symlink() else None


# ---------------------------------------------------------------- the root unit's steps

def own(layout: Layout, *paths: Path) -> None:
    """Give ``paths`` to the daemon's user (the owner of the state folder): the root unit makes files the daemon
    reads, replaces and removes there (its backups, a staged table, the spool folder)."""
    try:
        import pwd
        user = pwd.getpwnam("landsend")
        uid, gid = user.pw_uid, user.pw_gid
    except (KeyError, ImportError):
        try:
            st = layout.db.parent.stat()
        except OSError:
            return
        uid, gid = st.st_uid, st.st_gid
    for path in paths:
        try:
            if os.geteuid() == 0 and path.exists():
                os.chown(path, uid, gid)
        except OSError:
            pass


def _take_backup(layout: Layout) -> str | None:
    if not layout.db.exists():
        return None
    from companion.backup import Kept
    layout.backups.mkdir(parents=True, exist_ok=True)
    own(layout, layout.backups)
    name = Kept(layout.backups, board=_board_name(layout.root)).take(layout.db, reason="before-update")["file"]
    own(layout, layout.backups / name)
    return name


def _restore_backup(layout: Layout, name: str) -> None:
    """Stage the kept backup ``name``: the (old) daemon switches to it at its next start."""
    from companion import backup as bk
    with tempfile.TemporaryDirectory(dir=layout.db.parent, prefix=".rollback-") as work:
        checked = bk.check(layout.backups / name, work)
        staged = bk.stage(checked, layout.db)
    own(layout, staged, staged.with_name(staged.name + ".json"))


def _scratch(layout: Layout, work: Path, name: str) -> Path | None:
    if not layout.db.exists():
        return None
    from companion.backup import copy_database
    target = work / name
    copy_database(layout.db, target)
    return target


def prune(layout: Layout, keep: tuple[str, ...]) -> list[str]:
    """Remove release folders that are not whole (left by a power cut) or beyond the running and previous."""
    gone = []
    whole = layout.versions()
    wanted = set(keep) | set(whole[:KEEP_RELEASES])
    running = layout.running()
    for p in layout.releases.iterdir() if layout.releases.is_dir() else ():
        if p.name in wanted or p.name == running:
            continue
        shutil.rmtree(p, ignore_errors=True)
        gone.append(p.name)
    return gone


def _finisher(layout: Layout, status: dict, t0: float, log: Callable[[str], None]) -> Callable[..., dict]:
    """Return ``finish(outcome, reason, **figures)``: the update's last step, written to ``status.json``."""
    def finish(outcome: str, reason: str = "", **more: Any) -> dict:
        status.update(step="done", outcome=outcome, reason=reason, finished_at=now_iso(),
                      seconds=round(time.monotonic() - t0, 1), **more)
        layout.write_status(status)
        log(f"update: {outcome}{': ' + reason if reason else ''}")
        return status
    return finish


def install(layout: Layout, bundle_path: Path, system: Any, *, allow_older: bool = False,
            log: Callable[[str], None] = print) -> dict:
    """Install the update file ``bundle_path``: the whole root-side update. Returns the outcome (also in
    ``status.json``): ``{"outcome": "installed" | "refused" | "rolled back", "reason", "from", "to", figures}``."""
    t0 = time.monotonic()
    running = layout.running()
    status: dict = {"from": running, "to": None, "started_at": now_iso()}

    def step(name: str, **more: Any) -> None:
        status.update(step=name, **more)
        layout.write_status(status)
        log(f"update: {name}")

    finish = _finisher(layout, status, t0, log)
    step("verify")
    with tempfile.TemporaryDirectory(dir=layout.spool, prefix=".unpack-") as work:
        work = Path(work)
        try:
            bundle = read_bundle(bundle_path, work, layout.keyrings)
            check_version(bundle.manifest, running, allow_older=allow_older)
        except UpdateError as exc:
            return finish("refused", str(exc))
        finally:
            bundle_path.unlink(missing_ok=True)
        to = bundle.version
        status["to"] = to
        step("backup")
        backup = _take_backup(layout)
        status["backup"] = backup
        step("install")
        folder = layout.release(to)
        shutil.rmtree(folder, ignore_errors=True)
        t_install = time.monotonic()
        try:
            system.make_release(folder, bundle.wheels, to)
            step("check")
            # one moment of the table for both releases: the board keeps playing while the new one is checked
            old = _scratch(layout, work, "old.db")
            new = None
            if old is not None:
                new = work / "new.db"
                shutil.copyfile(old, new)
            said = system.selfcheck(folder, new)
            if said.get("version") != to:
                raise UpdateError(f"the new release says it is {said.get('version')}, not {to}")
            if old is not None:
                mine = table_state(old)
                if said.get("state") != mine["state"]:
                    raise UpdateError("the new release does not replay the table's current match to the same state")
            migrated = old is not None and said.get("schema_before") is not None and \
                said["schema_before"] != said.get("schema")
        except (UpdateError, OSError, ValueError, subprocess.SubprocessError) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return finish("refused", f"{exc}" if isinstance(exc, UpdateError) else f"the new release failed its check: {exc}")
        # every file of the release on the card before its marker says it is whole and current points at it:
        # pip does not sync, and after a power cut ext4 had left a third of the files empty (the qemu check)
        os.sync()
        _write_json(folder / MARKER, {"version": to, "schema": said.get("schema"), "installed_at": now_iso(),
                                      "signer": bundle.signer}, 0o644)
        install_s = time.monotonic() - t_install
    step("switch", migrated=migrated, install_s=round(install_s, 1))
    switch(layout, to)
    step("start")
    ok, why, ready_s = system.start()
    if ok:
        prune(layout, (to, running) if running else (to,))
        return finish("installed", ready_s=round(ready_s, 1))
    detail = system.journal() if hasattr(system, "journal") else ""
    t_back = time.monotonic()
    back = rollback(layout, status, system)
    return finish("rolled back", f"{why}{' (' + detail + ')' if detail else ''}; {back}",
                  rollback_s=round(time.monotonic() - t_back, 1))


def rollback(layout: Layout, status: dict, system: Any | None) -> str:
    """Go back to ``status["from"]`` (restoring ``status["backup"]`` when the new release migrated the table),
    start it when ``system`` is given; return what was done."""
    old, to = status.get("from"), status.get("to")
    if system is not None:
        system.stop()
    said = []
    if old and layout.whole(old) is not None:
        if layout.running() != old:
            switch(layout, old)
        said.append(f"the board runs {old} again")
    if status.get("migrated") and status.get("backup"):
        _restore_backup(layout, status["backup"])
        said.append(f"the table from before the update is restored ({status['backup']})")
    if to and to != old and layout.running() != to:
        shutil.rmtree(layout.release(to), ignore_errors=True)
    if system is not None:
        ok, why, _ = system.start()
        if not ok:
            said.append(f"but it does not start either: {why}")
    return ", ".join(said) or "nothing to go back to"


def go_back(layout: Layout, system: Any, log: Callable[[str], None] = print) -> dict:
    """Switch to the previous release (the host asked): started and checked like an update, undone on failure."""
    t0 = time.monotonic()
    running, prev = layout.running(), layout.previous()
    status = {"from": running, "to": prev, "started_at": now_iso(), "going_back": True}
    finish = _finisher(layout, status, t0, log)
    if prev is None:
        return finish("refused", "there is no previous release on this board")
    status.update(step="switch")
    layout.write_status(status)
    switch(layout, prev)
    status.update(step="start")
    layout.write_status(status)
    ok, why, ready_s = system.start()
    if ok:
        return finish("went back", ready_s=round(ready_s, 1))
    back = rollback(layout, {"from": running, "to": None}, system)
    return finish("rolled back", f"{prev} did not start ({why}); {back}")


def recover(layout: Layout, log: Callable[[str], None] = print) -> str | None:
    """At boot, before the daemon: finish what a power cut interrupted; return what was done (None: nothing)."""
    status = layout.read_status()
    done = None
    new = layout.prefix / "current.new"
    if new.is_symlink():
        new.unlink()
    step = status.get("step")
    if step in BUSY_STEPS:
        if step in ("switch", "start"):
            back = rollback(layout, status, None)
            reason = f"a power cut before {status.get('to')} was confirmed: {back}"
            outcome = "rolled back"
        else:
            if status.get("to") and layout.running() != status["to"]:
                shutil.rmtree(layout.release(status["to"]), ignore_errors=True)
            reason = f"a power cut during the update ({step}): nothing changed, the board runs {layout.running()}"
            outcome = "interrupted"
        layout.bundle.unlink(missing_ok=True)          # the file it was installing from: sent again if wanted
        status.update(step="done", outcome=outcome, reason=reason, finished_at=now_iso())
        layout.write_status(status)
        done = f"{outcome}: {reason}"
    running = layout.running()
    if running is None or layout.whole(running) is None:
        good = layout.versions()
        if good:
            switch(layout, good[0])
            done = (done + "; " if done else "") + f"current pointed at no whole release ({running}): now {good[0]}"
    gone = prune(layout, ())
    if gone:
        log(f"update: removed unfinished or old releases {', '.join(gone)}")
    if done:
        log(f"update: {done}")
    return done


def take_dropped(layout: Layout, log: Callable[[str], None] = print) -> str | None:
    """Move an ``.update`` file dropped on the boot partition into the queue (installed once the board is up)."""
    files = sorted(layout.boot.glob(f"*{SUFFIX}")) if layout.boot.is_dir() else []
    if not files:
        return None
    src = files[-1]
    layout.spool.mkdir(parents=True, exist_ok=True)
    part = layout.bundle.with_name(layout.bundle.name + ".part")
    shutil.copyfile(src, part)
    with open(part, "rb") as f:
        os.fsync(f.fileno())
    os.replace(part, layout.bundle)
    _write_json(layout.request, {"action": "install", "allow_older": False, "from": f"boot partition: {src.name}"},
                0o644)
    remounted = subprocess.run(["mount", "-o", "remount,rw", str(layout.boot)], capture_output=True).returncode == 0 \
        if layout.root == Path("/") else False
    try:
        for f in files:
            f.unlink()
        os.sync()
    except OSError as exc:
        log(f"update: could not remove {src.name} from the boot partition: {exc}")
    finally:
        if remounted:
            subprocess.run(["mount", "-o", "remount,ro", str(layout.boot)], capture_output=True)
    return f"{src.name} from the boot partition queued for installation"


def run_request(layout: Layout, system: Any, log: Callable[[str], None] = print) -> dict | None:
    """Do what the daemon asked in ``request.json`` (the path unit started us); None when nothing waits."""
    try:
        request = json.loads(layout.request.read_text())
    except (OSError, ValueError):
        request = None
    if isinstance(request, dict):               # under way from here on (the page never sees a gap)
        layout.write_status({**layout.read_status(), "step": "verify", "started_at": now_iso()})
    layout.request.unlink(missing_ok=True)
    if not isinstance(request, dict):
        return None
    if request.get("action") == "previous":
        return go_back(layout, system, log)
    if not layout.bundle.exists():
        return None
    return install(layout, layout.bundle, system, allow_older=bool(request.get("allow_older")), log=log)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m firmware.update", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("run", help="the root unit: do what the daemon asked (install, go back)")
    sub.add_parser("boot", help="at boot: finish an interrupted update, queue a dropped update file")
    c = sub.add_parser("selfcheck", help="a new release checks itself (imports; the table's state)")
    c.add_argument("--db", type=Path)
    v = sub.add_parser("verify", help="check an update file (signature, manifest) without installing it")
    v.add_argument("file", type=Path)
    p = sub.add_parser("pack", help="make an update file from wheels (scripts/build-update.sh)")
    p.add_argument("--wheels", type=Path, required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--arch", default=ARCH)
    p.add_argument("--python", default="3.11")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--gpg-home")
    p.add_argument("--key")
    args = ap.parse_args(argv)
    layout = Layout(Path(os.environ.get("LANDSEND_ROOT", "/")))
    if args.cmd == "selfcheck":
        print(json.dumps(selfcheck(args.db), sort_keys=True))
        return 0
    if args.cmd == "pack":
        m = pack(sorted(args.wheels.glob("*.whl")), args.out, version=args.version, arch=args.arch,
                 python=args.python, sign=gpg_signer(args.gpg_home, args.key))
        print(f"{args.out}: landsend {m['version']} for {m['arch']}, {len(m['wheels'])} wheels, "
              f"{args.out.stat().st_size:,} bytes")
        return 0
    if args.cmd == "verify":
        with tempfile.TemporaryDirectory() as work:
            try:
                b = read_bundle(args.file, Path(work), layout.keyrings, unpack=False)
            except UpdateError as exc:
                print(f"refused: {exc}", file=sys.stderr)
                return 1
        print(f"{args.file}: landsend {b.version} for {b.manifest['arch']}, signed by {b.signer}")
        return 0
    layout.spool.mkdir(parents=True, exist_ok=True)
    own(layout, layout.spool)
    if args.cmd == "boot":
        recover(layout)
        said = take_dropped(layout)
        if said:
            print(f"update: {said}")
        return 0
    run_request(layout, System(layout, ready_s=float(os.environ.get("LANDSEND_READY_S", READY_S)),
                               first_s=float(os.environ.get("LANDSEND_FIRST_S", FIRST_S))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
