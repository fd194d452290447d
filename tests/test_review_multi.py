"""Three- and four-hand pegging at a real table: the gos the table's record leaves implicit (M2), live
advice for the player to play, and the review of each card played against the model's best.

The hand (Land's End three-hand, Cy deals, turn-up 2D), checked by hand:
Ann KH 10, Bob QH 20, Cy 9C 29; Ann cannot play (5S 6D 7C): go; Bob AH 30; Cy go, Bob go: the count
ends and Ann, the first to say go, leads (M2). Ann 5S 5, Bob 4S 9, Cy 3C 12, Ann 6D 18, Bob 8D 26,
Cy 2S 28; Ann go (7C), Bob has no cards, Cy go (JD): Ann leads 7C 7, Cy JD 17, the last card.
"""

import pytest

from companion.errors import IllegalAction, NotAllowed
from companion.advice.pegging_multi import infer_gos_multi, rank_plays_multi
from companion.advice.review import live_peg_request, positions, review_hand
from companion.rulesets import get_ruleset
from companion.table import Table

HANDS = {"Ann": "KH 5S 6D 7C", "Bob": "QH AH 4S 8D", "Cy": "9C 3C JD 2S"}
PLAYS = [("Ann", "KH"), ("Bob", "QH"), ("Cy", "9C"), ("Bob", "AH"), ("Ann", "5S"), ("Bob", "4S"), ("Cy", "3C"),
         ("Ann", "6D"), ("Bob", "8D"), ("Cy", "2S"), ("Ann", "7C"), ("Cy", "JD")]
TOKENS = ["KH", "QH", "9C", "go", "AH", "go", "go", "5S", "4S", "3C", "6D", "8D", "2S", "go", "go", "7C", "JD"]
SEATS = {"Cy": 0, "Ann": 1, "Bob": 2}


def play_hand(t=None, *, until=None, live=True):
    t = t or Table.memory()
    t.submit({"type": "new_match", "game": "lands-end-3", "players": ["Ann", "Bob", "Cy"], "first_dealer": "Cy",
              "options": {"live_advice": live}})
    t.submit({"type": "turnup", "card": "2D"})
    for i, (p, c) in enumerate(PLAYS):
        while t.snapshot()["hand"]["expect_player"] != p or c in ("7C",) and t.snapshot()["count"] == 28:
            t.submit({"type": "go"})                 # the gos said aloud at the table
        if i == until:
            return t
        t.submit({"type": "play", "card": c, "player": p})
    for name in ("Ann", "Bob", "Cy"):
        t.submit({"type": "show", "player": name, "cards": HANDS[name].split()})
    t.submit({"type": "pocket", "cards": ["AC", "2C", "3H", "4H"]})
    return t


def test_the_gos_of_a_three_hand_count_come_back_from_its_cards():
    rules = get_ruleset("lands-end-3")
    assert infer_gos_multi(rules, [(SEATS[p], c) for p, c in PLAYS]) == TOKENS
    # live: Bob has just played AH to 30 and the table says Ann is to play: Cy's and Bob's gos came first
    assert infer_gos_multi(rules, [(SEATS[p], c) for p, c in PLAYS[:4]], then=1) == TOKENS[:7]
    with pytest.raises(IllegalAction, match="5H cannot have been played"):
        infer_gos_multi(rules, [(1, "AH"), (1, "2H"), (1, "3H"), (1, "4H"), (1, "5H")])   # Ann holds four cards


@pytest.mark.parametrize("go_lead, leader", [("last_player", 0), ("other_player", 1)])
def test_a_count_that_ends_in_two_gos_comes_back_in_two_hand_games(go_lead, leader):
    """Ann K♥, Bob 10♠ (20), Ann 8♣ (28); Bob cannot play: go; Ann cannot (7♣): go, and the count ends.
    The next count is led by the player of the last card (Ann, L9 last_player) or the other (Bob)."""
    from companion.advice.pegging import infer_gos
    rules = get_ruleset("lands-end", go_lead=go_lead)
    plays = [(0, "KH"), (1, "10S"), (0, "8C"), (leader, "7C")]
    assert infer_gos(rules, plays, 0) == ["KH", "10S", "8C", "go", "go", "7C"]
    with pytest.raises(IllegalAction, match="7C cannot have been played"):
        infer_gos(rules, plays[:3] + [(1 - leader, "7C")], 0)       # the wrong player to lead the next count


