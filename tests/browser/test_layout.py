"""The table screen's layout (issue 14), in a real browser at 360x740 and 390x844.

* Large text (the page's own setting, More > Settings: the root font 125 %, body text 20 px; Chromium's own
  text zoom cannot be set from Playwright) on the one phone that enters for the whole table (the join code
  stays in its header): through a whole two-hand Land's End hand the count, the cards of the count and whose
  turn it is stay inside the screen and above the card picker in every step, the "whose card?" question
  included; in the shows the question, the cards asked about and the answer, and the pocket's tray too.
* The who-plays chips follow the score panels' order (the board's lane order; four-hand partners: each
  side's players under its panel) and fit one row, none cut short, in 2-, 3- and 4-player games.
* The tabletop grid (Table Top Cribbage with its crib, Tabletop Land's End): with large text the hint, a
  square, the crib row and its button, and the layout button can be scrolled to and tapped, and a chosen
  square or the crib stays in sight above the picker.
* The legend of the board's status lights is there only with a board and names the colours the firmware
  lights, with their meaning.
"""

from __future__ import annotations

import pytest

from playwright.sync_api import expect

from conftest import claim, shot, until
from test_table_page import VIEWPORTS, VP_IDS, box, pick


def host(phones, url: str, viewport: dict, *, large: bool = False):
    """A phone at ``viewport`` hosting the table on its Table screen, with the page's large text switched on
    under More > Settings as a player would (kept on the phone)."""
    page = phones(url)
    page.set_viewport_size(viewport)
    claim(page)
    if large:
        page.click("[data-tab=more]")
        page.check("#set-large")
        assert page.evaluate("getComputedStyle(document.body).fontSize") == "20px"
    page.click("[data-tab=table]")
    expect(page.locator("#toast")).to_be_hidden()        # "You host this table" goes after 2.5 s
    return page


def assert_above_picker(page, step: str, selectors: list[str]) -> None:
    """Each of ``selectors`` is wholly on the screen, below the sticky header and above the card picker (or
    above the tab bar when there is no picker), and nothing covers it."""
    vh = page.viewport_size["height"]
    header = box(page, "#top")
    floor = box(page, "#picker")["y"] if page.locator("#picker").is_visible() else box(page, "nav.tabs")["y"]
    assert floor <= vh
    for sel in selectors:
        b = box(page, sel)
        if not (header["y"] + header["height"] - 0.5 <= b["y"] and b["y"] + b["height"] <= floor + 0.5):
            shot(page, f"layout-failed-{page.viewport_size['width']}")          # to look at what went wrong
        where = f"{step}: {sel} at y {b['y']:.0f}-{b['y'] + b['height']:.0f}, header ends {header['y'] + header['height']:.0f}, picker starts {floor:.0f}"
        assert b["y"] >= header["y"] + header["height"] - 0.5, where
        assert b["y"] + b["height"] <= floor + 0.5, where
        assert b["x"] >= 0 and b["x"] + b["width"] <= page.viewport_size["width"] + 0.5, where
        assert uncovered(page, sel), where


def uncovered(page, sel: str) -> bool:
    """Whether nothing covers ``sel``: the element at the centre of each of its boxes (each line of a wrapped
    line of text) is ``sel`` itself or inside it."""
    return page.eval_on_selector(sel, """el => Array.from(el.getClientRects()).every(r => {
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return top !== null && (top === el || el.contains(top)); })""")


