"""Request guards: sessions, roles, the Origin and CSRF checks, and security headers.

Every request that may change something (any method but GET/HEAD/OPTIONS)
must come from this origin: its ``Origin`` header, or failing that its
``Referer``, must be ``http(s)://<the Host it was sent to>``; a request with
neither is refused. All of them except the simulator's button press must also
carry the session's CSRF token in ``X-CSRF-Token`` and a JSON body
(``Content-Type: application/json``, which a cross-site form cannot send).
"""

from __future__ import annotations

import functools
import hmac
from typing import Any, Callable

from flask import Flask, abort, current_app, request, session

from .security import new_token, same_origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NO_CSRF = frozenset({"api.sim_press"})       # the physical-button stand-in: open in --sim only

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


def json_body() -> dict:
    """Return the request's JSON object body.

    :raises BadRequest: (400) when the body is not a JSON object.
    """
    data = request.get_json(silent=True)
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
    if not request.is_json:
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
