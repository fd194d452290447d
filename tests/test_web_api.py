"""Flask test-client tests of every API route and page route, with every bad input.

The table is the real ``companion.table.Table`` (SQLite in a temp dir, or in
memory); the board and buttons are small simulators of the daemon's objects.
"""

from __future__ import annotations

import json

import pytest

from companion.table import Table
from web import create_app

ORIGIN = "http://localhost"


class FixedBoard:
    """The daemon's board as the page sees it: the frame the strip last showed."""

    def __init__(self, frame: dict) -> None:
        self.frame = frame

    def frame_json(self) -> dict:
        return self.frame


class TableButtons:
    """The simulated board buttons: a press pegs one for that lane's side, like the real ones."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.presses: list[tuple[str, bool]] = []

    def press(self, name: str, hold: bool = False) -> None:
        self.presses.append((name, hold))
        if name in ("p1", "p2") and not hold:
            self.table.submit({"type": "peg", "side": int(name[1]) - 1, "points": 1})


class Phone:
    """One phone: a test client with its own cookies and CSRF token."""

    def __init__(self, app, addr: str = "10.0.0.2") -> None:
        self.client = app.test_client()
        self.client.environ_base["REMOTE_ADDR"] = addr
        self.csrf = self.client.get("/api/session").get_json()["csrf"]

    def post(self, path: str, body=None, *, headers=None, **kw):
        h = {"X-CSRF-Token": self.csrf, "Origin": ORIGIN}
        h.update(headers or {})
        if body is None and "data" not in kw:
            body = {}
        if "data" in kw:
            return self.client.post(path, headers=h, **kw)
        return self.client.post(path, json=body, headers=h)

    def get(self, path: str, **kw):
        return self.client.get(path, **kw)

    def cmd(self, command: dict):
        return self.post("/api/command", command)

    def claim(self):
        return self.post("/api/claim")

    def join(self, code: str):
        return self.post("/api/join", {"code": code})


@pytest.fixture
def table():
    t = Table.memory()
    yield t
    t.close()


@pytest.fixture
def app(tmp_path, table):
    return create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                      table=table)


@pytest.fixture
def host(app):
    p = Phone(app, "10.0.0.2")
    assert p.claim().status_code == 200
    return p


def scores(app) -> list[int]:
    return [s["score"] for s in app.extensions["landsend"].table.snapshot()["sides"]]


# --- the factory and the fresh table ---------------------------------------------------

def test_fresh_database_opened_by_the_factory_is_a_ready_two_player_lands_end_game(tmp_path):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]})
    snap = app.test_client().get("/api/table").get_json()
    assert snap["game"] == "lands-end"
    assert snap["title"] == "Land's End"
    assert (snap["target"], snap["reach"]) == (16, "loses")
    assert [(s["id"], s["name"], s["score"], s["previous"]) for s in snap["sides"]] == [
        ("p1", "Player 1", 0, 0), ("p2", "Player 2", 0, 0)]
    assert snap["result"] is None
    assert (tmp_path / "landsend.db").exists()
    assert (tmp_path / "landsend.db").stat().st_mode & 0o777 == 0o600    # it keeps the secret key
    assert not (tmp_path / "secret_key").exists()
    app.extensions["landsend"].close()


def test_factory_reopens_the_same_database_with_its_state(tmp_path):
    cfg = {"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}
    app = create_app(cfg)
    phone = Phone(app)
    phone.claim()
    assert phone.cmd({"type": "peg", "side": "p2", "points": 3}).status_code == 200
    app.extensions["landsend"].close()
    again = create_app(cfg)
    assert scores(again) == [0, 3]
    # the host's cookie still works: same secret key, same access epoch
    phone.client.application = again
    assert phone.cmd({"type": "peg", "side": "p1", "points": 1}).status_code == 200
    assert scores(again) == [1, 3]
    again.extensions["landsend"].close()


def test_table_snapshot_has_the_public_fields(app):
    snap = app.test_client().get("/api/table").get_json()
    for key in ("game", "sides", "dealer", "phase", "count", "result", "seq", "match_id"):
        assert key in snap
    assert snap["dealer"] == "Player 2"


# --- board -------------------------------------------------------------------------------

def test_board_is_404_without_a_board(app):
    r = app.test_client().get("/api/board")
    assert r.status_code == 404
    assert r.get_json() == {"error": "no board is attached (the page is running without the daemon)"}


def test_board_returns_the_frame_the_strip_showed(tmp_path, table):
    lanes = [[[0, 0, 0]] * 16 for _ in range(3)]
    lanes[0][2] = [40, 0, 0]
    frame = {"lanes": lanes, "status": [[0, 20, 0], [0, 0, 0]]}
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, board=FixedBoard(frame))
    r = app.test_client().get("/api/board")
    assert r.status_code == 200
    assert r.get_json() == frame


# --- simulated buttons ----------------------------------------------------------------------

@pytest.fixture
def sim_app(tmp_path, table):
    buttons = TableButtons(table)
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, buttons=buttons)
    return app, buttons


def test_sim_press_is_404_outside_sim_mode(app):
    r = app.test_client().post("/api/sim/press", json={"button": "p1", "hold": False}, headers={"Origin": ORIGIN})
    assert r.status_code == 404
    assert "--sim" in r.get_json()["error"]


def test_sim_press_needs_no_join_code_or_token_and_pegs_like_the_button(sim_app):
    app, buttons = sim_app
    c = app.test_client()
    r = c.post("/api/sim/press", json={"button": "p1", "hold": False}, headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert r.get_json()["pressed"] == "p1"
    assert buttons.presses == [("p1", False)]
    assert scores(app) == [1, 0]
    r = c.post("/api/sim/press", json={"button": "menu", "hold": True}, headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert buttons.presses[-1] == ("menu", True)


def test_sim_menu_held_five_seconds_releases_the_table(tmp_path, table):
    """The daemon's own simulated panel (MockFactory pins, SimClock): a 5 s menu hold releases the table,
    a 1.1 s one starts the next game, and the host's phone is read-only after the release."""
    from gpiozero.pins.mock import MockFactory

    from firmware.buttons import ButtonPanel, SimClock
    hubs = []
    panel = ButtonPanel({"p1": 17, "p2": 27, "menu": 22}, table.submit, pin_factory=MockFactory(), clock=SimClock(),
                        on_release=lambda: hubs[0].release())
    try:
        app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                         table=table, buttons=panel)
        hubs.append(app.extensions["landsend"])
        host = Phone(app)
        assert host.claim().status_code == 200
        assert host.cmd({"type": "peg", "side": "p1", "points": 3}).status_code == 200
        c = host.client                                              # hosted: only joined phones press
        r = c.post("/api/sim/press", json={"button": "menu", "seconds": 1.1}, headers={"Origin": ORIGIN})
        assert r.status_code == 200 and r.get_json()["seconds"] == 1.1
        assert table.snapshot()["game_no"] == 2                      # a hold: the next game
        assert host.get("/api/session").get_json()["role"] == "host"
        r = c.post("/api/sim/press", json={"button": "menu", "seconds": 5.5}, headers={"Origin": ORIGIN})
        assert r.status_code == 200
        assert table.snapshot()["game_no"] == 2                      # the release starts no game
        info = host.get("/api/session").get_json()
        assert (info["role"], info["claimable"]) == ("visitor", True)
        assert host.cmd({"type": "peg", "side": "p1", "points": 1}).status_code == 403
    finally:
        panel.close()


