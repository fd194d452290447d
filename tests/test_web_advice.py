"""/api/advise (practice and live) and /api/review: the same figures as the core, every refusal a JSON 4xx."""

from __future__ import annotations

import pytest

from companion.advice.discard import advise
from companion.advice.pegging_multi import rank_plays
from companion.advice.review import positions, review_hand
from companion.rulesets import get_ruleset
from companion.table import Table
from web import create_app


@pytest.fixture
def table():
    t = Table.memory()
    yield t
    t.close()


@pytest.fixture
def client(tmp_path, table):
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"]}, table=table)
    return app.test_client()


PLAYS = [("Ann", "KH"), ("Bob", "5S"), ("Ann", "AH"), ("Bob", "AS"), ("Ann", "3D"), ("Bob", "3S"),
         ("Ann", "4D"), ("Bob", "4S")]


def play_a_cribbage_hand(table, *, options=None):
    table.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "first_dealer": "Bob",
                  "options": options or {}})
    table.submit({"type": "turnup", "card": "2C"})
    for player, card in PLAYS:
        table.submit({"type": "play", "card": card, "player": player})
    table.submit({"type": "show"})
    table.submit({"type": "show"})
    table.submit({"type": "pocket", "cards": ["9C", "8C", "7H", "6H"]})


def test_practice_is_the_core_result(client):
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&game=lands-end&dealer=true&scores=7,3")
    assert r.status_code == 200
    assert r.get_json() == advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True, scores=[7, 3],
                                  pegging=True).to_dict()
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&game=lands-end&dealer=true&pegging=0")
    assert r.get_json() == advise("5H 5S 6D JC 4C KD", game="lands-end", dealer=True).to_dict()
    r = client.get('/api/advise?cards=5H,5S,6D,JC,4C&game=lands-end-casino-3&seat=1&owner=1'
                   '&options={"zero_bonus_pocket":true}')
    assert r.status_code == 200 and r.get_json()["pocket_owner"] == "you"


@pytest.mark.parametrize("query, status, error", [
    ("", 400, "give the dealt cards"),
    ("cards=5H,5S,6D,JC,4C,ZZ&dealer=1", 400, "not a card: 'ZZ'"),
    ("cards=5H,5S,6D,JC,4C,KD&seat=x", 400, "seat must be a whole number"),
    ("cards=5H,5S,6D,JC,4C,KD&dealer=maybe", 400, "dealer must be true or false"),
    ("cards=5H,5S,6D,JC,4C,KD&dealer=1&options=[1]", 400, "options must be a JSON object"),
    ("cards=5H,5S,6D,JC,4C,KD&dealer=1&options={", 400, "options must be a JSON object"),
    ("cards=5H,5S,6D,JC,4C,KD&dealer=1&game=chess", 400, "unknown game"),
    ("cards=5H,5S,6D,JC,4C,KD&dealer=1&scores=99,1", 400, "0 to 15"),
    ("cards=5H,5S,6D,JC,4C,KD&player=Ann", 403, "does not allow advice"),     # the fresh table's first hand
])
def test_practice_refusals(client, query, status, error):
    r = client.get("/api/advise?" + query)
    assert r.status_code == status and error in r.get_json()["error"]


def test_live_advice_only_where_the_table_allows_it(client, table):
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    table.submit({"type": "peg", "side": "p1", "points": 4})
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&player=Ann")
    assert r.status_code == 403 and "does not allow advice" in r.get_json()["error"]
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob",
                  "options": {"live_advice": True}})
    table.submit({"type": "peg", "side": "p1", "points": 4})
    table.submit({"type": "peg", "side": "p2", "points": 9})
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&player=Ann")
    assert r.status_code == 200
    want = advise("5H 5S 6D JC 4C KD", game=get_ruleset("lands-end", live_advice=True), dealer=False,
                  scores=[4, 9], pegging=True).to_dict()
    assert r.get_json() == want
    assert r.get_json()["dealer"] is False and r.get_json()["scores"] == [4, 9]
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&player=Cy")
    assert r.status_code == 400 and "does not hold cards" in r.get_json()["error"]
    table.submit({"type": "peg", "side": "p2", "points": 7})         # Bob reaches 16: the game is over
    r = client.get("/api/advise?cards=5H,5S,6D,JC,4C,KD&player=Ann")
    assert r.status_code == 400 and "no hand is in progress" in r.get_json()["error"]


