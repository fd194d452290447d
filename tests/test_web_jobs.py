"""Long answers as jobs (web.jobs, issue 25 item 4): 202 and an id, progress, the answer, cancel that stops the
work, the phones still answered meanwhile, and malformed requests refused with nothing started."""

from __future__ import annotations

import os
import threading
import time

import pytest

from companion.table import Table
from web import create_app
from web import jobs as jobs_mod

DEAL = {"cards": "5H,5S,6D,JC,4C,KD", "dealer": "1", "pegging": "0"}     # by the hand: milliseconds, not seconds


@pytest.fixture
def app(tmp_path, monkeypatch):
    # a kind that only burns the CPU in the worker process, standing for a long answer (nothing else is long on
    # demand); the two others are the app's own
    monkeypatch.setitem(jobs_mod.KINDS, "spin", (None, lambda jobs, args, owner: jobs.start_process(
        "spin", owner, ("web.jobworker", "spin", {"seconds": 60}, [("spinning", {})]))))
    table = Table.memory()
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    yield app
    jobs = app.extensions.get("landsend.jobs")
    if jobs is not None:
        jobs.close()
    table.close()


def phone(app):
    c = app.test_client()
    c.hdrs = {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"], "Origin": "http://localhost"}
    return c


def start(c, kind, args=None):
    return c.post("/api/jobs", json={"kind": kind, **({"args": args} if args is not None else {})}, headers=c.hdrs)


def follow(c, job):
    while job["state"] == "running":
        time.sleep(0.02)                        # as a phone asks (every 0.25 s), only sooner
        job = c.get(job["url"]).get_json()
    return job


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_advice_as_a_job_answers_what_its_route_answers(app):
    c = phone(app)
    r = start(c, "advise", DEAL)
    assert r.status_code == 202 and r.headers["Location"] == r.get_json()["url"]
    job = follow(c, r.get_json())
    assert job["state"] == "done" and job["progress"] == {"done": 0, "of": 1, "what": "ranking the discards by the hand"}
    assert job["result"] == c.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&dealer=1&pegging=0").get_json()
    # a finished job's id still answers (the same answer), and a cancel of it changes nothing
    assert c.get(job["url"]).get_json()["result"] == job["result"]
    assert c.delete(job["url"], json={}, headers=c.hdrs).get_json()["state"] == "done"
    # a refusal of the rules is the job's answer, with the status its route gives
    job = follow(c, start(c, "advise", {"cards": "5H,5S,6D,JC,4C", "dealer": "1", "pegging": "0"}).get_json())
    assert (job["state"], job["status"]) == ("failed", 400) and "cards" in job["error"]
    job = follow(c, start(c, "review", {}).get_json())
    assert (job["state"], job["status"]) == ("failed", 400)


def test_a_worker_started_ahead_warms_while_it_waits_and_answers_the_first_job(app, monkeypatch):
    """The daemon starts a worker once the page answers (web.jobs.prestart): it warms the advice while idle and
    the first job, coming while it warms, is answered by it, as its route answers."""
    monkeypatch.setenv("LANDSEND_WARM_UP", "3")         # a few seconds of warming, if nothing stopped it
    pid = jobs_mod.prestart(app)
    jobs = app.extensions["landsend.jobs"]
    assert pid is not None and jobs.workers() == [pid]
    assert [r.name for r in jobs.warm] == ["lands-end"]    # it warms the table's game
    assert jobs_mod.prestart(app) is None                  # one waits already: no second
    c = phone(app)
    job = follow(c, start(c, "advise", DEAL).get_json())
    assert job["state"] == "done" and jobs.workers() == [pid]
    assert job["result"] == c.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&dealer=1&pegging=0").get_json()
    lead = follow(c, start(c, "lead", {"cards": "5H,9C,5S,4H", "game": "lands-end", "seat": "1"}).get_json())
    assert lead["state"] == "done" and jobs.workers() == [pid]
    assert lead["result"] == c.get("/api/lead?cards=5H,9C,5S,4H&game=lands-end&seat=1").get_json()
    follow(c, start(c, "lead", {"cards": "5H,9C,5S,4H", "game": "cribbage", "seat": "1"}).get_json())
    assert [r.name for r in jobs.warm] == ["cribbage"]     # the next fresh worker warms the game last asked about


def test_a_worker_grown_past_its_memory_limit_retires_after_its_answer_and_a_fresh_one_takes_over(app, monkeypatch):
    """The advice's caches grow with every position: a worker past ``LANDSEND_WORKER_MAX_MB`` answers, says it
    retires, and exits; a fresh worker waits for the next job, which is answered as before."""
    monkeypatch.setenv("LANDSEND_WORKER_MAX_MB", "1")        # every worker is past it after its first answer
    c = phone(app)
    first = follow(c, start(c, "advise", DEAL).get_json())
    jobs = app.extensions["landsend.jobs"]
    assert first["state"] == "done"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(jobs.workers()) != 1:
        time.sleep(0.02)
    fresh = jobs.workers()
    assert len(fresh) == 1
    second = follow(c, start(c, "advise", DEAL).get_json())
    assert second["state"] == "done" and second["result"] == first["result"]
    assert fresh[0] not in jobs.workers()                   # that one retired too, after answering


def test_the_press_path_answers_while_a_long_job_runs_and_cancel_stops_the_work(app):
    c = phone(app)
    assert c.post("/api/claim", json={}, headers=c.hdrs).status_code == 200
    job = start(c, "spin").get_json()
    jobs = app.extensions["landsend.jobs"]
    while c.get(job["url"]).get_json()["progress"]["what"] != "spinning":
        time.sleep(0.02)                         # the worker took it: it burns a core from here on
    pids = jobs.workers()
    assert len(pids) == 1 and not gone(pids[0])
    # the phones' presses are answered and stored while it runs (it holds no lock and no request thread)
    before = app.hub.table.snapshot()["seq"]
    for points in (2, 3):
        r = c.post("/api/command", json={"type": "peg", "side": "p1", "points": points}, headers=c.hdrs)
        assert r.status_code == 200
    assert app.hub.table.snapshot()["seq"] == before + 2
    assert c.get(job["url"]).get_json()["state"] == "running"
    # cancel: the worker process is killed at once, and the id answers "cancelled" from then on
    r = c.delete(job["url"], json={}, headers=c.hdrs)
    assert r.status_code == 200 and r.get_json()["state"] == "cancelled"
    assert gone(pids[0]) and jobs.running() == []
    assert c.get(job["url"]).get_json()["state"] == "cancelled"
    assert c.delete(job["url"], json={}, headers=c.hdrs).get_json()["state"] == "cancelled"
    # the next job is answered by a fresh worker
    assert follow(c, start(c, "advise", DEAL).get_json())["state"] == "done"


def test_jobs_are_the_phone_s_own_bounded_replaced_and_dropped_when_abandoned(app):
    a, b = phone(app), phone(app)
    one = start(a, "spin").get_json()
    # another phone cannot see or cancel it
    assert b.get(one["url"]).status_code == 404
    assert b.delete(one["url"], json={}, headers=b.hdrs).status_code == 404
    # the same phone's next job of a kind replaces the older one
    two = start(a, "spin").get_json()
    assert a.get(one["url"]).get_json()["state"] == "cancelled"
    three = start(b, "spin").get_json()
    # two run at most: a third is refused for now, and nothing starts
    r = start(b, "advise", DEAL)
    assert r.status_code == 503 and r.headers["Retry-After"] == "1"
    jobs = app.extensions["landsend.jobs"]
    assert {j.id for j in jobs.running()} == {two["id"], three["id"]}
    # a job nobody asks about is cancelled (the phone went away): here after 0.3 s
    jobs.abandoned = 0.3
    for j in jobs.running():
        assert j.finished.wait(10)
    assert a.get(two["url"]).get_json()["state"] == "cancelled" and jobs.running() == []
    assert len(jobs.workers()) <= 2


@pytest.mark.parametrize("body,status,words", [
    ({"kind": "nosuch"}, 400, "kind must be one of advise, lead, review, season"),
    ({"kind": 7}, 400, "kind must be one of"),
    ({}, 400, "kind must be one of"),
    ({"kind": "advise", "args": "cards=5H"}, 400, "args must be an object of query parameters"),
    ({"kind": "advise", "args": {"cards": 5}}, 400, "args must be an object of query parameters"),
    ({"kind": "advise", "args": {"cards": "5H", "nosuch": "1"}}, 400, "unknown query parameter nosuch"),
    ({"kind": "advise", "args": {"cards": "5H", "dealer": "maybe"}}, 400, "dealer must be true or false"),
    ({"kind": "advise", "args": {}}, 400, "give the dealt cards"),
    ({"kind": "advise", "args": {"cards": "5H,5S,6D,JC,4C,KD", "player": "Ann"}}, 403, "does not allow advice during a hand"),
    ({"kind": "season", "args": {"x": "1"}}, 400, "a season job takes no args"),
    ({"kind": "advise", "args": {}, "then": 1}, 400, "a job takes kind and args, not then"),
])
def test_a_malformed_job_is_refused_and_nothing_starts(app, body, status, words):
    c = phone(app)
    r = c.post("/api/jobs", json=body, headers=c.hdrs)
    assert r.status_code == status and words in r.get_json()["error"], r.get_json()
    assert app.extensions.get("landsend.jobs") is None or app.extensions["landsend.jobs"].running() == []


def test_job_ids_that_are_malformed_or_unknown(app):
    c = phone(app)
    assert c.get("/api/jobs/xyz").status_code == 400
    assert c.get("/api/jobs/0123456789abcdef").status_code == 404
    assert c.delete("/api/jobs/0123456789abcdef", json={}, headers=c.hdrs).status_code == 404
    assert c.delete("/api/jobs/0123456789abcdef").status_code == 403        # no Origin, no CSRF token


def test_a_season_build_cancelled_stops_at_its_next_match_and_the_next_goes_on(tmp_path, monkeypatch):
    from companion import season as season_mod
    from season_db import build
    table = build()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    c = phone(app)
    go, folding, folded = threading.Event(), threading.Event(), []
    real = season_mod.summarize_match

    def slow(evs):
        folding.set()
        assert go.wait(10)
        folded.append(evs[0]["match_id"])
        return real(evs)
    monkeypatch.setattr(season_mod, "summarize_match", slow)
    season = app.extensions.get("landsend.season")
    job = c.get("/api/season").get_json()
    assert folding.wait(10)
    app.extensions["landsend.season"].step_every = 1
    assert c.delete(job["url"], json={}, headers=c.hdrs).get_json()["state"] == "cancelled"
    go.set()
    jobs = app.extensions["landsend.jobs"]
    thread = next(t for t in threading.enumerate() if t.name == f"job-{job['id']}")
    thread.join(10)
    assert not thread.is_alive() and len(folded) == 1          # it stopped after the match it was folding
    assert season is None and not app.extensions["landsend.season"].ready()
    again = c.get("/api/season").get_json()
    assert again["id"] != job["id"]
    done = follow(c, again)
    assert done["result"] == {"matches": 5} and len(folded) == 1 + 4 + 1   # the four left, and the match in play
    assert c.get("/api/season").status_code == 200 and jobs.running() == []
    app.extensions["landsend.jobs"].close()
    table.close()