def test_sim_press_on_a_hosted_table_needs_a_joined_phone(sim_app):
    """Issue 11: a phone that never joined pegged a point through the simulated buttons."""
    app, buttons = sim_app
    host = Phone(app, "10.0.0.2")
    code = host.claim().get_json()["join_code"]
    stranger = app.test_client()
    stranger.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    r = stranger.post("/api/sim/press", json={"button": "p1"}, headers={"Origin": ORIGIN})
    assert r.status_code == 403
    assert r.get_json() == {"error": "this phone has not joined the table: the simulated buttons, like every "
                                     "change, need the join code once the table has a host"}
    assert (buttons.presses, scores(app)) == ([], [0, 0])
    player = Phone(app, "10.0.0.3")
    assert player.join(code).status_code == 200
    assert player.client.post("/api/sim/press", json={"button": "p1"}, headers={"Origin": ORIGIN}).status_code == 200
    assert host.client.post("/api/sim/press", json={"button": "p2"}, headers={"Origin": ORIGIN}).status_code == 200
    assert (buttons.presses, scores(app)) == ([("p1", False), ("p2", False)], [1, 1])


@pytest.mark.parametrize("body, message", [
    ({"button": "menu", "seconds": 11}, "seconds must be a number from 0.05 to 10"),
    ({"button": "menu", "seconds": "5"}, "seconds must be a number from 0.05 to 10"),
    ({"button": "menu", "seconds": True}, "seconds must be a number from 0.05 to 10"),
    ({"button": "menu", "seconds": 0}, "seconds must be a number from 0.05 to 10"),
    ({"button": "p4"}, "button must be one of p1, p2, p3, menu"),
    ({"button": 1}, "button must be one of p1, p2, p3, menu"),
    ({}, "button must be one of p1, p2, p3, menu"),
    ({"button": "p1", "hold": "yes"}, "hold must be true or false"),
    ([1, 2], "expected a JSON object body"),
])
def test_sim_press_refuses_bad_input(sim_app, body, message):
    app, buttons = sim_app
    r = app.test_client().post("/api/sim/press", json=body, headers={"Origin": ORIGIN})
    assert r.status_code == 400
    assert r.get_json() == {"error": message}
    assert buttons.presses == []
    assert scores(app) == [0, 0]


