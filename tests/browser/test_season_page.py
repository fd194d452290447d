"""The night, the season and the score race on the phone (web/static/season.js), at 390x844 and 360x740: the
numbers of every chart are the numbers of the table beside it, both palettes, nothing wider than the phone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import claim, phone_at, shot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # tests/: the hand-counted database
from season_db import Clock, build  # noqa: E402

AXE = Path(__file__).resolve().parents[2] / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"


def cells(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(f"{selector} tbody tr",
                                     "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")


def lines(page, box: str) -> dict[str, list[float]]:
    return page.eval_on_selector_all(
        f"{box} polyline", "ls => Object.fromEntries(ls.map(l => [l.dataset.series, l.dataset.values.split(',').map(Number)]))")


def strokes(page, box: str) -> list[str]:
    return page.eval_on_selector_all(f"{box} polyline", "ls => ls.map(l => l.getAttribute('stroke'))")


def fits(page, viewport) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for box in page.eval_on_selector_all("svg.chart", "ss => ss.map(s => s.getBoundingClientRect().right)"):
        assert box <= viewport["width"]


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 360, "height": 740}],
                         ids=["390x844", "360x740"])
def test_the_night_the_season_and_the_race(make_server, browser, viewport):
    clock = Clock()
    from companion.table import Table
    server = make_server(table=build(Table.memory(clock=clock, default_match=None), clock))
    with phone_at(browser, server.url, viewport, script=AXE) as page:
        errors = page.errors
        claim(page)
        # the night on the More tab: the hand-counted standing and its three payments
        page.click("[data-tab=more]")
        page.wait_for_selector("#night .night-table")
        assert cells(page, "#night .night-table") == [["House", "+4", "1", "1", "0"], ["Ann", "+2", "2", "1", "1"],
                                                       ["Cy", "-1", "1", "0", "1"], ["Dee", "-1", "1", "0", "1"],
                                                       ["Bob", "-4", "2", "0", "2"]]
        assert page.locator("#night .payments li").all_text_contents() == [
            "Bob pays House 4", "Cy pays Ann 1", "Dee pays Ann 1"]
        # the season: its table, and the money chart's lines are the running totals of the table beside it
        page.click("#season-open")
        page.wait_for_selector("#season svg.chart")
        season = cells(page, "#season .season-table")
        assert season[0][:6] == ["Bob", "+7", "3", "6", "3", "3"] and season[1][:6] == ["Ann", "+5", "3", "6", "3", "3"]
        money = cells(page, "#season .money-table")
        drawn = lines(page, "#season")
        assert list(drawn) == ["Bob", "Ann", "Dee", "Cy"]
        for k, name in enumerate(drawn):
            assert [float(r[k + 1]) for r in money] == drawn[name]
        assert drawn["Ann"] == [-6, 3, 5] and drawn["Cy"] == [0, -14, -15]
        assert strokes(page, "#season")[:2] == ["#f0b429", "#6cb4ff"]
        page.select_option("#h2h-player", "Ann")
        assert cells(page, "#h2h")[0] == ["Bob", "6", "2", "2", "-2"]
        # the host renames Dee: the season follows at once, and History's undo takes it back
        page.select_option("#rn-name", "Dee")
        page.fill("#rn-to", "Deirdre")
        page.click("#rn-rename")
        expect(page.locator("#season .season-table")).to_contain_text("Deirdre")
        page.fill("#rn-to", "Ann")
        page.click("#rn-rename")                      # another player's name: refused, nothing changed
        expect(page.locator("#toast")).to_contain_text("merge")
        server.table.submit({"type": "undo"})
        page.click("#season-open")
        page.click("#season-open")
        expect(page.locator("#season .season-table")).to_contain_text("Dee")
        fits(page, viewport)
        if AXE.exists():
            found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
                .filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id + ": " + v.help)""")
            assert found == []
        if viewport["width"] == 390:
            page.locator("#night-panel").scroll_into_view_if_needed()
            shot(page, "season")
        # the host settles the night: the page says so, and the button goes
        page.click("#night-settle")
        expect(page.locator("#night")).to_contain_text("settled")
        expect(page.locator("#night-settle")).to_have_count(0)
        # night 1 was never settled: it is listed, viewed with its own settle-up, and settled by its number
        page.click("#open-nights [data-night='1']")
        expect(page.locator("#night-head")).to_contain_text("Night 1")
        assert page.locator("#night .payments li").all_text_contents() == ["Ann pays Bob 6"]
        page.click("#night-settle")
        expect(page.locator("#night-head")).to_contain_text("settled")
        expect(page.locator("#open-nights [data-night='1']")).to_have_count(0)
        expect(page.locator("#open-nights [data-night='2']")).to_have_count(1)
        # the score race of the game in play (cribbage, all pegged by hand) in History, at both palettes
        page.route("**/api/settings", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"voice": None, "palette": "colour-blind"})))
        page.reload()
        page.wait_for_selector("#conn.ok")
        server.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1,
                             "first_dealer": "Bob"})
        for side, points in (("p1", 3), ("p2", 5), ("p1", 4)):
            server.table.submit({"type": "peg", "side": side, "points": points})
        page.click("[data-tab=history]")
        page.click("#h-race")
        page.wait_for_selector("#h-race-box svg.chart")
        race = lines(page, "#h-race-box")
        assert race == {"Ann": [0, 7, 7], "Bob": [0, 5, 5]}
        assert cells(page, "#h-race-box .race-table") == [["1", "7 + 0 = 7", "5 + 0 = 5"]]
        assert strokes(page, "#h-race-box") == ["#e69f00", "#56b4e9"]
        # an earlier game's race (night 1's second game, HAND_ZERO: a last card each, Ann 4 + pocket 6 against
        # Bob's zero hand 5, then Ann pegs 5 by hand)
        page.click("#h-games")
        page.select_option("#h-games-pick", "5")
        expect(page.locator("#h-games-race .race-table")).to_contain_text("5 + 0 = 16")
        assert cells(page, "#h-games-race .race-table") == [["1", "1 + 10 = 11", "1 + 5 = 6"],
                                                            ["2", "5 + 0 = 16", "0 + 0 = 6"]]
        assert lines(page, "#h-games-race") == {"Ann": [0, 1, 11, 16, 16], "Bob": [0, 1, 6, 6, 6]}
        fits(page, viewport)
        assert errors == []



