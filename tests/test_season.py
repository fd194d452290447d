"""The night and the season (companion.season, companion.players): settle-up, nights, the figures per player,
each against numbers counted by hand (tests/season_db.py says how)."""

from fractions import Fraction as F
import pytest
from hypothesis import given, settings, strategies as st

from companion import season as season_mod
from companion.season import store as season_store
from companion.errors import IllegalAction
from companion.players import Identity, player_key
from companion.season import Season, group_nights, race, settle_up, summarize_match
from companion.table import Table
from season_db import Clock, build, pegs


@pytest.fixture(scope="module")
def db():
    table = build()
    return Season(table.store)


def pay(payments):
    return [(a, b, season_mod.money(v)) for a, b, v in payments]


# --- settle up ---------------------------------------------------------------------------------

def test_settle_up_two_players():
    assert pay(settle_up({"Ann": F(-6), "Bob": F(6)})) == [("Ann", "Bob", 6)]


def test_settle_up_three_players_two_payments():
    # Cy lost 14 to two winners: two payments, never three
    assert pay(settle_up({"Ann": F(9), "Bob": F(5), "Cy": F(-14)})) == [("Cy", "Ann", 9), ("Cy", "Bob", 5)]


def test_settle_up_four_players_finds_the_groups_that_sum_to_zero():
    # Ann +5, Bob -5, Cy +3, Dee -3: two payments; the largest-first greedy would make three
    assert sorted(pay(settle_up({"Ann": F(5), "Bob": F(-5), "Cy": F(3), "Dee": F(-3)}))) == [
        ("Bob", "Ann", 5), ("Dee", "Cy", 3)]
    # +4 +3 +2 -6 -3 splits into {B +3, E -3} and {A +4, C +2, D -6}: 3 payments, where the largest debt
    # paying the largest credit first (D pays A 4, D pays B 2, E pays B 1, E pays C 2) makes 4
    got = settle_up({"A": F(4), "B": F(3), "C": F(2), "D": F(-6), "E": F(-3)})
    assert sorted(pay(got)) == [("D", "A", 4), ("D", "C", 2), ("E", "B", 3)]


def test_settle_up_with_the_house_and_halves():
    # four-hand casino won by the house (H4, H5), stake 1: each team pays its stake once, half a player
    got = settle_up({"Ann": F(-1, 2), "Cy": F(-1, 2), "Bob": F(-1, 2), "Dee": F(-1, 2), "House": F(2)})
    assert pay(got) == [("Ann", "House", 0.5), ("Bob", "House", 0.5), ("Cy", "House", 0.5), ("Dee", "House", 0.5)]


def test_settle_up_refuses_balances_that_do_not_sum_to_zero():
    with pytest.raises(ValueError, match="do not sum to zero"):
        settle_up({"Ann": F(1), "Bob": F(-2)})
    assert settle_up({}) == [] and settle_up({"Ann": F(0)}) == []


def _partitions(n: int, labels=()):
    """Yield every set partition of n people as restricted growth strings (Bell(n) of them)."""
    if len(labels) == n:
        yield labels
        return
    for k in range(max(labels, default=-1) + 2):
        yield from _partitions(n, labels + (k,))


def _fewest_by_brute_force(vals: list) -> int:
    """The fewest payments: the number of people less the most zero-sum blocks of a set partition,
    every partition tried."""
    best = 0
    for labels in _partitions(len(vals)):
        blocks = {}
        for v, k in zip(vals, labels):
            blocks[k] = blocks.get(k, 0) + v
        if all(s == 0 for s in blocks.values()):
            best = max(best, len(blocks))
    return len(vals) - best


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6).filter(bool), min_size=1, max_size=5))
def test_settle_up_is_exact_and_fewest(amounts):
    amounts = amounts + [-sum(amounts)] if sum(amounts) else amounts
    balances = {f"P{i}": F(v, 2) for i, v in enumerate(amounts)}
    got = settle_up(balances)
    left = dict(balances)
    for a, b, v in got:
        assert v > 0 and a != b
        left[a] += v
        left[b] -= v
    assert all(v == 0 for v in left.values())
    assert len(got) == _fewest_by_brute_force([v for v in balances.values() if v])


# --- players ----------------------------------------------------------------------------------