def test_sim_press_refuses_malformed_json_and_other_origins(sim_app):
    app, buttons = sim_app
    c = app.test_client()
    r = c.post("/api/sim/press", data="{not json", content_type="application/json", headers={"Origin": ORIGIN})
    assert r.status_code == 400
    r = c.post("/api/sim/press", json={"button": "p1"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert buttons.presses == []


# --- commands ----------------------------------------------------------------------------

def test_visitor_cannot_change_the_table(app, host):
    visitor = Phone(app, "10.0.0.9")
    r = visitor.cmd({"type": "peg", "side": "p1", "points": 2})
    assert r.status_code == 403
    assert "join code" in r.get_json()["error"]
    assert visitor.post("/api/import", {"record": {}}).status_code == 403
    assert scores(app) == [0, 0]
    # but it can read everything
    assert visitor.get("/api/table").status_code == 200
    assert visitor.get("/api/history").status_code == 200


def test_manual_pegs_and_undo(app, host):
    r = host.cmd({"type": "peg", "side": "p1", "points": 2})
    assert r.status_code == 200
    body = r.get_json()
    # the answer is the event and its seq, not the new state: every phone reads that from the stream
    assert set(body) == {"event", "seq"}
    assert body["event"]["type"] == "peg" and body["event"]["points"] == 2
    assert body["seq"] == body["event"]["seq"] == app.extensions["landsend"].table.snapshot()["seq"]
    assert scores(app) == [2, 0]
    host.cmd({"type": "peg", "side": 1, "points": 7})
    host.cmd({"type": "peg", "side": "p1", "points": 1})
    assert scores(app) == [3, 7]
    snap = app.extensions["landsend"].table.snapshot()
    assert snap["sides"][0]["previous"] == 2
    assert host.cmd({"type": "undo"}).status_code == 200
    assert scores(app) == [2, 7]
    assert host.cmd({"type": "undo"}).status_code == 200
    assert scores(app) == [2, 0]


def test_a_retried_submission_scores_once(app, host):
    cmd = {"type": "peg", "side": "p2", "points": 2, "client_id": "tap-0001"}
    first = host.cmd(dict(cmd)).get_json()
    second = host.cmd(dict(cmd)).get_json()
    assert scores(app) == [0, 2]
    assert second["event"]["seq"] == first["event"]["seq"]
    assert second["event"]["duplicate"] is True


def test_a_command_made_from_an_older_state_is_refused_with_the_seq_it_missed(app, host):
    seq = host.get("/api/table").get_json()["seq"]
    assert host.cmd({"type": "peg", "side": "p1", "points": 1, "if_seq": seq}).status_code == 200
    other = host.cmd({"type": "peg", "side": "p2", "points": 2, "if_seq": seq, "client_id": "late-tap"})
    body = other.get_json()
    assert other.status_code == 400 and body["stale"] is True
    assert body["error"] == (f"the table has moved on since this was entered (event {seq + 1}, the command was "
                             f"made at {seq}): nothing changed; look again")
    # the seq the table is at (its state reaches the phone on the stream), not the state itself
    assert body["seq"] == seq + 1 and "table" not in body
    assert scores(app) == [1, 0]
    # a command refused for another reason is not "stale"
    bad = host.cmd({"type": "peg", "side": "p9", "points": 1, "if_seq": seq + 1}).get_json()
    assert "stale" not in bad and "seq" not in bad


def test_the_session_counts_the_phones_holding_the_table(app, host):
    assert host.get("/api/session").get_json()["phones"] == 1
    code = host.get("/api/session").get_json()["join_code"]
    other = Phone(app, "10.0.0.3")
    assert other.join(code).get_json()["phones"] == 2
    assert other.join(code).get_json()["phones"] == 2        # the same phone again is not a second one
    assert host.get("/api/session").get_json()["phones"] == 2
    assert "phones" not in Phone(app, "10.0.0.4").get("/api/session").get_json()    # visitors are not told
    app.extensions["landsend"].release()
    assert app.extensions["landsend"].access.phones == 0


@pytest.mark.parametrize("command, status, message", [
    ({"type": "peg", "side": "p1", "points": 0}, 400, "points must be a whole number from 1 to 29"),
    ({"type": "peg", "side": "p1", "points": 30}, 400, "points must be a whole number from 1 to 29"),
    ({"type": "peg", "side": "p9", "points": 1}, 400, "no side 'p9'; sides are p1, p2"),
    ({"type": "explode"}, 400, "unknown command 'explode'"),
    ({"side": "p1"}, 400, None),
    ({"type": 5}, 400, None),
    ({"type": "peg", "side": "p1", "points": 1, "client_id": ""}, 400, "client_id must be 1-55 letters, digits or ._:-"),
    ({"type": "peg", "side": "p1", "points": 1, "client_id": "x" * 56}, 400, "client_id must be 1-55 letters, digits or ._:-"),
    ({"type": "peg", "side": "p1", "points": 1, "client_id": 7}, 400, "client_id must be 1-55 letters, digits or ._:-"),
    ({"type": "new_match", "game": "snap", "players": ["A", "B"]}, 400, None),
    ({"type": "new_match", "game": "lands-end", "players": ["A"]}, 400, "Land's End needs 2 player names, got 1"),
    ({"type": "new_match", "game": "lands-end", "players": ["A", "a"]}, 400, "player names must be different"),
    ({"type": "new_match", "game": "lands-end", "players": ["A", "B"], "stake": -1}, 400,
     "stake must be a number from 0 to 1,000,000"),
])
def test_bad_commands_get_a_clear_error_and_change_nothing(app, host, command, status, message):
    before = app.extensions["landsend"].table.snapshot()
    r = host.cmd(command)
    assert r.status_code == status
    err = r.get_json()["error"]
    if message:
        assert err == message
    else:
        assert err and "\n" not in err
    assert app.extensions["landsend"].table.snapshot() == before


def test_unknown_game_names_the_presets(app, host):
    r = host.cmd({"type": "new_match", "game": "snap", "players": ["A", "B"]})
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("unknown game 'snap'; choose one of: lands-end, ")


def test_malformed_bodies_are_refused(app, host):
    c = host.client
    h = {"X-CSRF-Token": host.csrf, "Origin": ORIGIN}
    r = c.post("/api/command", data="{\"type\": ", content_type="application/json", headers=h)
    assert (r.status_code, r.get_json()) == (400, {"error": "expected a JSON object body: not valid JSON "
                                                            "(Expecting value: line 1 column 10 (char 9))"})
    r = c.post("/api/command", data="[1]", content_type="application/json", headers=h)
    assert (r.status_code, r.get_json()) == (400, {"error": "expected a JSON object body"})
    r = c.post("/api/command", data="type=peg", content_type="application/x-www-form-urlencoded", headers=h)
    assert r.status_code == 415
    assert r.get_json() == {"error": "send JSON (Content-Type: application/json)"}
    assert scores(app) == [0, 0]


def test_oversized_body_is_refused_with_json(app, host):
    big = {"type": "peg", "side": "p1", "points": 1, "pad": "x" * (300 * 1024)}
    r = host.cmd(big)
    assert r.status_code == 413
    assert r.get_json() == {"error": "request body too large (limit 256 KB)"}
    assert scores(app) == [0, 0]


def test_new_match_three_hand_with_stake_and_series(app, host):
    r = host.cmd({"type": "new_match", "game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "stake": 2,
                  "first_dealer": "Cy", "series": {"kind": "best_of", "n": 3}})
    assert r.status_code == 200
    snap = host.get("/api/table").get_json()
    assert snap["game"] == "lands-end-3"
    assert [s["name"] for s in snap["sides"]] == ["Ann", "Bob", "Cy"]
    assert snap["dealer"] == "Cy"
    assert snap["stake"] == 2
    assert snap["series"]["kind"] == "best_of" and snap["series"]["need"] == 2


def test_game_over_and_settlement_by_manual_pegs(app, host):
    # Land's End: Ann reaches 16 and loses while Bob has 4 -> Bob's multiplier is 3 (L6)
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 5, "first_dealer": "Bob"})
    host.cmd({"type": "peg", "side": "p2", "points": 4})
    host.cmd({"type": "peg", "side": "p1", "points": 15})
    host.cmd({"type": "peg", "side": "p1", "points": 1})
    snap = host.get("/api/table").get_json()
    assert snap["result"]["loser"] == "p1"
    assert snap["result"]["multipliers"] == {"p2": 3}
    assert snap["result"]["settlement"] == {"p1": -15, "p2": 15}
    assert (snap["ledger"]["Ann"], snap["ledger"]["Bob"]) == (-15, 15)
    r = host.cmd({"type": "peg", "side": "p2", "points": 1})
    assert r.status_code == 400
    assert r.get_json()["error"] == "the game is over: start a new game to peg again"
    assert host.cmd({"type": "new_game"}).status_code == 200
    snap = host.get("/api/table").get_json()
    assert [s["score"] for s in snap["sides"]] == [0, 0]
    assert (snap["ledger"]["Ann"], snap["ledger"]["Bob"]) == (-15, 15)


