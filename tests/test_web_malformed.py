"""Every malformed request to every POST route gets its documented 400 JSON error and changes nothing.

Issue 8 item 3: a body nested a few thousand levels deep used to get a 500
(a RecursionError in the JSON decoder). Each case below is sent by a joined
phone (so the guards in front of the route pass) on a table in the middle of a
game; after each, the table, its history and the access state are exactly
as before.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from companion.commands import COMMANDS
from companion.host import HOST_COMMANDS
from companion.table import Table
from web import create_app
from web.guard import MAX_JSON_DEPTH

ORIGIN = "http://localhost"
OBJECT = "expected a JSON object body"
TOO_DEEP = f"{OBJECT}: arrays or objects nested deeper than {MAX_JSON_DEPTH} levels"


class SimButtons:
    """The simulated board buttons as the page sees them: each press is recorded and pegs lane 1's side."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.presses: list[str] = []

    def press(self, name: str, *, hold: bool = False, seconds: float | None = None) -> None:
        self.presses.append(name)
        self.table.submit({"type": "peg", "side": "p1", "points": 1})


@pytest.fixture
def world(tmp_path):
    table = Table.memory()
    buttons = SimButtons(table)
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, buttons=buttons)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    csrf = client.get("/api/session").get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    assert client.post("/api/claim", json={}, headers=headers).status_code == 200
    assert client.post("/api/command", json={"type": "peg", "side": "p2", "points": 3},
                       headers=headers).status_code == 200
    yield app, client, headers, buttons
    table.close()


def state_of(app, buttons) -> str:
    hub = app.extensions["landsend"]
    return json.dumps([hub.table.snapshot(), hub.table.history(), hub.access.epoch, hub.access.host,
                       hub.access.join_code, buttons.presses, hub.limiter.retry_after("10.0.0.2"),
                       hub.seats.shared, hub.seats._by_device, hub.seats.store.get_meta("web.seats"), hub.notes],
                      sort_keys=True)


def nest(depth: int, inner: str = '"5H"') -> str:
    return "[" * depth + inner + "]" * depth


POST_ROUTES = {"/api/claim": "code", "/api/join": "code", "/api/command": "card", "/api/import": "record",
               "/api/sim/press": "button", "/api/settings": "voice", "/api/settings/voice/test": "text",
               "/api/seat": "seat", "/api/wifi/scan": "ssid", "/api/wifi/join": "ssid", "/api/wifi/move": "ssid",
               "/api/wifi/hotspot": "on", "/api/season/event": "name", "/api/jobs": "args",
               "/api/notes/read": "upto", "/api/restore": "sha256", "/api/clock": "now", "/api/update": "bytes",
               "/api/update/previous": "version"}
"""Every POST route that takes JSON, and the field of its body the nesting cases put the deep value in."""
RAW_POST_ROUTES = {"/api/restore/upload", "/api/update/upload"}
"""POST routes whose body is raw bytes (a piece of an uploaded backup or update: tests/test_backup.py and
tests/test_update.py send them bad ones)."""


def test_the_cases_cover_every_post_route(world):
    app = world[0]
    posts = {r.rule for r in app.url_map.iter_rules() if "POST" in (r.methods or ())}
    assert posts == set(POST_ROUTES) | RAW_POST_ROUTES