def test_case_and_spacing_do_not_split_a_player():
    assert player_key("  ann  LEE") == player_key("Ann Lee") == "ann lee"
    ids = Identity()
    assert ids.saw("BOB ") == ids.saw("bob") and ids.name("bob") == "bob"


def test_rename_and_merge_follow_every_name():
    ids = Identity([{"type": "rename", "name": "Bob", "to": "Robert"},
                    {"type": "merge", "name": "Bobby", "into": "robert"},
                    {"type": "rename", "name": "Robert", "to": "Rob"}])
    assert ids.key("bob") == ids.key("BOBBY") == ids.key("Rob") == ids.key("robert")
    assert ids.name(ids.key("bob")) == "Rob"
    # renamed back: one person still, no loop
    back = Identity([{"type": "rename", "name": "Bob", "to": "Rob"}, {"type": "rename", "name": "Rob", "to": "Bob"}])
    assert back.key("rob") == back.key("bob") and back.name(back.key("rob")) == "Bob"


# --- the hand-counted database -----------------------------------------------------------------

def test_nights_and_their_settle_up(db):
    nights = [db.night(n) for n in (1, 2, 3)]
    assert [n["start"][:10] for n in nights] == ["2026-11-20", "2026-11-21", "2026-11-22"]
    assert [(p["name"], p["money"], p["games"], p["wins"], p["losses"]) for p in nights[0]["players"]] == [
        ("Bob", 6, 2, 2, 0), ("Ann", -6, 2, 0, 2)]
    assert nights[0]["payments"] == [{"from": "Ann", "to": "Bob", "amount": 6}]
    # Cy played the first game of night 2 and left: he still pays both
    assert [(p["name"], p["money"], p["games"]) for p in nights[1]["players"]] == [
        ("Ann", 9, 2), ("Bob", 5, 2), ("Cy", -14, 1)]
    assert nights[1]["payments"] == [{"from": "Cy", "to": "Ann", "amount": 9}, {"from": "Cy", "to": "Bob", "amount": 5}]
    # the house is paid as it played (H5), and the two groups that sum to zero settle apart: 3 payments
    assert {p["name"]: p["money"] for p in nights[2]["players"]} == {
        "House": 4, "Ann": 2, "Cy": -1, "Dee": -1, "Bob": -4}
    assert nights[2]["payments"] == [{"from": "Bob", "to": "House", "amount": 4},
                                     {"from": "Cy", "to": "Ann", "amount": 1}, {"from": "Dee", "to": "Ann", "amount": 1}]
    # no night is settled: each may be (open), whichever is the latest
    assert db.night()["night"] == 3 and nights[2]["open"] and nights[0]["open"]
    assert nights[0]["open_nights"] == [1, 2, 3]
    # each game's money, the players named as last seen at the table ("ann" and "BOB " were Ann and Bob)
    assert [g["money"] for g in nights[1]["games"]] == [{"Ann": 8, "Bob": 6, "Cy": -14}, {"Ann": 1, "Bob": -1}]
    with pytest.raises(ValueError, match="nights are 1 to 3"):
        db.night(4)


def test_season_figures(db):
    rep = db.season()
    by = {p["name"]: p for p in rep["players"]}
    assert [p["name"] for p in rep["players"]] == ["Bob", "Ann", "House", "Dee", "Cy"]
    ann, bob = by["Ann"], by["Bob"]
    assert (ann["money"], ann["games"], ann["wins"], ann["losses"], ann["nights"]) == (5, 6, 3, 3, 3)
    assert (bob["money"], bob["games"], bob["wins"], bob["losses"]) == (7, 6, 3, 3)
    assert (by["Cy"]["money"], by["Cy"]["games"], by["Dee"]["money"], by["House"]["money"]) == (-15, 2, -1, 4)
    assert sum(p["money"] for p in rep["players"]) == 0
    # the cribbage double skunk (S1: under 61)
    assert (ann["skunks_won"], ann["skunked"], bob["skunks_won"], bob["skunked"]) == (1, 0, 0, 1)
    # hands: Ann 29 and 4, her pocket 6; Bob's one hand counted nothing (the zero-hand bonus 5)
    assert (ann["hands"], ann["average_hand"], ann["pockets"], ann["average_pocket"]) == (2, 16.5, 1, 6.0)
    assert (ann["twenty_nines"], ann["zero_hands"], bob["zero_hands"], bob["average_hand"]) == (1, 0, 1, 5.0)
    assert ann["best_hand"]["cards"] == ["5H", "5S", "5D", "JC"] and ann["best_hand"]["starter"] == "5C"
    assert ann["best_hand"]["points"] == 29
    assert [(n["night"], n["money"], n["total"]) for n in ann["by_night"]] == [(1, -6, -6), (2, 9, 3), (3, 2, 5)]
    h2h = {h["opponent"]: h for h in ann["head_to_head"]}
    assert (h2h["Bob"]["games"], h2h["Bob"]["wins"], h2h["Bob"]["losses"], h2h["Bob"]["money"]) == (6, 2, 2, -2)
    assert (h2h["Cy"]["games"], h2h["Cy"]["money"], h2h["Dee"]["games"], h2h["Dee"]["money"]) == (1, 8, 1, 0)
    assert db.season(player="  ANN")["players"][0]["money"] == 5
    with pytest.raises(ValueError, match="no player 'Zed'"):
        db.season(player="Zed")