# --- history, export, import ---------------------------------------------------------------

def test_history_lists_events_with_steps_and_undone_marks(app, host):
    host.cmd({"type": "peg", "side": "p1", "points": 2})
    host.cmd({"type": "peg", "side": "p2", "points": 3})
    host.cmd({"type": "undo"})
    events = host.get("/api/history").get_json()["events"]
    assert [e["type"] for e in events] == ["new_match", "peg", "peg", "undo"]
    assert [e["undone"] for e in events] == [False, False, True, False]
    assert events[1]["steps"][0]["points"] == 2
    assert events[1]["steps"][0]["side"] == "p1"
    assert events[2]["steps"] == []


def test_history_since_keeps_the_steps_of_one_play(app, host):
    # five-card, Bob deals (Ann cut high: 3), turn-up KC; Ann 9C, Bob 8C, Ann 7C (24, a run of three: Ann 3),
    # Bob 2S (26), Ann 2D (28, a pair: Ann 2), Bob 2H (30, pair royal: Bob 6, then one for last: Bob 1)
    host.cmd({"type": "new_match", "game": "five-card", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    host.cmd({"type": "turnup", "card": "KC"})
    for card in ("9C", "8C", "7C", "2S", "2D", "2H"):
        assert host.cmd({"type": "play", "card": card}).status_code == 200, card
    snap = app.extensions["landsend"].table.snapshot()
    assert [s["score"] for s in snap["sides"]] == [8, 7]
    events = host.get(f"/api/history?since={snap['seq']}").get_json()["events"]
    assert [(e["type"], e["card"]) for e in events] == [("play", "2H")]
    assert [(s["text"], s["points"], s["side"]) for s in events[0]["steps"]] == [
        ("thirty, a pair royal for six", 6, "p2"), ("one for last", 1, "p2")]
    assert len(host.get(f"/api/history?since={snap['seq'] - 1}").get_json()["events"]) == 2
    assert len(host.get("/api/history?since=0").get_json()["events"]) == 8
    for bad in ("x", "-1", "1.5", ""):
        r = host.get(f"/api/history?since={bad}")
        assert r.status_code == 400
        assert r.get_json() == {"error": f"since must be a whole number from 0 to 9007199254740991, not {bad!r}"}


def test_export_is_a_json_download(app, host):
    host.cmd({"type": "peg", "side": "p1", "points": 2})
    r = host.get("/api/export")
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    match_id = app.extensions["landsend"].table.snapshot()["match_id"]
    assert r.headers["Content-Disposition"] == f'attachment; filename="landsend-{match_id}.json"'
    record = json.loads(r.data)
    assert record == app.extensions["landsend"].table.export_record()


def test_import_replays_an_exported_record(tmp_path, app, host):
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 2, "first_dealer": "Bob"})
    host.cmd({"type": "peg", "side": "p1", "points": 4})
    host.cmd({"type": "peg", "side": "p2", "points": 6})
    record = json.loads(host.get("/api/export").data)
    host.cmd({"type": "new_match", "game": "cribbage", "players": ["X", "Y"], "first_dealer": "X"})
    r = host.post("/api/import", {"record": record})
    assert r.status_code == 200, r.get_json()
    snap = r.get_json()["table"]
    assert snap["game"] == "lands-end"
    assert [(s["name"], s["score"]) for s in snap["sides"]] == [("Ann", 4), ("Bob", 6)]


