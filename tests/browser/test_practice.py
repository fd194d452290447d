"""Discard practice (Count tab), live advice as a table setting, and the review of a hand (History) at 390x844."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from companion.advice.discard import advise
from conftest import claim, phone_at, shot, until


def signed(x) -> str:
    """A net as the page writes it: its sign (a minus sign, not a hyphen), two decimals."""
    return ("+" if x >= 0 else "\u2212") + f"{abs(float(x)):.2f}"


def pick(page, cards):
    for card in cards:
        page.click(f"#pr-picker [data-rank='{card[:-1]}']")
        page.click(f"#pr-picker [data-card='{card}']")


def test_practice_ranks_every_discard_with_its_chart(server, phones):
    page = phones(server.url)
    claim(page)                   # a joined phone: its long answers are jobs (a visitor's are the GET routes)
    page.click("[data-tab=count]")
    page.click("[data-pr-mode=practice]")
    expect(page.locator("#qc-picker")).to_be_hidden()
    page.select_option("#pr-game", "lands-end")
    page.click("#pr-seat [data-seat='0']")                      # you deal: the pocket is yours
    pick(page, ["5H", "5S", "6D", "JC", "4C", "KD"])
    expect(page.locator("#pr-list .pr-row")).to_have_count(15)
    # first the plain ranking, then the same with the matching phase (a second of work; more under load)
    expect(page.locator("#pr-list .pr-row").first).to_contain_text("pegging", timeout=120_000)
    want = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, pegging=True)
    first = page.locator("#pr-list .pr-row").first
    # with the matching phase counted, throwing 5H 5S stays best, just ahead of 6D KD (docs/advice.md)
    assert first.locator(".pr-throw").inner_text().split() == ["throw", "5\u2665", "5\u2660"]
    assert first.locator(".pr-net").inner_text() == f"net \u2212{-float(want.discards[0].total):.2f}"   # -11.64
    # "net" is explained above the figures, with the one convention: higher is better for you
    help_ = page.inner_text("#pr-net-help")
    assert "Higher is better for you" in help_ and "push you toward 16" in help_ and "below zero" in help_
    assert "hand 3.57" in first.inner_text() and "pocket 8.79" in first.inner_text()
    assert f"pegging +{float(want.discards[0].pegging_net):.2f}" in first.inner_text()
    second = page.locator("#pr-list .pr-row").nth(1)
    assert second.locator(".pr-throw").inner_text().split() == ["throw", "6\u2666", "K\u2666"]
    expect(page.locator("#pr-detail")).to_contain_text("other player leads")   # the dealer does not lead
    assert "fewer is better" in page.inner_text("#pr-summary") and "yours" in page.inner_text("#pr-summary")
    # the kept hand's distribution: one bar per score, heights adding up to every turn-up
    bars = page.locator("#pr-chart rect")
    probs = [float(b.get_attribute("data-p")) for b in bars.all()]
    assert abs(sum(probs) - 1) < 1e-9
    # the selection stays on the discard picked before the matching phase arrived: 5H 5S, still first
    kept = next(d for d in want.discards if [str(c) for c in d.discard] == ["5H", "5S"])
    assert page.locator("#pr-list .pr-row.sel").get_attribute("data-place") == "1"
    dist = kept.hand_distribution()
    assert {int(b.get_attribute("data-points")): float(b.get_attribute("data-p")) for b in bars.all() if float(b.get_attribute("data-p"))} \
        == {k: float(v) for k, v in dist.items()}
    assert "equally likely" in page.inner_text("#pr-result")
    shot(page, "practice")
    assert "the best discard" in page.inner_text("#pr-detail")
    # another discard opens its own detail; the worst one says its net and how far below the best it is
    page.locator("#pr-list .pr-row").last.locator("button").click()
    expect(page.locator("#pr-detail")).to_contain_text("points below the best discard")
    worst = want.discards[-1]
    gap = float(want.discards[0].total - worst.total)
    assert gap > 0
    assert f"net \u2212{-float(worst.total):.2f}, {gap:.2f} points below the best discard" in page.inner_text("#pr-detail")
    # cribbage, the non-dealer, with the scores: ranked by the chance of reaching 121 this hand
    page.select_option("#pr-game", "cribbage")
    page.click("#pr-seat [data-seat='1']")
    page.fill("#pr-scores", "110,100")
    pick(page, ["5H", "5S", "5D", "5C", "KH", "QH"])
    expect(page.locator("#pr-list .pr-row")).to_have_count(15)
    expect(page.locator("#pr-list .pr-row").first).to_contain_text("pegging", timeout=120_000)
    assert "reach" in page.inner_text("#pr-list .pr-row >> nth=0")
    assert "chance of reaching 121" in page.inner_text("#pr-summary")
    # the non-dealer leads: the kept hand's leads ranked, with the reply's chances
    from companion.advice.pegging import rank_plays
    crib = advise("5H 5S 5D 5C KH QH", game="cribbage", dealer=False, scores=[110, 100], pegging=True)
    keep, thrown = crib.discards[0].keep, crib.discards[0].discard
    leads = rank_plays(keep, game="cribbage", seen=thrown)
    expect(page.locator("#pr-leads .pr-play")).to_have_count(len(leads.plays), timeout=60_000)
    top = page.locator("#pr-leads .pr-play").first
    assert top.get_attribute("data-card") == str(leads.plays[0].card)
    assert f"reply scores {100 * float(leads.plays[0].reply['scores']):.0f}%" in top.inner_text()
    # every tap target of the view is a thumb's size and nothing sticks out sideways
    for el in page.locator("#view-count button:visible, #view-count select:visible, #view-count input:visible").all():
        box = el.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, el.evaluate("e => e.outerHTML.slice(0, 80)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # a long answer says so (issue 25 item 4): while the board works (its answers held here) the page shows what
    # it is doing with a Cancel button; Cancel stops the work on the board, and the job says so from then on
    held = []
    page.route("**/api/jobs/*", lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    page.fill("#pr-scores", "100,100")
    page.press("#pr-scores", "Tab")                          # asked again: the plain ranking, then the job
    job = page.locator("#pr-job .job")
    expect(job).to_contain_text("Cancel")
    job_id = job.get_attribute("data-job")
    assert job.get_attribute("role") == "status" and page.locator("#pr-job progress").count() == 1
    with page.expect_request(lambda r: r.method == "DELETE" and r.url.endswith(f"/api/jobs/{job_id}")):
        page.click("#pr-job .job-cancel")
    expect(page.locator("#pr-job .job")).to_have_count(0)
    page.unroute("**/api/jobs/*")            # the polls held stay unanswered: the page stopped asking
    # the board may have finished first (these cards were asked before: a cached answer); either way the page
    # dropped it (no ranking drawn), and a cancel that arrives in time kills the work (tests/test_web_jobs.py)
    state = page.evaluate("id => fetch('/api/jobs/' + id).then(r => r.json()).then(j => j.state)", job_id)
    assert state in ("cancelled", "done") and page.locator("#pr-list .pr-row").count() == 0
    # a page that goes away (reloaded, closed, put to sleep) drops the job it follows on the board: the DELETE
    # goes out through the page's one HTTP client as the page goes (keepalive)
    page.route("**/api/jobs/*", lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    jobs = server.app.extensions["landsend.jobs"]
    started, start = [], jobs.start_process
    jobs.start_process = lambda *a, **k: (lambda j: (started.append(j.id), j)[1])(start(*a, **k))
    asked, cancel = [], jobs.cancel
    jobs.cancel = lambda jid, owner: (asked.append(jid), cancel(jid, owner))[1]
    posts, answered = [], []                     # the page's POST /api/jobs, sent and answered
    page.on("request", lambda r: posts.append(r) if r.method == "POST" and r.url.endswith("/api/jobs") else None)
    page.on("requestfinished", lambda r: answered.append(r) if r in posts else None)

    def settled():                               # no job asked for is on its way, and the page shows the newest
        return (len(started) > 0 and len(answered) == len(posts) == len(started)
                and job.count() == 1 and job.get_attribute("data-job") == started[-1])
    page.fill("#pr-scores", "90,100")
    page.press("#pr-scores", "Tab")              # the plain ranking, then (when it came at once) the pegging's
    looks = []                                   # settled at ten looks in a row (half a second): not between two
    until(page, lambda: looks.append(settled()) or looks[-10:] == [True] * 10)
    job_id = job.get_attribute("data-job")
    page.reload()                                # its polls still held: the page never learnt the answer
    until(page, lambda: job_id in asked)
    page.unroute("**/api/jobs/*")
    jobs.start_process, jobs.cancel = start, cancel
    page.click("[data-tab=count]")
    page.click("[data-pr-mode=count]")
    expect(page.locator("#qc-picker")).to_be_visible()
    assert page.outside == [] and page.errors == []


def test_live_advice_is_a_table_setting_off_by_default(server, phones):
    server.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    page = phones(server.url)
    page.click("[data-tab=count]")
    page.click("[data-pr-mode=practice]")
    expect(page.locator("#pr-live")).to_contain_text("No advice on the hand in progress at this table")
    expect(page.locator("#pr-player")).to_have_count(0)
    server.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob",
                         "options": {"live_advice": True}})
    server.table.submit({"type": "peg", "side": "p2", "points": 12})
    page.click("[data-tab=table]")
    page.click("[data-tab=count]")
    page.select_option("#pr-player", "Bob")                       # Bob deals and is at 12
    pick(page, ["5H", "5S", "6D", "JC", "4C", "KD"])
    expect(page.locator("#pr-list .pr-row")).to_have_count(15)
    expect(page.locator("#pr-list .pr-row").first).to_contain_text("pegging", timeout=120_000)
    want = advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[12, 0], pegging=True)
    assert "chance of reaching 16" in page.inner_text("#pr-summary")
    assert f"reach {100 * float(want.discards[0].reach):.1f}%" in page.inner_text("#pr-list .pr-row >> nth=0")
    # the matching phase: the table knows the plays, the phone says which cards it still holds
    server.table.submit({"type": "turnup", "card": "2D"})
    server.table.submit({"type": "play", "card": "KS", "player": "Ann"})
    page.click("[data-tab=table]")
    page.click("[data-tab=count]")
    page.select_option("#pr-player", "Bob")
    page.fill("#pr-peg-cards", "5H 9C JD QD")
    page.click("#pr-peg-ask")
    from companion import get_ruleset
    from companion.advice.pegging import rank_plays
    want = rank_plays("5H 9C JD QD", game=get_ruleset("lands-end", live_advice=True), played="KS", dealer=True,
                      turnup="2D")
    expect(page.locator("#pr-peg-live .pr-play")).to_have_count(len(want.plays), timeout=60_000)
    assert page.locator("#pr-peg-live .pr-play").first.get_attribute("data-card") == str(want.plays[0].card)
    assert "Your next card" in page.inner_text("#pr-peg-live")
    assert page.errors == []


def test_review_of_a_shown_hand(server, phones):
    t = server.table
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    t.submit({"type": "turnup", "card": "2C"})
    for player, card in [("Ann", "KH"), ("Bob", "5S"), ("Ann", "AH"), ("Bob", "AS"), ("Ann", "3D"), ("Bob", "3S"),
                         ("Ann", "4D"), ("Bob", "4S")]:
        t.submit({"type": "play", "card": card, "player": player})
    t.submit({"type": "show"})
    t.submit({"type": "show"})
    t.submit({"type": "pocket", "cards": ["9C", "8C", "7H", "6H"]})
    page = phones(server.url)
    page.click("#claim")                # a joined phone asks its long answers as jobs (a visitor's page: the GET routes)
    page.wait_for_selector("#role:text-is('host')")
    asks = []                                    # how the page asks for the review: as jobs only (issue 25 item 4)
    page.on("request", lambda r: asks.append((r.method, r.url.split("/api/")[-1], r.post_data))
            if "/api/review" in r.url or (r.method == "POST" and r.url.endswith("/api/jobs")) else None)
    page.click("[data-tab=history]")
    expect(page.locator("#review")).to_contain_text("Review of hand 1")
    assert asks[0] == ("POST", "jobs", '{"kind":"review","args":{}}')
    assert not [a for a in asks if a[1].startswith("review")]
    ann = page.locator("#review [data-player='Ann']")
    expect(ann).to_contain_text("kept")
    ann.locator("[data-card='9C']").click()
    ann.locator("[data-card='7H']").click()      # at once, before the answer to the first tap: both count
    expect(ann.locator("[data-card='9C']")).to_have_attribute("aria-pressed", "true")
    expect(ann.locator("[data-card='7H']")).to_have_attribute("aria-pressed", "true")
    # with Ann's two known, Bob's are the other two: both players are reviewed
    expect(ann.locator(".rv-figs")).to_be_visible()
    bob = page.locator("#review [data-player='Bob']")
    expect(bob.locator(".rv-figs")).to_be_visible()
    a = advise("KH AH 3D 4D 9C 7H", game="cribbage", dealer=False)
    kept = next(d for d in a.discards if {str(c) for c in d.discard} == {"9C", "7H"})
    rank = 1 + list(a.discards).index(kept)
    text = ann.inner_text()
    assert f"kept hand {float(kept.hand_mean):.2f} on average" in text and f"#{rank} of 15" in text
    assert f"net {signed(a.discards[0].net)}" in ann.locator(".rv-best").inner_text()
    # the net of Ann's throw with the same sign convention, and how far below the best discard it is, in points
    assert rank > 1 and f"net {signed(kept.net)} (#{rank} of 15, {float(a.discards[0].net - kept.net):.2f} points below the best discard)" in text
    help_ = page.inner_text("#rv-net-help")
    assert "Higher is better for you" in help_ and "toward winning count plus" in help_
    # Bob (the dealer: the crib is his) read with the same convention, from his own seat
    b = advise("5S AS 3S 4S 8C 6H", game="cribbage", dealer=True)
    bk = next(d for d in b.discards if {str(c) for c in d.discard} == {"8C", "6H"})
    brank = 1 + list(b.discards).index(bk)
    want_b = f"net {signed(bk.net)} (" + ("the best of 15" if brank == 1 else
                                              f"#{brank} of 15, {float(b.discards[0].net - bk.net):.2f} points below the best discard") + ")"
    assert want_b in bob.locator(".rv-figs").inner_text()
    assert bob.locator("[data-card='8C']").get_attribute("aria-pressed") == "true"
    # each card Ann played against the model's best: her lead first
    from companion.advice.pegging import rank_plays
    lead = rank_plays("KH AH 3D 4D", game="cribbage", turnup="2C", seen="9C 7H")
    kh = next(p for p in lead.plays if str(p.card) == "KH")
    expect(ann.locator(".rv-peg")).to_have_count(4, timeout=120_000)
    first = ann.locator(".rv-peg").first.inner_text()
    assert first.startswith("you led K\u2665: ") and f"{abs(float(kh.net)):.2f} by the game's goal" in first
    shot(page, "review")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.outside == [] and page.errors == []


def test_three_hand_live_advice_and_review_of_the_matching_phase(server, phones):
    """Three-hand Land's End (tests/test_review_multi.py's hand, checked by hand): Ann asks for her next card
    after Cy's and Bob's gos, then the review puts each card she played against the model's best."""
    from companion import get_ruleset
    from companion.advice.pegging_multi import rank_plays
    sys.path.insert(0, str(Path(__file__).parents[1]))       # tests/: the hand is tests/test_review_multi.py's
    from test_review_multi import TOKENS, play_hand
    play_hand(server.table, until=4)
    page = phones(server.url)
    page.click("[data-tab=count]")
    page.click("[data-pr-mode=practice]")
    page.select_option("#pr-player", "Ann")
    page.fill("#pr-peg-cards", "5S 6D 7C")
    page.click("#pr-peg-ask")
    want = rank_plays("5S 6D 7C", game=get_ruleset("lands-end-3", live_advice=True), played=TOKENS[:7], seat=1,
                      turnup="2D")
    expect(page.locator("#pr-peg-live .pr-play")).to_have_count(len(want.plays), timeout=60_000)
    assert page.locator("#pr-peg-live .pr-play").first.get_attribute("data-card") == str(want.plays[0].card)
    server.table.submit({"type": "new_match", "game": "lands-end-3", "players": ["Ann", "Bob", "Cy"],
                         "first_dealer": "Cy"})
    play_hand(server.table)
    page.click("[data-tab=history]")
    expect(page.locator("#review")).to_contain_text("Review of hand 1")
    ann = page.locator("#review [data-player='Ann']")
    expect(ann.locator(".rv-peg")).to_have_count(4, timeout=120_000)
    assert ann.locator(".rv-peg").first.inner_text().startswith("you led K\u2665: ")
    assert "deals of the others' cards" in ann.locator(".rv-peg").first.inner_text()
    assert page.errors == []


