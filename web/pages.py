"""The page itself, the join link the QR code carries, the QR code, and the manifest."""

from __future__ import annotations

import io
import re

from flask import Blueprint, Response, abort, current_app, render_template, request

from .api import presets, session_info
from .guard import hub, role

bp = Blueprint("pages", __name__)

JOIN_CODE = re.compile(r"^\d{6}$")


def _page(prefill: str = ""):
    boot = {"table": hub().table.snapshot(), "session": session_info(), "presets": presets(),
            "prefill": prefill}
    # ?portal=1: a phone's Wi-Fi sign-in sheet opened the page (web.portal); say how to get out of it
    portal = request.host_url if request.args.get("portal") == "1" else None
    html = render_template("index.html", boot=boot, portal=portal)
    resp = Response(html, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/")
def index():
    """Return the page (one HTML document; its state arrives as embedded JSON, then over SSE)."""
    return _page()


@bp.get("/join/<code>")
def join_link(code: str):
    """Return the page with the join code filled in (the QR code's target); 404 for a malformed code."""
    if not JOIN_CODE.match(code):
        abort(404, "a join link ends in a 6-digit code")
    return _page(code)


@bp.get("/qr.svg")
def qr():
    """Return an SVG QR code of this table's join link; 403 for phones that have not joined."""
    if role() == "visitor":
        abort(403, "only joined phones may see the join code")
    code = hub().access.join_code
    if not code:
        abort(404, "the table has no join code until a host claims it")
    import qrcode
    import qrcode.image.svg
    img = qrcode.make(f"{request.host_url}join/{code}", image_factory=qrcode.image.svg.SvgPathImage,
                      box_size=10, border=2)
    buf = io.BytesIO()
    img.save(buf)
    resp = Response(buf.getvalue(), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/manifest.webmanifest")
def manifest():
    """Return the web app manifest (so the page installs to the home screen)."""
    path = current_app.static_folder + "/manifest.webmanifest"
    with open(path, "rb") as f:
        return Response(f.read(), mimetype="application/manifest+json")