@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 360, "height": 740}],
                         ids=["390x844", "360x740"])
def test_one_night_shows_its_bars_and_the_wide_table_says_it_scrolls(make_server, browser, viewport):
    """Issue 36 item 5: a season of one night drew only the money chart's axis (a line needs two nights); the
    12-column season table scrolled inside its box with nothing to say so."""
    from companion.replay import import_record
    from companion.table import Table
    from season_db import HAND_29
    clock = Clock()
    t = Table.memory(clock=clock, default_match=None)
    t.clock = clock
    import_record(t, HAND_29)                      # Ann's 29 and her peg out at 31: Ann pays Bob x4
    server = make_server(table=t)
    with phone_at(browser, server.url, viewport, script=AXE) as page:
        errors = page.errors
        claim(page)
        page.click("[data-tab=more]")
        page.click("#season-open")
        page.wait_for_selector("#season svg.chart")
        # the night as a bar per player, its value the running total of the table beside it; the caption says so
        bars = page.eval_on_selector_all("#season svg.chart rect[data-series]",
                                         "rs => rs.map(r => [r.dataset.series, Number(r.dataset.values), "
                                         "r.getBoundingClientRect().height])")
        assert [b[:2] for b in bars] == [["Bob", 4], ["Ann", -4]] and all(b[2] > 20 for b in bars)
        assert cells(page, "#season .money-table") == [["N1 2026-11-20", "+4", "-4"]]
        expect(page.locator("#season figcaption")).to_contain_text("one night so far (N1)")
        assert page.locator("#season polyline").count() == 0
        # the season table is wider than the screen: "scroll →" over it and a shadow on its right edge, until
        # its last column is scrolled into view
        wide = page.locator("#season .season-table")
        assert wide.evaluate("t => t.scrollWidth > t.clientWidth")
        hint = page.locator("#season .scroll-box:has(.season-table) .scroll-hint")
        expect(hint).to_be_visible()
        assert hint.inner_text() == "scroll \u2192"
        fade = "t => { const s = getComputedStyle(t.parentNode, '::after'); return [s.visibility, s.backgroundImage]; }"
        seen, image = wide.evaluate(fade)
        assert seen == "visible" and image.startswith("linear-gradient")
        wide.evaluate("t => { t.scrollLeft = t.scrollWidth; }")
        expect(hint).to_be_hidden()
        assert wide.evaluate(fade)[0] == "hidden"
        # a table that fits says nothing
        expect(page.locator("#night .scroll-box:has(.night-table) .scroll-hint")).to_be_hidden()
        fits(page, viewport)
        if AXE.exists():
            found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
                .filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id + ": " + v.help)""")
            assert found == []
        assert errors == []