def test_score_race_by_hand(db):
    first = db.summaries()[1]["games"][0]          # the zero-hand game: one hand played out, then Ann's peg
    r = race(first)
    assert r["sides"] == ["Ann", "Bob"]
    h1 = r["hands"][0]
    # pegging: Ann's go and Bob's last card both credited to the other (L2): Ann 1, Bob 1
    assert (h1["pegging"], h1["after_pegging"], h1["shows"], h1["scores"]) == ([1, 1], [1, 1], [10, 5], [11, 6])
    assert r["hands"][1]["other"] == [5, 0] and r["hands"][1]["scores"] == [16, 6]


def test_a_match_over_is_summarised_once(tmp_path, monkeypatch):
    path = tmp_path / "t.db"
    clock = Clock()
    build(Table.open(path, clock=clock, default_match=None), clock).close()
    first = Season(Table.open(path).store)
    assert first.night(2)["payments"][0]["amount"] == 9
    calls = []
    real = season_mod.summarize_match
    monkeypatch.setattr(season_store, "summarize_match", lambda evs: calls.append(1) or real(evs))
    again = Season(Table.open(path).store)
    assert again.night(3)["payments"][0] == {"from": "Bob", "to": "House", "amount": 4}
    assert calls == [1]            # only the match in play is folded
    again.night(3)
    assert calls == [1]            # and only again when it changed


def test_the_first_view_of_an_old_database_is_built_first_and_a_stopped_build_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "t.db"
    clock = Clock()
    build(Table.open(path, clock=clock, default_match=None), clock).close()
    calls = []
    real = season_mod.summarize_match
    monkeypatch.setattr(season_store, "summarize_match", lambda evs: calls.append(evs[0]["match_id"]) or real(evs))
    s = Season(Table.open(path).store)
    assert not s.ready()                        # five matches over, none summarised: a view would fold them all

    class Stop(Exception):
        pass
    seen = []

    def stop_at_the_third(done, of, what):
        seen.append((done, of, what))
        if done == 2 and what.startswith("match"):
            raise Stop
    # the build says how far it is between matches, and a stop there keeps what it folded
    s.step_every = 1
    with pytest.raises(Stop):
        s.build(stop_at_the_third)
    assert seen[:3] == [(0, 5, "reading the summaries kept"), (0, 5, "match 1 of 5"), (1, 5, "match 2 of 5")]
    assert len(calls) == 2 and not s.ready()
    calls.clear()
    again = Season(Table.open(path).store)
    assert again.build() == 5 and calls == [m for m in Table.open(path).store.matches()[2:]]
    assert again.ready() and again.night(2)["payments"][0]["amount"] == 9
    assert len(calls) == 4                      # the three left and the match in play, folded once each


def test_a_closed_match_is_added_to_the_figures_kept_and_equals_a_count_from_scratch():
    t, s, clock = host_table()
    s.season()
    for players, steps in ((["Ann", "Bob"], (("p2", 16),)), (["Cy", "Dee"], (("p1", 7), ("p1", 9)))):
        t.submit({"type": "new_match", "game": "lands-end", "players": players, "stake": 1, "first_dealer": players[0]})
        pegs(t, *steps)
        assert s.season() == Season(t.store).season()
        assert [s.night(k) for k in (1, 2, 3)] == [Season(t.store).night(k) for k in (1, 2, 3)]
    base = s._base
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    s.season()
    assert s._base[2] is base[2]                # the same nights, the closed match added to them


