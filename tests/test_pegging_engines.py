"""The advice engines play the matching phase by the table's rules: one encoding, pinned by play.

The fast engines of the advice (:mod:`companion.advice.pegging` for two hands,
:mod:`companion.advice.pegging_multi` for three and four) keep their own packed state
of a count, for speed. Here random legal matching phases of every preset with pegging
(and of the house rules that change who leads or who is credited) are played card by
card through the table's rules (:mod:`companion.deal.pegging`) and through each
engine side by side; after every card and every go both must agree on whose turn it
is (so who leads each count), the count, whether the phase is over, and every point
credited (to which side, how many, of which kind).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from companion.advice import pegging as two
from companion.advice import pegging_multi as multi
from companion.cards import DECK
from companion.deal import pegging
from companion.match import MatchState, build_seating
from companion.rulesets import RULESETS, get_ruleset

# every preset with a matching phase, and the house rules that change who leads, who is credited, and the
# direction of play
VARIANTS = [(name, {}) for name, r in RULESETS.items() if r.pegging] + [
    ("lands-end", {"go_lead": "other_player"}),
    ("cribbage", {"go_lead": "last_player"}),
    ("lands-end", {"pegging_credit": "self"}),
    ("cribbage", {"pegging_credit": "next_opponent"}),
    ("lands-end-3", {"pegging_credit": "self"}),
    ("lands-end-4", {"pegging_credit": "self"}),
    ("lands-end-casino-3", {"direction": "ccw"}),
    ("lands-end-casino-4", {"direction": "ccw"}),
    ("five-card", {"pegging_count": "restart"}),
    ("lands-end", {"pegging_count": "single", "go_lead": "other_player"}),
]


def table_match(rules, dealer_pick: int) -> MatchState:
    """The match a rule reads (seats and sides, no table); the dealer by ``dealer_pick``."""
    humans = rules.players - (1 if rules.house and rules.house_plays else 0)
    names = ["Ann", "Bob", "Cat", "Dan"][:humans]
    seats, seat_side, sides = build_seating(rules, names, None)
    state = MatchState(rules=rules, seats=seats, seat_side=seat_side, sides=sides)
    if rules.house and not rules.house_plays:
        state.dealer = -1                       # the house deals from before the first seat and holds no cards
    elif rules.house and rules.house_deals:
        state.dealer = next(i for i, s in enumerate(seat_side) if sides[s].house)
    else:
        state.dealer = dealer_pick % len(seats)
    return state


class TwoHand:
    """The two-hand engine seen from ``you`` (a table seat): engine player 0 is you, 1 the other."""

    def __init__(self, state: MatchState, you: int) -> None:
        self.state, rules = state, state.rules
        other = state.next_seat(you)
        self.seat_of = (you, other)
        self.g = two.game_for(rules, 0 if you == state.dealer else 1)
        self.st = two.State(turn=1 if you == state.dealer else 0, left=(rules.held, rules.held))

    def act(self, rank) -> list:
        credits: list = []
        fast = two._step(self.g, self.st, rank)        # the walk's copy: the same state, the same points per player
        self.st = (two.step_go(self.g, self.st, credits) if rank is None
                   else two.step_play(self.g, self.st, rank, credits))
        assert fast[0] == self.st
        assert fast[1:] == tuple(sum(pts for p, pts, _ in credits if p == who) for who in (0, 1))
        return [(self.state.seat_side[self.seat_of[p]], pts, kind) for p, pts, kind in credits]

    def view(self):
        st = self.st
        return (None if st.over else self.seat_of[st.turn]), (0 if st.over else st.count), st.over


class MultiHand:
    """The three- and four-hand engine seen from ``you``: its players in the direction of play from the dealer."""

    def __init__(self, state: MatchState, you: int) -> None:
        self.state, rules = state, state.rules
        low, high = multi.seat_range(rules)
        # position k from the dealer is the table's seat k places after the dealer (a house without a seat: -1)
        self.seat_of = tuple(state.next_seat(state.dealer, steps=pos) if pos else state.dealer
                             for pos in range(low, high + 1))
        self.g = multi.multi_game(rules, low + self.seat_of.index(you))
        side = {}
        for i, seat in enumerate(self.seat_of):
            side.setdefault(self.g.side[i], state.seat_side[seat])
            assert side[self.g.side[i]] == state.seat_side[seat]        # the engine's sides are the table's
        assert len(set(side.values())) == len(side)
        self.side = side
        self.st = self.g.start()

    def act(self, rank) -> list:
        credits: list = []
        self.st = multi.step(self.g, self.st, rank, credits)
        return [(self.side[s], pts, kind) for s, pts, kind in credits]

    def view(self):
        st = self.st
        return (None if st.over else self.seat_of[st.turn]), (0 if st.over else st.count), st.over


@pytest.mark.parametrize("game,options", VARIANTS, ids=[f"{g}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                                                      for g, o in VARIANTS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_each_engine_plays_every_card_as_the_table_does(game, options, data):
    rules = get_ruleset(game, **options)
    state = table_match(rules, data.draw(st.integers(0, 3), label="dealer"))
    n = len(state.seats)
    deck = random.Random(data.draw(st.integers(0, 2 ** 32), label="deal")).sample(DECK, n * rules.held)
    hands = {seat: list(deck[seat * rules.held:(seat + 1) * rules.held]) for seat in range(n)}
    you = data.draw(st.sampled_from(range(n)), label="you")
    engine = (TwoHand if n == 2 else MultiHand)(state, you)
    leader = state.next_seat(state.dealer)
    p = pegging.start(state, held=rules.held, single=rules.pegging_count == "single", leader=leader)
    seen: set = set()
    assert engine.view() == (p.turn, p.count, p.done)
    for seq in range(1, 12 * n + 8):
        if p.done:
            break
        seat = p.turn
        fits = [c for c in hands[seat] if c.value <= 31 - p.count]
        if fits:                                   # a player plays when a card fits, and says go only when none does
            card = data.draw(st.sampled_from(fits), label=f"{state.seats[seat]} plays")
            p, steps = pegging.play(state, p, seen, seat, card, seq=seq)
            hands[seat].remove(card)
            seen.add(card)
            credits = engine.act(card.rank)
        else:
            p, steps = pegging.go(state, p, seat, seq=seq)
            credits = engine.act(None)
        table = [(step.side, step.points, step.kind) for step, _ in steps if step.points]
        assert credits == table, (state.seats[seat], p.order)
        assert engine.view() == (p.turn, p.count, p.done), (state.seats[seat], p.order)
    assert p.done and (rules.pegging_count == "single" or not any(hands.values()))


MULTI = [(g, o) for g, o in VARIANTS if get_ruleset(g, **o).players > 2]


@pytest.mark.parametrize("game,options", MULTI, ids=[f"{g}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                                                    for g, o in MULTI])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_multi_engines_one_deal_loop_plays_as_its_step_and_choose(game, options, data):
    """``pegging_multi._play_deal`` (a sampled walk's play-out, with step and choose inlined) against
    ``step`` and ``choose`` (pinned to the table above), from the first lead or after random legal cards."""
    rules = get_ruleset(game, **options)
    low, high = multi.seat_range(rules)
    g = multi.multi_game(rules, data.draw(st.integers(low, high), label="seat"))
    rng = random.Random(data.draw(st.integers(0, 2 ** 32), label="deal"))
    deck = rng.sample(DECK, g.n * rules.held)
    hands = [tuple(sorted(c.rank for c in deck[i * rules.held:(i + 1) * rules.held])) for i in range(g.n)]
    stv = g.start()
    for _ in range(data.draw(st.integers(0, 10), label="random cards first")):
        if stv.over:
            break
        fits = [r for r in hands[stv.turn] if multi.VALUE[r] <= 31 - stv.count]
        r = rng.choice(fits) if fits else None
        if r is not None:
            hands[stv.turn] = multi.without(hands[stv.turn], r)
        stv = multi.step(g, stv, r, [])
    want: dict = {}
    ref, st0, h = list(hands), stv, None
    while not stv.over:
        p = stv.turn
        r = multi.choose(g, stv, p, ref[p])
        if r is not None:
            ref[p] = multi.without(ref[p], r)
        credits: list = []
        stv = multi.step(g, stv, r, credits)
        for side, v, _ in credits:
            want[side] = want.get(side, 0) + v
    got: dict = {}
    fast = list(hands)
    multi._play_deal(g, st0, fast, got)
    assert got == want
    assert all(not x for x in fast) or rules.pegging_count == "single"


TWO = [(g, o) for g, o in VARIANTS if get_ruleset(g, **o).players == 2]


def two_hand_deal(game, options, data):
    """A two-hand game's engine from a drawn seat, a seeded random source, both hands dealt as sorted ranks, and
    the first state from a drawn leader."""
    rules = get_ruleset(game, **options)
    g = two.game_for(rules, data.draw(st.integers(0, 1), label="seat"))
    rng = random.Random(data.draw(st.integers(0, 2 ** 32), label="deal"))
    deck = rng.sample(DECK, 2 * rules.held)
    hands = [tuple(sorted(c.rank for c in deck[i * rules.held:(i + 1) * rules.held])) for i in (0, 1)]
    return g, rng, hands, two.State(turn=data.draw(st.integers(0, 1), label="leader"), left=(rules.held, rules.held))


def two_hand_act(g, s, hands, r, credits):
    """Play rank ``r`` (None: go) for ``s.turn`` by ``step_play``/``step_go``, taking it from ``hands``."""
    if r is None:
        return two.step_go(g, s, credits)
    hands[s.turn] = two.without(hands[s.turn], r)
    return two.step_play(g, s, r, credits)


@pytest.mark.parametrize("game,options", TWO, ids=[f"{g}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                                                  for g, o in TWO])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_two_hand_endgame_loop_plays_as_its_step_and_choose(game, options, data):
    """``pegging._endgame`` (the two-hand walk's leaves, with the step inlined on plain variables) against
    ``step_play``, ``step_go`` and ``choose`` (pinned to the table above), from random legal cards until each
    player holds at most one card or one holds none."""
    g, rng, hands, stv = two_hand_deal(game, options, data)
    while not stv.over and max(stv.left) > 1 and min(stv.left) > 0:
        fits = [r for r in hands[stv.turn] if two.VALUE[r] <= 31 - stv.count]
        stv = two_hand_act(g, stv, hands, rng.choice(fits) if fits else None, [])
    want = [0, 0]
    ref, s = list(hands), stv
    while not s.over:
        credits: list = []
        s = two_hand_act(g, s, ref, two.choose(g, s, s.turn, ref[s.turn]), credits)
        for who, pts, _ in credits:
            want[who] += pts
    assert two._endgame(g, stv, hands[0], hands[1]) == tuple(want)


@pytest.mark.parametrize("game,options", TWO, ids=[f"{g}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                                                  for g, o in TWO])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_the_rows_choice_between_two_cards_is_choose_s(game, options, data):
    """``pegging._choose_two`` (the dealer's rows and the walk: your choice between two cards, only the choice
    kept) against ``choose`` (the policy's scores), at your turns with two cards left after random legal cards,
    every pair of ranks you could hold there."""
    g, rng, hands, s = two_hand_deal(game, options, data)
    while not s.over:
        if s.turn == 0 and s.left[0] == 2:
            for a in range(1, 14):
                for b in range(a, 14):
                    if (s.played >> 3 * a & 7) + (a == b) < 4 and (s.played >> 3 * b & 7) < 4:
                        assert two._choose_two(g, s, s.played, a, b) == two.choose(g, s, 0, (a, b)), (a, b, s)
        fits = [r for r in hands[s.turn] if two.VALUE[r] <= 31 - s.count]
        s = two_hand_act(g, s, hands, rng.choice(fits) if fits else None, [])


def test_a_ranking_leaves_no_reference_cycles_so_the_job_worker_may_freeze_what_it_keeps():
    """The job worker hides each call's leftovers (the caches) from the collector (web/jobworker.py,
    ``after_call``): that is only free while a ranking makes no reference cycles, which only the collector
    frees. Every advice entry point is run once with the collector off; a collection then finds nothing."""
    import gc

    from companion.advice.discard import advise

    calls = [lambda: two.rank_plays("5H 9C 5S 4H", game="lands-end", turnup="2H"),
             lambda: two.rank_plays("9D 2H 3H 5C", game="cribbage", played="4H", turnup="4C", dealer=True),
             lambda: multi.rank_plays_multi("5H 9C 5S 4H", game="lands-end-4", seat=1, turnup="2H"),
             lambda: advise("5H 9C 5S 4H KD QC", game="lands-end", dealer=True, pegging=True)]
    for call in calls:
        call()                      # the imports and first-use caches, before the count
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        for call in calls:
            call()
        found = gc.collect()
    finally:
        if was:
            gc.enable()
    assert found == 0


def test_the_job_worker_freezes_what_a_call_left_and_tidies_every_so_often():
    import gc
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_jobworker", Path(__file__).resolve().parent.parent / "web" /
                                                  "jobworker.py")
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    try:
        gc.unfreeze()
        kept = [[i] for i in range(1000)]       # tracked objects a call left
        worker.after_call(1)
        assert gc.get_freeze_count() >= 1000
        junk = [[]]
        junk[0].append(junk)                    # a cycle: frozen by a plain answer, freed by the tidy one
        del junk
        worker.after_call(2)
        assert gc.collect() == 0                # frozen, so not found
        worker.after_call(worker.TIDY_EVERY)
        gc.unfreeze()
        assert gc.collect() == 0                # the tidy answer freed it
        assert kept[999] == [999]
    finally:
        gc.unfreeze()


def _jobworker():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_jobworker", Path(__file__).resolve().parent.parent / "web" /
                                                  "jobworker.py")
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    return worker


def test_an_idle_worker_warms_one_step_at_a_time_and_stops_when_a_call_comes():
    """``warm_while_idle`` takes warm-up steps only while nothing waits on the worker's input: a call that came
    stops it before the next step (what is left is kept for the next idle time), a warm-up that runs out or
    fails is over."""
    import os

    worker = _jobworker()
    taken = []

    def steps(n):
        for i in range(n):
            taken.append(i)
            yield

    r, w = os.pipe()
    with os.fdopen(r, "rb") as inp, os.fdopen(w, "wb") as out:
        assert worker.warm_while_idle(steps(5), inp) is None and taken == [0, 1, 2, 3, 4]     # nothing came
        taken.clear()
        out.write(b"\0")
        out.flush()                                                         # a call waits
        left = steps(5)
        assert worker.warm_while_idle(left, inp) is left and taken == []
        inp.read(1)                                                         # taken; idle again
        assert worker.warm_while_idle(left, inp) is None and taken == [0, 1, 2, 3, 4]

        def failing():
            yield
            raise RuntimeError("no")

        assert worker.warm_while_idle(failing(), inp) is None
        taken.clear()
        assert worker.warm_while_idle(steps(5), inp, budget_mb=worker.rss_mb() / 2) is None and taken == []
        assert worker.warm_while_idle(steps(5), inp, budget_mb=worker.rss_mb() + 4096) is None and len(taken) == 5


def test_the_warm_up_ranks_a_lead_and_a_reply_of_every_two_hand_game(monkeypatch):
    """The warm-up fills the caches of every two-hand game at both seats (its figures are the rankings' own:
    nothing else is stored), and ``LANDSEND_WARM_UP`` sets its rounds (0: none)."""
    from companion.rulesets import RULESETS

    games = [r for r in RULESETS.values() if r.players == 2 and r.pegging]
    assert {r.name for r in games} >= {"lands-end", "cribbage", "reverse-cribbage", "five-card"}
    for r in games:
        for seat in (0, 1):
            two.game_for(r, seat).end_memo.clear()
    assert sum(1 for _ in two.warm_up(rounds=1)) == 2 * len(games)
    for r in games:
        for seat in (0, 1):
            assert two.game_for(r, seat).end_memo, (r.name, seat)
    worker = _jobworker()
    monkeypatch.setenv("LANDSEND_WARM_UP", "0")
    assert worker.warm_steps() is None
    monkeypatch.setenv("LANDSEND_WARM_UP", "2")
    assert sum(1 for _ in worker.warm_steps()) == 4 * len(games)
    # the table's game only (house rules and all), as the app passes it to a fresh worker
    house = get_ruleset("cribbage", go_lead="last_player")
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([house]))
    two.game_for(house, 1).end_memo.clear()
    assert sum(1 for _ in worker.warm_steps()) == 4 and two.game_for(house, 1).end_memo
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([get_ruleset("lands-end-4")]))
    assert worker.warm_steps() is None                  # no two-hand matching phase to warm