def seq(server) -> int:
    return server.table.snapshot()["seq"]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_large_text_keeps_the_count_its_cards_and_the_turn_above_the_picker_in_every_step(server, phones,
                                                                                         viewport):
    page = host(phones, server.url, viewport, large=True)
    t = server.table
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob", "stake": 1})
    expect(page.locator("#step-main")).to_have_text("Cut: enter the turn-up")
    assert_above_picker(page, "turn-up", ["#step-main"])
    pick(page, "KD")
    play = ["#step-main", "#count"]
    expect(page.locator("#step-main")).to_have_text("Ann to play")
    assert_above_picker(page, "first card", play)
    # Ann K♥, Bob Q♥, Ann 9♣: 29, Bob cannot play; Ann's 2♦ for 31 asks whose card it is
    count = 0
    for card, who, value in (("KH", "Bob", 10), ("QH", "Ann", 20), ("9C", "Bob", 29)):
        pick(page, card)
        count = value
        expect(page.locator("#count")).to_have_text(str(count))
        expect(page.locator("#step-main")).to_have_text(f"{who} to play")
        assert_above_picker(page, f"after {card} ({count})", play + ["#entry .countrow .cards"])
    expect(page.locator("#entry .countrow .cards .card")).to_have_count(3)
    pick(page, "2D")
    expect(page.locator("#whose-q")).to_have_text("Whose card is 2\u2666?")
    assert_above_picker(page, "whose card is 2D", play + ["#entry .countrow .cards"])
    # the question and its answers themselves are on the screen, above the tab bar
    for sel in ("#whose-q", "#whose [data-whose='Ann']", "#whose [data-whose='Bob']", "#whose-cancel"):
        b, tabs = box(page, sel), box(page, "nav.tabs")
        assert b["y"] >= 0 and b["y"] + b["height"] <= tabs["y"] + 0.5, sel
    shot(page, f"large-whose-{viewport['width']}")
    page.click("#whose [data-whose='Ann']")
    expect(page.locator("#count")).to_have_text("0")
    # after 31 Bob leads: 8♣ 8, Ann 5♥ 13, Bob 4♠ 17, Bob 3♣ 20 (Ann has no card left)
    for card, value in (("8C", 8), ("5H", 13), ("4S", 17), ("3C", 20)):
        before = seq(server)
        pick(page, card)
        until(page, lambda: seq(server) > before)
        if server.table.snapshot()["expect"] != "play":
            break
        expect(page.locator("#count")).to_have_text(str(value))
        assert_above_picker(page, f"after {card} ({value})", play + ["#entry .countrow .cards", "#step-main"])
    shot(page, f"large-play-{viewport['width']}")
    # the shows: the question and the cards it asks about, above the picker (none is up while it asks)
    for name in ("Ann", "Bob"):
        expect(page.locator("#show-q")).to_have_text(f"Are these {name}'s cards?")
        assert_above_picker(page, f"{name}'s show", ["#step-main", "#show-q", "#entry .cards", "#count-known"])
        page.click("#count-known")
    # the pocket: its tray and its button above the picker while its four cards are picked
    expect(page.locator("#step-main")).to_contain_text("pocket")
    for card in ("7D", "6C", "JH", "10S"):
        assert_above_picker(page, f"pocket before {card}", ["#step-main", "#tray", "#tray-go"])
        pick(page, card)
    shot(page, f"large-pocket-{viewport['width']}")
    page.click("#tray-go")
    until(page, lambda: server.table.snapshot()["hand_no"] == 2 or server.table.snapshot()["result"])
    assert page.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