@pytest.mark.parametrize("body", [{}, {"record": []}, {"record": "x"}])
def test_import_refuses_a_missing_record(app, host, body):
    before = app.extensions["landsend"].table.snapshot()
    r = host.post("/api/import", body)
    assert r.status_code == 400
    assert r.get_json() == {"error": "expected {\"record\": <the exported game record>}"}
    assert app.extensions["landsend"].table.snapshot() == before


def test_import_refuses_a_record_that_does_not_replay(app, host):
    before = app.extensions["landsend"].table.snapshot()
    r = host.post("/api/import", {"record": {"format": "nonsense"}})
    assert r.status_code == 400
    assert r.get_json()["error"]
    assert app.extensions["landsend"].table.snapshot() == before


# --- presets and quick count -----------------------------------------------------------------

def test_presets_list_every_game_with_description_and_options(app):
    presets = app.test_client().get("/api/presets").get_json()["presets"]
    from companion import RULESETS
    assert [p["name"] for p in presets] == list(RULESETS)
    by = {p["name"]: p for p in presets}
    assert all(p["description"] for p in presets)
    le = {o["name"]: o for o in by["lands-end"]["options"]}
    assert le["zero_bonus"] == {"name": "zero_bonus", "help": le["zero_bonus"]["help"], "type": "int", "default": 5}
    assert le["pegging_credit"]["choices"] == ["self", "next_opponent"]
    assert le["pegging_credit"]["default"] == "next_opponent"
    assert "direction" not in le and "players" not in le
    # L9: a two-hand choice; three-hand play and the tabletop grid have no such option
    assert (le["go_lead"]["choices"], le["go_lead"]["default"]) == (["last_player", "other_player"], "last_player")
    assert {o["name"]: o for o in by["cribbage"]["options"]}["go_lead"]["default"] == "other_player"
    assert not {"lands-end-3", "lands-end-tabletop", "five-card"} & {n for n, p in by.items()
                                                                     if any(o["name"] == "go_lead" for o in p["options"])}
    assert {o["name"]: o for o in by["lands-end-casino-3"]["options"]}["direction"]["choices"] == ["cw", "ccw"]
    assert {o["name"]: o for o in by["table-top-cribbage"]["options"]}["players"]["choices"] == [2, 4]


