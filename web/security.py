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

The access state (epoch, host device, join code, joined phones) and the
secret key that signs the cookies are kept in the table's own database (its
``meta`` rows), so a restart keeps the joined phones and no two tables ever
share them, whatever folder their databases sit in. Every change to the
access state is stored before it takes effect; one that cannot be stored (a
full disk) is refused and changes nothing.
"""

from __future__ import annotations

import copy
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
from typing import Any, Callable
from urllib.parse import urlsplit

from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature

from companion.errors import StoreError
from companion.store import MemoryStore

log = logging.getLogger(__name__)

JOIN_CODE_DIGITS = 6


SECRET_KEY = "web.secret_key"
"""The key under which the table's database keeps the page's secret key (hex)."""
ACCESS_STATE = "web.access"
"""The key under which the table's database keeps its access state (JSON)."""
LEGACY = {"secret_key": SECRET_KEY, "access.json": ACCESS_STATE}
"""Files an older version kept in the state folder, and where their content lives now."""


def load_secret_key(store: Any) -> bytes:
    """Return the table's secret key: kept in its database ``store``, made (32 random bytes) if missing.

    The key lives in the database, not beside it, so two tables whose
    databases share a folder never share a key: a cookie signed by one means
    nothing at the other.

    :raises StoreError: a new key cannot be stored (a read-only or full database).
    """
    value = store.get_meta(SECRET_KEY)
    try:
        key = bytes.fromhex(value) if value else b""
    except ValueError:
        key = b""
    if len(key) >= 32:
        return key
    if value:
        log.warning("the secret key in the table database is unreadable or too short; making a new one")
    key = secrets.token_bytes(32)
    store.put_meta(SECRET_KEY, key.hex(), what="the page's secret key")
    return key


