"""Query parameters: every GET route's are declared here and parsed strictly before the route runs.

:data:`QUERY` names, for every GET endpoint, each parameter it takes and its
form. A request whose query holds a parameter the route does not take, one
given twice (unless the route takes a list), a whole number that is not plain
ASCII digits or lies outside its range, a value with control characters or
longer than its form allows, or one not in its form, is answered **400**
``{"error": "<parameter> ..."}`` (naming the parameter) before the route
runs, so no value can reach ``int()`` or the database unchecked
(``GET /api/history?since=²`` was a 500). What a form cannot say (which cards
a hand holds, a game's house rules) the route checks and refuses itself.

``tests/test_web_malformed.py`` fails when a GET route is added without an
entry here, and sends every parameter here its malformed values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from flask import Flask, jsonify, request

MAX_SEQ = 2 ** 53 - 1
"""The largest event number a phone can name (a JavaScript safe integer)."""


@dataclass(frozen=True)
class Form:
    """One parameter's form: ``check(value)`` returns None when it fits, else why not (after the name)."""

    what: str                                  # "a whole number from 0 to 7", shown in the error
    check: Callable[[str], "str | None"]
    many: int = 1                              # how many times it may be given


def whole(lo: int, hi: int, *, also: "tuple[str, ...]" = ()) -> Form:
    """A plain ASCII whole number from ``lo`` to ``hi`` (no sign unless ``lo`` < 0, no spaces), or one of ``also``."""
    digits = re.compile(r"-?[0-9]+" if lo < 0 else r"[0-9]+", re.ASCII)
    width = max(len(str(lo)), len(str(hi)))
    what = f"a whole number from {lo} to {hi}" + "".join(f" or {a!r}" for a in also)

    def check(value: str) -> "str | None":
        if value in also:
            return None
        if len(value) > width or not digits.fullmatch(value) or not lo <= int(value) <= hi:
            return f"must be {what}"
        return None
    return Form(what, check)


def text(max_len: int, *, many: int = 1) -> Form:
    """Text of 1 to ``max_len`` characters without control characters (what it means, the route checks)."""
    what = f"text of 1 to {max_len} characters"

    def check(value: str) -> "str | None":
        if not 1 <= len(value) <= max_len or any(c < " " or "\x7f" <= c < "\xa0" for c in value):
            return f"must be {what} without control characters"
        return None
    return Form(what, check, many)


def pattern(regex: str, what: str) -> Form:
    """ASCII text matching ``regex`` whole."""
    compiled = re.compile(regex, re.ASCII)

    def check(value: str) -> "str | None":
        return None if compiled.fullmatch(value) else f"must be {what}"
    return Form(what, check)


BOOL = Form("true or false (1, 0, true, false, yes, no, on, off)",
            lambda v: None if v.lower() in ("1", "0", "true", "false", "yes", "no", "on", "off")
            else "must be true or false (1, 0, true, false, yes, no, on, off)")
GAME = pattern(r"[a-z0-9-]{1,40}", "a game's name (lower-case letters, digits and '-')")
CARDS = pattern(r"[0-9A-Za-z, ]{1,120}", "cards such as 5H,5S,6D,JC")
CARD = pattern(r"[0-9A-Za-z]{1,3}", "one card such as 5C")
OPTIONS = text(2000)                              # a JSON object of house rules (parsed by the route)
SEAT = whole(0, 7)

QUERY: dict[str, dict[str, Form]] = {
    "pages.index": {"portal": pattern(r"1", "1 (the page a Wi-Fi sign-in sheet opened, web.portal)")},
    "pages.join_link": {},
    "pages.qr": {"e": pattern(r"[0-9]{1,16}-[0-9A-Za-z]{0,12}", "the epoch and code the page last saw (1-123456)")},
    "pages.manifest": {},
    "static": {},
    "live.table": {},
    "live.board": {},
    "live.events": {"last": pattern(r"[0-9a-f]{1,32}:-?[0-9]{1,16}",
                                   "the match and event last seen (<match_id>:<seq>)")},
    "access.get_session": {},
    "commands.entered": {},
    "records.history": {"since": whole(0, MAX_SEQ)},
    "records.export": {},
    "records.get_presets": {},
    "records.quick": {"game": GAME, "options": OPTIONS, "grid": CARDS, "line": CARDS, "hand": CARDS,
                  "starter": CARD, "crib": BOOL},
    "settings.get_settings": {},
    "advice.get_advise": {"cards": CARDS, "game": GAME, "options": OPTIONS, "player": text(64),
                          "owner": whole(0, 7, also=("house",)), "dealer": BOOL, "seat": SEAT,
                          "scores": pattern(r"-?[0-9]{1,4}(,-?[0-9]{1,4}){0,7}", "scores such as 7,3 (yours first)"),
                          "pegging": BOOL},
    "advice.get_lead": {"cards": CARDS, "game": GAME, "options": OPTIONS, "player": text(64), "dealer": BOOL, "seat": SEAT,
                        "turnup": CARD, "seen": CARDS,
                        "played": pattern(r"[0-9A-Za-z, ]{1,120}", "cards and go in order such as 10S,5H,go,KD")},
    "advice.get_review": {"thrown": text(200, many=5), "pegging": BOOL},
    "wifi.get_wifi": {},
    "wifi.page_qr": {},
    "wifi.wifi_qr": {"s": text(64)},                # the Wi-Fi's name: the page changes the URL when it changes
    "wifi.card": {"download": BOOL},
    "season.get_night": {"night": whole(1, 100_000)},
    "season.get_night_csv": {"night": whole(1, 100_000)},
    "season.get_season": {"player": text(64)},
    "season.get_season_csv": {"player": text(64)},
    "season.get_race": {"game": whole(1, 9_999), "match": pattern(r"[0-9a-f]{1,32}", "a match's id (hex digits)")},
    "season.get_games": {"offset": whole(0, 10_000_000), "limit": whole(1, 200)},
    "jobs.get_job": {},
    "backup.list_backups": {},
    "backup.download_backup": {},
    "backup.download_kept": {},
    "clock.get_clock": {},
    "update.update_info": {},
}
"""Every GET endpoint and the query parameters it takes (docs/api.md says what each means)."""


def refusal(endpoint: "str | None", args) -> "str | None":
    """Return why the query ``args`` (a MultiDict) does not fit ``endpoint``'s parameters, or None."""
    forms = QUERY.get(endpoint or "")
    if forms is None:
        return None                  # not a route of ours (a 404 or 405 follows)
    for name in args:
        form = forms.get(name)
        shown = name if name.isprintable() and len(name) <= 40 else repr(name[:40])
        if form is None:
            takes = ", ".join(forms) or "none"
            return f"unknown query parameter {shown} (this route takes: {takes})"
        values = args.getlist(name)
        if len(values) > form.many:
            return f"{name} may be given {'once' if form.many == 1 else f'at most {form.many} times'}"
        for value in values:
            why = form.check(value)
            if why is not None:
                seen = value[:20] + ("..." if len(value) > 20 else "")
                return f"{name} {why}, not {seen!r}"
    return None


def init_app(app: Flask) -> None:
    """Refuse a GET whose query does not fit its route with a 400 JSON error naming the parameter."""
    @app.before_request
    def _check_query():
        if request.method not in ("GET", "HEAD") or not request.args:
            return None
        why = refusal(request.endpoint, request.args)
        if why is None:
            return None
        resp = jsonify({"error": why})
        resp.status_code = 400
        return resp
