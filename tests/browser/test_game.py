"""A complete Land's End game entered through the page on one phone while a second phone follows live.

The game (stake 2, Bob deals first), checked by hand:

Hand 1 — Bob deals, turn-up K♦. Plays: Ann A♠ (1), Bob 3♥ (4), Ann 7♣ (11),
Bob 9♦ (20), Ann Q♠ (30); Bob go, Ann go: the go point is Ann's (she played
last) and is credited to her opponent, Bob: 0-1. Bob leads again: 8♥ (8),
Ann 6♠ (14), Bob 2♥ (16): last card, Bob's, credited to Ann: 1-1.
Shows: Ann A♠ 7♣ Q♠ 6♠ + K♦ has no fifteen, pair or run: 0, so the
zero-hand bonus scores 5 (6-1). Bob 3♥ 9♦ 8♥ 2♥ + K♦: 3+2+K fifteen two
(6-3). Bob's pocket 4♣ 4♦ 5♣ J♠ + K♦: 5+J and 5+K fifteen four, pair of
fours six (6-9).

Hand 2 — Ann deals, turn-up 10♣. Plays: Bob 9♠ (9), Ann K♣ (19), Bob A♥
(20), Ann 8♣ (28); Bob go, Ann go: go point Ann's, credited to Bob (6-10).
Bob leads: 4♠ (4), Ann 5♠ (9), Bob 8♦ (17), Ann Q♥ (27): last card Ann's,
credited to Bob (6-11). Shows, non-dealer first: Bob 9♠ A♥ 4♠ 8♦ + 10♣:
A+4+10 fifteen two and 8-9-10 a run of three is five: Bob reaches 16 and
falls off the end of the world. Ann has 6: multiplier ×2 (6-10), so Bob
pays Ann 2 × 2 = 4.
"""

from __future__ import annotations

import re

import pytest

from playwright.sync_api import expect

from conftest import claim, join_link, shot, until


def pick(page, card: str, where: str = "#picker", *, who: str | None = None, taps: "list | None" = None) -> None:
    """Tap ``card`` in the picker; near 31 the page asks whose card it is: ``who``, or the player to play
    (the last answer; none is pre-selected). ``taps``: a list each tap is added to."""
    page.click(f"{where} [data-rank='{card[:-1]}']")
    page.click(f"{where} [data-card='{card}']")
    n = 2
    if where == "#picker" and page.locator("#whose").count():
        page.locator(f"#whose [data-whose='{who}']" if who else "#whose [data-whose]").last.click()
        n = 3
    if taps is not None:
        taps.extend([card] * n)


def scores(server) -> list[int]:
    return [s["score"] for s in server.table.snapshot()["sides"]]


def shown_scores(page) -> list[int]:
    return [int(page.inner_text("[data-score='p1']")), int(page.inner_text("[data-score='p2']"))]


def follow(page, server) -> None:
    """Wait until ``page`` shows the scores the table has now."""
    p1, p2 = scores(server)
    expect(page.locator("[data-score='p1']")).to_have_text(str(p1))
    expect(page.locator("[data-score='p2']")).to_have_text(str(p2))


def assert_board_mirrors_the_frame(page, server) -> None:
    """Assert the page's board SVG shows the board's current frame, LED for LED (polls up to 5 s)."""
    board = server.app.extensions["landsend"].board
    expect(page.locator("#board circle")).to_have_count(48)
    for _ in range(50):
        frame = board.frame_json()
        want = [",".join(map(str, px)) for lane in frame["lanes"] for px in lane]
        got = [c.get_attribute("data-rgb") for c in page.locator("#board circle").all()]
        if got == want:
            break
        page.wait_for_timeout(100)
    assert got == want
    assert sum(w != "0,0,0" for w in want) >= 2          # both sides' pegs are lit


