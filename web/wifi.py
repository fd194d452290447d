"""The board's Wi-Fi on the host's More screen, the table card, and the two QR codes.

The daemon passes its Wi-Fi control to :func:`web.create_app` (``wifi=``):
an object with ``hotspot`` (``ssid``, ``password``, ``address``, or None),
``state()``, ``scan()``, ``join(ssid, password)``, ``move()`` and
``set_hotspot(on)`` (:class:`firmware.wifi.Wifi`; the page never runs
``nmcli`` itself). Its errors carry ``busy`` (True: another change runs).

=============================  ======  =====================================================
``GET /api/wifi``              host    the state: mode, address, networks, the last network tried
``POST /api/wifi/scan``        host    scan; ``{"networks": [...]}``
``POST /api/wifi/join``        host    ``{"ssid", "password"}``: try it (202; the board comes back)
``POST /api/wifi/move``        host    switch for good to the network that worked (202)
``POST /api/wifi/hotspot``     host    ``{"on": true|false}``: the board's own Wi-Fi up or down (202)
``GET /qr/page.svg``           anyone  QR code of the address this phone opened the page at
``GET /qr/wifi.svg``           host    QR code that joins the board's Wi-Fi (it holds the password)
``GET /card.svg``              host    the table card (``?download=1``: as a file)
=============================  ======  =====================================================
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, request

from .card import card_svg, qr_svg, wifi_uri
from .guard import json_body, role

bp = Blueprint("wifi", __name__)


def _wifi():
    return current_app.extensions.get("landsend.wifi")


def _hotspot():
    wifi = _wifi()
    return getattr(wifi, "hotspot", None) if wifi is not None else None


def _host_only() -> None:
    if role() != "host":
        abort(403, "only the host's phone may see or change the board's Wi-Fi")


def _control():
    _host_only()
    wifi = _wifi()
    if wifi is None:
        abort(404, "this board has no Wi-Fi control here (it needs NetworkManager on the Pi)")
    return wifi


def _state(wifi) -> dict:
    state = dict(wifi.state())
    spot = wifi.hotspot
    if spot is not None:
        state["hotspot"] = {"ssid": spot.ssid, "password": spot.password, "address": spot.address}
    state["page"] = request.host_url
    return state


def _refused(exc: Exception):
    abort(409 if getattr(exc, "busy", False) else 502, str(exc))


@bp.get("/api/wifi")
def get_wifi():
    """Return the board's Wi-Fi state (host only)."""
    return jsonify(_state(_control()))


@bp.post("/api/wifi/scan")
def scan():
    """Scan for networks; 502 with NetworkManager's reason when it fails, 409 while a change runs."""
    json_body()                      # a malformed body is refused first, like on every POST route
    wifi = _control()
    try:
        networks = wifi.scan()
    except RuntimeError as exc:
        _refused(exc)
    return jsonify({"networks": networks})


def _change(wifi, fn, *args):
    """Start ``fn(*args)`` on the Wi-Fi control; 202 and the state, 400 for a refused value (nothing runs),
    409 while another change runs, 502 with NetworkManager's reason."""
    try:
        fn(*args)
    except ValueError as exc:
        abort(400, str(exc))
    except RuntimeError as exc:
        _refused(exc)
    return jsonify(_state(wifi)), 202


@bp.post("/api/wifi/join")
def join():
    """Try the network ``{"ssid", "password"}`` (``busy: "join"`` until the board is back)."""
    body = json_body()
    wifi = _control()
    ssid, password = body.get("ssid"), body.get("password", "")
    if not isinstance(ssid, str) or not isinstance(password, str):
        abort(400, "send {\"ssid\": name, \"password\": text}")
    return _change(wifi, wifi.join, ssid, password)


@bp.post("/api/wifi/move")
def move():
    """Switch to the network the last try found working."""
    json_body()
    wifi = _control()
    return _change(wifi, wifi.move)


@bp.post("/api/wifi/hotspot")
def hotspot():
    """Bring the board's own Wi-Fi up (``{"on": true}``) or down."""
    on = json_body().get("on")
    wifi = _control()
    if not isinstance(on, bool):
        abort(400, "send {\"on\": true} or {\"on\": false}")
    return _change(wifi, wifi.set_hotspot, on)


def _svg(text: str, *, download: "str | None" = None) -> Response:
    resp = Response(text, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    if download:
        resp.headers["Content-Disposition"] = f'attachment; filename="{download}"'
    return resp


@bp.get("/qr/page.svg")
def page_qr():
    """Return the QR code of the address this phone opened the page at."""
    return _svg(qr_svg(request.host_url, title=f"QR code of {request.host_url}"))


@bp.get("/qr/wifi.svg")
def wifi_qr():
    """Return the QR code that joins the board's own Wi-Fi (host only; 404 without one)."""
    _host_only()
    spot = _hotspot()
    if spot is None:
        abort(404, "this board has no Wi-Fi of its own here")
    return _svg(qr_svg(wifi_uri(spot.ssid, spot.password), title=f"QR code that joins the Wi-Fi {spot.ssid}"))


@bp.get("/card.svg")
def card():
    """Return the table card (host only): the board's Wi-Fi when it has one, and this page's address."""
    _host_only()
    spot = _hotspot()
    text = card_svg(request.host_url, ssid=spot.ssid if spot else None, password=spot.password if spot else None)
    download = request.args.get("download", "").lower() in ("1", "true", "yes", "on")
    return _svg(text, download="landsend-card.svg" if download else None)