def test_live_advice_for_the_player_to_play_in_a_three_hand_game():
    t = play_hand(until=4)                                   # Ann leads the second count
    kw = live_peg_request(t.snapshot(), "Ann")
    assert (kw["played"], kw["seat"], kw["turnup"]) == (TOKENS[:7], 1, "2D")
    with pytest.raises(IllegalAction, match="Ann's turn, not Bob's"):
        live_peg_request(t.snapshot(), "Bob")
    off = play_hand(until=4, live=False)
    with pytest.raises(NotAllowed):                          # the table's rule, not a bad request: 403
        live_peg_request(off.snapshot(), "Ann")


def test_the_review_puts_every_card_of_a_three_hand_count_against_the_best():
    t = play_hand()
    snap = t.snapshot()
    assert positions(snap, "Cy", get_ruleset("lands-end-3")) == SEATS
    review = {p["player"]: p["pegging"] for p in review_hand(snap, pegging=True)["players"]}
    assert [x["card"] for x in review["Ann"]] == ["KH", "5S", "6D", "7C"]
    assert [x["card"] for x in review["Cy"]] == ["9C", "3C", "2S", "JD"]
    assert [x["lead"] for x in review["Ann"]] == [True, True, False, True]
    # Ann's first lead: the same figures as the model's ranking of her four cards (a seeded sample of the
    # others' deals: the same deals every time, so the review and the practice view agree)
    lead = rank_plays_multi("KH 5S 6D 7C", game="lands-end-3", seat=1, turnup="2D")
    first = review["Ann"][0]
    assert first["net"] == float(next(p.net for p in lead.plays if str(p.card) == "KH"))
    assert (first["best"], first["best_net"]) == (str(lead.plays[0].card), float(lead.plays[0].net))
    assert first["sampled"]["deals"] == 1000 and first["sampled"]["stderr"] > 0 and "\u00b1" in first["text"]
    # the last card of a hand is forced and exact: one play, the best
    last = review["Cy"][-1]
    assert (last["rank"], last["of"], last["sampled"]) == (1, 1, None) and last["text"].endswith("(the best)")


def test_the_table_lists_every_go_and_the_review_reads_them():
    """The snapshot's hand and its ``previous`` carry the gos the table knew ({"player", "after"}: after that many
    cards of the hand); the review and live advice read them instead of inferring them."""
    from companion.advice.review import played_tokens
    t = play_hand()                                      # the game ends on the pocket: the hand is the last one
    hand = t.snapshot()["hand"]
    assert hand["gos"] == [{"player": "Ann", "after": 3}, {"player": "Cy", "after": 4}, {"player": "Bob", "after": 4},
                           {"player": "Ann", "after": 10}, {"player": "Cy", "after": 10}]
    assert played_tokens(hand["order"], hand["gos"]) == TOKENS
    assert t.state.hand.summary()["gos"] == hand["gos"]   # what the next hand shows as its ``previous``
    # the inference kept for a snapshot that does not list them agrees
    assert infer_gos_multi(get_ruleset("lands-end-3"), [(SEATS[o["player"]], o["card"]) for o in hand["order"]]) \
        == TOKENS
    live = play_hand(until=4)                            # Ann to lead again after the count that ended in gos
    assert live.snapshot()["hand"]["gos"] == hand["gos"][:3]
    assert live_peg_request(live.snapshot(), "Ann")["played"] == TOKENS[:7]


def test_two_hand_live_advice_follows_the_other_players_go():
    """Ann K♥, Bob 10♠ (20), Ann 8♣ (28), Bob says go: it is Ann's turn at 28. Inferred from the cards alone the
    go was missing (the cards say it is Bob's turn, and the advice was refused); the table's own go is read."""
    from companion.advice.pegging_multi import rank_plays
    t = Table.memory()
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "first_dealer": "Bob",
              "options": {"live_advice": True}})
    t.submit({"type": "turnup", "card": "2D"})
    for p, c in (("Ann", "KH"), ("Bob", "10S"), ("Ann", "8C")):
        t.submit({"type": "play", "card": c, "player": p})
    t.submit({"type": "go", "player": "Bob"})
    req = live_peg_request(t.snapshot(), "Ann")
    assert req["played"] == ["KH", "10S", "8C", "go"] and req["dealer"] is False
    a = rank_plays(["AH", "7C"], **req)
    assert [str(p.card) for p in a.plays] == ["AH"] and a.count == 28       # 7C would make 35


def test_docstring_examples():
    import doctest

    import companion.advice.review
    result = doctest.testmod(companion.advice.review)
    assert result.attempted and not result.failed
