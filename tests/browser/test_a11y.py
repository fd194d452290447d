"""Accessibility: axe-core finds no serious or critical violation on any screen; cards and announcements speak.

axe-core comes from the npm registry (scripts/ensure-axe.sh, run by
./test.sh, installs the pinned version into .cache/axe) and is injected from
that local file before the page's own scripts, so the page still makes no
outside request. Every screen is checked at 390x844 and 360x740: table (mid-game, card
picker open), new game, quick count, history, settings (with the board's
voice and palette), result, tabletop.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import PHONE, claim, open_page, shot, until

AXE = Path(__file__).resolve().parents[2] / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = pytest.mark.skipif(not AXE.exists(), reason=f"{AXE} is missing (./test.sh installs axe-core with npm)")


@pytest.fixture
def phone(browser):
    """Return a function opening a phone (390x844) with axe-core injected before the page's scripts."""
    contexts = []

    def open_(url: str, *, large: bool = False, viewport: dict = PHONE):
        ctx = browser.new_context(viewport=viewport, device_scale_factor=2, is_mobile=True, has_touch=True)
        contexts.append(ctx)
        ctx.add_init_script(path=str(AXE))
        if large:
            ctx.add_init_script("try { localStorage.setItem('le.large', '1'); } catch (e) {}")
        return open_page(ctx, url)

    yield open_
    for ctx in contexts:
        ctx.close()


def violations(page) -> list[str]:
    """Return the serious and critical axe-core violations of the page as it is now, one line each."""
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ["violations"]});
        return r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + ": " + n.failureSummary)}));
    }""")
    return [f"{v['impact']} {v['id']} ({v['help']}): {json.dumps(v['nodes'])}" for v in result]


def pick(page, card: str, where: str = "#picker") -> None:
    page.click(f"{where} [data-rank='{card[:-1]}']")
    page.click(f"{where} [data-card='{card}']")


def start(page, game="lands-end", names=("Ann", "Bob")):
    claim(page)
    page.select_option("#ng-game", game)
    for i, n in enumerate(names):
        page.fill(f"[data-name='{i}']", n)
    page.select_option("#ng-dealer", names[1])
    page.click("#ng-start")
    page.wait_for_selector("#view-table:not([hidden])")


@pytest.fixture
def board_server(make_server):
    """The app with the firmware's render loop and a voice that records what it would say."""
    from companion.table import Table
    from firmware.geometry import Geometry
    from firmware.render_loop import RenderLoop
    from firmware.voice import Settings, Voice

    class Recorder:
        def __init__(self):
            self.said = []

        def problem(self):
            return None

        def render(self, text, settings):
            return text.encode()

        def play(self, wav, text):
            self.said.append(text)

    table = Table.memory()
    loop = RenderLoop(None, Geometry())
    table.subscribe(loop.update)
    loop.update(table.snapshot())
    loop.start()
    rec = Recorder()
    voice = Voice(rec, rec, Settings(enabled=False))
    table.subscribe(voice.update)
    voice.start()
    server = make_server(table=table, board=loop)
    server.app.extensions["landsend.voice"] = voice
    server.voice, server.said = voice, rec.said
    yield server
    voice.stop()
    loop.stop()


@pytest.mark.parametrize("viewport", [PHONE, {"width": 360, "height": 740}], ids=["390x844", "360x740"])
def test_every_screen_has_no_serious_or_critical_violation(board_server, phone, viewport):
    server = board_server
    page = phone(server.url, viewport=viewport)
    found: dict[str, list[str]] = {}
    found["new game"] = violations(page)             # the claim leads to the new-game form
    start(page)
    pick(page, "KD")                                  # the turn-up
    page.click("#picker [data-rank='5']")             # the card picker open on the second step
    found["table"] = violations(page)
    page.click("[data-tab=count]")
    for card in ("5H", "5S", "5D", "JC", "5C"):
        pick(page, card, "#qc-picker")
    page.click("#qc-go")
    expect(page.locator("#qc-result")).to_contain_text("29")
    found["count"] = violations(page)
    page.click("[data-tab=history]")
    page.wait_for_selector("#h-list .hist-ev")
    found["history"] = violations(page)
    page.click("[data-tab=more]")
    page.wait_for_selector("#board-settings:not([hidden])")
    page.wait_for_selector("#keep:not([hidden])")          # the host's backups (keep the season)
    found["settings"] = violations(page)
    page.click("[data-tab=table]")
    server.table.submit({"type": "peg", "side": "p1", "points": 16})
    page.wait_for_selector("#result:not([hidden])")
    found["result"] = violations(page)
    server.table.submit({"type": "new_match", "game": "lands-end-tabletop", "players": ["Ann", "Bob"],
                         "first_dealer": "Bob"})
    server.table.submit({"type": "turnup", "card": "6S"})
    page.wait_for_selector("[data-cell='12']:text-is('6\u2660')")
    found["tabletop"] = violations(page)
    bad = [f"{screen}: {line}" for screen, lines in found.items() for line in lines]
    assert not bad, "\n".join(bad)
    assert page.errors == []