@pytest.mark.parametrize("query, total, text", [
    # 5-5-5 + J of the starter's suit: eight fifteens 16, double pair royal 12, nobs 1
    ("game=cribbage&hand=5H,5S,5D,JC&starter=5C", 29, None),
    # Land's End: 2 4 6 8 K scores nothing, so the zero-hand bonus gives 5 (L3)
    ("game=lands-end&hand=2H 4S 6D 8C&starter=KD", 5, "nothing, so the zero-hand bonus scores five"),
    # all even cards: no fifteen; four hearts in the hand = flush 4
    ("game=cribbage&hand=2H,4H,6H,8H&starter=KS", 4, "a flush of four is four"),
    # ... but a four-card flush in the crib scores nothing
    ("game=cribbage&hand=2H,4H,6H,8H&starter=KS&crib=1", 0, "nothing"),
    # five-card cribbage keeps 3 cards: 7 8 + 7 starter: fifteen 2 x2, pair 2 = 6
    ("game=five-card&hand=7H,8S,2D&starter=7C", 6, "fifteen two, fifteen four, and a pair is six"),
])
def test_quick_count(app, query, total, text):
    r = app.test_client().get("/api/quick?" + query)
    assert r.status_code == 200, r.get_json()
    b = r.get_json()
    assert b["total"] == total
    assert sum(i["points"] for i in b["items"]) == total
    if text:
        assert b["text"] == text


def test_quick_count_breakdown_items(app):
    b = app.test_client().get("/api/quick?game=cribbage&hand=3H,4D,5H,5C&starter=JS").get_json()
    assert b["total"] == 12
    assert [(i["kind"], i["points"]) for i in b["items"]] == [
        ("fifteen", 2), ("fifteen", 2), ("pair", 2), ("run", 3), ("run", 3)]


def test_quick_count_grid(app):
    cards = "AS 2S 3S 4S 5S AH 2H 3H 4H 5H AD 2D 3D 4D 5D AC 2C 3C 4C 5C 6S 7S 8S 9S TS".split()
    b = app.test_client().get("/api/quick", query_string={"game": "table-top-cribbage", "grid": " ".join(cards)}).get_json()
    assert len(b["rows"]) == 5 and len(b["cols"]) == 5
    assert b["total"] == b["rows_total"] + b["cols_total"]


@pytest.mark.parametrize("game, line, total, text", [
    # a grid row: four hearts and a spade is no flush in Tabletop Land's End (T2: all five or nothing),
    # so 2 4 6 8 10 scores 0 and the zero-line bonus makes it 5
    ("lands-end-tabletop", "2H,4H,6H,8H,10S", 5, "nothing, so the zero-hand bonus scores five"),
    ("lands-end-tabletop", "2H,4H,6H,8H,10H", 5, "a flush of five is five"),
    ("table-top-cribbage", "2H,4H,6H,8H,10S", 0, "nothing"),
    # the difference variation scores four of five (G5)
    ("table-top-cribbage-31", "2H,4H,6H,8H,10S", 4, "a flush of four is four"),
    # 7 7 7 8 9: fifteens 7+8 x3 = 6, pair royal 6, runs 7-8-9 x3 = 9: 21
    ("table-top-cribbage", "7C 7D 7H 8S 9S", 21, None),
])
def test_quick_count_grid_line(app, game, line, total, text):
    r = app.test_client().get("/api/quick", query_string={"game": game, "line": line})
    assert r.status_code == 200, r.get_json()
    b = r.get_json()
    assert b["total"] == total
    if text:
        assert b["text"] == text
    r = app.test_client().get("/api/quick", query_string={"game": game, "line": "2H,4H,6H,8H"})
    assert r.status_code == 400 and r.get_json() == {"error": "a grid line holds 5 cards, not 4"}