def test_undone_games_do_not_count():
    t = Table.memory(clock=Clock(), default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    pegs(t, ("p1", 16))
    t.submit({"type": "undo"})
    rep = Season(t.store).night()
    assert rep["players"] == [] and rep["night"] is None


def test_new_evening_and_settle_start_a_night():
    def game(seq_end, start, end):
        return {"end_seq": seq_end, "start": start, "end": end, "result": None}
    m = {"games": [game(3, "2026-11-20T19:00:00+00:00", "2026-11-20T19:30:00+00:00"),
                   game(9, "2026-11-20T19:31:00+00:00", "2026-11-20T20:00:00+00:00"),
                   game(15, "2026-11-20T20:01:00+00:00", "2026-11-20T20:30:00+00:00"),
                   # three hours and 59 minutes later: the same night; four hours: a new one
                   game(20, "2026-11-21T00:29:00+00:00", "2026-11-21T01:00:00+00:00"),
                   game(25, "2026-11-21T05:00:00+00:00", "2026-11-21T05:30:00+00:00")],
         "host": [{"type": "new_evening", "seq": 5, "at": "x"}, {"type": "settle", "seq": 12, "at": "y"}]}
    nights = group_nights([m])
    assert [[g["end_seq"] for g in n["games"]] for n in nights] == [[3], [9], [15, 20], [25]]
    assert [n["settled"] for n in nights] == [False, True, False, False] and nights[1]["settled_at"] == "y"


def test_summary_keeps_the_host_events_that_stand():
    evs = [{"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob",
            "teams": None, "options": {}, "series": {"kind": "single", "n": 1}, "seq": 0, "match_id": "m", "at": "a"},
           {"type": "rename", "name": "Bob", "to": "Rob", "seq": 1, "at": "b"},
           {"type": "new_evening", "seq": 2, "at": "c"},
           {"type": "undo", "undoes": 2, "seq": 3, "at": "d"}]
    s = summarize_match(evs)
    assert [e["type"] for e in s["host"]] == ["rename"] and s["games"] == []


# --- the host's events: rename, merge, new evening, settle (undoable) ------------------------------

def host_table():
    clock = Clock()
    t = build(Table.memory(clock=clock, default_match=None), clock)
    return t, Season(t.store), clock


def money_of(season):
    return {p["name"]: p["money"] for p in season.season()["players"]}


def test_rename_follows_every_past_game_and_undo_takes_it_back():
    t, s, _ = host_table()
    s.check({"type": "rename", "name": "bob", "to": "Robert"})
    ev = t.submit({"type": "rename", "name": "bob", "to": "Robert"})
    assert ev["text"] == "Bob is now called Robert"
    assert money_of(s) == {"Robert": 7, "Ann": 5, "House": 4, "Dee": -1, "Cy": -15}
    assert s.night(1)["payments"] == [{"from": "Ann", "to": "Robert", "amount": 6}]
    hist = t.history()
    assert hist[-1]["type"] == "rename" and hist[-1]["steps"] == []
    t.submit({"type": "undo"})
    assert money_of(s) == {"Bob": 7, "Ann": 5, "House": 4, "Dee": -1, "Cy": -15}
    assert t.history()[-2]["undone"]


def test_merge_makes_two_names_one_player():
    t, s, _ = host_table()
    # Cy came back as "Cyril" and lost to Ann at 0: x4
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Cyril"], "stake": 1, "first_dealer": "Ann"})
    pegs(t, ("p2", 16))
    # night 3 now: Ann +6, House +4, Bob -4, Cyril -4, Cy -1, Dee -1: two groups that sum to zero, 4 payments
    assert money_of(s)["Cyril"] == -4 and s.night()["payments"] == [
        {"from": "Bob", "to": "Ann", "amount": 4}, {"from": "Cy", "to": "Ann", "amount": 1},
        {"from": "Dee", "to": "Ann", "amount": 1}, {"from": "Cyril", "to": "House", "amount": 4}]
    s.check({"type": "merge", "name": "cyril", "into": "Cy"})
    t.submit({"type": "merge", "name": "cyril", "into": "Cy"})
    assert money_of(s) == {"Ann": 9, "Bob": 7, "House": 4, "Dee": -1, "Cy": -19}
    # night 3: Cy (with Cyril's game) -5, Dee -1, Ann +6, Bob -4, House +4: two groups, three payments
    assert s.night(3)["payments"] == [{"from": "Cy", "to": "Ann", "amount": 5}, {"from": "Dee", "to": "Ann", "amount": 1},
                                      {"from": "Bob", "to": "House", "amount": 4}]
    assert t.snapshot()["players"] == ["Ann", "Cy"]         # the match in play follows too
    # two names that played in one game are two people
    with pytest.raises(IllegalAction, match="Cy and Dee played in one game"):
        s.check({"type": "merge", "name": "Cy", "into": "Dee"})


def test_the_match_in_play_follows_a_rename_mid_hand_and_undo_takes_it_back(tmp_path):
    path = tmp_path / "t.db"
    t = Table.open(path, clock=Clock(), default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    t.submit({"type": "turnup", "card": "5C"})
    for card, who in (("5H", "Ann"), ("AH", "Bob"), ("5S", "Ann")):
        t.submit({"type": "play", "card": card, "player": who})
    t.submit({"type": "rename", "name": "bob", "to": "Robert"})
    snap = t.snapshot()
    assert snap["players"] == ["Ann", "Robert"] and [s["name"] for s in snap["sides"]] == ["Ann", "Robert"]
    # the phones enter under the new name; the old one is no longer at the table
    t.submit({"type": "play", "card": "2S", "player": "Robert"})       # 5+1+5+2 = 13
    with pytest.raises(IllegalAction, match="'Bob' is not playing"):
        t.submit({"type": "play", "card": "3S", "player": "Bob"})
    assert {s["name"]: s["score"] for s in t.snapshot()["sides"]} == {"Ann": 0, "Robert": 0}
    # an amend refolds the hand from its start, under the new name: Ann's 5S was the AD, so 5H AH AD is
    # Ann's pair of aces, whose 2 go to the other side in Land's End (L2): Robert 2
    t.submit({"type": "amend", "seq": 4, "card": "AD"})
    scores = {s["name"]: s["score"] for s in t.snapshot()["sides"]}
    assert scores == {"Ann": 0, "Robert": 2}
    t.close()
    again = Table.open(path)                                            # folded again from the store
    assert again.snapshot()["players"] == ["Ann", "Robert"]
    assert {s["name"]: s["score"] for s in again.snapshot()["sides"]} == scores
    for _ in range(3):                                                  # the amend, the 2S, the rename
        again.submit({"type": "undo"})
    assert again.snapshot()["players"] == ["Ann", "Bob"]
    again.submit({"type": "play", "card": "2S", "player": "Bob"})
    again.close()


@pytest.mark.parametrize("command,words", [
    ({"type": "rename", "name": "Zed", "to": "Zack"}, "nobody has played as 'Zed'"),
    ({"type": "rename", "name": "Bob", "to": "ann"}, "ann is another player: merge Bob into ann"),
    ({"type": "rename", "name": "Bob", "to": "Bob"}, "Bob is called Bob already"),
    ({"type": "rename", "name": "", "to": "X"}, "rename needs name and to"),
    ({"type": "merge", "name": "bob", "into": "BOB"}, "are one player already"),
    ({"type": "merge", "name": "Bob", "into": "Zed"}, "nobody has played as 'Zed'"),
    ({"type": "merge", "name": "Bob", "into": 7}, "merge needs name and into"),
    ({"type": "undo"}, 'a host\'s event needs a "type": rename, merge, new_evening or settle'),
    ({"type": ["rename"], "name": "Bob", "to": "Robert"}, 'needs a "type"'),
    ({"type": {"rename": 1}}, 'needs a "type"'),
    ({"type": "rename", "name": ["Bob"], "to": "Robert"}, "rename needs name and to"),
    ({"type": "merge", "name": {"n": "Bob"}, "into": "Ann"}, "merge needs name and into"),
    ({"type": "settle", "night": [1]}, "settle's night is a night's number"),
])
def test_host_events_that_would_say_something_untrue_are_refused(command, words):
    t, s, _ = host_table()
    before = len(t.history())
    with pytest.raises(IllegalAction, match=words):
        s.check(command)
    assert len(t.history()) == before


def test_settle_closes_the_night_and_new_evening_starts_one():
    t, s, clock = host_table()
    s.check({"type": "settle"})
    t.submit({"type": "settle"})
    n = s.night()
    assert (n["night"], n["settled"], n["open"]) == (3, True, False)
    assert s.season()["nights"][2]["settled"]
    with pytest.raises(IllegalAction, match="no game of this night has ended"):
        s.check({"type": "settle"})
    with pytest.raises(IllegalAction, match="a new evening has begun already"):
        s.check({"type": "new_evening"})
    # the next game, minutes later, is night 4
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    pegs(t, ("p2", 16))
    assert (s.night()["night"], s.night()["payments"]) == (4, [{"from": "Bob", "to": "Ann", "amount": 4}])
    # a new evening: the next game counts for night 5, however soon
    s.check({"type": "new_evening"})
    t.submit({"type": "new_evening"})
    t.submit({"type": "new_game"})
    pegs(t, ("p1", 16))
    assert [n["night"] for n in s.season()["nights"]] == [1, 2, 3, 4, 5]
    t.submit({"type": "undo"})          # the game's peg; then the game and the new evening
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})
    assert [n["night"] for n in s.season()["nights"]] == [1, 2, 3, 4]


