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
    table = Table.memory()
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    kinds = app.extensions["landsend.job_kinds"]
    for kind, seconds in (("spin", 60), ("blink", 0.1)):
        kinds[kind] = (None, lambda jobs, args, owner, kind=kind, seconds=seconds: jobs.start_process(
            kind, owner, ("web.jobworker", "spin", {"seconds": seconds}, [("spinning", {})])))
    yield app
    jobs = app.extensions.get("landsend.jobs")
    if jobs is not None:
        jobs.close()
    table.close()


def phone(app, *, joined=True):
    """A phone: the first joined one claims the table (the host), the others join with its code."""
    c = app.test_client()
    c.hdrs = {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"], "Origin": "http://localhost"}
    if joined:
        access = app.hub.access
        r = (c.post("/api/join", json={"code": access.join_code}, headers=c.hdrs) if access.host
             else c.post("/api/claim", json={}, headers=c.hdrs))
        assert r.status_code == 200, r.get_json()
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
    # two run at most: a third waits its turn (running, not started), and is cancelled like any job
    jobs = app.extensions["landsend.jobs"]
    waits = start(b, "advise", DEAL).get_json()
    assert waits["state"] == "running" and waits["progress"]["what"] == "waiting for its turn"
    assert {j.id for j in jobs.running() if not j.waiting} == {two["id"], three["id"]}
    assert b.delete(waits["url"], json={}, headers=b.hdrs).get_json()["state"] == "cancelled"
    # and when as many wait as may, the next is refused for now, and nothing starts
    jobs.max_waiting = 1
    assert start(b, "lead", {"cards": "5H,9C,5S,4H", "game": "lands-end", "seat": "1"}).status_code == 202
    r = start(a, "advise", DEAL)
    assert r.status_code == 503 and r.headers["Retry-After"] == "1" and "1 wait already" in r.get_json()["error"]
    assert len(jobs.running()) == 3
    # a job nobody asks about is cancelled (the phone went away): here after 0.3 s
    jobs.abandoned = 0.3
    for j in jobs.running():
        assert j.finished.wait(10)
    assert a.get(two["url"]).get_json()["state"] == "cancelled" and jobs.running() == []
    assert len(jobs.workers()) <= 2


def test_a_visitor_may_not_start_a_job_and_keeps_the_plain_get_route(app):
    v = phone(app, joined=False)
    r = start(v, "advise", DEAL)
    assert r.status_code == 403 and "has not joined" in r.get_json()["error"]
    assert app.extensions.get("landsend.jobs") is None                  # nothing was started, no pool made
    got = v.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&dealer=1&pegging=0")
    assert got.status_code == 200 and got.get_json()["discards"]


def test_thirty_phones_looping_on_jobs_leave_a_joined_phone_s_advice_answered(app):
    """Issue 37: 30 phones looping on jobs kept both slots busy, and a player's own advice got 503. Now a phone's
    job waits its turn, and a free slot goes to the phone served longest ago: 30 joined phones each start a
    0.1 s job again as soon as the last is done, for as long as the test runs, and Ann's advice, asked twice
    in the middle of it, is answered (exactly as its route answers) each time after at most a few of their jobs.
    30 visitors doing the same get 403 and hold nothing."""
    ann = phone(app)
    loopers = [phone(app) for _ in range(30)]
    visitors = [phone(app, joined=False) for _ in range(30)]
    stop, served, refused, errors = threading.Event(), [], [], []

    def loop(c, joined):
        try:
            while not stop.is_set():
                r = start(c, "blink")
                if not joined:
                    refused.append(r.status_code)
                    time.sleep(0.05)
                    continue
                if r.status_code == 503:
                    time.sleep(0.05)
                    continue
                assert r.status_code == 202, r.get_json()
                job = r.get_json()
                while job["state"] == "running" and not stop.is_set():
                    time.sleep(0.02)
                    job = c.get(job["url"]).get_json()
                served.append(job["state"])
        except Exception as exc:    # noqa: BLE001 - said by the test's last assert
            errors.append(exc)
    threads = [threading.Thread(target=loop, args=(c, True)) for c in loopers]
    threads += [threading.Thread(target=loop, args=(c, False)) for c in visitors]
    for t in threads:
        t.start()
    try:
        deadline = time.monotonic() + 60
        while len(served) < 32 and time.monotonic() < deadline:     # each looper served once: the loops go round
            time.sleep(0.05)
        jobs = app.extensions["landsend.jobs"]
        assert len(jobs.running()) > jobs.limit                         # and a line waits behind the slots
        want = ann.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&dealer=1&pegging=0").get_json()
        waited = []
        for _ in range(2):
            before = len(served)
            r = start(ann, "advise", DEAL)
            assert r.status_code == 202
            # her turn: the moment her job leaves the line (the others' jobs that end while hers runs in the
            # other slot say how long her advice takes, not how long she waited: under load that was 6 of them)
            mine = jobs.get(r.get_json()["id"], None)
            while mine.waiting and mine.state == "running":
                time.sleep(0.005)
            waited.append(len(served) - before)
            job = follow(ann, r.get_json())
            assert job["state"] == "done" and job["result"] == want
        # the first time she waits for the jobs running (she was never served: first in line); the second, at
        # most a round of the others (each of them is served once before she is again)
        assert waited[0] <= 2 * jobs.limit and waited[1] <= len(loopers) + 2 * jobs.limit, waited
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not errors and served.count("done") >= 10
    assert refused and set(refused) == {403}


@pytest.mark.parametrize("body,status,words", [
    ({"kind": "nosuch"}, 400, "kind must be one of advise, blink, lead, review, season, spin"),
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
    from companion.season import store as season_store
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
    monkeypatch.setattr(season_store, "summarize_match", slow)
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


PARENT = """
import sys, time
from web.jobpool import Worker
from web.jobworker import read_frame, write_frame
w = Worker()
write_frame(w.proc.stdin, ("web.jobworker", "spin", {"seconds": 1.0}, [("spinning", {}), ("again", {})]))
assert read_frame(w.proc.stdout)[0] == "progress"          # mid-call: the worker spins now
print(w.proc.pid, flush=True)
time.sleep(60)
"""


def test_an_orphaned_worker_exits_quietly_when_the_daemon_is_killed_mid_job(tmp_path):
    """Issue 37: the daemon SIGKILLed while its worker computed left two BrokenPipeError tracebacks in the log
    (the worker's stderr is the daemon's). The worker now exits at its next frame, 0, and says nothing."""
    import signal
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    log = tmp_path / "daemon.log"
    with open(log, "wb") as err:
        daemon = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, stderr=err, cwd=root,
                                  env=dict(os.environ, PYTHONPATH=str(root), LANDSEND_WARM_UP="0"))
    pid = int(daemon.stdout.readline())
    daemon.send_signal(signal.SIGKILL)
    daemon.wait(10)

    def alive(p):
        try:
            with open(f"/proc/{p}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    assert alive(pid)                              # still spinning: the daemon died mid-call
    deadline = time.monotonic() + 30
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)                          # it noticed at its next frame and exited
    said = log.read_text()
    assert "Traceback" not in said and "BrokenPipeError" not in said and "Exception ignored" not in said, said