def test_practice_and_review_have_no_serious_accessibility_violation(server, browser):
    """axe-core (as tests/browser/test_a11y.py injects it) on the ranked discards and on a review."""
    import pytest
    from test_a11y import AXE, violations
    if not AXE.exists():
        pytest.skip(f"{AXE} is missing (./test.sh installs axe-core with npm)")
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        ctx.add_init_script(path=str(AXE))
        page = ctx.new_page()
        page.goto(server.url)
        page.wait_for_selector("#conn.ok")
        page.click("[data-tab=count]")
        page.click("[data-pr-mode=practice]")
        pick(page, ["5H", "5S", "6D", "JC", "4C", "KD"])
        expect(page.locator("#pr-list .pr-row")).to_have_count(15)
        assert violations(page) == []
        t = server.table
        t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
        t.submit({"type": "turnup", "card": "2C"})
        for player, card in [("Ann", "KH"), ("Bob", "5S"), ("Ann", "AH"), ("Bob", "AS"), ("Ann", "3D"), ("Bob", "3S"),
                             ("Ann", "4D"), ("Bob", "4S")]:
            t.submit({"type": "play", "card": card, "player": player})
        t.submit({"type": "show"})
        t.submit({"type": "show"})
        t.submit({"type": "pocket", "cards": ["9C", "8C", "7H", "6H"]})
        page.click("[data-tab=history]")
        page.locator("#review [data-player='Ann'] [data-card='9C']").click()
        page.locator("#review [data-player='Ann'] [data-card='7H']").click()
        expect(page.locator("#review [data-player='Bob'] .rv-figs")).to_be_visible()
        assert violations(page) == []
    finally:
        ctx.close()


