"""/api/night, /api/season, their CSV and /api/race (web.season) over the hand-counted database."""

from __future__ import annotations

import csv
import io
import time

import pytest

from season_db import build
from web import create_app
from web.season import HOST_ONLY


def built(client, url: str = "/api/night"):
    """GET ``url``; while the season is being built (202 and its job), follow the job to its end, then ask again."""
    r = client.get(url)
    if r.status_code == 202:
        job = r.get_json()
        while job["state"] == "running":
            time.sleep(0.01)
            job = client.get(job["url"]).get_json()      # polls: the build is a thread of the app
        assert job["state"] == "done", job
        r = client.get(url)
    return r


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    table = build()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path_factory.mktemp("s")),
                      "TRUSTED_HOSTS": ["localhost"]}, table=table)
    c = app.test_client()
    assert built(c).status_code == 200
    yield c
    table.close()


def test_the_first_view_builds_the_season_as_a_job_with_progress(tmp_path, monkeypatch):
    import threading
    from companion import season as season_mod
    from companion.season import store as season_store
    table = build()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    host, other = app.test_client(), app.test_client()
    hh = {"X-CSRF-Token": host.get("/api/session").get_json()["csrf"], "Origin": "http://localhost"}
    assert host.post("/api/claim", json={}, headers=hh).status_code == 200
    go, folding = threading.Event(), threading.Event()
    real = season_mod.summarize_match

    def slow(evs):                          # the build's first match waits until the test lets it go on
        folding.set()
        assert go.wait(10)
        return real(evs)
    monkeypatch.setattr(season_store, "summarize_match", slow)
    # five matches are over and none is summarised: every view (any phone's) answers 202 with the one build
    first = host.get("/api/season")
    assert first.status_code == 202 and first.headers["Location"] == first.get_json()["url"]
    job = first.get_json()
    assert (job["kind"], job["state"]) == ("season", "running")
    assert folding.wait(10)
    again = other.get("/api/night")
    assert again.status_code == 202 and again.get_json()["id"] == job["id"]
    assert other.get(job["url"]).get_json()["progress"] == {"done": 0, "of": 5, "what": "match 1 of 5"}
    # the host's event waits for it (503, nothing stored); the table answers meanwhile
    before = len(table.history())
    r = host.post("/api/season/event", json={"type": "settle"}, headers=hh)
    assert r.status_code == 503 and r.get_json()["job"]["id"] == job["id"] and r.headers["Retry-After"] == "1"
    assert host.get("/api/table").status_code == 200 and len(table.history()) == before
    go.set()
    while job["state"] == "running":
        time.sleep(0.01)
        job = other.get(job["url"]).get_json()      # any phone may follow the season's build
    assert job["state"] == "done" and job["result"] == {"matches": 5}
    assert job["progress"] == {"done": 5, "of": 5, "what": "adding up the season"}
    assert host.get("/api/season").status_code == 200
    assert host.post("/api/season/event", json={"type": "settle"}, headers=hh).status_code == 200
    table.close()


def test_night_is_the_last_by_default(client):
    r = client.get("/api/night")
    assert r.status_code == 200
    n = r.get_json()
    assert (n["night"], n["nights"], n["open"]) == (3, 3, True)
    assert n["payments"] == [{"from": "Bob", "to": "House", "amount": 4}, {"from": "Cy", "to": "Ann", "amount": 1},
                             {"from": "Dee", "to": "Ann", "amount": 1}]
    assert client.get("/api/night?night=2").get_json()["payments"][0] == {"from": "Cy", "to": "Ann", "amount": 9}


@pytest.mark.parametrize("query,status,words", [("night=4", 404, "the nights are 1 to 3"), ("night=0", 400, "whole number"),
                                                ("night=x", 400, "whole number"), ("night=-1", 400, "whole number")])
def test_bad_night(client, query, status, words):
    r = client.get(f"/api/night?{query}")
    assert r.status_code == status and words in r.get_json()["error"]


def test_season_and_one_player(client):
    s = client.get("/api/season").get_json()
    assert [(p["name"], p["money"]) for p in s["players"]] == [
        ("Bob", 7), ("Ann", 5), ("House", 4), ("Dee", -1), ("Cy", -15)]
    assert len(s["nights"]) == 3
    one = client.get("/api/season?player=ann").get_json()["players"]
    assert [(p["name"], p["twenty_nines"], p["average_hand"]) for p in one] == [("Ann", 1, 16.5)]
    r = client.get("/api/season?player=Zed")
    assert r.status_code == 404 and "Zed" in r.get_json()["error"]


def test_csv_exports(client):
    r = client.get("/api/night.csv?night=2")
    assert r.mimetype == "text/csv" and 'filename="night-2.csv"' in r.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert [(x["row"], x["player"], x["to"], x["amount"]) for x in rows] == [
        ("standing", "Ann", "", "9"), ("standing", "Bob", "", "5"), ("standing", "Cy", "", "-14"),
        ("payment", "Cy", "Ann", "9"), ("payment", "Cy", "Bob", "5")]
    rows = list(csv.DictReader(io.StringIO(client.get("/api/season.csv").get_data(as_text=True))))
    ann = next(x for x in rows if x["player"] == "Ann")
    assert (ann["money"], ann["games"], ann["best_hand"], ann["best_hand_cards"]) == ("5", "6", "29", "5H 5S 5D JC / 5C")


