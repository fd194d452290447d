"""The matching phase tested on values, without a table (companion.deal.pegging).

Reference data: tests/data/pegging_rounds.txt, whole matching phases entered card by card
with every point scored and who plays next, hand-checked.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from companion.cards import parse_card
from companion.deal import pegging
from companion.match import MatchState, build_seating
from companion.rulesets import get_ruleset

DATA = Path(__file__).parent / "data" / "pegging_rounds.txt"


def seating(game: str, players: list[str], **options) -> MatchState:
    """The match a rule reads: ruleset, seats and sides (no table, no events)."""
    rules = get_ruleset(game, **options)
    seats, seat_side, sides = build_seating(rules, players, None)
    return MatchState(rules=rules, seats=seats, seat_side=seat_side, sides=sides)


def blocks():
    block = None
    for line in DATA.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("=="):
            name, game, players, leader = (f.strip() for f in line[2:].split("|"))
            block = (name, game, players.split(), leader, [])
            yield block
        else:
            entry, steps, turn = (f.strip() for f in line.split("|"))
            block[4].append((entry.split(), [] if steps == "-" else [s.split() for s in steps.split(",")], turn))


BLOCKS = list(blocks())


@pytest.mark.parametrize("name,game,players,leader,entries", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_reference_matching_phases(name, game, players, leader, entries):
    st = seating(game, players)
    p = pegging.start(st, held=st.rules.held, single=st.rules.pegging_count == "single",
                      leader=players.index(leader))
    seen: set = set()
    for n, ((who, what), want_steps, want_turn) in enumerate(entries, start=1):
        seat = players.index(who)
        assert p.turn == seat, f"entry {n}: {players[p.turn]} plays, not {who}"
        if what == "go":
            assert pegging.go_wrong(st, p, seen, seat) is None
            p, scored = pegging.go(st, p, seat, seq=n)
        else:
            card = parse_card(what)
            p, scored = pegging.play(st, p, seen, seat, card, seq=n)
            seen.add(card)
        got = [[st.sides[s.side].name, s.kind, str(s.points)] for s, _ in scored if s.points or s.kind != "play"]
        assert got == want_steps, f"entry {n} ({who} {what})"
        assert all(s.stage == "pegging" for s, _ in scored)
        assert ("show" if p.done else players[p.turn]) == want_turn, f"entry {n} ({who} {what})"
    assert p.done == (entries[-1][2] == "show")


def test_the_values_are_frozen_and_a_play_leaves_the_old_one_as_it_was():
    st = seating("cribbage", ["Ann", "Bob"])
    p0 = pegging.start(st, held=4, single=False, leader=0)
    p1, _ = pegging.play(st, p0, set(), 0, parse_card("5H"), seq=1)
    assert (p0.count, p0.plays, p0.turn) == (0, ((), ()), 0)
    assert (p1.count, [list(map(str, x)) for x in p1.plays], p1.turn) == (5, [["5H"], []], 1)
    with pytest.raises(AttributeError):
        p1.count = 7


def test_a_step_that_ends_the_game_comes_with_the_value_as_it_stood():
    """31 and then last card: each step is paired with the phase at the moment it is scored (C4)."""
    st = seating("cribbage", ["Ann", "Bob"])
    p = pegging.start(st, held=1, single=False, leader=0)
    p, _ = pegging.play(st, p, set(), 0, parse_card("KH"), seq=1)
    final, scored = pegging.play(st, p, set(), 1, parse_card("5H"), seq=2)
    assert [(s.kind, s.points) for s, _ in scored] == [("play", 2), ("last", 1)]
    at_play = scored[0][1]
    assert (at_play.count, at_play.done, at_play.turn) == (15, False, 1)
    assert (final.count, final.done, final.turn) == (0, True, None)


def test_implied_gos_are_a_fold_over_values():
    """At 29 with Bob to play, a card entered for Ann implies Bob's go (tried on values: the phase passed
    in is unchanged); at a count of 0 no go can be implied, every card fits."""
    st = seating("lands-end", ["Ann", "Bob"])
    p = pegging.start(st, held=4, single=False, leader=0)
    seen: set = set()
    for seat, c in ((0, "KH"), (1, "QH"), (0, "9C")):
        p, _ = pegging.play(st, p, seen, seat, parse_card(c), seq=1)
        seen.add(parse_card(c))
    gos, at = pegging.implied_gos(st, p, seen, 0)          # Bob to play: Ann plays only after Bob's go
    assert gos == [1] and at.turn == 0 and at.gone == (1,) and p.gone == ()
    with pytest.raises(pegging.WrongGo) as wrong:          # at 0 every card fits: no go is implied
        pegging.implied_gos(st, pegging.start(st, held=4, single=False, leader=0), set(), 1)
    assert (wrong.value.seat, wrong.value.why) == (0, "at a count of 0 every card fits")


def test_who_leads_after_31_skips_a_player_without_cards():
    st = seating("lands-end-3", ["Ann", "Bob", "Cy"])
    p = pegging.Pegging(held=2, single=False, plays=((parse_card("KH"), parse_card("AH")), (parse_card("QH"),),
                                                     (parse_card("KD"),)),
                        count=31, count_seats=(0,))
    assert pegging.next_leader(st, p, after_go=False) == 1           # Bob, after Ann who made 31
    p = pegging.Pegging(held=1, single=False, plays=((), (parse_card("QH"),), ()), count=31, count_seats=(0,))
    assert pegging.next_leader(st, p, after_go=False) == 2           # Bob has no card left: Cy
    p = pegging.Pegging(held=1, single=False, plays=((), (parse_card("QH"),), ()), gone=(1, 2), count_seats=(0,))
    assert pegging.next_leader(st, p, after_go=True) == 2            # Bob said go first, has none left: Cy


def test_playable_ranks():
    p = pegging.Pegging(held=4, single=False, plays=((), ()), count=25)
    assert pegging.playable_ranks(p) == ["A", "2", "3", "4", "5", "6"]
    assert len(pegging.playable_ranks(pegging.Pegging(held=4, single=False, plays=((), ()), count=21))) == 13


def test_docstring_examples():
    from companion import errors, steps
    for module in (pegging, errors, steps):
        result = doctest.testmod(module)
        assert not result.failed


def test_the_next_other_side_is_one_rule_for_credit_and_muggins():
    """M3 read once (steps.next_other_side): a card's points under next-opponent credit, and the default caller
    of a muggins, go to the first seat after the player, in the direction of play, on another side."""
    from companion.claims import next_opponent_side
    from companion.steps import next_other_side
    three = seating("lands-end-3", ["Ann", "Bob", "Cat"])
    assert [pegging.credit_side(three, s) for s in range(3)] == [1, 2, 0]
    assert [next_opponent_side(three, side) for side in range(3)] == [1, 2, 0]
    four = seating("lands-end-4", ["Ann", "Bob", "Cat", "Dan"])      # partners sit opposite: Ann & Cat, Bob & Dan
    assert [pegging.credit_side(four, s) for s in range(4)] == [1, 0, 1, 0]
    assert [next_opponent_side(four, side) for side in range(2)] == [1, 0]
    ccw = seating("lands-end-casino-3", ["Ann", "Bob"], direction="ccw")     # House, Ann, Bob, played the other way
    assert [pegging.credit_side(ccw, s) for s in range(3)] == [2, 0, 1]
    assert [next_other_side(ccw, ccw.seat_side[s], s) for s in range(3)] == [2, 0, 1]
    casino = seating("lands-end-casino-4", ["Ann", "Bob", "Cat", "Dan"])      # the house deals and holds no seat
    casino.dealer = -1
    assert [s.name for s in casino.sides] == ["Ann & Cat", "Bob & Dan", "House"]
    assert next_opponent_side(casino, 2) == 0 and next_opponent_side(casino, 0) == 1
    selfish = seating("cribbage", ["Ann", "Bob"])
    assert [pegging.credit_side(selfish, s) for s in range(2)] == [0, 1]
