"""The three- and four-hand engine's group play-out (``pegging_multi._play_each``) against the reference model.

``_play_each`` plays every deal of a group out from one state on the engine's own tables (hand ids, turn-order
bitmasks, count-state ids) and keeps the policy's scores per public state for the group's other deals (the first
``_SHARED_DEPTH`` cards and gos of a play-out). Here random groups of deals from random states of every three- and
four-hand preset and house rule are played out both ways: by ``_play_each``, and by the tree walk ``_walk`` with
no deal played out alone (``_SMALL`` 0: at every node the model's ``step``, and the group split by each hand's
choice in the order of the model's ``scores``; pinned to the table's engine and the brute force by
tests/test_pegging_engines.py and test_pegging_multi.py). The sums per side and of the squared nets, which give
every figure and standard error of a sampled ranking, must be equal. Many deals share
their first public states, so the kept scores are read back (checked: the test fails when the history that keys
them leaves out the gos, or keeps only its first card).
"""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from companion.advice import pegging_multi as multi
from companion.rulesets import get_ruleset
from test_pegging_engines import _jobworker
from test_pegging_multi import random_position

VARIANTS = [("lands-end-3", {}), ("lands-end-4", {}), ("lands-end-casino-3", {}), ("lands-end-casino-4", {}),
            ("lands-end-3", {"pegging_credit": "self"}), ("lands-end-4", {"last_card": 2}),
            ("lands-end-casino-3", {"direction": "ccw"}), ("lands-end-casino-4", {"pegging_count": "single"})]


IDS = [g + "".join(f"-{v}" for v in o.values()) for g, o in VARIANTS]
#: the compiled play-out (the package pegwalk, native/), as the module found it at import
NATIVE = multi._NATIVE


def path_of(name):
    """The play-out ``name`` asks for while the block runs: "compiled" (pegwalk) or "pure" (the reference)."""
    if name == "compiled":
        assert NATIVE is not None, "pegwalk is not importable (see test_the_compiled_play_out_is_installed)"
    return mock.patch.object(multi, "_NATIVE", NATIVE if name == "compiled" else None)


def test_the_compiled_play_out_is_installed():
    """The compiled play-out must be there: a build that failed must not fall back to the pure-Python loop
    silently (scripts/bootstrap.sh and systemd/install.sh install native/; ``pip install ./native`` by hand)."""
    assert NATIVE is not None, ("the compiled play-out pegwalk is not importable (pip install ./native), or "
                                "LANDSEND_PURE_PLAYOUT is set: the three- and four-hand leads would take twice as long")
    import pegwalk
    assert NATIVE is pegwalk and multi._SAMPLE_IN_C           # and its draws are this Python's (checked at import)


def random_group(rules, seat, rng, deals, weights=(1, 3)):
    """Your turn after random legal cards in ``rules`` (the others holding 1..12 cards), and a group of ``deals``
    deals of the others' cards left dealt anew from the cards not yet played (a few repeated, as a sample repeats
    them), each with a random weight: (game, state, your ranks, the group as hand ids)."""
    g = multi.multi_game(rules, seat)
    stv = None
    while stv is None or stv.over:
        pos = random_position(rules, rng, seat, max_others=rng.randint(1, 12))
        if pos is not None:
            mine, toks, _ = multi.position_cards(pos[0], pos[1], pos[2], ())
            try:
                stv, _, _ = multi.replay(g, mine, toks)
            except multi.IllegalAction:  # the phase ended (one count only): another
                stv = None
    hands = [()] * g.n
    hands[g.you] = tuple(sorted(c.rank for c in mine))
    played = [r for r in range(1, 14) for _ in range(stv.played >> 3 * r & 7)]
    unseen = [r for r in range(1, 14) for _ in range(4)]
    for r in played + list(hands[g.you]):
        unseen.remove(r)
    group: dict = {}
    for _ in range(deals):
        draw = rng.sample(unseen, sum(stv.left[i] for i in range(g.n) if i != g.you))
        deal, k = [], 0
        for i in range(g.n):
            n = 0 if i == g.you else stv.left[i]
            deal.append(tuple(sorted(draw[k:k + n])))
            k += n
        group[tuple(deal)] = group.get(tuple(deal), 0) + rng.randint(*weights)
    return g, stv, hands[g.you], multi._by_ids(group)


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_play_out_equals_the_pure_python_loop(game, options, seed):
    """pegwalk.play_out against the pure-Python loop of ``_play_out`` on random groups of random states of every
    three- and four-hand preset and house rule: the same sums per side, sum of squared nets, first plays (their
    weights in the same order) and hands left, on weights past 64 bits too (the sums are Python ints); and the
    same from the group's hand ids (as ``_play_each`` gives it to the compiled loop)."""
    assert NATIVE is not None, "pegwalk is not importable"
    rules = get_ruleset(game, **options)
    low, high = multi.seat_range(rules)
    rng = random.Random(f"{game}{options}{seed}")
    for k in range(12):
        g, stv, mine, group = random_group(rules, rng.randint(low, high), rng, rng.randint(1, 300),
                                           (1, 2 ** 70) if k % 4 == 3 else (1, 3))
        entry = multi._H_ENTRY
        deals = [([entry[h] for h in hands[:g.you]] + [entry[multi._H_ID[mine]]] + [entry[h] for h in hands[g.you + 1:]],
                  w) for hands, w in group.items()]
        start = [rng.randint(0, 5) for _ in g._sides]
        worth = [g._net[s] for s in g._sides]
        twin = [(list(hands), w) for hands, w in deals]
        got = multi._play_out(g, stv, deals, start, worth, True)
        ids = multi._play_out(g, stv, group, start, worth, True, (g.you, multi._H_ID[mine]))   # as _play_each asks
        with mock.patch.object(multi, "_NATIVE", None):
            want = multi._play_out(g, stv, twin, start, worth, True)
        assert got == want == ids and list(got[2].items()) == list(want[2].items()) == list(ids[2].items())
        assert [h for h, _ in deals] == [h for h, _ in twin]