def test_race_of_the_game_in_play(client):
    r = client.get("/api/race").get_json()
    # cribbage: Bob 29 + 21 by hand, then Ann 29 x 4 + 5: all by hand, one hand
    assert r["sides"] == ["Ann", "Bob"] and r["target"] == 121 and r["finished"]
    assert r["hands"] == [{"hand": 1, "pegging": [0, 0], "shows": [0, 0], "other": [121, 50],
                           "after_pegging": [121, 50], "scores": [121, 50]}]
    assert client.get("/api/race?game=2").status_code == 404
    assert client.get("/api/race?game=x").status_code == 400


def test_every_game_kept_and_its_score_race(client):
    d = client.get("/api/games?limit=2").get_json()
    assert d["total"] == 6 and [(g["title"], [(s["name"], s["score"]) for s in g["sides"]]) for g in d["games"]] == [
        ("Cribbage", [("Ann", 121), ("Bob", 50)]),
        ("Land's End casino, four-hand", [("Ann & Cy", 0), ("Bob & Dee", 0), ("House", 16)])]
    first, second = client.get("/api/games?offset=4&limit=5").get_json()["games"][::-1]
    # night 1's first game (HAND_29): the pegging is two last cards, each Bob's and so Ann's (L2), then her 29
    r = client.get(f"/api/race?match={first['match_id']}&game=1").get_json()
    assert (r["sides"], r["finished"], r["target"]) == (["Ann", "Bob"], True, 16)
    assert r["hands"] == [{"hand": 1, "pegging": [2, 0], "shows": [29, 0], "other": [0, 0],
                           "after_pegging": [2, 0], "scores": [31, 0]}]
    # HAND_ZERO: one last card each (L2), Ann's hand 4 and pocket 6, Bob's zero hand 5 (L3); then Ann pegs 5
    r = client.get(f"/api/race?match={second['match_id']}").get_json()
    assert r["hands"] == [{"hand": 1, "pegging": [1, 1], "shows": [10, 5], "other": [0, 0],
                           "after_pegging": [1, 1], "scores": [11, 6]},
                          {"hand": 2, "pegging": [0, 0], "shows": [0, 0], "other": [5, 0],
                           "after_pegging": [16, 6], "scores": [16, 6]}]
    assert client.get("/api/race?match=abc123").status_code == 404
    assert client.get(f"/api/race?match={first['match_id']}&game=2").status_code == 404
    assert client.get("/api/race?match=XYZ").status_code == 400
    assert client.get("/api/games?limit=0").status_code == 400