def test_complete_lands_end_game_on_one_phone_followed_live_by_another(board_server, phones):
    server = board_server
    ann = phones(server.url)
    claim(ann)
    ann.select_option("#ng-game", "lands-end")
    assert "16" in ann.inner_text("#ng-desc")
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.fill("#ng-stake", "2")
    ann.select_option("#ng-dealer", "Bob")
    # this hand was worked under the standard lead after a go (the first to say go leads); the
    # seed's own rule (L9, Land's End's default) is test_after_a_go_the_player_of_the_last_card_leads
    ann.click("#new-form summary")
    ann.select_option("[data-opt='go_lead']", "other_player")
    shot(ann, "new-game")
    ann.click("#ng-start")
    ann.wait_for_selector("[data-side='p2'] .name:text-is('Bob')")
    ann.click("[data-tab=more]")
    code = ann.inner_text("#share-code")
    assert ann.locator("#share-qr").evaluate("img => img.naturalWidth > 0")
    shot(ann, "invite")
    ann.click("[data-tab=table]")

    bob = join_link(phones, server.url, code)

    # hand 1: Bob deals; a hand without doubts takes 31 taps, turn-up to pocket (issue 26: no more than before)
    taps: list[str] = []

    def tap(sel: str) -> None:
        ann.click(sel)
        taps.append(sel)
    assert "Ann cuts, Bob deals" in ann.inner_text("#step")
    pick(ann, "KD", taps=taps)
    ann.wait_for_selector("#count")
    for card, count in (("AS", 1), ("3H", 4), ("7C", 11), ("9D", 20), ("QS", 30)):
        pick(ann, card, taps=taps)
        expect(ann.locator("#count")).to_have_text(str(count))
    expect(bob.locator("#entry")).to_contain_text("30")
    # at 30 only an ace fits: every other rank is greyed, and the go of the player to play comes first
    assert ann.locator("#picker [data-rank='A']").is_enabled()
    assert [r for r in ("2", "8", "10", "K") if ann.locator(f"#picker [data-rank='{r}']").is_enabled()] == []
    ann.click("#picker [data-rank='A']")                               # a look, not a tap of the hand
    assert ann.locator("#picker [data-card='AS']").is_disabled()      # played already: greyed out
    assert ann.inner_text("#go") == "Bob says go"
    assert ann.locator("#picker .seg button").first.get_attribute("id") == "go"
    assert "primary" not in ann.get_attribute("#go", "class")         # a go or a card: nothing pre-selected
    tap("#go")
    expect(ann.locator("#go")).to_have_text("Ann says go")
    tap("#go")
    expect(ann.locator("#count")).to_have_text("0")
    follow(bob, server)
    assert scores(server) == [0, 1]
    assert "go" in ann.inner_text("#announce") and "+1 to Bob" in ann.inner_text("#announce")
    for card in ("8H", "6S", "2H"):
        pick(ann, card, taps=taps)
    ann.wait_for_selector("#count-known")
    assert scores(server) == [1, 1]
    assert "one for last" in ann.inner_text("#announce")
    assert ann.inner_text("#count-known") == "Yes: count Ann's hand"
    assert "primary" in ann.get_attribute("#count-known", "class")   # no card in doubt: Yes is the likely answer
    tap("#count-known")
    expect(ann.locator("#count-known")).to_have_text("Yes: count Bob's hand")
    assert scores(server) == [6, 1]
    assert "zero-hand bonus scores five" in ann.inner_text("#shows")
    tap("#count-known")
    ann.wait_for_selector("#tray")
    assert scores(server) == [6, 3]
    for card in ("4C", "4D", "5C", "JS"):
        pick(ann, card, taps=taps)
    tap("#tray-go")
    expect(ann.locator("#step")).to_contain_text("Bob cuts, Ann deals")
    assert len(taps) == 31
    assert scores(server) == [6, 9]
    follow(bob, server)
    last_hand = bob.inner_text("#shows")
    assert "Last hand" in last_hand
    assert "fifteen two, fifteen four, and a pair is six" in last_hand
    shot(bob, "last-hand")

    # hand 2: Ann deals; Bob's phone enters this hand while Ann's follows
    pick(bob, "10C")
    for card in ("9S", "KC", "AH", "8C"):
        pick(bob, card)
    expect(bob.locator("#count")).to_have_text("28")
    bob.click("#go")
    expect(bob.locator("#go")).to_have_text("Ann says go")
    bob.click("#go")
    expect(bob.locator("#count")).to_have_text("0")
    assert scores(server) == [6, 10]
    for card in ("4S", "5S", "8D"):
        pick(bob, card)
    expect(bob.locator("#count")).to_have_text("17")
    follow(ann, server)
    assert_board_mirrors_the_frame(ann, server)
    shot(ann, "game")
    pick(bob, "QH")
    bob.wait_for_selector("#count-known")
    assert scores(server) == [6, 11]
    bob.click("#count-known")

    # Bob reaches 16 in his own show and falls off the end of the world
    for page in (bob, ann):
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result h2") == "Bob fell off the end of the world"
        assert page.inner_text("[data-pay='p1']") == "+4"
        assert page.inner_text("[data-pay='p2']") == "-4"
        assert "\u00d72" in page.inner_text("#result")
        assert shown_scores(page) == [6, 16]
    assert "fifteen two, and a run of three is five" in ann.inner_text("#shows")
    snap = server.table.snapshot()
    assert snap["result"]["loser"] == "p2"
    assert snap["result"]["multipliers"] == {"p1": 2}
    assert snap["result"]["settlement"] == {"p1": 4, "p2": -4}
    shot(ann, "result")

    # the ledger on the second phone
    bob.click("[data-tab=more]")
    assert bob.inner_text("[data-ledger='Ann']") == "+4"
    assert bob.inner_text("[data-ledger='Bob']") == "-4"

    # history lists both hands with breakdowns; undo reopens the game
    ann.click("[data-tab=history]")
    ann.wait_for_selector(".hist-ev")
    hist = ann.inner_text("#h-list")
    assert "Game 1, hand 1" in hist and "Game 1, hand 2" in hist
    assert "fifteen two, and a run of three is five" in hist
    shot(ann, "history")
    ann.click("#h-undo")
    ann.click("[data-tab=table]")
    ann.wait_for_selector("#result", state="hidden")
    follow(bob, server)
    assert scores(server) == [6, 11]
    assert ann.outside == [] and bob.outside == []
    assert ann.errors == [] and bob.errors == []


