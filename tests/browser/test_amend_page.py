"""Right cards on the right player (issue 14), in a real browser at 360x740 and 390x844.

* The wrong answer near 31: at 29 (Ann K♥, Bob Q♥, Ann 9♣; turn-up K♦) Bob cannot play and Ann plays 2♦
  for 31, but "Bob's" is tapped. Every later card, tapped without picking a player, then goes to the other
  player. Ann's show asks whether K♥ 9♣ 8♣ 4♠ are her cards; "No" and her real cards are refused as not
  matching the plays, with the one amend that fixes it (2♦ was Ann's) offered in one tap: after it the hand
  scores exactly as the same hand entered right.
* A go tapped by mistake near 31 (Bob's, at 25) is amended away: Bob's 4♦ goes to Ann without a question
  (only Ann can play after that go), the next refusal (Bob's real go) offers "Fix: remove event 5", and after
  that one amend the hand scores exactly as the same hand entered right.
* A card entered on a phone that belongs to a seat goes to that seat.
* A phone that belongs to the player confirms its own hand: the other phones show whose phone confirms, and
  may take over ("Confirm here instead") when that phone is asleep or offline.
* A late card from a phone that was offline is refused with what was entered meanwhile, and the offered
  amend puts both cards on the right players.
"""

from __future__ import annotations

import pytest

from playwright.sync_api import expect

from companion.table import Table
from conftest import shot, until
from test_table_page import VIEWPORTS, VP_IDS, box, pick, two_phones