def test_review_of_the_hand_just_shown(client, table):
    assert client.get("/api/review").status_code == 400          # nothing shown yet
    play_a_cribbage_hand(table)
    r = client.get("/api/review")
    assert r.status_code == 200
    body = r.get_json()
    assert body["pocket"] == ["9C", "8C", "7H", "6H"] and body["dealer"] == "Bob"
    assert [(p["player"], p["known"]) for p in body["players"]] == [("Ann", False), ("Bob", False)]
    # Ann says she threw 9C and 7H: Bob's two are the rest (two-hand: the pocket is only their discards)
    r = client.get("/api/review?thrown=Ann:9C,7H")
    ann, bob = r.get_json()["players"]
    assert ann["known"] and bob["known"] and bob["thrown"] == ["8C", "6H"]
    a = advise("KH AH 3D 4D 9C 7H", game="cribbage", dealer=False)
    kept = next(d for d in a.discards if {str(c) for c in d.discard} == {"9C", "7H"})
    assert ann["hand_mean"] == float(kept.hand_mean) and ann["net"] == float(kept.net)
    assert ann["best"]["net"] == float(a.discards[0].net) and ann["of"] == 15
    assert ann["rank"] == 1 + list(a.discards).index(kept)
    b = advise("5S AS 3S 4S 8C 6H", game="cribbage", dealer=True)
    assert bob["best"]["discard"] == [str(c) for c in b.discards[0].discard]
    assert bob["pocket_owner"] == "you" and ann["pocket_owner"] == "an opponent"


def test_review_shows_each_play_against_the_best(client, table):
    play_a_cribbage_hand(table)
    ann, bob = client.get("/api/review?thrown=Ann:9C,7H").get_json()["players"]
    assert "pegging" not in ann                   # asked for separately: it takes longer
    ann, bob = client.get("/api/review?thrown=Ann:9C,7H&pegging=1").get_json()["players"]
    # Ann (the non-dealer) led KH from KH AH 3D 4D with 2C turned up, knowing she threw 9C 7H
    lead = rank_plays("KH AH 3D 4D", game="cribbage", turnup="2C", seen="9C 7H")
    got = ann["pegging"][0]
    mine = next(p for p in lead.plays if str(p.card) == "KH")
    assert got["lead"] and got["card"] == "KH" and got["net"] == float(mine.net)
    assert got["best"] == str(lead.plays[0].card) and got["best_net"] == float(lead.plays[0].net)
    assert got["text"].startswith("you led K\u2665: ") and "by the game's goal" in got["text"]
    # her second card, AH at 15 after Bob's 5S
    second = rank_plays("AH 3D 4D", game="cribbage", turnup="2C", seen="9C 7H", played="KH 5S")
    assert ann["pegging"][1]["net"] == float(next(p for p in second.plays if str(p.card) == "AH").net)
    assert [p["card"] for p in ann["pegging"]] == ["KH", "AH", "3D", "4D"]
    assert [p["card"] for p in bob["pegging"]] == ["5S", "AS", "3S", "4S"] and not bob["pegging"][0]["lead"]


def test_live_pegging_advice_follows_the_table(client, table):
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob"})
    table.submit({"type": "turnup", "card": "2D"})
    r = client.get("/api/lead?cards=5H,9C,JD,KS&player=Ann")
    assert r.status_code == 403 and "does not allow advice" in r.get_json()["error"]
    table.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob",
                  "options": {"live_advice": True}})
    table.submit({"type": "turnup", "card": "2D"})
    r = client.get("/api/lead?cards=5H,9C,JD,KS&player=Ann")
    assert r.status_code == 200
    rules = get_ruleset("lands-end", live_advice=True)
    assert r.get_json() == rank_plays("5H 9C JD KS", game=rules, turnup="2D").to_dict()
    r = client.get("/api/lead?cards=5H,9C,JD,KS&player=Bob")
    assert r.status_code == 400 and "Ann's turn" in r.get_json()["error"]
    for player, card in (("Ann", "KS"), ("Bob", "QH"), ("Ann", "9C")):
        table.submit({"type": "play", "card": card, "player": player})
    r = client.get("/api/lead?cards=AC,7C,6C&player=Bob")
    assert r.status_code == 200
    assert r.get_json() == rank_plays("AC 7C 6C", game=rules, turnup="2D", played="KS QH 9C",
                                      dealer=True).to_dict()
    # practice: any position, no table needed
    r = client.get("/api/lead?cards=9C,JD,KS&game=cribbage&played=5H,10S&turnup=2D")
    assert r.get_json() == rank_plays("9C JD KS", game="cribbage", played="5H 10S", turnup="2D").to_dict()
    r = client.get("/api/lead?cards=9C,JD,KS&game=lands-end-3&seat=1")
    assert r.status_code == 400 and "hold 4 cards" in r.get_json()["error"]


