"""The three- and four-hand engine's group play-out (``pegging_multi._play_each``) against the reference model.

``_play_each`` plays every deal of a group out from one state on the engine's own tables (hand ids, turn-order
bitmasks, count-state ids) and keeps the policy's scores per public state for the group's other deals (the first
``_SHARED_DEPTH`` cards and gos of a play-out). Here random groups of deals from random states of every three- and
four-hand preset and house rule are played out both ways: by ``_play_each``, and deal by deal by the model's
``step`` and ``choose`` (pinned to the table's engine in tests/test_pegging_engines.py). The sums per side and of
the squared nets, which give every figure and standard error of a sampled ranking, must be equal. Many deals share
their first public states, so the kept scores are read back (checked: the test fails when the history that keys
them leaves out the gos, or keeps only its first card).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from companion.advice import pegging_multi as multi
from companion.cards import DECK
from companion.rulesets import get_ruleset

VARIANTS = [("lands-end-3", {}), ("lands-end-4", {}), ("lands-end-casino-3", {}), ("lands-end-casino-4", {}),
            ("lands-end-3", {"pegging_credit": "self"}), ("lands-end-4", {"last_card": 2}),
            ("lands-end-casino-3", {"direction": "ccw"}), ("lands-end-casino-4", {"pegging_count": "single"})]


def reference(g, st0, hands):
    """The points per side of one deal played out from ``st0`` by ``step`` and ``choose``."""
    hands = list(hands)
    stv, pts = st0, {}
    while not stv.over:
        p = stv.turn
        r = multi.choose(g, stv, p, hands[p])
        if r is not None:
            hands[p] = multi.without(hands[p], r)
        credits: list = []
        stv = multi.step(g, stv, r, credits)
        for side, v, _ in credits:
            pts[side] = pts.get(side, 0) + v
    return pts


@pytest.mark.parametrize("game,options", VARIANTS, ids=[f"{g}{'-' + '-'.join(map(str, o.values())) if o else ''}"
                                                        for g, o in VARIANTS])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_group_of_deals_played_out_together_equals_each_deal_by_the_model(game, options, data):
    rules = get_ruleset(game, **options)
    low, high = multi.seat_range(rules)
    g = multi.multi_game(rules, data.draw(st.integers(low, high), label="seat"))
    rng = random.Random(data.draw(st.integers(0, 2 ** 32), label="deal"))
    deck = rng.sample(DECK, g.n * rules.held)
    hands = [tuple(sorted(c.rank for c in deck[i * rules.held:(i + 1) * rules.held])) for i in range(g.n)]
    stv = g.start()
    for _ in range(data.draw(st.integers(0, 6), label="random cards first")):
        if stv.over:
            break
        fits = [r for r in hands[stv.turn] if multi.VALUE[r] <= 31 - stv.count]
        r = rng.choice(fits) if fits else None
        if r is not None:
            hands[stv.turn] = multi.without(hands[stv.turn], r)
        stv = multi.step(g, stv, r, [])
    if stv.over:
        return
    # the group: your hand as dealt, the others' cards left dealt anew from the cards not yet played, many times
    # (a few deals repeated, as a sample repeats them), each with a weight
    played = [r for r in range(1, 14) for _ in range(stv.played >> 3 * r & 7)]
    unseen = [r for r in range(1, 14) for _ in range(4)]
    for r in played + list(hands[g.you]):
        unseen.remove(r)
    group: dict = {}
    for _ in range(data.draw(st.integers(1, 60), label="deals")):
        draw = rng.sample(unseen, sum(stv.left[i] for i in range(g.n) if i != g.you))
        deal, k = [], 0
        for i in range(g.n):
            n = 0 if i == g.you else stv.left[i]
            deal.append(tuple(sorted(draw[k:k + n])))
            k += n
        group[tuple(deal)] = group.get(tuple(deal), 0) + rng.randint(1, 3)
    want: dict = {}
    sq = 0
    for deal, w in group.items():
        full = list(deal)
        full[g.you] = hands[g.you]
        pts = reference(g, stv, full)
        for side, v in pts.items():
            want[side] = want.get(side, 0) + w * v
        sq += w * g.net(pts) ** 2
    acc: dict = {}
    multi._play_each(g, stv, hands[g.you], multi._by_ids(group), (), acc)
    assert {s: v for s, v in acc.items() if s != "sq" and v} == {s: v for s, v in want.items() if v}
    assert acc["sq"] == sq


def _jobworker():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_jobworker", Path(__file__).resolve().parent.parent / "web" /
                                                  "jobworker.py")
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    return worker


def test_a_worker_warms_the_tables_three_and_four_hand_game_while_it_waits(monkeypatch):
    """A table playing a three- or four-hand game: the worker's warm-up ranks leads of that game (filling the
    play-out's count-state tables, which every such game shares), in turn with the two-hand steps when the table
    has both; ``LANDSEND_WARM_UP`` caps its rounds (0: none); a two-hand table warms no three-/four-hand game."""
    worker = _jobworker()
    monkeypatch.setenv("LANDSEND_WARM_UP", "2")
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([get_ruleset("lands-end-4")]))
    assert worker.warm_steps() is None                              # no two-hand game to warm
    multi._cs_reset()
    assert len(multi._CS_AT) == 1
    assert sum(1 for _ in worker.warm_all(worker.warm_steps(), worker.warm_multi_steps())) == 2
    assert len(multi._CS_AT) > 500                                  # two leads' play-outs: their count states
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([get_ruleset("lands-end-3"),
                                                                       get_ruleset("five-card")]))
    taken = []
    steps = worker.warm_all(iter(lambda: taken.append("two"), 1), worker.warm_multi_steps())
    for _ in range(4):
        next(steps)
    assert taken == ["two", "two"]                                  # one step of each in turn
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([get_ruleset("cribbage")]))
    assert worker.warm_multi_steps() is None
    monkeypatch.setenv("LANDSEND_WARM_RULES", worker.warm_rules_value([get_ruleset("lands-end-3")]))
    monkeypatch.setenv("LANDSEND_WARM_UP", "0")
    assert worker.warm_multi_steps() is None and worker.warm_all(None, None) is None
    assert sum(1 for _ in multi.warm_up(["lands-end-casino-3"], rounds=3)) == 3