def test_an_earlier_open_night_is_settled_by_its_number():
    t, s, _ = host_table()
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    # night 1 (Ann pays Bob 6) was never settled; night 3 goes on: settle night 1 alone
    s.check({"type": "settle", "night": 1})
    ev = t.submit({"type": "settle", "night": 1})
    assert (ev["night"], ev["text"]) == (1, "night 1 is settled")
    assert [n["settled"] for n in s.season()["nights"]] == [True, False, False]
    one = s.night(1)
    assert (one["settled"], one["open"], one["payments"]) == (True, False, [{"from": "Ann", "to": "Bob", "amount": 6}])
    assert s.night()["open_nights"] == [2, 3]
    # night 3 is still tonight: the next game ending counts for it (Bob pegs out, Ann at 0: he pays x4,
    # with the casino's -4: -8)
    pegs(t, ("p2", 16))
    n3 = s.night()
    assert n3["night"] == 3 and {p["name"]: p["money"] for p in n3["players"]}["Bob"] == -8
    for command, words in (({"type": "settle", "night": 1}, "night 1 is settled already"),
                           ({"type": "settle", "night": 9}, "no night 9: the nights are 1 to 3"),
                           ({"type": "settle", "night": 0}, "settle's night is a night's number"),
                           ({"type": "settle", "night": True}, "settle's night is a night's number"),
                           ({"type": "settle", "night": "2"}, "settle's night is a night's number")):
        with pytest.raises(IllegalAction, match=words):
            s.check(command)
    s.check({"type": "settle", "night": 2})
    t.submit({"type": "settle", "night": 2})
    t.submit({"type": "settle"})                      # tonight's
    assert [n["settled"] for n in s.season()["nights"]] == [True, True, True] and s.night()["open_nights"] == []
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})
    t.submit({"type": "undo"})                      # Bob's peg
    t.submit({"type": "undo"})                      # the settle of night 1
    assert [n["settled"] for n in s.season()["nights"]] == [False, False, False]