def right_scores(cmds) -> list[int]:
    t = Table.memory(default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob", "stake": 1})
    for c in [{"type": "turnup", "card": "KD"}] + cmds:
        t.submit(c)
    return [s["score"] for s in t.snapshot()["sides"]]


def enter(page, cards, count: int) -> None:
    """Tap ``cards`` each for the player to play, and wait for the count they make."""
    for card in cards:
        pick(page, card)
    expect(page.locator("#count")).to_have_text(str(count))


def make_bobs(page) -> None:
    """Make ``page`` Bob's phone under More → Whose phone, and go back to the table."""
    page.click("[data-tab=more]")
    page.click("#seat-choice [data-seat='Bob']")
    expect(page.locator("#seat-now")).to_have_text("This is Bob's phone.")
    page.click("[data-tab=table]")


def plays(server) -> dict:
    return server.table.snapshot()["hand"]["plays"]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_the_wrong_answer_near_31_is_caught_at_the_show_and_fixed_by_one_amend(server, phones, viewport):
    a, _ = two_phones(server, phones, viewport)
    enter(a, ("KH", "QH", "9C"), 29)
    pick(a, "2D")
    # the likely answer (Bob, to play) is the big primary button at the bottom right, under the thumb; the
    # other answer names its consequence; nothing of the question hides under the picker or off screen
    likely, other = a.locator("#whose [data-whose='Bob']"), a.locator("#whose [data-whose='Ann']")
    expect(likely).to_have_text("Bob's")
    expect(other).to_have_text("Ann's: Bob said go")
    assert "primary" in likely.get_attribute("class") and "primary" not in (other.get_attribute("class") or "")
    bl, bo, bc = box(a, "#whose [data-whose='Bob']"), box(a, "#whose [data-whose='Ann']"), box(a, "#whose-cancel")
    assert bl["y"] >= max(bo["y"], bc["y"]) + bo["height"] - 1          # a row below the others
    assert bl["x"] + bl["width"] >= max(bo["x"] + bo["width"], bc["x"] + bc["width"]) - 1
    vp = a.viewport_size
    assert bl["y"] + bl["height"] <= vp["height"] and bl["x"] + bl["width"] <= vp["width"]
    shot(a, f"whose-{vp['width']}")
    likely.click()                                       # the wrong answer: it was Ann's, Bob had said go
    expect(a.locator("#step-main")).to_have_text("Ann to play")
    for card in ("8C", "5H", "4S", "3C"):                # each tapped for whoever the page says is to play
        pick(a, card)
    until(a, lambda: plays(server) == {"Ann": ["KH", "9C", "8C", "4S"], "Bob": ["QH", "2D", "5H", "3C"]})
    # the show shows the cards the table credited and asks
    expect(a.locator("#show-q")).to_have_text("Are these Ann's cards?")
    a.click("#show-no")
    for card in ("KH", "9C", "2D", "5H"):
        pick(a, card)
    a.click("#tray-go")
    expect(a.locator("#toast")).to_contain_text("Ann's hand does not match the plays")
    fix = a.locator("#amend-fix")
    expect(fix).to_have_text("Fix: event 5 was Ann's")
    fix.click()
    expect(a.locator("#toast")).to_contain_text("event 5 amended: 2\u2666 is Ann's, not Bob's")
    until(a, lambda: plays(server) == {"Ann": ["KH", "9C", "2D", "5H"], "Bob": ["QH", "8C", "4S", "3C"]})
    expect(a.locator("#show-q")).to_have_text("Are these Ann's cards?")
    a.click("#count-known")
    expect(a.locator("#count-known")).to_have_text("Yes: count Bob's hand")
    a.click("#count-known")
    right = right_scores([{"type": "play", "card": c} for c in ("KH", "QH", "9C")]
                         + [{"type": "play", "card": "2D", "player": "Ann"}]
                         + [{"type": "play", "card": c} for c in ("8C", "5H", "4S", "3C")]
                         + [{"type": "show"}, {"type": "show"}])
    until(a, lambda: [s["score"] for s in server.table.snapshot()["sides"]] == right)
    for i, side in enumerate(("p1", "p2")):
        expect(a.locator(f"[data-score='{side}']")).to_have_text(str(right[i]))
    assert a.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_a_mistaken_go_near_31_is_amended_away(server, phones, viewport):
    a, _ = two_phones(server, phones, viewport)
    enter(a, ("KH", "QH", "5C"), 25)
    go = a.locator("#go")
    expect(go).to_have_text("Bob says go")
    assert "primary" in go.get_attribute("class")
    go.click()                                           # the mistake: Bob played 4♦, he had not said go
    expect(go).to_have_text("Ann says go")
    pick(a, "4D")                                        # after Bob's go only Ann can play: nothing is asked
    expect(a.locator("#count")).to_have_text("29")
    assert a.locator("#whose").count() == 0
    until(a, lambda: plays(server) == {"Ann": ["KH", "5C", "4D"], "Bob": ["QH"]})
    a.click("#go")                                       # Ann says go (true: she holds 8♥ 9♠)
    expect(a.locator("#step-main")).to_have_text("Ann to play")
    a.click("[data-player='Bob']")
    expect(go).to_have_text("Bob says go")
    go.click()                                           # Bob cannot play at 29 either: refused, with the fix
    expect(a.locator("#toast")).to_contain_text("it is Ann's turn; Bob can say go only if Ann said go")
    fix = a.locator("#amend-fix")
    expect(fix).to_have_text("Fix: remove event 5")
    fix.click()
    expect(a.locator("#toast")).to_contain_text("event 5 amended: Bob's go removed")
    until(a, lambda: plays(server) == {"Ann": ["KH", "5C"], "Bob": ["QH", "4D"]})
    expect(a.locator("#step-main")).to_have_text("Bob to play")
    expect(a.locator("#count")).to_have_text("29")
    a.click("#go")                                       # Bob's go, now in its place
    for card in ("7C", "8H", "6S", "9S"):
        pick(a, card)
    until(a, lambda: plays(server) == {"Ann": ["KH", "5C", "8H", "9S"], "Bob": ["QH", "4D", "7C", "6S"]})
    a.click("#count-known")
    expect(a.locator("#count-known")).to_have_text("Yes: count Bob's hand")
    a.click("#count-known")
    right = right_scores([{"type": "play", "card": c} for c in ("KH", "QH", "5C", "4D")]
                         + [{"type": "go"}, {"type": "go"}]
                         + [{"type": "play", "card": c} for c in ("7C", "8H", "6S", "9S")]
                         + [{"type": "show"}, {"type": "show"}])
    assert right == [10, 12]
    until(a, lambda: [s["score"] for s in server.table.snapshot()["sides"]] == right)
    for i, side in enumerate(("p1", "p2")):
        expect(a.locator(f"[data-score='{side}']")).to_have_text(str(right[i]))
    assert a.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_a_card_entered_on_a_seat_phone_goes_to_its_seat(server, phones, viewport):
    a, b = two_phones(server, phones, viewport)
    make_bobs(b)
    pick(a, "8S")                                        # Ann's card from the host's phone (nobody's)
    expect(b.locator("#count")).to_have_text("8")
    pick(b, "7H")                                        # Bob's phone: Bob's 7♥, fifteen for Ann (L2)
    expect(b.locator("#count")).to_have_text("15")
    expect(a.locator("#count")).to_have_text("15")
    until(a, lambda: plays(server) == {"Ann": ["8S"], "Bob": ["7H"]})
    # Ann is to play at 15: a card on Bob's phone is refused, saying it is Ann's turn
    pick(b, "5C")
    expect(b.locator("#toast")).to_contain_text("it is Ann's turn; Bob can play 5\u2663 only if Ann said go")
    until(a, lambda: plays(server) == {"Ann": ["8S"], "Bob": ["7H"]})
    assert a.errors == [] and b.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_the_offline_card_and_the_stale_turn_card_end_on_the_right_players_after_the_offered_fix(
        server, phones, viewport):
    a, b = two_phones(server, phones, viewport)
    pick(a, "8S")                                        # Ann 8♠: Bob to play
    expect(b.locator("#step-main")).to_have_text("Bob to play")
    b.context.set_offline(True)
    pick(b, "2H")                                        # Bob's 2♥ on the phone that is offline
    expect(b.locator("#pending")).to_be_visible()
    pick(a, "10D")                                       # the other phone enters 10♦ for the player to play
    expect(a.locator("#count")).to_have_text("18")
    until(a, lambda: plays(server) == {"Ann": ["8S"], "Bob": ["10D"]})
    b.context.set_offline(False)
    expect(b.locator("#toast")).to_contain_text("Meanwhile 10\u2666 for Bob (from the host's phone) was entered",
                                                timeout=20000)
    fix = b.locator("#amend-fix")
    expect(fix).to_have_text("Fix: enter 2\u2665 before event 3")
    fix.click()
    expect(b.locator("#count")).to_have_text("20")
    # 2♥ is Bob's, and 10♦ (entered for the player to play) is then Ann's
    until(a, lambda: plays(server) == {"Ann": ["8S", "10D"], "Bob": ["2H"]})
    assert a.errors == [] and b.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_one_h1_score_panels_read_the_score_first_and_the_settlement_has_no_empty_header(server, phones, viewport):
    a, _ = two_phones(server, phones, viewport)
    assert a.locator("h1").count() == 1
    server.table.submit({"type": "peg", "side": "p2", "points": 8})
    server.table.submit({"type": "peg", "side": "p2", "points": 5})
    expect(a.locator("[data-side='p2']")).to_have_attribute("aria-label", "Bob, 13, previous 8, to 16, deals")
    server.table.submit({"type": "peg", "side": "p1", "points": 16})     # Ann reaches 16: she loses
    expect(a.locator("#result")).to_be_visible()
    heads = a.locator("#result-body th").all_inner_texts()
    assert heads and all(x.strip() for x in heads)
    assert a.errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=VP_IDS)
