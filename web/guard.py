"""Request guards: sessions, roles, the Origin and CSRF checks, and security headers.

Every request that may change something (any method but GET/HEAD/OPTIONS)
must come from this origin: its ``Origin`` header, or failing that its
``Referer``, must be ``http(s)://<the Host it was sent to>``; a request with
neither is refused. All of them except the simulator's button press must also
carry the session's CSRF token in ``X-CSRF-Token`` and a JSON body
(``Content-Type: application/json``, which a cross-site form cannot send); a
piece of an uploaded backup or update (:data:`RAW_BODY`) is raw bytes with the token.
"""

from __future__ import annotations

import functools
import hmac
import json
from typing import Any, Callable

from flask import Flask, abort, current_app, request, session
from itsdangerous import BadSignature
from werkzeug.http import parse_cookie

from .security import HEADER_MEMO, HEADER_MEMO_CHARS, new_token, same_origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NO_CSRF = frozenset({"commands.sim_press"})       # the physical-button stand-in: open in --sim only
RAW_BODY = frozenset({"backup.upload_piece", "update.update_piece"})      # a piece of a file: raw bytes, with the CSRF token all the same

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'; object-src 'none'")


def hub():
    """Return the app's :class:`web.hub.Hub`."""
    return current_app.extensions["landsend"]


def ensure_session() -> dict:
    """Return the session, giving it a device id and CSRF token if it has none."""
    if "device" not in session:
        session["device"] = new_token()
        session["csrf"] = new_token()
        session.permanent = True
    return session


def role() -> str:
    """Return ``"host"``, ``"player"`` (joined) or ``"visitor"`` for this request's session."""
    access = hub().access
    if session.get("epoch") != access.epoch or not session.get("joined"):
        return "visitor"
    if access.host is not None and session.get("device") == access.host:
        return "host"
    return "player"


def require_joined(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``view`` so that a visitor gets 403 (only joined phones may change the table)."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if role() == "visitor":
            abort(403, "this phone has not joined the table: enter the join code the host's page shows")
        return view(*args, **kwargs)
    return wrapped


MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects a request may send (no command needs more than 4)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > 308:                           # as far as a double goes; no command needs a tenth of it
        raise ValueError(f"a {digits}-digit number is out of range")
    return int(text)


def _depth(data: Any) -> int:
    """Return how deeply arrays and objects nest in ``data`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            if level > MAX_JSON_DEPTH:
                break
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_json(text: "str | bytes", expected: str = "expected a JSON object body") -> Any:
    """Return the JSON value of ``text``, refusing what no client of the page sends.

    Refused with a 400 whose error starts with ``expected``: text that is not
    JSON (or not UTF-8), ``NaN``/``Infinity`` and numbers beyond a double
    (or whole numbers of more than 308 digits), and arrays or objects nested more than
    :data:`MAX_JSON_DEPTH` deep (a few thousand levels used to overflow the
    decoder's recursion: a 500).

    :raises BadRequest: (400) as above.
    """
    too_deep = f"{expected}: arrays or objects nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_whole)
    except RecursionError:
        abort(400, too_deep)
    except ValueError as exc:
        abort(400, f"{expected}: not valid JSON ({str(exc)[:100]})")
    if _depth(data) > MAX_JSON_DEPTH:
        abort(400, too_deep)
    return data


def json_body() -> dict:
    """Return the request's JSON object body (see :func:`parse_json` for what is refused).

    :raises BadRequest: (400) when the body is not a JSON object.
    """
    data = parse_json(request.get_data(cache=True)) if request.is_json else None
    if not isinstance(data, dict):
        abort(400, "expected a JSON object body")
    return data


def _check_change() -> None:
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin or not same_origin(origin, request.host, request.scheme):
        abort(403, "cross-origin request refused (Origin must be this page's own address)")
    if request.endpoint in NO_CSRF:
        return
    if request.endpoint in RAW_BODY:
        if request.mimetype != "application/octet-stream":
            abort(415, "send the file's bytes (Content-Type: application/octet-stream)")
    elif not request.is_json:
        abort(415, "send JSON (Content-Type: application/json)")
    token = request.headers.get("X-CSRF-Token", "")
    expected = session.get("csrf")
    if not expected or not hmac.compare_digest(token.encode(), str(expected).encode()):
        abort(403, "missing or stale CSRF token: reload the page")


def _headers(resp):
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    if request.path.startswith("/api/"):
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp


def init_app(app: Flask) -> None:
    """Install the change guard and the security headers on ``app``."""
    app.before_request(_check_change)
    app.after_request(_headers)


def joined_cookie(app: Flask) -> Callable[[str], bool]:
    """Return a test of a raw ``Cookie`` header: does it carry the session of a phone joined to ``app``'s table now?

    The server asks it on its loop thread before a request reaches the app,
    to serve joined phones first and never close their connections for
    strangers (:mod:`web.server`), so it only checks the cookie's signature
    (cheap, remembered per cookie and access epoch for the last 1,024 cookies)
    and what :func:`role` checks: the session says joined, in the current epoch. The answer is remembered by
    the raw header too (a phone sends the same one with every request), so most requests parse no cookie here.
    """
    serializer = app.session_interface.get_signing_serializer(app)
    name = app.config["SESSION_COOKIE_NAME"]
    access = app.extensions["landsend"].access
    seen: dict[tuple[str, int], bool] = {}              # (cookie value, epoch) -> joined
    headers: dict[tuple[str, int], bool] = {}           # (raw header, epoch) -> joined

    def joined(header: str) -> bool:
        if not header or serializer is None:
            return False
        epoch = access.epoch
        memo = len(header) <= HEADER_MEMO_CHARS
        answer = headers.get((header, epoch)) if memo else None      # a phone sends the same header every time
        if answer is not None:
            return answer
        value = parse_cookie(header).get(name)
        if not value:
            return False
        key = (value, epoch)
        answer = seen.get(key)
        if answer is None:
            try:
                data = serializer.loads(value)     # its age is the phone's to count (RememberedSessions)
            except BadSignature:
                data = None
            answer = isinstance(data, dict) and bool(data.get("joined")) and data.get("epoch") == epoch
            if len(seen) >= 1024:
                seen.clear()
            seen[key] = answer
        if memo:
            if len(headers) >= HEADER_MEMO:
                headers.clear()
            headers[(header, epoch)] = answer
        return answer
    return joined
