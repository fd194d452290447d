"""Captive-portal answers: a phone that joins the board's own Wi-Fi opens the page in its sign-in sheet.

On the board's own Wi-Fi every name resolves to the board (the dnsmasq
drop-in that ``systemd/install.sh`` writes), so the check each phone makes
after joining a network reaches the daemon with a foreign ``Host``. The
daemon answers exactly those checks, before the Host check, with a redirect
to the page at the board's address; the phone sees "this network wants a
sign-in" and shows the page in its sign-in sheet. Every other request with a
foreign Host is still refused (400) by the Host check.

The answers change nothing: no session, no cookie, no state; only GET and
HEAD. They are given only when the board has its own Wi-Fi (``address`` is
set): elsewhere these names are the real internet's, never the board's.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

#: ``(Host, path) -> platform`` of the connectivity checks answered.
CHECKS: dict[tuple[str, str], str] = {
    # Android (and Chrome OS): expects 204 No Content
    ("connectivitycheck.gstatic.com", "/generate_204"): "android",
    ("connectivitycheck.android.com", "/generate_204"): "android",
    ("clients3.google.com", "/generate_204"): "android",
    ("clients1.google.com", "/generate_204"): "android",
    ("www.gstatic.com", "/generate_204"): "android",
    ("www.google.com", "/gen_204"): "android",
    # iOS, iPadOS and macOS: expects a page titled "Success"
    ("captive.apple.com", "/hotspot-detect.html"): "apple",
    ("captive.apple.com", "/"): "apple",
    ("www.apple.com", "/library/test/success.html"): "apple",
    # Windows (NCSI): expects "Microsoft Connect Test" / "Microsoft NCSI"; then opens /redirect in the browser
    ("www.msftconnecttest.com", "/connecttest.txt"): "windows",
    ("www.msftconnecttest.com", "/redirect"): "windows",
    ("www.msftncsi.com", "/ncsi.txt"): "windows",
    # Firefox's own check, on any system
    ("detectportal.firefox.com", "/canonical.html"): "firefox",
    ("detectportal.firefox.com", "/success.txt"): "firefox",
}

#: Query string the redirect adds, so the page can say it is in a sign-in sheet.
FROM_PORTAL = "portal=1"


def check_platform(host: str, path: str) -> "str | None":
    """Return the platform whose connectivity check ``Host: host`` + ``path`` is, or None."""
    name = host.strip().lower().rstrip(".")
    if name.endswith(":80"):
        name = name[:-3]
    return CHECKS.get((name, path))


class PortalAnswers:
    """WSGI middleware in front of the app: answers the connectivity checks, passes everything else on.

    :param app: the WSGI app behind it (Flask's ``wsgi_app``).
    :param address: returns the board's address on its own Wi-Fi (``"10.42.0.1"``), or None when the
        board has none (then every request goes to the app, and the Host check refuses these names).
    """

    def __init__(self, app: Callable[..., Iterable[bytes]], address: Callable[[], "str | None"]):
        self.app = app
        self.address = address

    def __call__(self, environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        address = self.address() if method in ("GET", "HEAD") else None
        if address and check_platform(environ.get("HTTP_HOST", ""), environ.get("PATH_INFO", "")):
            url = f"http://{address}/?{FROM_PORTAL}"
            body = (f'<!doctype html><title>Land\'s End</title><a href="{url}">Open the table\'s page</a>\n'
                    .encode())
            start_response("302 Found", [("Location", url), ("Content-Type", "text/html; charset=utf-8"),
                                         ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
                                         ("X-Content-Type-Options", "nosniff")])
            return [] if method == "HEAD" else [body]
        return self.app(environ, start_response)