LAYOUT = ["2S", "4H", "6D", "8C", "QS",
          "2H", "4D", "6C", "8S", "KH",
          "2D", "4C", "6S", "8H", "JD",
          "2C", "4S", "6H", "8D", "QH",
          "AS", "3H", "5D", "7C", "9S"]


def test_tabletop_grid_placement_then_the_final_layout(server, phones):
    """Tabletop Land's End, Bob deals so Ann owns the rows and counts first.

    Rows 1-4 hold only even cards (2 4 6 8 and a ten-card): no fifteen (an
    even sum), no pair, no run, no flush, so each scores 0 and the zero-line
    bonus makes it 5. Ann has 5, 10, 15, then 20 after row 4: she reaches 16
    first and loses before Bob counts a column. Bob has 0: ×4, stake 1.
    """
    ann = phones(server.url)
    claim(ann)
    ann.select_option("#ng-game", "lands-end-tabletop")
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.fill("#ng-stake", "1")
    ann.select_option("#ng-dealer", "Bob")
    ann.click("#ng-start")
    expect(ann.locator("#step")).to_contain_text("Turn the centre card")
    pick(ann, "6S")
    expect(ann.locator("[data-cell='12']")).to_have_text("6\u2660")
    # card by card: only cells touching a card are open
    assert ann.locator("[data-cell='0']").is_disabled()
    assert ann.locator("[data-cell='6']").is_enabled()
    ann.click("[data-cell='6']")
    pick(ann, "4D")
    expect(ann.locator("[data-cell='6']")).to_have_text("4\u2666")
    assert server.table.snapshot()["hand"]["grid"][1][1] == "4D"
    expect(ann.locator("#step")).to_contain_text("(Bob)")
    # a card already on the grid cannot be picked again
    ann.click("[data-cell='7']")
    ann.click("#picker [data-rank='4']")
    assert ann.locator("#picker [data-card='4D']").is_disabled()
    # take it back and enter the whole layout instead
    ann.click("#undo")
    expect(ann.locator("[data-cell='6']")).to_have_text("")
    ann.click("#layout-toggle")
    for i, card in enumerate(LAYOUT):
        if i == 12:
            continue
        ann.click(f"[data-cell='{i}']")
        pick(ann, card)
    expect(ann.locator("[data-cell='24']")).to_have_text("9\u2660")
    shot(ann, "tabletop")
    ann.click("#layout-go")
    ann.wait_for_selector("#result:not([hidden])")
    assert ann.inner_text("#result h2") == "Ann fell off the end of the world"
    assert ann.inner_text("[data-pay='p1']") == "-4"
    assert ann.inner_text("[data-pay='p2']") == "+4"
    snap = server.table.snapshot()
    assert [s["score"] for s in snap["sides"]] == [20, 0]
    assert snap["result"]["multipliers"] == {"p2": 4}
    shows = ann.inner_text("#shows")
    assert "Ann, row 1: 5" in shows and "Ann, row 4: 5" in shows
    assert "Bob, column 1" in shows
    assert ann.errors == [] and ann.outside == []