@pytest.mark.parametrize("query, message", [
    ("game=lands-end&hand=5H,5S,5D&starter=5C", "a Land's End hand holds 4 cards, not 3"),
    ("game=lands-end&hand=5H,5S,5D,ZZ&starter=5C", None),
    ("game=lands-end&hand=5H,5S,5D,5H&starter=5C", "duplicate card: 5H"),
    ("game=lands-end&hand=5H,5S,5D,JC&starter=5H", "duplicate card: 5H (it is the starter)"),
    ("game=lands-end&hand=5H,5S,5D,JC", "give the turn-up card (starter)"),
    ("game=snap&hand=5H,5S,5D,JC&starter=5C", None),
    ("game=lands-end&hand=5H,5S,5D,JC&starter=5C&crib=maybe", "crib must be true or false (1, 0, true, false, yes, "
     "no, on, off), not 'maybe'"),
    ("game=lands-end&hand=5H,5S,5D,JC&starter=5C&options=[1]", "options must be a JSON object"),
    ("game=lands-end&hand=5H,5S,5D,JC&starter=5C&options={", "options must be a JSON object: not valid JSON "
     "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    ("game=lands-end&hand=5H&starter=5C&options=" + "[" * 1999, "options must be a JSON object: arrays or "
     "objects nested deeper than 32 levels"),
    ("game=lands-end&hand=5H&starter=5C&options=" + "[" * 5000, "options must be text of 1 to 2000 characters "
     "without control characters, not '[[[[[[[[[[[[[[[[[[[[...'"),
    ("game=lands-end&hand=5H&starter=5C&options={\"a\":NaN}", "options must be a JSON object: not valid JSON "
     "(NaN is not a JSON number)"),
    ("game=lands-end&hand=5H,5S,5D,JC&starter=5C&options={\"zero_bonus\":\"x\"}", None),
])
def test_quick_count_refuses_bad_input(app, query, message):
    r = app.test_client().get("/api/quick?" + query)
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err if message is None else err == message


# --- pages -----------------------------------------------------------------------------

def test_page_embeds_state_and_session_and_sends_security_headers(app, host):
    r = Phone(app, "10.0.0.7").get("/")
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    html = r.get_data(as_text=True)
    boot = boot_of(html)
    assert boot["table"]["game"] == "lands-end"
    assert boot["session"]["role"] == "visitor"
    assert "join_code" not in boot["session"]
    assert len(boot["presets"]) == 12


def test_names_cannot_break_out_of_the_page(app, host):
    host.cmd({"type": "new_match", "game": "lands-end", "players": ["</script><b>x", "Bob"], "first_dealer": "Bob"})
    html = host.get("/").get_data(as_text=True)
    assert "</script><b>x" not in html
    assert "\\u003c/script\\u003e\\u003cb\\u003ex" in html


def boot_of(html: str) -> dict:
    tag = '<script type="application/json" id="boot">'
    start = html.index(tag) + len(tag)
    return json.loads(html[start:html.index("</script>", start)])


def test_join_link_prefills_the_code(app, host):
    assert boot_of(Phone(app).get("/join/123456").get_data(as_text=True))["prefill"] == "123456"
    assert boot_of(Phone(app).get("/").get_data(as_text=True))["prefill"] == ""
    assert Phone(app).get("/join/12ab56").status_code == 404


def test_qr_code_only_for_joined_phones(app, host):
    assert Phone(app, "10.0.0.8").get("/qr.svg").status_code == 403
    r = host.get("/qr.svg")
    assert r.status_code == 200
    assert r.mimetype == "image/svg+xml"
    assert r.data.startswith(b"<?xml") and b"<svg" in r.data and b"<path" in r.data


def test_qr_code_carries_the_join_link_of_the_address_the_host_used(app, host):
    """Decoded with zbarimg by hand once (``QR-Code:http://127.0.0.1:8765/join/323983``); here the
    SVG must be exactly the QR code of ``http://<host>/join/<code>``, module for module."""
    import io

    import qrcode
    import qrcode.image.svg
    code = host.get("/api/session").get_json()["join_code"]
    buf = io.BytesIO()
    qrcode.make(f"http://localhost/join/{code}", image_factory=qrcode.image.svg.SvgPathImage,
                box_size=10, border=2).save(buf)
    assert host.get("/qr.svg").data == buf.getvalue()
    other = io.BytesIO()
    qrcode.make(f"http://localhost/join/{(int(code) + 1) % 10**6:06d}", image_factory=qrcode.image.svg.SvgPathImage,
                box_size=10, border=2).save(other)
    assert host.get("/qr.svg").data != other.getvalue()


def test_qr_code_is_404_before_anyone_hosts(app):
    # nobody hosts: visitors get 403 first, which is the rule that matters
    assert app.test_client().get("/qr.svg").status_code == 403


def test_manifest(app):
    r = app.test_client().get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.mimetype == "application/manifest+json"
    m = json.loads(r.data)
    assert m["display"] == "standalone" and m["start_url"] == "/"


def test_unknown_routes_and_methods_answer_json_errors(app):
    c = app.test_client()
    r = c.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.get_json()
    r = c.get("/api/command")
    assert r.status_code == 405 and "error" in r.get_json()


def test_a_table_without_a_match_still_serves_the_page_and_says_why_there_is_no_export(tmp_path):
    from companion.store import MemoryStore
    t = Table(MemoryStore(), default_match=None)
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=t)
    c = app.test_client()
    assert c.get("/").status_code == 200
    assert c.get("/api/table").get_json()["game"] is None
    r = c.get("/api/export")
    assert r.status_code == 404
    assert r.get_json() == {"error": "no game is set up: nothing to export"}
    phone = Phone(app)
    phone.claim()
    r = phone.cmd({"type": "peg", "side": "p1", "points": 1})
    assert r.status_code == 400
    assert r.get_json() == {"error": "no game is set up: start a new match first"}


