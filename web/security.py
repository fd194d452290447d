"""Who may change the table: the host, joined phones, and everyone else (read-only).

The model, in one paragraph: the table starts *unclaimed*. The first phone
that asks (``POST /api/claim``) becomes the host and the table gets a short
numeric join code. Other phones join with that code (``POST /api/join``,
usually by scanning the QR code the host's page shows). Joined phones carry a
signed session cookie stamped with the current *epoch*; every change needs
that stamp, a CSRF token bound to the session, and a same-origin ``Origin``
(or ``Referer``) header. Holding the board's menu button calls
:meth:`Access.release`, which bumps the epoch: every phone is read-only again
and the next claim makes a new host with a new code. Physical presence at the
board is the root of trust.

The access state (epoch, host device, join code) is kept in
``access.json`` in the state directory, so a restart keeps the joined phones.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections import deque
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from companion.errors import StoreError

log = logging.getLogger(__name__)

JOIN_CODE_DIGITS = 6


def load_secret_key(state_dir: "str | os.PathLike[str]") -> bytes:
    """Return the app's secret key, creating a random one in ``state_dir/secret_key`` if missing.

    The file is written with mode 0600; a key shorter than 32 bytes is replaced.
    """
    path = Path(state_dir) / "secret_key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
        log.warning("secret key in %s is too short; making a new one", path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    os.replace(tmp, path)
    return key


def local_addresses() -> list[str]:
    """Return this machine's IPv4 addresses now (every interface, loopback included).

    On Linux each interface is asked with the ``SIOCGIFADDR`` ioctl (tens of
    microseconds, no DNS), so an access-point Pi with no default route still
    lists its Wi-Fi address; elsewhere the host name's addresses are looked
    up. The default-route address is added too. No packet is sent.
    """
    found = {"127.0.0.1"}
    try:
        import fcntl
        import struct
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _, name in socket.if_nameindex():
                try:
                    req = struct.pack("256s", name.encode()[:15])
                    found.add(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, req)[20:24]))  # SIOCGIFADDR
                except OSError:
                    pass                                  # an interface without an IPv4 address
    except ImportError:                                   # not Linux: ask the resolver (may be slow)
        try:
            for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
                found.add(info[4][0])
        except OSError:
            pass
    except (OSError, AttributeError):
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))              # picks a route; sends nothing
            found.add(s.getsockname()[0])
    except OSError:
        pass
    return sorted(found)


def default_host_names() -> list[str]:
    """Return the names this machine answers to: ``landsend.local``, ``localhost``, its host name."""
    names = {"landsend.local", "landsend", "localhost"}
    host = socket.gethostname()
    if host:
        names.update({host, host.split(".")[0] + ".local"})
    return sorted(names)


class TrustedHosts:
    """The ``TRUSTED_HOSTS`` allow-list: fixed names plus this machine's addresses *at each request*.

    Iterating yields ``names`` then ``addresses()``, so a Pi whose DHCP lease
    changes keeps answering on its new address without a restart, while a
    foreign name (a DNS-rebinding attack) is refused. IPv6 literals cannot be
    matched by Werkzeug's check: use the name or the IPv4 address.
    """

    def __init__(self, names: "list[str] | None" = None, *,
                 addresses: Callable[[], "list[str]"] = local_addresses) -> None:
        self.names = list(default_host_names() if names is None else names)
        self.addresses = addresses

    def __iter__(self):
        yield from self.names
        yield from self.addresses()

    def __bool__(self) -> bool:
        return True        # an empty allow-list would mean "allow all" to Werkzeug

    def __repr__(self) -> str:
        return f"TrustedHosts({self.names!r} + local addresses)"


class JoinLimiter:
    """Counts failed join attempts within a sliding ``window`` of seconds (clock injected).

    An address may fail ``per_client`` times per window. Past ``overall``
    failures from everyone, an address that has failed at least once may not
    try again until the window moves on, but an address that has not failed
    is never held back: strangers guessing from many addresses cannot lock
    the right code out for the players (each new address gets one guess).
    :meth:`clear` (the board's menu button) forgets every failure.
    """

    def __init__(self, *, per_client: int = 5, overall: int = 30, window: float = 600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_client = per_client
        self.overall = overall
        self.window = window
        self.clock = clock
        self._fails: deque[tuple[float, str]] = deque()
        self._lock = threading.Lock()

    def _prune(self, now: float) -> None:
        while self._fails and self._fails[0][0] <= now - self.window:
            self._fails.popleft()

    def retry_after(self, client: str) -> int:
        """Return 0 when ``client`` may try a code now, else the seconds until it may."""
        with self._lock:
            now = self.clock()
            self._prune(now)
            mine = [t for t, c in self._fails if c == client]
            if len(mine) >= self.per_client:
                return max(1, int(mine[-self.per_client] + self.window - now + 0.999))
            if mine and len(self._fails) >= self.overall:
                return max(1, int(self._fails[-self.overall][0] + self.window - now + 0.999))
            return 0

    def clear(self) -> int:
        """Forget every failed attempt (the board's menu button); return how many there were."""
        with self._lock:
            n = len(self._fails)
            self._fails.clear()
        if n:
            log.info("join lock cleared at the board (%d failed codes forgotten)", n)
        return n

    def failed(self, client: str) -> None:
        """Record one failed attempt by ``client``."""
        with self._lock:
            now = self.clock()
            self._prune(now)
            self._fails.append((now, client))


class Access:
    """The table's access state: epoch, host device, join code; persisted as JSON.

    Thread-safe. ``path`` None keeps it in memory only.
    """

    def __init__(self, path: "Path | None" = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.epoch = 1
        self.host: str | None = None
        self.join_code: str | None = None
        self.devices: list[str] = []          # the phones that hold the table this epoch: the host, then joiners
        self._listeners: list[Callable[[int], None]] = []
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text())
                self.epoch = int(data["epoch"])
                self.host = data.get("host")
                self.join_code = data.get("join_code")
                self.devices = [d for d in data.get("devices") or [] if isinstance(d, str)]
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("ignoring unreadable access state %s: %s", path, exc)

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"epoch": self.epoch, "host": self.host, "join_code": self.join_code,
                                   "devices": self.devices}))
        os.replace(tmp, self.path)

    @property
    def phones(self) -> int:
        """Return how many phones hold the table (the host and every phone that joined since the claim)."""
        return len(self.devices)

    def joined(self, device: str) -> None:
        """Count ``device`` as a phone holding the table; the first joiner tells every page (the host's
        page shows the join code until then)."""
        with self._lock:
            if device in self.devices:
                return
            self.devices.append(device)
            try:
                self._save()
            except OSError as exc:   # only the count of phones: kept in memory, the join stands
                log.error("cannot save the joined phones in %s: %s", self.path, exc.strerror or exc)
        self._notify()

    @property
    def claimed(self) -> bool:
        """Whether a host holds the table."""
        return self.host is not None

    def on_change(self, fn: Callable[[int], None]) -> None:
        """Call ``fn(epoch)`` after every claim and release."""
        self._listeners.append(fn)

    def _notify(self) -> None:
        for fn in list(self._listeners):
            try:
                fn(self.epoch)
            except Exception:  # a listener must never break a release
                log.exception("access listener failed")

    def claim(self, device: str) -> bool:
        """Return True and make ``device`` the host with a fresh join code if nobody holds the table.

        :raises StoreError: the access state cannot be saved (a full disk); nothing changed.
        """
        with self._lock:
            if self.host is not None:
                return False
            before = (self.host, self.join_code, self.devices)
            self.host = device
            self.devices = [device]
            self.join_code = "".join(secrets.choice("0123456789") for _ in range(JOIN_CODE_DIGITS))
            try:
                self._save()
            except OSError as exc:
                # a claim that is not on disk would leave a host nobody can see after a restart, and a
                # ghost host now that the phone got an error: the table stays unclaimed
                self.host, self.join_code, self.devices = before
                raise StoreError(f"cannot save the table's host in {self.path}: {exc.strerror or exc}; "
                                 "the table is still unclaimed") from exc
        log.info("table claimed by a new host (epoch %d)", self.epoch)
        self._notify()
        return True

    def check_code(self, code: str) -> bool:
        """Return whether ``code`` is the current join code (constant-time)."""
        current = self.join_code
        if not current or not isinstance(code, str):
            return False
        return hmac.compare_digest(code.strip().encode(), current.encode())

    def release(self) -> int:
        """Return the new epoch after dropping the host and every joined phone.

        Called by the daemon when the board's menu button is held (the
        ``on_release`` hook); the next phone to claim becomes the host.
        """
        with self._lock:
            self.epoch += 1
            self.host = None
            self.join_code = None
            self.devices = []
            try:
                self._save()
            except OSError as exc:   # releasing is the safe direction: it holds in memory all the same
                log.error("cannot save the released access state in %s: %s", self.path, exc.strerror or exc)
        log.info("table released (epoch %d)", self.epoch)
        self._notify()
        return self.epoch


def same_origin(header: str, host: str, scheme: str) -> bool:
    """Return whether the ``Origin``/``Referer`` value ``header`` names ``scheme://host``."""
    try:
        parts = urlsplit(header)
    except ValueError:
        return False
    return parts.scheme == scheme and parts.netloc.lower() == host.lower()


def new_token() -> str:
    """Return a random URL-safe token (CSRF tokens, device ids)."""
    return secrets.token_urlsafe(24)