def adopt_legacy_state(store: Any, state_dir: "str | os.PathLike[str]") -> list[str]:
    """Move an older version's ``secret_key`` and ``access.json`` from ``state_dir`` into the database ``store``.

    Only a database this version did not make (no ``created`` stamp) that
    keeps no page state yet takes them over, so a table that was hosted stays
    hosted and its joined phones stay joined; a fresh database never does (it
    is an unhosted table). Each file taken is renamed
    ``<name>.moved-into-<database file name>``, so no other table in the
    folder can take it too. Return the names of the files taken.

    :raises StoreError: the database cannot store them (the files are left in place).
    """
    if store.get_meta("created") is not None or any(store.get_meta(k) is not None for k in LEGACY.values()):
        return []
    folder = Path(state_dir)
    found = {}
    for name, key in LEGACY.items():
        try:
            data = (folder / name).read_bytes()
        except OSError:
            continue
        if name == "secret_key":
            if len(data) < 32:
                continue
            found[name] = data.hex()
        else:
            try:
                state = json.loads(data)
                int(state["epoch"])
            except (ValueError, KeyError, TypeError):
                log.warning("not taking over the unreadable access state %s", folder / name)
                continue
            found[name] = json.dumps(state)
    db_name = Path(getattr(store, "path", "memory")).name
    if found and hasattr(store, "path"):
        try:
            os.chmod(store.path, 0o600)      # it keeps the secret key now
        except OSError as exc:
            log.warning("cannot make %s private: %s", store.path, exc.strerror or exc)
    for name, value in found.items():
        store.put_meta(LEGACY[name], value, what=f"the page state from {folder / name}")
        try:
            os.replace(folder / name, folder / f"{name}.moved-into-{db_name}")
        except OSError as exc:
            log.warning("took over %s but could not rename it: %s", folder / name, exc.strerror or exc)
        log.info("took over %s into the table database %s", folder / name, getattr(store, "path", ""))
    return list(found)


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
    """The ``TRUSTED_HOSTS`` allow-list: fixed names plus this machine's addresses, kept up to date.

    Iterating yields ``names`` then the addresses ``addresses()`` returned at
    most ``max_age`` seconds ago, and when none of those matched (the Host
    check stops at the first match), ``addresses()`` now: a Pi whose DHCP
    lease changes answers on its new address at once without a restart, an
    address it lost stops being trusted within ``max_age`` seconds, and a
    foreign name (a DNS-rebinding attack) is refused. Asking the interfaces
    costs a dozen system calls, so a request does not pay it when its Host
    is one the check has just seen. IPv6 literals cannot be matched by
    Werkzeug's check: use the name or the IPv4 address.

    :param max_age: seconds an answer of ``addresses()`` is used for (1).
    :param clock: monotonic seconds; injectable for tests.
    """

    def __init__(self, names: "list[str] | None" = None, *,
                 addresses: Callable[[], "list[str]"] = local_addresses, max_age: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.names = list(default_host_names() if names is None else names)
        self.addresses = addresses
        self.max_age = max_age
        self.clock = clock
        self._known: tuple[float, list[str]] | None = None      # (when, what addresses() answered)
        self._hit: str | None = None          # the entry the last check stopped at (matched)

    def _current(self) -> list[str]:
        found = list(self.addresses())
        self._known = (self.clock(), found)
        return found

    def __iter__(self):
        known = self._known
        fresh = known is not None and self.clock() - known[0] < self.max_age
        hit = self._hit
        if hit is not None and (hit in self.names or (fresh and hit in known[1])):
            # the entry the last request matched, first: Werkzeug IDNA-encodes every entry it compares (a
            # few microseconds each, cold), and a phone sends the same Host with every request. It is one
            # of the entries below, so the verdict is theirs; only the order changes
            yield from self._offer((hit,))
        yield from self._offer(self.names)
        if not fresh:
            yield from self._offer(self._current())
            return
        yield from self._offer(known[1])
        # none matched: an address this machine has just been given is trusted at once
        yield from self._offer([a for a in self._current() if a not in known[1]])

    def _offer(self, entries):
        """Yield ``entries``, noting the one the check stopped at (it matched: the check closes the iteration)."""
        for entry in entries:
            try:
                yield entry
            except GeneratorExit:
                self._hit = entry
                raise

    def __bool__(self) -> bool:
        return True        # an empty allow-list would mean "allow all" to Werkzeug

    def __repr__(self) -> str:
        return f"TrustedHosts({self.names!r} + local addresses)"


_UNPARSED = object()
HEADER_MEMO = 256
"""``Cookie`` headers whose cookie values are remembered (:class:`RememberedSessions`; :func:`web.guard.joined_cookie`
keeps as many answers)."""
HEADER_MEMO_CHARS = 2048
"""Longer ``Cookie`` headers are parsed every time (at most ``HEADER_MEMO`` x this many characters are kept)."""
_ATOMS = frozenset((str, int, float, bool, type(None)))


def _copy_session(data: dict) -> dict:
    """Return a copy of a remembered session's contents for one request (its values are strings, numbers and
    flags: a dict copy, and a deep copy of anything else)."""
    return {k: v if type(v) in _ATOMS else copy.deepcopy(v) for k, v in data.items()}


class RememberedSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, each cookie's signature checked once a minute instead of on every request,
    and the session's lifetime counted by the phone's clock, not the board's.

    A phone sends the same cookie with every press, poll and stream; checking
    it (a timed HMAC, base64 and JSON) was a tenth of a press's CPU time. A
    cookie that passed is remembered with what it holds for ``remember``
    seconds (the last ``keep`` cookies); each request still gets its own
    session object, copied from it. A changed session is a new cookie, so it
    is checked anew; a cookie whose signature fails is never remembered.

    The board's clock is wrong until a phone sets it (a Pi has no clock that runs while it is off:
    :mod:`firmware.clock`), and then it jumps, by months at a first boot. Flask dates both ends of a session by
    the board's clock: the cookie's ``Expires`` (a phone whose clock is right throws away a cookie "expired"
    months ago, so it could never join to set the board's clock) and the signature's age (every phone's session
    "older than 30 days", or "from the future", once the clock jumps: the host would stop being the host). So
    the cookie carries ``Max-Age`` (browsers count it from their own clock, and it wins over ``Expires``), and
    the board checks the signature alone, never its age; the 30 days are the phone's to count, and the host's
    "new codes" (``Access.reset``) still sends every phone away at once.
    """

    remember = 60.0
    keep = 1024

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._seen: dict[tuple[str, Any], tuple[float, dict]] = {}
        self._headers: dict[tuple[str, str], "str | None"] = {}     # (Cookie header, name) -> that cookie's value
        self._lock = threading.Lock()

    def open_session(self, app, request):
        value = self._cookie(request, self.get_cookie_name(app))
        key = (value, app.secret_key)
        now = self.clock()
        with self._lock:
            hit = self._seen.get(key) if value else None
        if hit is not None and now - hit[0] < self.remember:
            return self.session_class(_copy_session(hit[1]))
        if self.get_signing_serializer(app) is None:
            return None
        session = self.verify(app, value) if value else self.session_class()
        if value and session:                       # signed by us (a refused cookie opens an empty session)
            with self._lock:
                if len(self._seen) >= self.keep:
                    self._seen.clear()
                self._seen[key] = (now, copy.deepcopy(dict(session)))
        return session

    def _cookie(self, request, name: str) -> "str | None":
        """Return the value of cookie ``name`` in ``request``'s ``Cookie`` header, remembered per header: a phone
        sends the same header with every request, and parsing it was a third of opening its session."""
        header = request.environ.get("HTTP_COOKIE")
        if not header:
            return None
        if len(header) > HEADER_MEMO_CHARS:            # not a phone's usual header: parsed, not kept
            return request.cookies.get(name)
        found = self._headers.get((header, name), _UNPARSED)
        if found is _UNPARSED:
            found = request.cookies.get(name)
            with self._lock:
                if len(self._headers) >= HEADER_MEMO:
                    self._headers.clear()
                self._headers[(header, name)] = found
        return found

    def verify(self, app, value: str):
        """The session a cookie holds when this board signed it (its age is not checked: see above), else empty."""
        try:
            return self.session_class(self.get_signing_serializer(app).loads(value))
        except BadSignature:
            return self.session_class()

    def save_session(self, app, session, response):
        """Flask's, with the cookie's lifetime as ``Max-Age`` (relative, counted by the phone's clock)."""
        lifetime = int(app.permanent_session_lifetime.total_seconds())
        set_cookie = response.set_cookie

        def relative(key, value="", *args, expires=None, **kw):
            if expires is not None:             # a permanent session: Flask gives the board's now + lifetime
                kw["max_age"] = lifetime
            return set_cookie(key, value, *args, expires=expires, **kw)
        response.set_cookie = relative
        try:
            super().save_session(app, session, response)
        finally:
            del response.set_cookie


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
    """The table's access state: epoch, host device, join code, joined phones; kept in the table's database.

    Thread-safe. ``store`` is the table's event store (its ``get_meta`` and
    ``put_meta``); None keeps the state in memory only. Each change is stored
    before it takes effect: one that cannot be stored raises
    :class:`~companion.errors.StoreError` and changes nothing.
    """

    def __init__(self, store: Any = None) -> None:
        self.store = store if store is not None else MemoryStore()
        self._lock = threading.Lock()
        self.epoch = 1
        self.host: str | None = None
        self.join_code: str | None = None
        self.devices: list[str] = []          # the phones that hold the table this epoch: the host, then joiners
        self._listeners: list[Callable[[int], None]] = []
        raw = self.store.get_meta(ACCESS_STATE)
        if raw is not None:
            try:
                data = json.loads(raw)
                self.epoch = int(data["epoch"])
                self.host = data.get("host")
                self.join_code = data.get("join_code")
                self.devices = [d for d in data.get("devices") or [] if isinstance(d, str)]
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("ignoring unreadable access state in the table database: %s", exc)

    def _change(self, what: str, **new: Any) -> None:
        """Store the access state with ``new`` values, then take them; unchanged if it cannot be stored."""
        state = {"epoch": self.epoch, "host": self.host, "join_code": self.join_code, "devices": self.devices}
        state.update(new)
        self.store.put_meta(ACCESS_STATE, json.dumps(state), what=what)
        self.epoch, self.host, self.join_code, self.devices = (state["epoch"], state["host"], state["join_code"],
                                                                state["devices"])

    @property
    def phones(self) -> int:
        """Return how many phones hold the table (the host and every phone that joined since the claim)."""
        return len(self.devices)

    def joined(self, device: str) -> None:
        """Count ``device`` as a phone holding the table; the first joiner tells every page (the host's
        page shows the join code until then).

        :raises StoreError: it cannot be stored (a full disk); the phone is not counted.
        """
        with self._lock:
            if device in self.devices:
                return
            self._change("the phone that joined", devices=[*self.devices, device])
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

        :raises StoreError: the claim cannot be stored (a full disk); the table stays unclaimed.
        """
        with self._lock:
            if self.host is not None:
                return False
            code = "".join(secrets.choice("0123456789") for _ in range(JOIN_CODE_DIGITS))
            # a claim that is not stored would leave a host nobody can see after a restart, and a
            # ghost host now that the phone got an error: the table stays unclaimed
            self._change("the table's host (the table is still unclaimed)", host=device, join_code=code,
                         devices=[device])
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

        :raises StoreError: the release cannot be stored (a full disk): it is refused, the host and
            the joined phones keep the table (a release only in memory would give it back to the old
            host at the next restart).
        """
        with self._lock:
            self._change("the release (the table is still held by its host)", epoch=self.epoch + 1, host=None,
                         join_code=None, devices=[])
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