def test_host_events_through_the_page(tmp_path):
    from season_db import Clock
    from companion.table import Table
    clock = Clock()
    table = build(Table.memory(clock=clock, default_match=None), clock)
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    host, other = app.test_client(), app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.3"
    assert built(host).status_code == 200

    def headers(c):
        return {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"], "Origin": "http://localhost"}
    hh = headers(host)
    assert host.post("/api/claim", json={}, headers=hh).status_code == 200
    before = len(table.history())
    r = other.post("/api/season/event", json={"type": "settle"}, headers=headers(other))
    assert r.status_code == 403 and len(table.history()) == before
    # nor through the table's command route, where a joined phone that is not the host is refused too
    code = host.get("/api/session").get_json().get("join_code")
    assert other.post("/api/join", json={"code": code}, headers=headers(other)).status_code == 200
    for cmd in ({"type": "settle"}, {"type": "new_evening"}, {"type": "rename", "name": "Zed", "to": "Zack"},
                {"type": "merge", "name": "Dee", "into": "Ann"}):
        r = other.post("/api/command", json=cmd, headers=headers(other))
        assert r.status_code == 403 and r.get_json()["error"] == HOST_ONLY, (cmd, r.get_json())
    # the host's go through it like any command, judged by the table against every game kept (issue 37)
    r = host.post("/api/command", json={"type": "merge", "name": "Dee", "into": "Zed"}, headers=hh)
    assert (r.status_code, r.get_json()["error"]) == (400, "nobody has played as 'Zed' at this table")
    r = host.post("/api/command", json={"type": "new_evening", "if_seq": table.snapshot()["seq"]}, headers=hh)
    assert r.status_code == 200 and r.get_json()["event"]["text"] == "a new evening begins"
    r = host.post("/api/command", json={"type": "new_evening"}, headers=hh)
    assert (r.status_code, r.get_json()["error"]) == (400, "a new evening has begun already: no game has ended since")
    assert host.post("/api/command", json={"type": "undo"}, headers=hh).status_code == 200
    assert len(table.history()) == before + 2
    before += 2
    r = host.post("/api/season/event", json={"type": "rename", "name": "Zed", "to": "Zack"}, headers=hh)
    assert (r.status_code, r.get_json()) == (400, {"error": "nobody has played as 'Zed' at this table"})
    assert len(table.history()) == before
    r = host.post("/api/season/event", json={"type": "rename", "name": "dee", "to": "Deirdre"}, headers=hh)
    assert r.status_code == 200 and r.get_json()["event"]["text"] == "Dee is now called Deirdre"
    assert [p["name"] for p in host.get("/api/season").get_json()["players"]][3] == "Deirdre"
    # an earlier night still open is settled by its number; a bad one is refused, nothing stored
    for body, words in (({"type": "settle", "night": 7}, "no night 7: the nights are 1 to 3"),
                        ({"type": "settle", "night": "1"}, "settle's night is a night's number")):
        r = host.post("/api/season/event", json=body, headers=hh)
        assert r.status_code == 400 and words in r.get_json()["error"]
    assert len(table.history()) == before + 1
    r = host.post("/api/season/event", json={"type": "settle", "night": 1}, headers=hh).get_json()
    assert (r["event"]["text"], r["night"]["night"], r["night"]["settled"]) == ("night 1 is settled", 1, True)
    assert r["night"]["open_nights"] == [2, 3] and r["night"]["payments"] == [{"from": "Ann", "to": "Bob", "amount": 6}]
    assert host.post("/api/command", json={"type": "undo"}, headers=hh).status_code == 200
    assert host.get("/api/night?night=1").get_json()["open"]
    r = host.post("/api/season/event", json={"type": "settle"}, headers=hh).get_json()
    assert r["night"]["settled"] and r["night"]["payments"][2] == {"from": "Deirdre", "to": "Ann", "amount": 1}
    assert host.post("/api/season/event", json={"type": "settle"}, headers=hh).status_code == 400
    # History shows both; undo takes the settle back
    kinds = [(e["type"], e.get("undone", False)) for e in host.get("/api/history").get_json()["events"][-4:]]
    assert kinds == [("rename", False), ("settle", True), ("undo", False), ("settle", False)]
    assert host.post("/api/command", json={"type": "undo"}, headers=hh).status_code == 200
    assert not host.get("/api/night").get_json()["settled"]
    table.close()


def test_a_rename_renames_the_match_in_play_and_its_phone_s_seat_and_its_undo_gives_both_back(tmp_path):
    table = build()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    host = app.test_client()
    hh = {"X-CSRF-Token": host.get("/api/session").get_json()["csrf"], "Origin": "http://localhost"}
    assert host.post("/api/claim", json={}, headers=hh).status_code == 200
    assert host.post("/api/seat", json={"seat": "Bob"}, headers=hh).status_code == 200
    assert built(host).status_code == 200
    r = host.post("/api/season/event", json={"type": "rename", "name": "bob", "to": "Robert"}, headers=hh)
    assert r.status_code == 200
    assert table.snapshot()["players"] == ["Ann", "Robert"]          # the cribbage match in play
    assert host.get("/api/session").get_json()["seat"] == "Robert"   # the host's phone is still that player's
    assert host.get("/api/race").get_json()["sides"] == ["Ann", "Robert"]
    # the undo (through /api/command, like any undo) gives the name back, and the phone its seat
    assert host.post("/api/command", json={"type": "undo"}, headers=hh).status_code == 200
    assert table.snapshot()["players"] == ["Ann", "Bob"]
    assert host.get("/api/session").get_json()["seat"] == "Bob"      # not lost: Bob's phone without a new pick
    # the board's undo button (straight to the table, no route) and a rename through /api/command: the seat
    # follows both, since it follows the names the stored events fold to (web.seats.follow_names)
    r = host.post("/api/command", json={"type": "rename", "name": "Bob", "to": "Bobby"}, headers=hh)
    assert r.status_code == 200 and host.get("/api/session").get_json()["seat"] == "Bobby"
    table.submit({"type": "undo"})
    assert host.get("/api/session").get_json()["seat"] == "Bob"
    # an undo of anything else moves no seat
    r = host.post("/api/season/event", json={"type": "new_evening"}, headers=hh)
    assert r.status_code == 200, r.get_json()
    assert host.post("/api/command", json={"type": "undo"}, headers=hh).status_code == 200
    assert host.get("/api/session").get_json()["seat"] == "Bob"
    table.close()


def test_the_season_views_load_companion_season_at_first_use():
    """companion.season (and fractions) is not imported before the board's first answer (issue 25's start-up);
    the first season view imports it and answers as before."""
    import subprocess
    import sys
    code = ("import sys; from web import create_app; from companion.table import Table; "
            "app = create_app(None, table=Table.open(':memory:')); "
            "assert 'companion.season' not in sys.modules, 'loaded early'; "
            "c = app.test_client(); c.get('/api/table'); "
            "assert 'companion.season' not in sys.modules, 'loaded by the first answer'; "
            "from web import season; ctx = app.test_request_context(); ctx.push(); "
            "print(type(season.seasons()).__name__, 'companion.season' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "Season True", out.stderr