def test_a_view_adds_only_the_match_in_play_to_what_it_keeps(monkeypatch):
    # the figures of the matches that are over are added up once; after that a view adds the match in play
    t, s, _ = host_table()
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    assert s.season()["players"][0]["money"] == 7
    added = []
    real = season_mod.Tally.add
    monkeypatch.setattr(season_mod.Tally, "add", lambda self, g, n, ids: added.append(g["preset"]) or real(self, g, n, ids))
    pegs(t, ("p2", 16))                                   # Bob pegs out with Ann at 0: x4
    rep = s.season()
    assert added == ["lands-end"] and {p["name"]: p["money"] for p in rep["players"]}["Bob"] == 3
    # night 3 now: Ann +6, House +4, Bob -8, Cy -1, Dee -1: no smaller group sums to zero, 4 payments
    assert s.night()["payments"] == [{"from": "Bob", "to": "Ann", "amount": 6}, {"from": "Bob", "to": "House", "amount": 2},
                                     {"from": "Cy", "to": "House", "amount": 1}, {"from": "Dee", "to": "House", "amount": 1}]
    assert s.night()["players"][0] == {"name": "Ann", "money": 6, "games": 3, "wins": 2, "losses": 1}
    assert added == ["lands-end"]                         # a night adds nothing up beyond its own games


