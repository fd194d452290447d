"""The phone page in a real browser: host, join, manual pegs, undo, quick count, read-only visitor."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from conftest import claim, shot, until


def host_new_game(page, *, names=("Ann", "Bob"), stake="2", dealer="Bob", game="lands-end"):
    """Take the table on ``page`` and start a game; return the join code."""
    claim(page)
    page.select_option("#ng-game", game)
    for i, n in enumerate(names):
        page.fill(f"[data-name='{i}']", n)
    page.fill("#ng-stake", stake)
    page.select_option("#ng-dealer", dealer)
    page.click("#ng-start")
    page.wait_for_selector("#view-table:not([hidden])")
    page.wait_for_selector(f"[data-side='p1'] .name:text-is('{names[0]}')")
    page.click("[data-tab=more]")
    code = page.inner_text("#share-code")
    page.click("[data-tab=table]")
    return code


def score_of(page, side: str) -> str:
    return page.inner_text(f"[data-score='{side}']")


def test_manual_pegs_undo_and_a_second_phone_following_live(server, phones):
    host = phones(server.url)
    code = host_new_game(host)
    assert re.fullmatch(r"\d{6}", code)
    # the QR code's link leaves one question, whose phone this is (issue 26: nothing pre-chosen, the whole
    # table's is a choice); answering it joins, with no code to type or button to find
    other = phones(server.url, f"/join/{code}")
    expect(other.locator("#join-asks")).to_have_text("Whose phone is this? Choose below to join.")
    expect(other.locator("#join-code")).to_have_value(code)
    assert other.locator("#join-seat").input_value() == ""
    assert other.inner_text("#role") == "watching"              # not joined by the link alone
    other.select_option("#join-seat", "Bob")
    other.wait_for_selector("#role:text-is('player')")
    expect(other.locator("#toast")).to_have_text("Joined: you can enter cards now")
    expect(other.locator("#seat-now")).to_have_text("This is Bob's phone.")
    assert other.url == server.url + "/"          # a reload does not try the code again

    host.click("[data-side='p1'] .pegs button:text-is('+2')")
    expect(host.locator("[data-score='p1']")).to_have_text("2")
    expect(other.locator("[data-score='p1']")).to_have_text("2")
    other.click("[data-side='p2'] .pegs button:text-is('+1')")
    expect(host.locator("[data-score='p2']")).to_have_text("1")
    # +N
    host.click("[data-side='p2'] .pegs button:text-is('+N')")
    host.fill("#peg-n-value", "5")
    host.click("#peg-n-go")
    expect(other.locator("[data-score='p2']")).to_have_text("6")
    assert [s["score"] for s in server.table.snapshot()["sides"]] == [2, 6]
    expect(host.locator("#announce")).to_contain_text("Bob pegs five")
    shot(host, "pegs")
    # undo on the second phone takes the +5 back on both; it names the state it was pressed on
    sent = []
    other.on("request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/api/command") else None)
    seq = server.table.snapshot()["seq"]
    other.click("#undo")
    expect(host.locator("[data-score='p2']")).to_have_text("1")
    assert [(c["type"], c["if_seq"]) for c in sent] == [("undo", seq)]
    # an undo pressed on a screen the table has moved on from changes nothing and says so
    r = other.evaluate("""async (seq) => {
        const s = await (await fetch('/api/session')).json();
        const r = await fetch('/api/command', {method: 'POST', headers: {'Content-Type': 'application/json',
            'X-CSRF-Token': s.csrf}, body: JSON.stringify({type: 'undo', if_seq: seq})});
        return [r.status, (await r.json()).error];
    }""", seq)
    assert r[0] == 400 and r[1].startswith("the table has moved on since this was entered")
    assert [s["score"] for s in server.table.snapshot()["sides"]] == [2, 1]
    assert host.outside == [] and other.outside == []
    assert host.errors == [] and other.errors == []


def test_read_only_visitor_cannot_change_anything(server, phones):
    host = phones(server.url)
    code = host_new_game(host)
    host.click("[data-side='p1'] .pegs button:text-is('+1')")
    visitor = phones(server.url)
    visitor.wait_for_selector("#join-box:not([hidden])")
    assert visitor.inner_text("#role") == "watching"
    assert visitor.locator(".pegs").count() == 0
    assert visitor.locator("#table-actions").is_hidden()
    assert visitor.locator("#share").is_hidden()
    visitor.click("[data-tab=new]")
    expect(visitor.locator("#ng-start")).to_be_disabled()
    assert visitor.inner_text("#ng-start") == "Join the table to start a game"
    visitor.click("[data-tab=history]")
    assert visitor.locator("#h-import-label").is_hidden() and visitor.locator("#h-undo").is_hidden()
    visitor.click("[data-tab=table]")
    # even a hand-made request with the visitor's own CSRF token is refused
    status = visitor.evaluate("""async () => {
        const s = await (await fetch('/api/session')).json();
        const r = await fetch('/api/command', {method: 'POST', headers: {'Content-Type': 'application/json',
            'X-CSRF-Token': s.csrf}, body: JSON.stringify({type: 'peg', side: 'p1', points: 5})});
        return [r.status, (await r.json()).error];
    }""")
    assert status[0] == 403
    assert "join code" in status[1]
    # a wrong code is refused with a message on the page
    visitor.fill("#join-code", f"{(int(code) + 1) % 1_000_000:06d}")
    visitor.click("#join-form button")                   # whose phone? nothing is chosen for you: not sent
    assert visitor.locator("#toast").is_hidden()
    # the seats not yet taken, and the whole table's (issue 26)
    assert visitor.locator("#join-seat option").all_inner_texts() == [
        "Whose phone is this?", "Ann's phone", "Bob's phone", "This phone enters for the whole table"]
    visitor.select_option("#join-seat", "*")
    visitor.click("#join-form button")
    visitor.wait_for_selector("#toast:not([hidden])")
    assert visitor.inner_text("#toast") == "wrong join code"
    assert [s["score"] for s in server.table.snapshot()["sides"]] == [1, 0]
    # but the visitor follows the game live
    host.click("[data-side='p2'] .pegs button:text-is('+2')")
    expect(visitor.locator("[data-score='p2']")).to_have_text("2")
    shot(visitor, "visitor")


def test_quick_count(server, phones):
    page = phones(server.url)
    page.click("[data-tab=count]")
    page.select_option("#qc-game", "cribbage")
    for card in ("5H", "5S", "5D", "JC", "5C"):
        page.click(f"#qc-picker [data-rank='{card[:-1]}']")
        page.click(f"#qc-picker [data-card='{card}']")
    page.wait_for_selector("#qc-total")
    assert page.inner_text("#qc-total") == "29 points"
    assert page.locator("#qc-result li").count() == 10      # 8 fifteens, the double pair royal, nobs
    assert "one for his nob is twenty-nine" in page.inner_text("#qc-result")
    # a seen card cannot be picked twice
    assert page.locator("#qc-picker [data-rank='5']").is_disabled()      # all four fives are out
    page.click("#qc-picker [data-rank='J']")
    assert page.locator("#qc-picker [data-card='JC']").is_disabled()
    assert page.locator("#qc-picker [data-card='JH']").is_enabled()
    shot(page, "quick-count")
    # suits carry symbols always; the four-colour deck makes diamonds blue and clubs green
    diamond = page.locator("#qc-result .card.D").first
    assert diamond.inner_text() == "5\u2666"
    assert diamond.evaluate("e => getComputedStyle(e).color") == "rgb(200, 16, 46)"
    page.click("[data-tab=more]")
    page.check("#set-four")
    page.click("[data-tab=count]")
    assert diamond.evaluate("e => getComputedStyle(e).color") == "rgb(11, 92, 196)"
    club = page.locator("#qc-result .card.C").first
    assert club.evaluate("e => getComputedStyle(e).color") == "rgb(19, 122, 59)"
    assert page.evaluate("() => localStorage.getItem('le.four')") == "1"
    # a Land's End pocket: a four-card flush with another suit turned up scores nothing in a pocket (L4),
    # and 2 4 6 8 K has nothing else: 0 (the zero bonus is for hands only)
    page.select_option("#qc-game", "lands-end")
    page.click("[data-qc-kind=crib]")
    for card in ("2H", "4H", "6H", "8H", "KS"):
        page.click(f"#qc-picker [data-rank='{card[:-1]}']")
        page.click(f"#qc-picker [data-card='{card}']")
    expect(page.locator("#qc-total")).to_have_text("0 points")
    # a tabletop game counts one row or column of five, no turn-up: four hearts and a spade is no flush (T2)
    page.select_option("#qc-game", "lands-end-tabletop")
    expect(page.locator("[data-qc-kind=hand]")).to_have_text("Row / column")
    expect(page.locator("[data-qc-kind=crib]")).to_be_hidden()            # Tabletop Land's End has no crib
    for card in ("2H", "4H", "6H", "8H", "10S"):
        page.click(f"#qc-picker [data-rank='{card[:-1]}']")
        page.click(f"#qc-picker [data-card='{card}']")
    expect(page.locator("#qc-total")).to_have_text("5 points")
    assert page.inner_text("#qc-result .said") == "nothing, so the zero-hand bonus scores five"
    assert page.locator("#qc-slots .slot").count() == 0
    assert page.outside == [] and page.errors == []


def test_tap_targets_are_at_least_44_px_at_360_px_wide(server, phones):
    page = phones(server.url)
    page.set_viewport_size({"width": 360, "height": 740})
    claim(page)
    small = []
    for tab in ("new", "count", "history", "more", "table"):
        page.click(f"[data-tab={tab}]")
        if tab == "count":
            page.click("#qc-picker [data-rank='7']")
        for el in page.locator("button:visible, select:visible, input:visible:not([type=checkbox]), a.button:visible, label.check:visible").all():
            box = el.bounding_box()
            if box and (box["height"] < 44 or box["width"] < 44):
                small.append((tab, el.evaluate("e => e.outerHTML.slice(0, 80)"), box["width"], box["height"]))
        # nothing sticks out sideways at 360 px
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert small == []


def test_card_picker_is_on_screen_at_360_by_740_without_scrolling(server, phones):
    """A small phone mid-hand: the rank and suit buttons sit above the tab bar with the page at the top,
    for two sides and for three (a row each); go is offered only when the table would take it."""
    page = phones(server.url)
    page.set_viewport_size({"width": 360, "height": 740})
    claim(page)
    for game, players, turnup in (("lands-end-3", ["Ann", "Bob", "Cy"], "3H"), ("lands-end", ["Ann", "Bob"], "4H")):
        server.table.submit({"type": "new_match", "game": game, "players": players, "first_dealer": "Ann"})
        server.table.submit({"type": "turnup", "card": turnup})
        page.click("[data-tab=table]")
        expect(page.locator("#count")).to_have_text("0")
        expect(page.locator("#go")).to_be_disabled()                 # nobody says go at a count of 0
        king = page.locator("#picker [data-rank='K']").bounding_box()
        page.click("#picker [data-rank='5']")
        page.evaluate("window.scrollTo(0, 0)")
        assert page.locator("#picker [data-rank='K']").bounding_box() == king     # the suits were there already
        tabs_top = page.locator("nav.tabs").bounding_box()["y"]
        for sel in ("#picker [data-rank='K']", "#picker [data-card='5C']", "#go"):
            box = page.locator(sel).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= tabs_top, (game, sel, box, tabs_top)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        # cards played and a score announced change the page above the picker, never the picker's place
        page.click("#picker [data-card='5C']")
        expect(page.locator("#count")).to_have_text("5")
        page.click("#picker [data-rank='10']")
        page.click("#picker [data-card='10D']")
        expect(page.locator("#announce")).to_contain_text("fifteen for two")
        page.evaluate("window.scrollTo(0, 0)")
        assert page.locator("#picker [data-rank='K']").bounding_box() == king
    assert page.errors == []


def test_every_preset_starts_from_the_form(server, phones):
    from companion import RULESETS
    page = phones(server.url)
    claim(page)
    names = ["Ann", "Bob", "Cy", "Dee"]
    for name, rules in RULESETS.items():
        page.click("[data-tab=new]")
        page.select_option("#ng-game", name)
        expect(page.locator("#ng-desc")).to_have_text(rules.description)
        n = page.locator("[data-name]").count()
        for i in range(n):
            page.fill(f"[data-name='{i}']", names[i])
        before = server.table.snapshot()["match_id"]
        page.click("#ng-start")
        until(page, lambda: server.table.snapshot()["match_id"] != before)   # the first preset's title is the old one's
        expect(page.locator("#game-title")).to_have_text(rules.title)
        snap = server.table.snapshot()
        if not rules.house:      # nobody picked a dealer: the companion cut for it and says so
            expect(page.locator("#toast")).to_contain_text(f"{snap['dealer']} deals")
            assert page.inner_text("#toast").startswith("Cut for deal: ")
        assert snap["game"] == name
        humans = [p for p in snap["players"] if p != "House"]
        assert humans == names[:n] or sorted(humans) == sorted(names[:n])
        assert len(snap["sides"]) == rules.sides
        assert any(s["house"] for s in snap["sides"]) == rules.house
    # casino: the direction of play is on the form itself, not under the house rules
    page.click("[data-tab=new]")
    page.select_option("#ng-game", "lands-end-casino-3")
    assert page.locator("#ng-options [data-opt='direction']").count() == 0
    expect(page.locator("#ng-direction")).to_contain_text("Direction of play")
    page.select_option("#ng-direction select", "ccw")
    assert page.locator("#ng-direction option:checked").inner_text() == "counter-clockwise"
    page.click("#ng-start")
    expect(page.locator("#game-title")).to_have_text("Land's End casino, three-hand")
    assert server.table.snapshot()["options"] == {"direction": "ccw"}
    page.click("[data-tab=new]")
    page.select_option("#ng-game", "lands-end")
    expect(page.locator("#ng-direction")).to_be_hidden()
    # a series and a house rule from the form reach the table
    page.click("[data-tab=new]")
    page.select_option("#ng-game", "lands-end")
    page.select_option("#ng-series", "best_of")
    page.fill("#ng-n", "3")
    page.click("#new-form summary")
    page.fill("[data-opt='zero_bonus']", "3")
    page.click("#ng-start")
    expect(page.locator("#game-title")).to_have_text("Land's End")
    snap = server.table.snapshot()
    assert snap["series"]["kind"] == "best_of" and snap["series"]["n"] == 3
    assert snap["options"] == {"zero_bonus": 3}
    assert page.errors == []


def test_sim_buttons_panel_and_release_from_the_board(make_server, phones):
    from companion.table import Table

    class Buttons:
        """The simulated board buttons: a short press pegs one for that lane's side."""

        def __init__(self, table):
            self.table, self.presses = table, []

        def press(self, name, hold=False):
            self.presses.append((name, hold))
            if name in ("p1", "p2") and not hold:
                self.table.submit({"type": "peg", "side": int(name[1]) - 1, "points": 1})

    table = Table.memory()
    buttons = Buttons(table)
    server = make_server(table=table, buttons=buttons, faults=["LED strip: not found"])
    page = phones(server.url)
    assert page.inner_text("#faults") == "LED strip: not found"
    claim(page)
    page.click("[data-tab=more]")
    page.click("[data-sim=p2]")
    page.click("[data-sim=p2]")
    page.check("#sim-hold")
    page.click("[data-sim=menu]")
    page.click("[data-tab=table]")
    expect(page.locator("[data-score='p2']")).to_have_text("2")
    assert buttons.presses == [("p2", False), ("p2", False), ("menu", True)]
    assert page.inner_text("#role") == "host"
    # the menu button held 5 s on the board: the daemon calls release(); the page turns read-only at once
    server.app.extensions["landsend"].release()
    expect(page.locator("#role")).to_have_text("watching")
    expect(page.locator("#claim-box")).to_be_visible()
    assert page.locator(".pegs").count() == 0
    page.click("#claim")
    expect(page.locator("#role")).to_have_text("host")