@pytest.mark.parametrize("cmd", [
    {"game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "first_dealer": "Cy"},
    {"game": "lands-end-4", "players": ["Ann", "Bob", "Cy", "Dee"], "teams": [["Ann", "Cy"], ["Bob", "Dee"]],
     "first_dealer": "Dee"}], ids=["three-hand", "four-hand"])
def test_large_text_keeps_the_count_above_the_picker_with_three_and_four_players(server, phones, viewport, cmd):
    """Two- or three-line panels and a go row of its own leave less room: the page scrolls the panels up
    under the header rather than let the picker cover the turn, the count or its cards."""
    page = host(phones, server.url, viewport, large=True)
    server.table.submit({"type": "new_match", **cmd})
    pick(page, "KD")
    play = ["#step-main", "#count"]
    assert_above_picker(page, "first card", play)
    for card, value in (("KH", 10), ("QH", 20), ("9C", 29)):
        pick(page, card)
        expect(page.locator("#count")).to_have_text(str(value))
        assert_above_picker(page, f"after {card} ({value})", play + ["#entry .countrow .cards"])
    shot(page, f"large-{cmd['game']}-{viewport['width']}")
    assert page.errors == []


WHO_PLAYS = [
    ({"game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"}, ["Ann", "Bob"]),
    # three-hand: Cy plays on the middle lane, so the panels (in the board's lane order) read Ann, Cy, Bob
    ({"game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "first_dealer": "Ann"}, ["Ann", "Cy", "Bob"]),
    ({"game": "lands-end-casino-3", "players": ["Ann", "Bob"], "first_dealer": None}, None),
    # four-hand partners: a panel per side, each side's two players under it
    ({"game": "lands-end-4", "players": ["Ann", "Bob", "Cy", "Dee"], "teams": [["Ann", "Cy"], ["Bob", "Dee"]],
      "first_dealer": "Bob"}, ["Ann", "Cy", "Bob", "Dee"]),
]


@pytest.mark.parametrize("viewport,large", [(VIEWPORTS[0], False), (VIEWPORTS[1], False), (VIEWPORTS[0], True)],
                         ids=VP_IDS + ["360x740-large"])
def test_the_who_plays_chips_follow_the_panels_and_fit_one_row(board_server, phones, viewport, large):
    page = host(phones, board_server.url, viewport, large=large)
    for cmd, order in WHO_PLAYS:
        board_server.table.submit({"type": "new_match", **cmd})
        board_server.table.submit({"type": "turnup", "card": "KD"})
        snap = board_server.table.snapshot()
        board = board_server.app.extensions["landsend"].board
        until(page, lambda: {s["id"] for s in board.frame_json()["sides"]} == {s["id"] for s in snap["sides"]})
        lanes = {s["id"]: s["lane"] for s in board.frame_json()["sides"]}
        until(page, lambda: page.locator("#sides .side").count() == len(snap["sides"])
              and page.locator("#board [data-lane-label]").count() > 0
              and page.locator("#picker [data-player]").count() == len(snap["players"]))
        # the panels in the board's lane order, and under each panel its players: the chips read the same
        panels = sorted(snap["sides"], key=lambda s: lanes[s["id"]])
        until(page, lambda: page.locator("#sides .side").evaluate_all("els => els.map(e => e.dataset.side)")
              == [s["id"] for s in panels])
        want = [p for s in panels for p in s["players"]]
        if order:
            assert want == order                         # hand-checked: the lanes really reorder them
        chips = page.locator("#picker [data-player]")
        assert chips.evaluate_all("els => els.map(e => e.dataset.player)") == want, (cmd["game"], want)
        # one row: every chip at the same height, none cut short, none off the screen
        boxes = [c.bounding_box() for c in chips.all()]
        assert len({round(b["y"]) for b in boxes}) == 1, (cmd["game"], boxes)
        assert all(b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"] for b in boxes), cmd["game"]
        cut = chips.evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")
        assert cut == [], (cmd["game"], cut)
        # each says how many cards its player holds (in words for a screen reader)
        assert chips.first.text_content() == f"{want[0]} 4 cards left"
        assert chips.first.locator(".sr").bounding_box()["width"] <= 1            # shown: "Ann 4"
        # and the go stays one tap away, whole
        go = page.locator("#go")
        assert go.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), cmd["game"]
        shot(page, f"who-plays-{cmd['game']}-{viewport['width']}{'-large' if large else ''}")
    assert page.errors == []


def scroll_to(page, sel: str) -> None:
    """Scroll the page as a thumb would until ``sel`` sits between the header and the picker (or the tab bar),
    if the page lets it: no further than the page scrolls."""
    page.eval_on_selector(sel, """el => {
        const p = document.getElementById('picker'), tabs = document.querySelector('nav.tabs');
        const floor = (p.hidden ? tabs : p).getBoundingClientRect().top;
        const ceiling = document.getElementById('top').getBoundingClientRect().bottom;
        const r = el.getBoundingClientRect();
        if (r.bottom > floor - 8) window.scrollBy(0, r.bottom - floor + 8);
        else if (r.top < ceiling + 8) window.scrollBy(0, r.top - ceiling - 8); }""")


def assert_tappable(page, sel: str, what: str) -> None:
    """``sel`` is on the screen between the header and the picker (or the tab bar) with nothing over it."""
    floor = box(page, "#picker")["y"] if page.locator("#picker").is_visible() else box(page, "nav.tabs")["y"]
    header = box(page, "#top")
    b = box(page, sel)
    where = f"{what}: {sel} at y {b['y']:.0f}-{b['y'] + b['height']:.0f}, header ends {header['y'] + header['height']:.0f}, floor {floor:.0f}"
    if not (b["y"] >= header["y"] + header["height"] - 0.5 and b["y"] + b["height"] <= floor + 0.5 and uncovered(page, sel)):
        shot(page, f"layout-failed-{page.viewport_size['width']}")
    assert b["y"] >= header["y"] + header["height"] - 0.5, where
    assert b["y"] + b["height"] <= floor + 0.5, where
    assert uncovered(page, sel), where


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_the_grid_its_crib_row_and_its_buttons_stay_reachable_with_large_text(server, phones, viewport):
    """Table Top Cribbage (a crib beside the grid) and Tabletop Land's End (none), large text: the hint, the
    bottom row of squares, the crib row and its button and the layout button can each be scrolled to and tapped,
    and a square or the crib, once chosen, stays in sight above the picker that opens for its card."""
    page = host(phones, server.url, viewport, large=True)
    t = server.table
    for game, crib in (("table-top-cribbage", True), ("lands-end-tabletop", False)):
        t.submit({"type": "new_match", "game": game, "players": ["Ann", "Bob"], "first_dealer": "Bob"})
        t.submit({"type": "turnup", "card": "KS"})
        expect(page.locator("#grid-hint")).to_have_text("Tap a square, then the card" + (" (or Into the crib)" if crib else ""))
        page.evaluate("window.scrollTo(0, 0)")
        assert_tappable(page, "#grid-hint", game)
        if crib:
            expect(page.locator("#grid-box")).to_contain_text("Crib: 0 of 4")
            scroll_to(page, "#to-crib")
            assert_tappable(page, "#to-crib", f"{game}: the crib's button")
            page.click("#to-crib")
            expect(page.locator("#picker")).to_be_visible()
            # the crib row, now chosen, is still in sight above the picker that opened for its card
            assert_tappable(page, "#to-crib", f"{game}: the crib chosen")
            expect(page.locator("#to-crib")).to_have_class("on")
            pick(page, "5H")
            expect(page.locator("#grid-box")).to_contain_text("Crib: 1 of 4")
            until(page, lambda: t.snapshot()["hand"]["crib_count"] == 1)
        # a square of the bottom row next to the centre's column: chosen, it stays above the picker
        cell = "[data-cell='17']"                        # row 4, column 3: next to the centre (any placement rule)
        scroll_to(page, cell)
        assert_tappable(page, cell, f"{game}: a square")
        page.click(cell)
        expect(page.locator("#picker")).to_be_visible()
        assert_tappable(page, cell, f"{game}: the square chosen")
        pick(page, "6D")
        expect(page.locator(cell)).to_have_text("6\u2666")
        assert t.snapshot()["hand"]["grid"][3][2] == "6D"
        # the layout button at the foot of the grid can be reached too (offered before the first card)
        t.submit({"type": "new_match", "game": game, "players": ["Ann", "Bob"], "first_dealer": "Bob"})
        t.submit({"type": "turnup", "card": "KS"})
        expect(page.locator("#layout-toggle")).to_have_text("Enter the final layout")
        scroll_to(page, "#layout-toggle")
        assert_tappable(page, "#layout-toggle", f"{game}: the layout button")
        shot(page, f"large-grid-{game}-{viewport['width']}")
    assert page.errors == []


def test_the_board_lights_legend_names_what_the_firmware_lights(board_server, phones, server):
    """The legend under the board mirror is there only with a board, and names each status-LED colour the
    firmware renders (firmware.render: TURN, POCKET, DEALER and PHASE_COLOURS; the colour-blind palette's
    Okabe-Ito colours when the board uses it) with its meaning."""
    from firmware.render import COLOUR_BLIND, DEALER, OKABE_ITO, PHASE_COLOURS, POCKET, TURN
    bare = phones(server.url)                            # no board: no mirror, no legend
    expect(bare.locator("#board-legend")).to_be_hidden()
    page = host(phones, board_server.url, {"width": 360, "height": 740})
    board_server.table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    legend = page.locator("#board-legend")
    expect(legend).to_be_visible()
    legend.locator("summary").click()
    text = legend.inner_text()

    def hue(rgb) -> str:
        """A plain colour word for an LED colour (hand-checked against the palette's RGB values)."""
        r, g, b = rgb
        if max(rgb) == 0:
            return "off"
        if r == g == b:
            return "white" if r > 200 else "dim white"
        if r > 200 and g < 60 and b < 60:
            return "red"
        if r > 200 and 60 <= g < 180 and b < 60:
            return "amber"
        if g > 200 and r < 60 and b < 60:
            return "green"
        if b > 200 and g > 200 and r < 60:
            return "cyan"
        if b > 200 and r < 60:
            return "blue"
        if b > 200 and r > 120:
            return "purple"
        raise AssertionError(rgb)

    words = {"manual": "manual", "cut": "turn-up", "pegging": "play", "show": "show", "pocket": "pocket",
             "grid": "grid", "over": "game over"}

    def check(text, name, lane_colours, phase_colours):
        lane_part, phase_part = text.split("Phase light:")
        for meaning, rgb in zip(("its turn", "its pocket", "it deals"), lane_colours):
            assert f"{name(rgb)} {meaning}" in lane_part, (meaning, name(rgb), lane_part)
        for phase, rgb in phase_colours.items():
            assert f"{name(rgb)} {words[phase]}" in phase_part, (phase, name(rgb), phase_part)

    assert set(words) == set(PHASE_COLOURS) == set(COLOUR_BLIND.phases)   # every phase the firmware lights
    check(text, hue, (TURN, POCKET, DEALER), PHASE_COLOURS)
    # the colour-blind palette (More > Board colours): the legend names its Okabe-Ito colours instead
    board_server.app.extensions["landsend"].board.set_palette("colour-blind")
    expect(legend.locator("[data-palette='colour-blind']")).to_be_visible()
    expect(legend.locator("[data-palette='standard']")).to_be_hidden()
    okabe = {rgb: name for name, rgb in OKABE_ITO.items()}

    def okabe_name(rgb) -> str:
        return okabe.get(rgb) or {(0, 0, 0): "off", (255, 255, 255): "white", (120, 120, 120): "dim white"}[rgb]

    check(legend.inner_text(), okabe_name, (COLOUR_BLIND.turn, COLOUR_BLIND.pocket, COLOUR_BLIND.dealer),
          dict(COLOUR_BLIND.phases))
    assert page.errors == []