VIEWPORTS = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["390x844", "360x740"])
def test_a_cancelled_or_failed_job_clears_its_progress_and_says_so(server, browser, viewport):
    """Issue 36 item 4: Cancel left "counting every turn-up…" on the practice screen for good (the worker is
    killed and replaced, the page never cleared its line). Cancelled, the line says "Cancelled."; a job that
    fails says why; and neither leaves a bar, a Cancel button or a waiting line behind."""
    with phone_at(browser, server.url, viewport) as page:
        claim(page)                              # jobs are the joined phones' (a visitor's page asks the GET routes)
        page.click("[data-tab=count]")
        page.click("[data-pr-mode=practice]")
        page.select_option("#pr-game", "lands-end")
        held = []                                # the board's answers about the job, held here: it stays running
        page.route("**/api/jobs/*", lambda route: held.append(route) if route.request.method == "GET"
                   else route.continue_())
        pick(page, ["5H", "5S", "6D", "JC", "4C", "KD"])
        result, job = page.locator("#pr-result"), page.locator("#pr-job .job")
        expect(job).to_contain_text("Cancel")
        expect(result).to_have_text("counting every turn-up\u2026")
        job_id = job.get_attribute("data-job")
        with page.expect_request(lambda r: r.method == "DELETE" and r.url.endswith(f"/api/jobs/{job_id}")):
            page.click("#pr-job .job-cancel")
        expect(result).to_have_text("Cancelled.")
        assert result.locator("[role=status]").count() == 1
        still = "#view-count .job, #view-count progress, #view-count .job-cancel, #view-count .job-wait"
        assert page.locator(still).count() == 0
        page.unroute("**/api/jobs/*")
        # a job that fails on the board (its worker gone): the reason, in place of the progress line
        page.route("**/api/jobs/*", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({
                "id": "x", "kind": "advise", "state": "failed", "error": "the advice worker stopped",
                "status": 500, "progress": {"done": 0, "of": 1, "what": "starting"}, "elapsed": 0.2,
                "url": "/api/jobs/x"})) if route.request.method == "GET" else route.continue_())
        page.fill("#pr-scores", "5,5")
        page.press("#pr-scores", "Tab")             # asked again
        expect(result.locator("[role=alert]")).to_have_text("the advice worker stopped")
        assert "counting" not in result.inner_text() and page.locator(still).count() == 0
        page.unroute("**/api/jobs/*")
        # the board busy with other phones' answers (503: "waiting…"), then refusing the question: the waiting
        # line goes with the wait, the reason stays
        posts = []

        def answer(route):
            posts.append(route)
            if len(posts) == 1:
                route.fulfill(status=503, content_type="application/json",
                              body=json.dumps({"error": "two long answers are running: try again in a moment"}))
            else:
                route.fulfill(status=400, content_type="application/json", body=json.dumps({"error": "no such cards"}))
        page.route("**/api/jobs", answer)
        page.fill("#pr-scores", "6,5")
        page.press("#pr-scores", "Tab")
        expect(page.locator("#pr-job .job-wait")).to_contain_text("busy")
        expect(result.locator("[role=alert]")).to_have_text("no such cards")
        assert len(posts) == 2 and page.locator(still).count() == 0
        assert page.errors == []