def test_skunks_follow_s3_lines_when_the_target_moves():
    # cribbage to 61 (S3): the skunk line is 31 (and 1), not 91: Bob at 25 is skunked (x2), at 32 he is not,
    # though both are under 61 and 91
    t = Table.memory(clock=Clock(), default_match=None)
    t.submit({"type": "new_match", "game": "cribbage", "options": {"target": 61}, "players": ["Ann", "Bob"],
              "stake": 2, "first_dealer": "Bob"})
    pegs(t, ("p2", 25), ("p1", 29), ("p1", 29), ("p1", 3))
    t.submit({"type": "new_game"})
    pegs(t, ("p2", 29), ("p2", 3), ("p1", 29), ("p1", 29), ("p1", 3))
    by = {p["name"]: p for p in Season(t.store).season()["players"]}
    assert (by["Ann"]["skunks_won"], by["Bob"]["skunked"], by["Ann"]["money"], by["Bob"]["money"]) == (1, 1, 6, -6)


def test_history_says_the_names_as_they_are_now_and_undo_gives_the_old_ones_back(tmp_path):
    path = tmp_path / "t.db"
    t = Table.open(path, clock=Clock(), default_match=None)
    t.submit({"type": "new_match", "game": "lands-end", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Bob"})
    t.submit({"type": "turnup", "card": "5C"})
    for card, who in (("5H", "Ann"), ("AH", "Bob")):
        t.submit({"type": "play", "card": card, "player": who})
    t.submit({"type": "peg", "side": "p2", "points": 1})               # a line with Bob's name in its text
    before = t.history()
    plays = [(e["card"], e["player"]) for e in before if e["type"] == "play"]
    assert plays == [("5H", "Ann"), ("AH", "Bob")]
    assert [st["text"] for e in before for st in e["steps"] if "Bob" in st["text"]] == ["Bob pegs one"]
    t.submit({"type": "rename", "name": "bob", "to": "Robert"})
    after = t.history()
    assert [(e["card"], e["player"]) for e in after if e["type"] == "play"] == [("5H", "Ann"), ("AH", "Robert")]
    assert [st["text"] for e in after[:len(before)] for st in e["steps"]] == \
        [st["text"].replace("Bob", "Robert") for e in before for st in e["steps"]]
    assert after[-1] == {**after[-1], "type": "rename", "name": "bob", "to": "Robert"}   # the rename says what it did
    assert t.history(since=after[-1]["seq"]) == after[-1:]            # a slice after the rename follows too
    assert t.history(since=3)[0]["player"] == "Robert"
    assert [st["text"] for e in after for st in e["steps"] if "Robert" in st["text"]] == ["Robert pegs one"]
    t.close()
    again = Table.open(path)                                           # folded again from the store: the same
    assert [e["player"] for e in again.history() if e["type"] == "play"] == ["Ann", "Robert"]
    again.submit({"type": "undo"})
    assert [e["player"] for e in again.history() if e["type"] == "play"] == ["Ann", "Bob"]
    assert again.snapshot()["players"] == ["Ann", "Bob"]
    assert [st["text"] for e in again.history()[:len(before)] for st in e["steps"]] == \
        [st["text"] for e in before for st in e["steps"]]
    again.close()


def test_history_renames_whole_words_only():
    from companion.host import follow_names
    recs = [{"type": "play", "card": "AN", "player": "Ann", "steps": [
        {"text": "Ann pegs two; Annie's ANN and Ann's pair", "credited": "Ann", "items": [["Ann", 2]]}]},
        {"type": "rename", "name": "ann", "to": "Anna"}]
    got = follow_names(recs, [("Ann", "Anna")])
    assert got[0] == {"type": "play", "card": "AN", "player": "Anna", "steps": [
        {"text": "Anna pegs two; Annie's ANN and Anna's pair", "credited": "Anna", "items": [["Anna", 2]]}]}
    assert got[1] == recs[1] and recs[0]["player"] == "Ann"              # the stored records are not changed
    # a chain: Ann became Anna, then Anna became Annie
    assert follow_names([{"player": "Ann"}], [("Ann", "Anna"), ("Anna", "Annie")]) == [{"player": "Annie"}]


def test_the_settle_up_module_s_own_examples():
    # settle-up is a small pure module of the season package (issue 37): its examples are checked as written
    import doctest

    from companion.season import settle
    result = doctest.testmod(settle)
    assert result.attempted == 2 and not result.failed       # the module's and settle_up's