def malformed(route: str, field: str) -> list[tuple[str, bytes, str]]:
    """Return (name, body, expected error) cases that every route refuses the same way."""
    return [
        ("nested 5000 deep in a field", ('{"type": "play", "%s": %s}' % (field, nest(5000))).encode(), TOO_DEEP),
        ("objects nested 5000 deep", ('{"%s": ' % field + '{"a": ' * 5000 + "1" + "}" * 5001).encode(), TOO_DEEP),
        ("a bare array 100000 deep", nest(100_000, "").encode(), TOO_DEEP),
        (f"nested {MAX_JSON_DEPTH + 1} deep", ('{"%s": %s}' % (field, nest(MAX_JSON_DEPTH))).encode(), TOO_DEEP),
        ("NaN", ('{"%s": NaN}' % field).encode(), f"{OBJECT}: not valid JSON (NaN is not a JSON number)"),
        ("-Infinity", ('{"%s": -Infinity}' % field).encode(),
         f"{OBJECT}: not valid JSON (-Infinity is not a JSON number)"),
        ("a number beyond a double", ('{"%s": 1e999}' % field).encode(),
         f"{OBJECT}: not valid JSON (the number 1e999 is out of range)"),
        ("a 5000-digit number", ('{"%s": %s}' % (field, "9" * 5000)).encode(),
         f"{OBJECT}: not valid JSON (a 5000-digit number is out of range)"),
        ("not UTF-8", b'{"type": "\xff\xfe"}',
         f"{OBJECT}: not valid JSON ('utf-8' codec can't decode byte 0xff in position 10: invalid start byte)"),
        ("truncated", ('{"%s": ' % field).encode(),
         f"{OBJECT}: not valid JSON (Expecting value: line 1 column {len(field) + 6} (char {len(field) + 5}))"),
        ("empty", b"", f"{OBJECT}: not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        ("an array", b"[1, 2]", OBJECT),
        ("a string", b'"peg"', OBJECT),
        ("null", b"null", OBJECT),
    ]


CASES = [(route, name, body, error) for route, field in POST_ROUTES.items()
         for name, body, error in malformed(route, field)]


@pytest.mark.parametrize("route, name, body, error", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_malformed_json_gets_its_400_and_changes_nothing(world, route, name, body, error):
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    r = client.post(route, data=body, content_type="application/json", headers=headers)
    assert (r.status_code, r.get_json()) == (400, {"error": error})
    assert state_of(app, buttons) == before


HOST_TYPE = 'a host\'s event needs a "type": rename, merge, new_evening or settle'
COMMAND_TYPE = 'a command needs a "type" (new_match, peg, undo, turnup, play, go, show, pocket, place, layout, ...)'
WRONG = [
    ("/api/join", {"code": 123456}, "the join code is 6 digits"),
    ("/api/join", {"code": ["123456"]}, "the join code is 6 digits"),
    ("/api/join", {"code": "1" * 7}, "the join code is 6 digits"),
    ("/api/command", {"type": 7}, COMMAND_TYPE),
    ("/api/command", {"type": "peg", "side": "p1", "points": 1, "client_id": 5},
     "client_id must be 1-55 letters, digits or ._:-"),
    ("/api/command", {"type": "peg", "side": "p1", "points": 1, "client_id": "x" * 65},
     "client_id must be 1-55 letters, digits or ._:-"),
    ("/api/command", {"type": "peg", "side": "p1", "points": 1, "if_seq": "1"},
     "if_seq must be the whole-number seq of the snapshot the command was made from"),
    ("/api/command", {"type": "peg", "side": "p1", "points": 1, "if_seq": 1e300},
     "if_seq must be the whole-number seq of the snapshot the command was made from"),
    ("/api/command", {"type": "new_match", "game": "cribbage", "players": ["A", "B"], "stake": 1e300},
     "stake must be a number from 0 to 1,000,000"),
    ("/api/command", {"type": "new_match", "game": "cribbage", "players": ["A", "B"], "stake": -1},
     "stake must be a number from 0 to 1,000,000"),
    ("/api/command", {"type": "new_match", "game": "cribbage", "players": ["A", "B"], "stake": "1"},
     "stake must be a number from 0 to 1,000,000"),
    ("/api/command", {"type": "new_match", "game": "cribbage", "players": ["A", "B"],
                      "series": {"kind": "best_of", "n": 10 ** 30}}, "series n must be 1..99"),
    ("/api/import", {"record": [1]}, 'expected {"record": <the exported game record>}'),
    ("/api/import", {"record": "x"}, 'expected {"record": <the exported game record>}'),
    ("/api/sim/press", {"button": "p1", "seconds": 1e300}, "seconds must be a number from 0.05 to 10"),
    ("/api/sim/press", {"button": "p1", "seconds": -1}, "seconds must be a number from 0.05 to 10"),
    ("/api/sim/press", {"button": ["p1"]}, "button must be one of p1, p2, p3, menu"),
    ("/api/sim/press", {"button": "p1", "hold": 1}, "hold must be true or false"),
    ("/api/seat", {"seat": 3}, "seat is a player's name, or null for a phone that belongs to nobody"),
    ("/api/seat", {"seat": ["Player 1"]}, "seat is a player's name, or null for a phone that belongs to nobody"),
    ("/api/seat", {"seat": "Zed"}, "'Zed' is not playing; the players are Player 1, Player 2"),
    ("/api/seat", {"shared": "yes"}, "shared is true or false"),
    ("/api/seat", {"shared": True, "seat": "Nobody"}, "'Nobody' is not playing; the players are Player 1, Player 2"),
    ("/api/seat", {"shared": False, "seat": 3}, "seat is a player's name, or null for a phone that belongs to nobody"),
    ("/api/seat", {"phone": 2, "seat": "Player 1"}, "phone is the number of a phone at the table, 1 to 1"),
    ("/api/seat", {"phone": 1}, "say the seat to hand to that phone (a player's name, or null to take it back)"),
    ("/api/join", {"code": "123456", "seat": 7}, "seat is a player's name, or null for a phone that belongs to nobody"),
    ("/api/notes/read", {"upto": "3"}, "upto is the id of the last note read"),
    # the host's events: every field checked by type before anything reads it (a list or an object as the type
    # was a 500, "unhashable type", issue 37)
    ("/api/season/event", {"type": []}, HOST_TYPE),
    ("/api/season/event", {"type": {}}, HOST_TYPE),
    ("/api/season/event", {"type": [[["rename"]]], "name": "Player 1", "to": "Ann"}, HOST_TYPE),
    ("/api/season/event", {"type": {"rename": {"name": "Player 1"}}}, HOST_TYPE),
    ("/api/season/event", {"type": 7}, HOST_TYPE),
    ("/api/season/event", {"type": None}, HOST_TYPE),
    ("/api/season/event", {}, HOST_TYPE),
    ("/api/season/event", {"type": "play", "card": "5H"}, HOST_TYPE),
    ("/api/season/event", {"type": "rename", "name": ["Player 1"], "to": "Ann"}, "rename needs name and to: players' names"),
    ("/api/season/event", {"type": "rename", "name": "Player 1", "to": {"x": "Ann"}}, "rename needs name and to: players' names"),
    ("/api/season/event", {"type": "merge", "name": "Player 1", "into": [["Player 2"]]},
     "merge needs name and into: players' names"),
    ("/api/season/event", {"type": "settle", "night": {"n": 1}}, "settle's night is a night's number (1, 2, ...), not \"{'n': 1}\""),
    ("/api/season/event", {"type": "settle", "night": [1]}, "settle's night is a night's number (1, 2, ...), not '[1]'"),
    ("/api/command", {"type": []}, COMMAND_TYPE),
    ("/api/command", {"type": {"rename": 1}}, COMMAND_TYPE),
    ("/api/notes/read", {"upto": True}, "upto is the id of the last note read"),
]


@pytest.mark.parametrize("route, body, error", WRONG, ids=[f"{w[0]}-{i}" for i, w in enumerate(WRONG)])
def test_wrong_types_and_numbers_out_of_range_get_their_400_and_change_nothing(world, route, body, error):
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    r = client.post(route, json=body, headers=headers)
    assert (r.status_code, r.get_json()) == (400, {"error": error})
    assert state_of(app, buttons) == before


@pytest.mark.parametrize("points", [0, -1, 1.5, 10 ** 30, True, "1", None, [1]])
def test_a_peg_of_points_out_of_range_or_of_the_wrong_type_is_refused(world, points):
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    r = client.post("/api/command", json={"type": "peg", "side": "p1", "points": points}, headers=headers)
    assert r.status_code == 400 and r.get_json()["error"]
    assert state_of(app, buttons) == before


def test_the_deepest_allowed_body_is_parsed_and_refused_by_the_rules_not_the_parser(world):
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    body = '{"type": "play", "card": %s}' % nest(MAX_JSON_DEPTH - 1)
    r = client.post("/api/command", data=body, content_type="application/json", headers=headers)
    assert r.status_code == 400
    assert "nested deeper" not in r.get_json()["error"]
    assert state_of(app, buttons) == before


@pytest.mark.parametrize("kind", sorted((set(COMMANDS) | {"undo"}) - set(HOST_COMMANDS)))
def test_a_stale_command_missing_its_fields_gets_its_400_and_changes_nothing(world, kind):
    # {"type": "turnup", "if_seq": 0} once the table had moved on answered 500 (issue 24): the stale note
    # read the command's card before anything had checked it
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    r = client.post("/api/command", json={"type": kind, "if_seq": 0}, headers=headers)
    body = r.get_json()
    assert r.status_code == 400 and body["stale"] is True and body["seq"] == 1
    assert body["error"].startswith("the table has moved on since this was entered (event 1, the command was made at 0)")
    assert [m["seq"] for m in body["meanwhile"]] == [1] and "amend" not in body
    assert state_of(app, buttons) == before


@pytest.mark.parametrize("kind", sorted(HOST_COMMANDS))
def test_a_host_event_from_a_phone_that_is_not_the_host_is_refused_on_the_command_route(world, kind):
    # renames, merges and nights are the host's: a joined phone that is not the host gets 403 (issue 37: the
    # host's go through /api/command, judged by the table)
    app, client, headers, buttons = world
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.3"
    hd = {"X-CSRF-Token": other.get("/api/session").get_json()["csrf"], "Origin": ORIGIN}
    assert other.post("/api/join", json={"code": app.extensions["landsend"].access.join_code}, headers=hd).status_code == 200
    before = state_of(app, buttons)
    r = other.post("/api/command", json={"type": kind, "name": "Player 1", "to": "Ann", "into": "Player 2"}, headers=hd)
    assert r.status_code == 403 and r.get_json()["error"].startswith("only the host may")
    assert state_of(app, buttons) == before


# --- every query parameter of every GET route (issue 18 item 2) ---------------------------------------------

GET_URLS = {"pages.index": "/", "pages.join_link": "/join/123456", "pages.qr": "/qr.svg",
            "pages.manifest": "/manifest.webmanifest", "static": "/static/app.js", "live.table": "/api/table",
            "live.board": "/api/board", "live.events": "/api/events", "access.get_session": "/api/session",
            "commands.entered": "/api/entered/abc",
            "records.history": "/api/history", "records.export": "/api/export", "records.get_presets": "/api/presets",
            "records.quick": "/api/quick", "settings.get_settings": "/api/settings", "advice.get_advise": "/api/advise",
            "advice.get_review": "/api/review", "advice.get_lead": "/api/lead", "wifi.get_wifi": "/api/wifi",
            "wifi.page_qr": "/qr/page.svg", "wifi.wifi_qr": "/qr/wifi.svg", "wifi.card": "/card.svg",
            "season.get_night": "/api/night", "season.get_night_csv": "/api/night.csv", "season.get_season": "/api/season",
            "season.get_season_csv": "/api/season.csv", "season.get_race": "/api/race",
            "season.get_games": "/api/games", "jobs.get_job": "/api/jobs/0123456789abcdef",
            "backup.list_backups": "/api/backups", "backup.download_backup": "/api/backup",
            "backup.download_kept": "/api/backups/landsend-backup-x-2026-11-28.landsend",
            "clock.get_clock": "/api/clock", "update.update_info": "/api/update"}
"""A URL of every GET route (GET_URLS and web.query.QUERY must both name every one)."""


def test_the_query_forms_and_these_cases_cover_every_get_route(world):
    from web.query import QUERY
    gets = {r.endpoint for r in world[0].url_map.iter_rules() if "GET" in (r.methods or ())}
    assert gets == set(QUERY) == set(GET_URLS)


BAD_NUMBERS = [str(2 ** 63), "9" * 4301, "\u00b2", "\u0663", "\uff11", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x1",
               "", "1\x00", str(2 ** 53)]
"""Not a plain ASCII whole number in range: 2^63, 4,301 digits, superscript two, Arabic-Indic three, a
full-width one, signs, spaces, decimals, hex, empty, a NUL, one past the range (the old 500s are the first three)."""
BAD_TEXT = ["", "x" * 5000, "a\x00b", "a\nb", "\x1b[2J"]


def get_cases(endpoint: str) -> list[tuple[str, str]]:
    """Return ``(url, the name its error must start with)`` for every malformed query of ``endpoint``."""
    from web.query import QUERY
    url = GET_URLS[endpoint]
    cases = [(url + "?nosuch=1", "unknown query parameter nosuch")]
    for name, form in QUERY[endpoint].items():
        bad = BAD_NUMBERS if form.what.startswith("a whole number") else BAD_TEXT
        cases += [(url + "?" + urlencode({name: value}), name) for value in bad]
        if form.many == 1:
            good = {"since": "0", "last": "abc:1", "e": "1-123456", "owner": "house", "seat": "1",
                    "crib": "1", "dealer": "yes", "scores": "7,3", "game": "lands-end"}.get(name, "5H")
            cases.append((f"{url}?{name}={good}&{name}={good}", name))
    return cases


@pytest.mark.parametrize("endpoint", list(GET_URLS))
def test_a_malformed_query_parameter_gets_a_400_naming_it_and_changes_nothing(world, endpoint):
    app, client, headers, buttons = world
    before = state_of(app, buttons)
    for url, named in get_cases(endpoint):
        r = client.get(url)
        assert r.status_code == 400, (url, r.status_code, r.data[:200])
        error = r.get_json()["error"]
        assert error.startswith(named), (url, error)
    assert state_of(app, buttons) == before


def test_history_since_takes_every_plain_whole_number_in_range(world):
    app, client, headers, buttons = world
    seqs = [e["seq"] for e in client.get("/api/history").get_json()["events"]]
    assert seqs == [0, 1]
    assert [e["seq"] for e in client.get("/api/history?since=1").get_json()["events"]] == [1]
    assert [e["seq"] for e in client.get("/api/history?since=0001").get_json()["events"]] == [1]
    assert client.get(f"/api/history?since={2 ** 53 - 1}").get_json() == {"events": []}
    r = client.get("/api/history?since=%C2%B2")
    assert (r.status_code, r.get_json()) == (400, {"error": "since must be a whole number from 0 to "
                                                            "9007199254740991, not '²'"})
    r = client.get("/api/history?since=" + "9" * 4301)
    assert (r.status_code, r.get_json()) == (400, {"error": "since must be a whole number from 0 to "
                                                            "9007199254740991, not '99999999999999999999...'"})


def test_a_seat_refused_as_taken_leaves_the_sharing_as_it_was(world):
    """D8: ``{"shared": false, "seat": ...}`` with the seat held by another phone is a 409 that changes nothing
    (it used to turn the sharing off before refusing the seat)."""
    app, client, headers, buttons = world
    code = client.get("/api/session").get_json()["join_code"]
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.3"
    other_headers = {"X-CSRF-Token": other.get("/api/session").get_json()["csrf"], "Origin": ORIGIN}
    assert other.post("/api/join", json={"code": code, "seat": "Player 1"}, headers=other_headers).status_code == 200
    assert client.post("/api/seat", json={"shared": True}, headers=headers).get_json()["shared_seats"] is True
    assert client.post("/api/seat", json={"seat": "Player 1"}, headers=headers).status_code == 200   # shared
    assert client.post("/api/seat", json={"seat": None, "shared": False}, headers=headers).status_code == 200
    before = state_of(app, buttons)
    r = client.post("/api/seat", json={"shared": True, "seat": "Nobody"}, headers=headers)
    assert r.status_code == 400 and state_of(app, buttons) == before
    assert client.post("/api/seat", json={"shared": True}, headers=headers).status_code == 200
    before = state_of(app, buttons)
    r = client.post("/api/seat", json={"shared": False, "seat": "Player 1"}, headers=headers)
    assert (r.status_code, r.get_json()) == (409, {"error": "another phone is already Player 1's: only one phone "
                                                            "per seat unless the host allows more"})
    assert state_of(app, buttons) == before and app.extensions["landsend"].seats.shared is True