def test_three_hand_leads_and_positions_in_practice(client):
    r = client.get("/api/lead?cards=5H,9C,JD,KS&game=lands-end-3&seat=1&turnup=2D")
    assert r.status_code == 200
    got = r.get_json()
    assert got == rank_plays("5H 9C JD KS", game="lands-end-3", seat=1, turnup="2D").to_dict()
    assert not got["exact_enumeration"] and got["sampled"] == 1000 and all(p["stderr"] > 0 for p in got["plays"])
    # late in the hand: exact (docs/advice.md's three-hand example)
    r = client.get("/api/lead?cards=2C,10S&game=lands-end-3&seat=1&turnup=4D&played=6D,7S,QD,4H,AS,2D,go,AD,8S")
    got = r.get_json()
    assert got["exact_enumeration"] and [p["card"] for p in got["plays"]] == ["10S", "2C"]
    assert got["plays"][0]["exact"]["reply"]["run"] == "4/41"
    r = client.get("/api/lead?cards=5H,9C,JD,KS&game=lands-end-3&seat=2&turnup=2D")
    assert r.status_code == 400 and "turn of the player at seat 1" in r.get_json()["error"]
    r = client.get("/api/lead?cards=5H,9C,JD,KS&game=lands-end-casino-4&seat=0")
    assert r.status_code == 400 and "seat" in r.get_json()["error"]


@pytest.mark.parametrize("query, error", [
    ("thrown=Ann:9C", "threw 2 cards"),
    ("thrown=Ann:9C,KD", "KD was not in the crib"),
    ("thrown=Ann:9C,7H&thrown=Bob:9C,8C", "claimed by two players"),
    ("thrown=Cy:9C,7H", "did not show a hand"),
    ("thrown=Ann", "NAME:CARD,CARD"),
])
def test_review_refusals(client, table, query, error):
    play_a_cribbage_hand(table)
    r = client.get("/api/review?" + query)
    assert r.status_code == 400 and error in r.get_json()["error"]


def test_positions_follow_the_direction_and_a_seatless_house():
    snap = {"players": ["Ann", "Bob", "Cy", "Dee"]}
    assert positions(snap, "Cy", get_ruleset("lands-end-4")) == {"Cy": 0, "Dee": 1, "Ann": 2, "Bob": 3}
    casino4 = get_ruleset("lands-end-casino-4")
    assert positions(snap, "House", casino4) == {"Ann": 1, "Bob": 2, "Cy": 3, "Dee": 4}
    assert positions(snap, "House", casino4.with_options(direction="ccw")) == {"Dee": 1, "Cy": 2, "Bob": 3, "Ann": 4}
    three = {"players": ["House", "Ann", "Bob"]}
    assert positions(three, "House", get_ruleset("lands-end-casino-3", direction="ccw")) == {"House": 0, "Bob": 1, "Ann": 2}


def test_review_in_three_hand_knows_only_who_said():
    # three-hand: the pocket holds a dealt card, so nobody's discard follows from the others'
    t = Table.memory()
    t.submit({"type": "new_match", "game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "first_dealer": "Cy"})
    snap = t.snapshot()
    t.close()
    hand = {"hand_no": 1, "dealer": "Cy", "turnup": "2C",
            "shows": [{"player": "Ann", "cards": ["KH", "AH", "3D", "4D"]},
                      {"player": "Bob", "cards": ["5S", "AS", "3S", "4S"]},
                      {"player": "Cy", "cards": ["QD", "QC", "9D", "10S"]}],
            "pocket": {"side": "p3", "cards": ["9C", "8C", "7H", "6H"]}}
    snap["hand"] = {"kind": "cards", "stage": "cut", "pocket": None, "previous": hand}
    out = review_hand(snap, {"Ann": ["9C"], "Bob": ["8C"]})
    known = {p["player"]: p["known"] for p in out["players"]}
    assert known == {"Ann": True, "Bob": True, "Cy": False}
    ann = out["players"][0]
    a = advise("KH AH 3D 4D 9C", game="lands-end-3", seat=1)
    assert ann["best"]["net"] == float(a.discards[0].net) and ann["pocket_owner"] == "an opponent"


def test_live_advice_and_the_review_in_a_three_hand_game(client, table):
    from test_review_multi import TOKENS, play_hand
    play_hand(table, until=4)                                # Bob's A♥ made 30; Cy and Bob said go: Ann leads
    r = client.get("/api/lead?cards=5S,6D,7C&player=Ann")
    assert r.status_code == 200
    rules = get_ruleset("lands-end-3", live_advice=True)
    assert r.get_json() == rank_plays("5S 6D 7C", game=rules, played=TOKENS[:7], seat=1, turnup="2D").to_dict()
    assert r.get_json()["seat"] == 1 and r.get_json()["played"] == TOKENS[:7]
    r = client.get("/api/lead?cards=5S,6D,7C&player=Cy")
    assert r.status_code == 400 and "Ann's turn" in r.get_json()["error"]
    table.submit({"type": "new_match", "game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "first_dealer": "Cy"})
    play_hand(table)
    r = client.get("/api/review?pegging=1")
    assert r.status_code == 200
    ann = next(p for p in r.get_json()["players"] if p["player"] == "Ann")
    assert [x["card"] for x in ann["pegging"]] == ["KH", "5S", "6D", "7C"]
    assert ann["pegging"][0]["text"].startswith("you led K\u2665: ")