def test_large_text_mode_grows_the_page_and_passes_too(board_server, phone):
    page = phone(board_server.url)
    normal = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    page.click("[data-tab=more]")
    page.check("#set-large")
    large = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert (normal, large) == (16.0, 20.0)
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "20px"
    assert violations(page) == []
    again = phone(board_server.url, large=True, viewport={"width": 360, "height": 740})   # kept on the phone
    assert again.evaluate("document.documentElement.classList.contains('large')") is True
    start(again)
    pick(again, "KD")
    again.click("#picker [data-rank='5']")
    # large text at 360 px wide: nothing runs off the side, and the table screen still passes
    assert again.evaluate("document.documentElement.scrollWidth") <= 360
    assert violations(again) == []


def test_cards_are_named_for_screen_readers(board_server, phone):
    page = phone(board_server.url)
    start(page)
    pick(page, "KD")                                              # the turn-up
    until(page, lambda: board_server.table.snapshot()["turnup"] == "KD")
    expect(page.locator("#step")).to_contain_text("to play")      # the page has taken it in: the picker is for plays
    # the step line draws the turn-up K♦ and names it (the symbol alone is read "black diamond suit")
    expect(page.locator("#step .step-detail")).to_have_text("turn-up K\u2666")
    expect(page.locator("#step [role=img]")).to_have_attribute("aria-label", "king of diamonds")
    page.click("#picker [data-rank='5']")
    expect(page.locator("#picker [data-card='5H']")).to_have_attribute("aria-label", "5 of hearts")  # "five of hearts"
    expect(page.locator("#picker [data-rank='5']")).to_have_attribute("aria-pressed", "true")
    page.click("#picker [data-rank='Q']")
    expect(page.locator("#picker [data-card='QS']")).to_have_attribute("aria-label", "Q, queen of spades")
    expect(page.locator("#picker [data-rank='A']")).to_have_attribute("aria-label", "A, ace")
    expect(page.locator("#picker [data-rank='10']")).not_to_have_attribute("aria-label", re.compile(".*"))
    page.click("#picker [data-card='QS']")
    page.wait_for_selector(".card[role=img][aria-label='queen of spades']")   # a card shown, not a button


def test_announcements_go_to_a_live_region_and_the_board_says_the_same_words(board_server, phone):
    server = board_server
    page = phone(server.url)
    start(page)
    page.click("[data-tab=more]")
    page.check("#bs-voice")
    until(page, lambda: server.voice.settings.enabled)
    page.click("[data-tab=table]")
    pick(page, "2C")
    pick(page, "10H")
    pick(page, "5S")
    live = page.locator("#announce")
    expect(live).to_have_attribute("aria-live", "polite")
    expect(live).to_contain_text("fifteen for two")
    assert server.voice.wait_idle(10)
    assert server.said == ["ten", "fifteen for two. Bob played: 2 to Ann"]
    assert live.inner_text().replace("\n", " ").startswith("fifteen for two")


def test_the_voice_test_button_speaks_on_the_board(board_server, phone):
    server = board_server
    page = phone(server.url)
    start(page)
    page.click("[data-tab=more]")
    page.click("#bs-test")
    expect(page.locator("#bs-state")).to_have_text("Turn the voice on first.")
    page.check("#bs-voice")
    expect(page.locator("#bs-state")).to_have_text("The board speaks every announcement.")
    page.click("#bs-test")
    until(page, lambda: server.said == ["fifteen two, fifteen four, and a pair is six"])
    page.locator("#board-settings").scroll_into_view_if_needed()
    shot(page, "settings")
    page.select_option("#bs-palette", "colour-blind")
    until(page, lambda: server.app.extensions["landsend"].board.palette.name == "colour-blind")