class PanelWithoutP3(TableButtons):
    """A board wired with two player buttons: pressing p3 is refused like the daemon's panel does."""

    def press(self, name: str, hold: bool = False) -> None:
        if name == "p3":
            raise ValueError("unknown button 'p3' (known: p1, p2, menu)")
        super().press(name, hold)


def test_sim_press_of_a_button_the_board_lacks_is_400(tmp_path, table):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, buttons=PanelWithoutP3(table))
    r = app.test_client().post("/api/sim/press", json={"button": "p3"}, headers={"Origin": ORIGIN})
    assert r.status_code == 400
    assert r.get_json() == {"error": "unknown button 'p3' (known: p1, p2, menu)"}
    assert scores(app) == [0, 0]


def test_faults_reach_the_page(tmp_path, table):
    faults = ["LED strip: /dev/spidev0.0 not found"]
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]},
                     table=table, faults=faults)
    c = app.test_client()
    assert c.get("/api/session").get_json()["faults"] == faults
    faults.append("button p3: no GPIO")
    assert c.get("/api/session").get_json()["faults"] == ["LED strip: /dev/spidev0.0 not found", "button p3: no GPIO"]


def test_a_refusal_naming_the_event_to_undo_back_to_has_it_as_a_field(app, host):
    """The page reads ``undo_to`` (issue 17), not the sentence."""
    for c in ({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"},
              {"type": "turnup", "card": "4C"}, {"type": "play", "card": "KH"}, {"type": "play", "card": "QH"},
              {"type": "play", "card": "9C"}, {"type": "play", "card": "2D"}, {"type": "play", "card": "7S"},
              {"type": "play", "card": "8C"}):
        assert host.cmd(c).status_code == 200
    r = host.cmd({"type": "go"})
    body = r.get_json()
    assert r.status_code == 400 and body["undo_to"] == 5 and "undo back to event 5" in body["error"]
    r = host.cmd({"type": "play", "card": "KH"})
    assert r.status_code == 400 and set(r.get_json()) == {"error"}


def test_url_for_builds_every_route_though_its_builder_is_compiled_only_when_first_used(tmp_path):
    # web.BuiltWhenUsed leaves Werkzeug's URL builders until a first url_for (issue 25's start-up)
    import flask

    import web
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "STATE_DIR": str(tmp_path), "DATABASE": ":memory:"})
    rules = {r.endpoint: r for r in app.url_map.iter_rules()}
    assert all(isinstance(r, web.BuiltWhenUsed) for r in rules.values())
    with app.test_request_context():
        assert flask.url_for("live.table") == "/api/table"
        assert flask.url_for("jobs.get_job", job_id="abc") == "/api/jobs/abc"
        assert flask.url_for("records.history", since=3) == "/api/history?since=3"
        assert flask.url_for("static", filename="app.js") == "/static/app.js"