def claim_mode_game(server, phones):
    """A phone hosting a new Land's End game in claim mode, Bob dealing."""
    ann = phones(server.url)
    claim(ann)
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.select_option("#ng-dealer", "Bob")
    ann.click("#new-form summary")
    ann.check("[data-opt='claim_mode']")
    ann.select_option("[data-opt='go_lead']", "other_player")      # as the hand above
    ann.click("#ng-start")
    expect(ann.locator("#step")).to_contain_text("Ann cuts")
    assert server.table.snapshot()["options"] == {"claim_mode": True, "go_lead": "other_player"}
    return ann


@pytest.mark.parametrize("viewport", [{"width": 360, "height": 740}, {"width": 390, "height": 844}],
                         ids=["360x740", "390x844"])
def test_claim_mode_and_muggins(server, phones, viewport):
    """Hand 1 of the game above in claim mode. The matching phase: Ann's go point is Bob's, and he claims
    it; Bob's last card is Ann's point, and she claims it (the other cards made nothing, and nobody claims
    them). The shows: Ann claims her 5, Bob claims 0 for a hand worth 2; Ann calls muggins and, by Land's
    End's rule, Bob scores double the two he missed: 4 (L8). Issue 26 path 4: until the call, neither phone
    nor History tells the right claim from the short one; the breakdown of Bob's hand appears with the call."""
    ann = claim_mode_game(server, phones)
    ann.set_viewport_size(viewport)
    bob = join_link(phones, server.url, server.app.extensions['landsend'].access.join_code, viewport=viewport)
    for card in ("KD", "AS", "3H", "7C", "9D", "QS"):
        pick(ann, card)
    expect(ann.locator("#count")).to_have_text("30")
    ann.click("#go")
    expect(ann.locator("#go")).to_have_text("Ann says go")
    ann.click("#go")
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Bob claims\s*for the go"))
    ann.fill("#play-claimed", "1")
    ann.click("#play-claim")
    expect(ann.locator("#play-claimed")).to_have_count(0)
    assert scores(server) == [0, 1]
    for card in ("8H", "6S", "2H"):
        pick(ann, card)
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Ann claims\s*for 2\u2665"))
    ann.fill("#play-claimed", "1")
    ann.click("#play-claim")
    for page in (ann, bob):                                  # a right claim is said as a claim, like any other
        expect(page.locator("#announce")).to_contain_text("Ann claims one")
    assert scores(server) == [1, 1]
    ann.fill("#claimed", "5")
    ann.click("#count-known")
    expect(ann.locator("#count-known")).to_have_text("Yes: count Bob's hand")
    ann.fill("#claimed", "0")
    ann.click("#count-known")
    # a call is offered on both shows' claims, Ann's right 5 and Bob's short 0, worded alike (L8: the page
    # never tells which claim was short before someone calls) ...
    for page in (ann, bob):
        expect(page.locator("#muggins button")).to_have_text(["Call muggins on Ann", "Call muggins on Bob"])
        expect(page.locator("#announce")).to_contain_text("Bob claims nothing")
        # ... nor do the shows (no breakdown either way) ...
        expect(page.locator("[data-show=\"Ann's hand\"] .said")).to_have_text("")
        expect(page.locator("[data-show=\"Bob's hand\"] .said")).to_have_text("")
    bob.click("[data-tab=history]")                          # ... nor History
    expect(bob.locator("#h-list")).to_contain_text("Ann claims five")
    expect(bob.locator("#h-list")).to_contain_text("Bob claims nothing")
    assert "fifteen" not in bob.inner_text("#h-list") and "zero-hand" not in bob.inner_text("#h-list")
    bob.click("[data-tab=table]")
    assert scores(server) == [6, 1]
    ann.click("#muggins [data-side='p1']")                   # on Ann's claim, which was right: refused
    expect(ann.locator("#toast")).to_contain_text("the claim was right")
    assert scores(server) == [6, 1]
    ann.click("#muggins [data-side='p2']")
    for page in (ann, bob):
        expect(page.locator("#announce")).to_contain_text("muggins: Bob missed two and scores four more")
        # the call is made: Bob's hand shows what it made; Ann's claim is still open to a call
        expect(page.locator("[data-show=\"Bob's hand\"] .said")).to_have_text("fifteen two")
        expect(page.locator("[data-show=\"Ann's hand\"] .said")).to_have_text("")
    assert scores(server) == [6, 5]
    expect(ann.locator("#muggins button")).to_have_text(["Call muggins on Ann"])     # Bob's is called
    assert ann.errors == [] and bob.errors == []