def test_sim_panel_releases_the_table_like_the_menu_held_5_s(make_server, phones):
    """The daemon's simulated panel (MockFactory pins, SimClock) behind the page's simulator buttons."""
    from gpiozero.pins.mock import MockFactory

    from companion.table import Table
    from firmware.buttons import ButtonPanel, SimClock
    table, hubs = Table.memory(), []
    panel = ButtonPanel({"p1": 17, "p2": 27, "menu": 22}, table.submit, pin_factory=MockFactory(), clock=SimClock(),
                        on_release=lambda: hubs[0].release())
    try:
        server = make_server(table=table, buttons=panel)
        hubs.append(server.app.extensions["landsend"])
        host, other = phones(server.url), phones(server.url)
        claim(host)
        host.click("[data-tab=more]")
        host.click("[data-sim=p1]")
        until(host, lambda: table.snapshot()["sides"][0]["score"] == 1)
        host.click("#sim-release")
        expect(host.locator("#toast")).to_have_text("Table released: the next phone to host it takes it")
        for page in (host, other):
            expect(page.locator("#role")).to_have_text("watching")
        assert host.locator("#share").is_hidden()
        # another phone takes the table now, with a new code; the old host is a visitor
        other.click("#claim")
        expect(other.locator("#role")).to_have_text("host")
        assert hubs[0].access.epoch == 2 and hubs[0].access.join_code is not None
        host.click("[data-tab=table]")
        expect(host.locator("#join-box")).to_be_visible()
        assert table.snapshot()["sides"][0]["score"] == 1            # the release changed no score
        assert host.errors == [] and other.errors == []
    finally:
        panel.close()