def test_the_compiled_play_out_stops_on_hands_that_disagree_with_the_cards_left():
    """Your hand empty while the state says you hold four cards: a clear error, not a loop forever."""
    assert NATIVE is not None, "pegwalk is not importable"
    g = multi.multi_game(get_ruleset("lands-end-4"), 1)
    group = multi._by_ids({((), (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)): 1})
    with pytest.raises(RuntimeError, match="never ends"):
        multi._play_out(g, g.start(), group, [0, 0], [1, -1], True, (g.you, multi._H_ID[()]))


def test_the_compiled_draws_are_the_pure_python_ones():
    """pegwalk.sample_groups against sample_groups's Python loop (random.Random.sample's draws): the same deals
    (the same counts, in the same order) from random unseen cards, hands of 0-4 cards for 3 or 4 players (so both
    of sample's methods: a list, and a set when few cards are drawn from many), with and without gos; and the same
    refusal when the gos leave no deal."""
    assert NATIVE is not None, "pegwalk is not importable"
    assert multi._SAMPLE_IN_C, "pegwalk's draws differ from this Python's random.Random.sample (checked at import)"
    rng = random.Random("draws")
    from companion.cards import DECK
    refused = 0
    for k in range(60):
        unseen = rng.sample(DECK, rng.randint(14, 47))
        players = rng.choice((3, 4))
        need = [0] + [rng.randint(0, 4) for _ in range(players - 1)]
        rng.shuffle(need)
        above = [rng.choice((0, 0, 2, 5, 8)) if x else 0 for x in need]
        n = rng.choice((1, 30, 200))

        def draws():
            try:
                return list(multi.sample_groups(unseen, need, above, n, f"seed{k}").items())
            except multi.IllegalAction as exc:
                return str(exc)
        with mock.patch.object(multi, "_SAMPLE_IN_C", True):
            got = draws()
        with mock.patch.object(multi, "_NATIVE", None):
            assert got == draws()
        refused += isinstance(got, str)
    assert refused < 10, refused
    for native in (NATIVE, None):                       # nothing over the go thresholds: refused, both ways
        with mock.patch.object(multi, "_NATIVE", native), pytest.raises(multi.IllegalAction, match="gos leave"):
            multi.sample_groups(DECK[:20], [0, 2, 2], [0, 10, 10], 5, "x")


@pytest.mark.parametrize("path", ["compiled", "pure"])
@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_group_of_deals_played_out_together_equals_each_deal_by_the_model(game, options, path, data):
    rules = get_ruleset(game, **options)
    low, high = multi.seat_range(rules)
    seat = data.draw(st.integers(low, high), label="seat")
    rng = random.Random(data.draw(st.integers(0, 2 ** 32), label="deal"))
    g, stv, mine, group = random_group(rules, seat, rng, data.draw(st.integers(1, 60), label="deals"))
    want: dict = {}
    with mock.patch.object(multi, "_SMALL", 0):       # no deal played out alone: the tree walk at every node
        multi._walk(g, stv, mine, group, (), want)
    acc: dict = {}
    with path_of(path):
        multi._play_each(g, stv, mine, group, (), acc)
    assert {s: v for s, v in acc.items() if v} == {s: v for s, v in want.items() if v}


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