def test_the_players_own_phone_confirms_its_hand(server, phones, viewport):
    a, b = two_phones(server, phones, viewport)
    make_bobs(b)
    for c in ("KH", "QH", "5C", "4D"):
        server.table.submit({"type": "play", "card": c})
    server.table.submit({"type": "go"})
    server.table.submit({"type": "go"})
    for c in ("7C", "8H", "6S", "9S"):
        server.table.submit({"type": "play", "card": c})
    # Ann has no phone of her own: any phone confirms her hand (here Bob's)
    expect(a.locator("#show-q")).to_have_text("Are these Ann's cards?")
    expect(b.locator("#show-q")).to_have_text("Are these Ann's cards?")
    b.click("#count-known")
    # Bob's hand: asked on Bob's phone; the host's phone shows who confirms, with the cards, and asks nothing
    expect(b.locator("#show-q")).to_have_text("Are these Bob's cards?")
    expect(a.locator("#show-q")).to_have_text("Bob's phone confirms Bob's cards")
    assert a.locator("#count-known").count() == 0 and a.locator("#show-no").count() == 0
    expect(a.locator("#entry .cards")).to_contain_text("Q\u2665")
    shot(a, f"show-waits-{viewport['width']}")
    a.click("#show-here")                                # Bob's phone asleep: the host's phone may take over
    expect(a.locator("#show-q")).to_have_text("Are these Bob's cards?")
    expect(a.locator("#count-known")).to_be_in_viewport()
    b.click("#count-known")                              # ... but Bob's phone answers first
    until(a, lambda: [s["score"] for s in server.table.snapshot()["sides"]] == [10, 12])
    expect(a.locator("[data-score='p2']")).to_have_text("12")
    assert server.table.history()[-1]["type"] == "show"
    assert a.errors == [] and b.errors == []