def test_reconnects_and_catches_up_after_a_dropped_connection(make_server, phones):
    # streams end after a second (as they do after SSE_MAX_AGE), so going offline really drops the page
    server = make_server(config={"SSE_MAX_AGE": 1.0})
    page = phones(server.url)
    streams = []
    page.on("request", lambda r: streams.append(r.url) if "/api/events" in r.url else None)
    page.context.set_offline(True)
    # once the stream has failed the badge says so within 1.5 s (issue 14), and screen readers hear it
    expect(page.locator("#conn")).to_have_text("offline")
    assert page.get_attribute("#conn", "role") == "status"
    server.table.submit({"type": "peg", "side": "p1", "points": 3})
    server.table.submit({"type": "peg", "side": "p2", "points": 2})
    assert page.inner_text("[data-score='p1']") == "0"
    page.context.set_offline(False)
    expect(page.locator("[data-score='p1']")).to_have_text("3")
    expect(page.locator("[data-score='p2']")).to_have_text("2")
    expect(page.locator("#conn")).to_have_text("live")
    assert streams        # a new stream caught up; it named the last state the page had
    assert any("last=" in u for u in streams)


def test_export_then_import_a_record_from_the_history_view(server, phones):
    page = phones(server.url)
    host_new_game(page)
    page.click("[data-side='p1'] .pegs button:text-is('+2')")
    page.click("[data-side='p2'] .pegs button:text-is('+1')")
    expect(page.locator("[data-score='p2']")).to_have_text("1")
    page.click("[data-tab=history]")
    with page.expect_download() as dl:
        page.click("#h-export")
    record = dl.value.path().read_bytes()
    assert b'"lands-end"' in record
    server.table.submit({"type": "new_match", "game": "cribbage", "players": ["X", "Y"], "first_dealer": "X"})
    expect(page.locator("#game-title")).to_have_text("Cribbage")
    page.set_input_files("#h-import", files=[{"name": "game.json", "mimeType": "application/json", "buffer": record}])
    expect(page.locator("#toast")).to_have_text("Record imported")
    expect(page.locator("#game-title")).to_have_text("Land's End")
    assert [(s["name"], s["score"]) for s in server.table.snapshot()["sides"]] == [("Ann", 2), ("Bob", 1)]
    # a file that is not a record is refused with the reason
    page.set_input_files("#h-import", files=[{"name": "x.json", "mimeType": "application/json", "buffer": b"[1, 2]"}])
    expect(page.locator("#toast")).to_have_text("expected {\"record\": <the exported game record>}")
    assert server.table.snapshot()["game"] == "lands-end"