def test_muggins_in_the_matching_phase(server, phones):
    """At 390x844: Ann leads 10H (nothing: the claim row is there all the same, so the page never tells
    that points are due); Bob's 5S makes fifteen, two for Ann in Land's End (L2). Ann claims nothing;
    Bob calls muggins before the next card, and Ann scores double the two she missed: 4 (L8)."""
    ann = claim_mode_game(server, phones)
    pick(ann, "KD")
    pick(ann, "10H")
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Bob claims\s*for 10\u2665"))
    pick(ann, "5S")
    expect(ann.locator("#count")).to_have_text("15")
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Ann claims\s*for 5\u2660"))
    assert ann.locator("#muggins").count() == 0               # nobody has claimed yet
    shot(ann, "claim-play")
    ann.fill("#play-claimed", "0")
    ann.click("#play-claim")
    expect(ann.locator("#muggins button")).to_have_text(["Call muggins on Ann"])
    expect(ann.locator("#muggins")).to_be_in_viewport()
    assert ann.locator("#picker [data-rank='6']").is_visible()  # the next card could still be played
    shot(ann, "muggins-play")
    ann.click("#muggins [data-side='p1']")
    expect(ann.locator("#announce")).to_contain_text("muggins: Ann missed two and scores four more")
    expect(ann.locator("[data-score='p1']")).to_have_text("4")
    assert scores(server) == [4, 0]
    assert ann.locator("#muggins").count() == 0
    pick(ann, "6D")                                           # the next card: the matching phase goes on
    expect(ann.locator("#count")).to_have_text("21")
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Bob claims\s*for 6\u2666"))
    ann.fill("#play-claimed", "0")                             # 6D made nothing: Bob's claim is right ...
    ann.click("#play-claim")
    # ... and the call is offered on it just as on Ann's short claim above
    expect(ann.locator("#muggins button")).to_have_text(["Call muggins on Bob"])
    ann.click("#muggins [data-side='p2']")
    expect(ann.locator("#toast")).to_contain_text("muggins on Bob refused: the claim was right")
    assert scores(server) == [4, 0]
    assert ann.errors == []


def test_tabletop_lines_are_claimed_one_by_one_with_muggins(server, phones):
    """Tabletop Land's End in claim mode: after the layout, the page asks each line's owner for a claim in
    counting order. Ann's row 1 (3S 10S KD 6H QH) makes nothing, so five (T2); she claims 3, Bob calls
    muggins, and she scores 3 + double the missed 2: 7 (L8). Row 2 is next."""
    ann = phones(server.url)
    claim(ann)
    ann.select_option("#ng-game", "lands-end-tabletop")
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.select_option("#ng-dealer", "Bob")
    ann.click("#new-form summary")
    ann.check("[data-opt='claim_mode']")
    ann.click("#ng-start")
    expect(ann.locator("#step")).to_contain_text("Turn the centre card")
    server.table.submit({"type": "layout", "cards": [
        "3S", "10S", "KD", "6H", "QH", "JD", "AD", "10H", "8H", "2D", "6S", "3H", "KS", "JS", "AC",
        "8C", "AS", "QS", "JC", "3D", "5C", "9S", "7C", "7D", "7S"]})
    expect(ann.locator("#step")).to_have_text("Count the grid: Ann's row 1")
    expect(ann.locator("#entry .claim label")).to_have_text(re.compile(r"Ann claims\s*for row 1"))
    expect(ann.locator("#layout-toggle")).to_have_count(0)
    ann.fill("#line-claimed", "3")
    ann.click("#line-claim")
    expect(ann.locator("#muggins button")).to_have_text(["Call muggins on Ann"])
    assert scores(server) == [3, 0]
    ann.click("#muggins [data-side='p1']")
    expect(ann.locator("#announce")).to_contain_text("muggins: Ann missed two and scores four more")
    expect(ann.locator("#step")).to_have_text("Count the grid: Ann's row 2")
    assert scores(server) == [7, 0]
    assert ann.errors == []


