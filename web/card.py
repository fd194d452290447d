"""The table card and the QR codes on the More screen: the board's Wi-Fi and the page's address.

Pure functions of strings (no Flask): the page serves them (``/card.svg``,
``/qr/wifi.svg``, ``/qr/page.svg``) and ``landsend card`` writes the card.
The card is an SVG the size of an A6 sheet (105 x 148 mm): a browser prints
it at that size, and it stands in a menu holder on the table.

A QR code is drawn as one SVG path in module units: for each row, one
rectangle ``M x,y h n v 1 h -n z`` per run of dark modules.
"""

from __future__ import annotations

import re

#: The white margin around a code, in modules (the QR standard asks for 4).
QUIET = 4


def _escape(text: str, quote: bool = False) -> str:
    """Return ``text`` with ``&``, ``<`` and ``>`` (and ``"`` when ``quote``) as XML entities: what
    ``xml.sax.saxutils.escape`` did here, without importing ``xml.sax`` and ``urllib.request`` (4 ms of
    the board's start-up before its first answer: ``web.wifi`` imports this module)."""
    text = text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    return text.replace('"', "&quot;") if quote else text


def wifi_uri(ssid: str, password: str) -> str:
    """Return the ``WIFI:`` string a phone's camera joins with (WPA; ``\\ ; , : "`` escaped)."""
    def esc(text: str) -> str:
        return re.sub(r'([\\;,:"])', r"\\\1", text)
    if not password:
        return f"WIFI:T:nopass;S:{esc(ssid)};;"
    return f"WIFI:T:WPA;S:{esc(ssid)};P:{esc(password)};;"


def qr_matrix(data: str) -> list[list[bool]]:
    """Return the dark modules of ``data``'s QR code (error correction M), without the quiet zone."""
    import qrcode
    from qrcode.constants import ERROR_CORRECT_M
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=0)
    code.add_data(data)
    code.make(fit=True)
    return [list(row) for row in code.get_matrix()]


def qr_path(matrix: list[list[bool]], x0: float = 0, y0: float = 0) -> str:
    """Return the SVG path data of ``matrix`` drawn with unit modules from ``(x0, y0)``."""
    parts = []
    for y, row in enumerate(matrix):
        x = 0
        while x < len(row):
            if not row[x]:
                x += 1
                continue
            start = x
            while x < len(row) and row[x]:
                x += 1
            parts.append(f"M{x0 + start:g},{y0 + y:g}h{x - start}v1h-{x - start}z")
    return "".join(parts)


def qr_svg(data: str, *, title: str) -> str:
    """Return a standalone SVG of ``data``'s QR code with its quiet zone (scales to any size)."""
    m = qr_matrix(data)
    n = len(m) + 2 * QUIET
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}" shape-rendering="crispEdges" '
            f'role="img" aria-label="{_escape(title, quote=True)}">'
            f'<title>{_escape(title)}</title><rect width="{n}" height="{n}" fill="#fff"/>'
            f'<path fill="#000" d="{qr_path(m, QUIET, QUIET)}"/></svg>\n')


def _code(data: str, x: float, y: float, size: float) -> str:
    """Return a QR code of ``data`` fitted into the square ``size`` mm at ``(x, y)`` (quiet zone included)."""
    m = qr_matrix(data)
    n = len(m) + 2 * QUIET
    scale = size / n
    return (f'<g transform="translate({x:g} {y:g}) scale({scale:.5f})">'
            f'<rect width="{n}" height="{n}" fill="#fff"/>'
            f'<path fill="#000" d="{qr_path(m, QUIET, QUIET)}"/></g>')


def _text(x: float, y: float, text: str, size: float, *, weight: str = "normal", anchor: str = "middle") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" font-weight="{weight}" text-anchor="{anchor}">'
            f"{_escape(text)}</text>")


def card_svg(page_url: str, *, ssid: "str | None" = None, password: "str | None" = None) -> str:
    """Return the table card: the board's Wi-Fi (name, password, joining code) when ``ssid`` is given,
    and the page's address ``page_url`` with its code. A6 portrait, in millimetres."""
    w, h, qr = 105, 148, 44
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" fill="#000" shape-rendering="crispEdges">',
           "<title>Land's End table card</title>",
           f'<rect width="{w}" height="{h}" fill="#fff"/>',
           _text(w / 2, 12, "Land's End", 8, weight="bold"),
           _text(w / 2, 18, "the score board of this table: scan with a phone camera", 3.1)]
    y = 24
    if ssid:
        out += [_text(w / 2, y + 4, "1. Join the board's Wi-Fi", 4.6, weight="bold"),
                _code(wifi_uri(ssid, password or ""), (w - qr) / 2, y + 6, qr),
                _text(w / 2, y + qr + 10, f"Wi-Fi: {ssid}", 4, weight="bold"),
                _text(w / 2, y + qr + 15.5, f"Password: {password}", 4) if password else "",
                _text(w / 2, y + qr + 20.5, "The page opens by itself once the phone joins.", 3)]
        y += qr + 24
        heading = "2. Or open the page"
    else:
        y += 16
        heading = "Open the page"
    out += [_text(w / 2, y + 4, heading, 4.6, weight="bold"),
            _code(page_url, (w - qr) / 2, y + 6, qr),
            _text(w / 2, y + qr + 10, page_url, 4.2, weight="bold"),
            "</svg>\n"]
    return "".join(part for part in out if part)