def test_table_top_cribbage_crib_cards_from_the_grid_view(server, phones):
    ann = phones(server.url)
    claim(ann)
    ann.select_option("#ng-game", "table-top-cribbage")
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.select_option("#ng-dealer", "Bob")
    ann.click("#ng-start")
    pick(ann, "JS")                                   # a jack in the centre: two for his heels to Bob
    expect(ann.locator("#announce")).to_contain_text("two for his heels")
    assert scores(server) == [0, 2]
    expect(ann.locator("#grid-box")).to_contain_text("Crib: 0 of 4")
    ann.click("#to-crib")
    pick(ann, "5H")
    expect(ann.locator("#grid-box")).to_contain_text("Crib: 1 of 4")
    hand = server.table.snapshot()["hand"]
    assert hand["crib_count"] == 1 and hand["crib_owed"] == {"Ann": 1, "Bob": 2}
    ann.click("[data-cell='7']")
    pick(ann, "6D")
    expect(ann.locator("[data-cell='7']")).to_have_text("6\u2666")
    assert server.table.snapshot()["hand"]["grid"][1][2] == "6D"
    assert ann.errors == []


def test_five_card_every_step_announced_on_both_phones(server, phones):
    """Five-card, Bob named first dealer so Ann cut high and pegs 3 for last (F1); turn-up K♣.

    Ann 9♣ (9), Bob 8♣ (17), Ann 7♣ (24, a run of three: Ann 3), Bob 6♣ (30, a run of four:
    Bob 4). Ann cannot go under 31 and says go (nothing scored). Bob A♠ makes 31 for two
    (Bob 2; no point for last on top of 31's two). Ann 6, Bob 6. The second game: after
    2♠ 2♦ 2♥ a pair royal makes six and the same card takes the point for last: both said.
    """
    ann = phones(server.url)
    ann.set_viewport_size({"width": 360, "height": 740})
    claim(ann)
    ann.select_option("#ng-game", "five-card")
    ann.fill("[data-name='0']", "Ann")
    ann.fill("[data-name='1']", "Bob")
    ann.select_option("#ng-dealer", "Bob")
    ann.click("#ng-start")
    expect(ann.locator("#toast")).to_have_text("Bob deals; Ann cut high")
    expect(ann.locator("#announce")).to_contain_text("three for last")
    code = server.app.extensions["landsend"].access.join_code
    bob = join_link(phones, server.url, code)
    pick(ann, "KC")
    expect(ann.locator("#step")).to_contain_text("Ann to play")
    for card, count in (("9C", 9), ("8C", 17), ("7C", 24)):
        pick(ann, card)
        expect(ann.locator("#count")).to_have_text(str(count))
    for page in (ann, bob):
        expect(page.locator("#announce")).to_have_text("twenty-four for a run of three+3 to Ann")
    pick(ann, "6C")
    expect(ann.locator("#count")).to_have_text("30")
    # a card over 31 cannot be tapped: only an ace fits
    expect(ann.locator("#picker [data-rank='5']")).to_be_disabled()
    expect(ann.locator("#picker [data-rank='A']")).to_be_enabled()
    ann.click("#go")
    for page in (ann, bob):
        expect(page.locator("#announce")).to_have_text("goAnn said go")
    assert scores(server) == [6, 4]
    pick(ann, "AS")
    for page in (ann, bob):
        expect(page.locator("#announce")).to_have_text("thirty-one for two+2 to Bob")
    assert scores(server) == [6, 6]

    # a card that scores and takes the point for last: both steps on both phones
    server.table.submit({"type": "new_match", "game": "five-card", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    expect(ann.locator("#step")).to_contain_text("Cut")
    for card in ("KC", "9C", "8C", "7C", "2S", "2D", "2H"):
        pick(ann, card)
    for page in (ann, bob):
        expect(page.locator("#announce")).to_have_text(
            "thirty, a pair royal for six, one for last+6 to Bob \u00b7 +1 to Bob")
    assert scores(server) == [8, 7]
    assert ann.errors == [] and bob.errors == []


def test_after_a_go_the_player_of_the_last_card_leads(server, phones):
    """L9, Land's End's default: Bob deals; Ann KH, Bob 9S, Ann QD, Bob AS makes 30. Ann says go and
    Bob cannot play: the go point is Bob's, counted for Ann (L2). Bob played the last card, so Bob leads
    the next count: the page says so, and a card picked without naming a player is Bob's."""
    page = phones(server.url)
    claim(page)
    t = server.table
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    t.submit({"type": "turnup", "card": "7C"})
    for card, player in (("KH", "Ann"), ("9S", "Bob"), ("QD", "Ann"), ("AS", "Bob")):
        t.submit({"type": "play", "card": card, "player": player})
    t.submit({"type": "go", "player": "Ann"})
    t.submit({"type": "go", "player": "Bob"})
    page.click("[data-tab=table]")
    expect(page.locator("#step")).to_contain_text("Bob to play")
    assert scores(server) == [1, 0]
    pick(page, "8D")
    expect(page.locator("#count")).to_have_text("8")
    assert t.snapshot()["hand"]["plays"]["Bob"] == ["9S", "AS", "8D"]
    expect(page.locator("#step")).to_contain_text("Ann to play")
    assert page.errors == []


def test_result_screens_say_skunk_and_speak_of_partnerships_in_the_plural(server, phones):
    """Cribbage, Bob deals, stake 3: Ann pegs to 119 by hand, Bob to 20; turn-up 4♥, Ann 10♠, Bob 3♦ (13),
    Ann 2♣ makes fifteen for two: 121. Bob is under 61: double skunk, ×3 (S1), so he pays 9.
    Then four-hand Land's End, Dee deals: Ann & Cy pegged to 14; Ann 8♠, Bob 7♦ makes fifteen, which
    goes to the next opponent in turn, Ann & Cy (M3): 16, and they fall off with Bob & Dee on 0 (×4)."""
    page = phones(server.url)
    claim(page)
    t = server.table
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob", "stake": 3})
    for side, points in (("p1", 29), ("p1", 29), ("p1", 29), ("p1", 29), ("p1", 3), ("p2", 20)):
        t.submit({"type": "peg", "side": side, "points": points})
    t.submit({"type": "turnup", "card": "4H"})
    page.click("[data-tab=table]")
    for card in ("10S", "3D", "2C"):
        pick(page, card)
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result h2") == "Ann wins"
    expect(page.locator("#result")).to_contain_text("Bob was double-skunked: the game counts \u00d73")
    assert (page.inner_text("[data-pay='p1']"), page.inner_text("[data-pay='p2']")) == ("+9", "-9")
    expect(page.locator("#pays")).to_have_text("Bob pays Ann 9: \u00d73, Bob had 20.")
    t.submit({"type": "new_match", "game": "lands-end-4", "players": ["Ann", "Bob", "Cy", "Dee"],
              "teams": [["Ann", "Cy"], ["Bob", "Dee"]], "first_dealer": "Dee", "stake": 1})
    t.submit({"type": "peg", "side": "team1", "points": 14})
    for card in ("7H", "8S", "7D"):
        pick(page, card)
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result h2") == "Ann & Cy fell off the end of the world"
    expect(page.locator("#result p").first).to_have_text("Bob & Dee win \u00b7 Ann & Cy reached 16")
    assert "skunk" not in page.inner_text("#result")
    expect(page.locator("#pays")).to_have_text("Ann & Cy pay Bob & Dee 4: \u00d74, Bob & Dee had 0.")
    assert page.errors == []
