"""Three- and four-hand pegging advice: exact figures against a brute force over explicit card deals, and the
sampled approximation against the exact figures within its stated standard error.

The brute force shares no code with companion/advice/pegging_multi.py beyond the rules it reads and
``advice.seating`` (sides and goals): it plays explicit cards scored by ``score_peg``, follows
its own transcription of M2/M3 (turns, gos, who leads, who is credited) and of the documented
policy (Fractions over explicit reply pools), and enumerates every joint deal of explicit cards
to the other players.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from companion import DECK, IllegalAction, get_ruleset, score_peg
from companion.advice.discard import seating
from companion.advice.pegging import KINDS
from companion.advice.pegging_multi import SAMPLES, multi_game, rank_plays, rank_plays_multi

MULTI = ["lands-end-3", "lands-end-4", "lands-end-casino-3", "lands-end-casino-4"]


def _comb(n, k):
    from math import comb
    return comb(n, k) if 0 <= k <= n else 0


class Table:
    """Seats (positions from the dealer) in the direction of play, their sides, credits and goals."""

    def __init__(self, rules, seat):
        self.rules = rules
        low = 1 if rules.house and not rules.house_plays else 0
        self.pos = list(range(low, low + rules.players))
        self.n = len(self.pos)
        self.side = [seating(rules, seat=s, pocket_owner=0 if rules.pocket_owner == "rotate" else None).side
                     for s in self.pos]
        goals = {}
        for s in self.pos:
            st = seating(rules, seat=s, pocket_owner=0 if rules.pocket_owner == "rotate" else None)
            goals[st.side] = st.goal
        if rules.house:
            goals["house"] = 1 if rules.house_reach == "wins" else -1
        self.goal = goals
        self.you = self.pos.index(seat)
        # M3: the next seat in turn order whose side is not yours (self: your own side)
        self.credit = []
        for i in range(self.n):
            c = self.side[i]
            if rules.pegging_credit != "self":
                for k in range(1, self.n):
                    if self.side[(i + k) % self.n] != self.side[i]:
                        c = self.side[(i + k) % self.n]
                        break
            self.credit.append(c)
        self.memo = {}

    def value(self, p, side):
        return self.goal[side] if side == self.side[p] else -self.goal[side]

    def next_in(self, p, hands, gone):
        for k in range(1, self.n + 1):
            j = (p + k) % self.n
            if hands[j] and j not in gone:
                return j
        return None

    def first_holder(self, start, hands):
        for k in range(self.n):
            j = (start + k) % self.n
            if hands[j]:
                return j
        return None

    def choose(self, p, hand, count_cards, played, hands_left, gone):
        key = (p, tuple(sorted(hand)), tuple(count_cards), frozenset(played), hands_left, tuple(gone))
        if key not in self.memo:
            self.memo[key] = self._choose(p, hand, count_cards, played, hands_left, gone)
        return self.memo[key]

    def _choose(self, p, hand, count_cards, played, hands_left, gone):
        """The documented policy on explicit cards: the card's worth to p plus the worth to p of the next
        player's best reply (its cards drawn from the cards not yet played)."""
        room = 31 - sum(c.value for c in count_cards)
        best = None
        for c in hand:
            if c.value > room:
                continue
            seq = list(count_cards) + [c]
            s = Fraction(self.value(p, self.credit[p]) * score_peg(seq, game=self.rules).points)
            left = list(hands_left)
            left[p] -= 1
            q = None
            for k in range(1, self.n):
                j = (p + k) % self.n
                if left[j] and j not in gone:
                    q = j
                    break
            if q is not None and sum(x.value for x in seq) != 31:
                pool = [x for x in DECK if x not in played and x is not c]
                n, h = len(pool), min(left[q], len(pool))
                f = {}
                for x in pool:
                    if sum(y.value for y in seq) + x.value <= 31:
                        f[x] = self.value(q, self.credit[q]) * score_peg(seq + [x], game=self.rules).points
                dist = Counter(f.values())
                lt = n - len(f)
                exp = Fraction(0)
                for v in sorted(dist):          # the replier's best = its max worth; to p: value per point
                    le = lt + dist[v]
                    exp += v * Fraction(_comb(le, h) - _comb(lt, h), _comb(n, h))
                    lt = le
                per = self.value(p, self.credit[q]) * self.value(q, self.credit[q])
                s += per * exp
            if best is None or (s, c.rank) > best[0]:
                best = ((s, c.rank), c)
        return None if best is None else best[1]

    def run(self, hands, count_cards, count_seats, played, turn, gone, record=None):
        """Play out; return {side: points} and, in ``record``, the first action of the player to move."""
        pts = Counter()
        hands = [list(h) for h in hands]
        count_cards, count_seats, played, gone = list(count_cards), list(count_seats), set(played), list(gone)
        single = self.rules.pegging_count == "single"
        while True:
            p = turn
            c = self.choose(p, hands[p], count_cards, played, tuple(len(h) for h in hands), gone)
            if record is not None and not record:
                record.append((c, list(count_cards)))
            if c is None:
                gone.append(p)
                if all(j in gone for j in range(self.n) if hands[j]):
                    pts[self.credit[count_seats[-1]]] += self.rules.last_card
                    if single:
                        return pts
                    lead = self.first_holder(gone[0], hands)
                    count_cards, count_seats, gone = [], [], []
                    if lead is None:
                        return pts
                    turn = lead
                else:
                    turn = self.next_in(p, hands, gone)
                continue
            hands[p].remove(c)
            played.add(c)
            count_cards.append(c)
            count_seats.append(p)
            pts[self.credit[p]] += score_peg(count_cards, game=self.rules).points
            if sum(x.value for x in count_cards) == 31:
                count_cards, count_seats, gone = [], [], []
                lead = self.first_holder((p + 1) % self.n, hands)
                if single or lead is None:
                    return pts
                turn = lead
                continue
            if not any(hands):
                pts[self.credit[p]] += self.rules.last_card
                return pts
            if all(j in gone for j in range(self.n) if hands[j]):
                pts[self.credit[p]] += self.rules.last_card
                if single:
                    return pts
                lead = self.first_holder(gone[0], hands)
                count_cards, count_seats, gone = [], [], []
                turn = lead
                continue
            turn = self.next_in(p, hands, gone)


def random_position(rules, rng, seat, max_others):
    """Deal explicit hands, play random legal cards until it is ``seat``'s turn with the others holding at most
    ``max_others`` cards together and a card of yours fits. Returns (mine, played tokens, turnup) or None."""
    t = Table(rules, seat)
    held = rules.held
    cards = rng.sample(DECK, t.n * held + 1)
    hands = [cards[i * held:(i + 1) * held] for i in range(t.n)]
    turnup = cards[-1]
    turn = t.pos.index(1)
    count, seats, gone, toks = [], [], [], []
    while True:
        room = 31 - sum(c.value for c in count)
        others = sum(len(h) for i, h in enumerate(hands) if i != t.you)
        if turn == t.you and others <= max_others and any(c.value <= room for c in hands[turn]):
            return hands[t.you], toks, turnup
        fits = [c for c in hands[turn] if c.value <= room]
        if not fits:
            toks.append("go")
            gone.append(turn)
            if all(j in gone for j in range(t.n) if hands[j]):
                if rules.pegging_count == "single":
                    return None
                turn = t.first_holder(gone[0], hands)
                count, seats, gone = [], [], []
            else:
                turn = t.next_in(turn, hands, gone)
            continue
        c = rng.choice(fits)
        hands[turn].remove(c)
        toks.append(str(c))
        count.append(c)
        seats.append(turn)
        if sum(x.value for x in count) == 31:
            count, seats, gone = [], [], []
            turn = t.first_holder((turn + 1) % t.n, hands)
            if turn is None:
                return None
            continue
        if not any(hands):
            return None
        if all(j in gone for j in range(t.n) if hands[j]):
            turn = t.first_holder(gone[0], hands)
            count, seats, gone = [], [], []
            continue
        turn = t.next_in(turn, hands, gone)


def brute_rank(rules, seat, mine, toks, turnup):
    """{rank: ({side: points}, reply kinds or None)} over every joint deal of explicit cards to the others."""
    from companion import parse_cards
    t = Table(rules, seat)
    hands_n = [rules.held] * t.n
    turn = t.pos.index(1)
    count, seats, gone, played = [], [], [], set()
    above = [0] * t.n
    for tok in toks:
        if tok == "go":
            above[turn] = max(above[turn], 31 - sum(c.value for c in count))
            gone.append(turn)
            fake = [[1] * k for k in hands_n]
            if all(j in gone for j in range(t.n) if hands_n[j]):
                turn = t.first_holder(gone[0], fake)
                count, seats, gone = [], [], []
            else:
                turn = t.next_in(turn, fake, gone)
            continue
        c = parse_cards([tok])[0]
        hands_n[turn] -= 1
        played.add(c)
        count.append(c)
        seats.append(turn)
        fake = [[1] * k for k in hands_n]
        if sum(x.value for x in count) == 31:
            count, seats, gone = [], [], []
            turn = t.first_holder((turn + 1) % t.n, fake)
            continue
        if all(j in gone for j in range(t.n) if hands_n[j]):
            turn = t.first_holder(gone[0], fake)
            count, seats, gone = [], [], []
            continue
        turn = t.next_in(turn, fake, gone)
    assert turn == t.you
    unseen = [c for c in DECK if c not in played and c not in mine and c != turnup]
    others = [i for i in range(t.n) if i != t.you]
    deals = []

    def deal(k, pool, acc):
        if k == len(others):
            deals.append(dict(acc))
            return
        i = others[k]
        for h in combinations([c for c in pool if c.value > above[i]], hands_n[i]):
            rest = [c for c in pool if c not in h]
            acc[i] = list(h)
            deal(k + 1, rest, acc)

    deal(0, unseen, {})
    out = {}
    for mc in {c.rank: c for c in mine if c.value <= 31 - sum(x.value for x in count)}.values():
        tot, kinds, replied = Counter(), Counter(), False
        for d in deals:
            hands = [d.get(i, []) for i in range(t.n)]
            hands[t.you] = [c for c in mine if c is not mc]
            pts = Counter()
            pts[t.credit[t.you]] += score_peg(count + [mc], game=rules).points
            cc, cs, pl = count + [mc], seats + [t.you], played | {mc}
            rec = []
            if sum(x.value for x in cc) == 31:
                lead = t.first_holder((t.you + 1) % t.n, hands)
                rest = Counter() if rules.pegging_count == "single" or lead is None else t.run(hands, [], [], pl, lead, [])
            elif not any(hands):
                pts[t.credit[t.you]] += rules.last_card
                rest = Counter()
            elif all(j in gone for j in range(t.n) if hands[j]):
                pts[t.credit[t.you]] += rules.last_card
                lead = t.first_holder(gone[0], hands)
                rest = Counter() if rules.pegging_count == "single" else t.run(hands, [], [], pl, lead, [])
            else:
                nxt = t.next_in(t.you, hands, gone)
                replied = nxt != t.you
                rest = t.run(hands, cc, cs, pl, nxt, gone, record=rec if replied else None)
            if rec:
                c2, before = rec[0]
                if c2 is None:
                    kinds["go"] += 1
                else:
                    names = {"pair royal": "pair", "double pair royal": "pair"}
                    got = {names.get(i.kind, i.kind) for i in score_peg(before + [c2], game=rules).items}
                    for k in got:
                        kinds[k] += 1
                    if got:
                        kinds["scores"] += 1
            tot.update(pts)
            tot.update(rest)
        n = len(deals)
        reply = {k: Fraction(kinds[k], n) for k in KINDS + ("scores",)} if replied else None
        out[mc.rank] = ({s: Fraction(v, n) for s, v in tot.items() if v}, reply)
    return out


def check(rules, seat, pos):
    mine, toks, turnup = pos
    a = rank_plays_multi(mine, game=rules, played=toks, seat=seat, turnup=turnup, exact_groups=10 ** 9)
    assert a.exact and "exactly" in a.assumption
    want = brute_rank(rules, seat, mine, toks, turnup)
    assert {p.card.rank for p in a.plays} == set(want)
    g = multi_game(rules, seat)
    for p in a.plays:
        sides, reply = want[p.card.rank]
        assert {s: v for s, v in p.by_side.items() if v} == sides, (rules.name, seat, toks, str(p.card))
        assert p.net == sum(g.value(g.you, s) * v for s, v in sides.items())
        assert p.reply == reply, (rules.name, seat, toks, str(p.card))
        assert p.stderr is None
    nets = [p.net for p in a.plays]
    assert nets == sorted(nets, reverse=True)


@pytest.mark.parametrize("preset", MULTI)
def test_exact_positions_equal_brute_force(preset):
    """Late positions (the others holding at most 2 cards together), every seat, exact == brute force."""
    rules = get_ruleset(preset)
    rng = random.Random(f"multi-{preset}")
    low = 1 if rules.house and not rules.house_plays else 0
    done = 0
    while done < 3:
        seat = low + done % rules.players
        pos = random_position(rules, rng, seat, max_others=2 - done % 2)
        if pos is None:
            continue
        check(rules, seat, pos)
        done += 1


@pytest.mark.parametrize("preset,options", [("lands-end-3", {"pegging_credit": "self"}),
                                            ("lands-end-4", {"last_card": 2})])
def test_house_rules_equal_brute_force(preset, options):
    rules = get_ruleset(preset, **options)
    rng = random.Random(f"multi-{preset}-{sorted(options.items())}")
    done = 0
    while done < 2:
        pos = random_position(rules, rng, 1 + done, max_others=2)
        if pos is not None:
            check(rules, 1 + done, pos)
            done += 1


@pytest.mark.slow
@pytest.mark.parametrize("preset", MULTI)
def test_exact_three_cards_out_equal_brute_force(preset):
    """The others holding three cards together (up to 3,000 explicit deals of them): marked slow."""
    rules = get_ruleset(preset)
    rng = random.Random(f"multi3-{preset}")
    while True:
        pos = random_position(rules, rng, 1, max_others=3)
        if pos is not None and rank_plays_multi(pos[0], game=rules, played=pos[1], seat=1, turnup=pos[2],
                                                exact_groups=10 ** 9).deals <= 3000:
            break
    check(rules, 1, pos)


def test_the_play_outs_count_states_score_every_card_as_the_table():
    """The sampled play-out steps on count-state ids (``_CS_NEXT``: what a card does to the count; ``_CS_PTS``:
    the points of each rank), one state for every count whose tail trims alike (pegging.trim). Walked through
    those tables only, each card of a random count scores as ``score_peg`` scores it after every card of the
    count (explicit cards), and the state reached is the whole count's trimmed tail."""
    from companion.advice import pegging_multi as pm
    from companion.advice.pegging import tail, trim
    rng = random.Random("multi-trim")
    rules = get_ruleset("lands-end-4")
    trimmed = 0
    for _ in range(3000):
        cards, count, ranks, cs = [], 0, (), 0
        for c in rng.sample(DECK, 52):
            if count + c.value > 31:
                continue
            want = score_peg(cards + [c], game=rules).points
            assert pm._CS_PTS[cs][c.rank] == want, ([str(x) for x in cards], str(c), pm._CS_AT[cs])
            cs, _ = pm._CS_NEXT[cs][c.rank] or pm._cs_next(cs, c.rank)
            cards.append(c)
            count += c.value
            ranks += (c.rank,)
            if count == 31:
                assert cs == 0                      # a new count
                break
            assert pm._CS_AT[cs] == (count, trim(count, tail(ranks)))
            trimmed += len(pm._CS_AT[cs][1]) < len(tail(ranks))
            if rng.random() < 0.1:
                break
    assert trimmed > 1000


def test_sampled_within_the_stated_error_of_exact():
    """Where exact enumeration is feasible, force sampling: every figure within 4 standard errors of the exact
    one, the standard errors themselves near the sample's, and the z-scores not all on one side."""
    zs = []
    rng = random.Random("multi-sampled")
    cases = 0
    while cases < 8:
        preset = MULTI[cases % 4]
        rules = get_ruleset(preset)
        seat = 1 + cases % 2
        pos = random_position(rules, rng, seat, max_others=4)
        if pos is None:
            continue
        mine, toks, turnup = pos
        exact = rank_plays_multi(mine, game=rules, played=toks, seat=seat, turnup=turnup, exact_groups=10 ** 9)
        mc = rank_plays_multi(mine, game=rules, played=toks, seat=seat, turnup=turnup, exact_groups=0, samples=600,
                              seed=cases)
        assert exact.exact and not mc.exact and mc.deals == 600 and "sample of 600" in mc.assumption
        want = {p.card.rank: p.net for p in exact.plays}
        for p in mc.plays:
            assert p.stderr is not None and p.stderr >= 0
            if p.stderr == 0:
                assert p.net == want[p.card.rank]
                continue
            z = (float(p.net) - float(want[p.card.rank])) / p.stderr
            assert abs(z) < 4, (preset, toks, str(p.card), z)
            zs.append(z)
        cases += 1
    assert len(zs) >= 12
    assert sum(abs(z) for z in zs) / len(zs) < 1.6            # |z| averages ~0.8 when the errors are right
    assert any(z > 0 for z in zs) and any(z < 0 for z in zs)


def test_lead_is_sampled_and_says_so():
    """A four-card lead in three-hand is far past exact enumeration: a seeded sample, the same answer twice."""
    a = rank_plays("5H 9C JD KS", game="lands-end-3", seat=1, turnup="2D")
    b = rank_plays("5H 9C JD KS", game="lands-end-3", seat=1, turnup="2D")
    assert not a.exact and a.deals == SAMPLES
    assert [(p.card, p.net) for p in a.plays] == [(p.card, p.net) for p in b.plays]
    assert f"sample of {SAMPLES}" in a.assumption and "standard error" in a.assumption
    for p in a.plays:
        assert 0 < p.stderr < 0.25
        assert p.points[0] + p.points[1] == sum(p.by_side.values())


def test_seats_and_refusals():
    with pytest.raises(IllegalAction, match="seat"):
        rank_plays_multi("5H 9C JD KS", game="lands-end-casino-4", seat=0)
    with pytest.raises(IllegalAction, match="turn of the player at seat 1"):
        rank_plays_multi("5H 9C JD KS", game="lands-end-3", seat=2)
    with pytest.raises(IllegalAction, match="4 cards"):
        rank_plays_multi("5H 9C JD", game="lands-end-3", seat=1)
    # four-hand: partners at seats 1 and 3 share a side; points made by team B go to team A (M3)
    g = multi_game(get_ruleset("lands-end-4"), 1)
    assert g.side == ("team A", "team B", "team A", "team B") and g.credit == ("team B", "team A", "team B", "team A")
    assert g.you == 1 and g.value(1, "team A") == 1 and g.value(1, "team B") == -1
    g3 = multi_game(get_ruleset("lands-end-3"), 1)
    assert g3.credit == ("seat 1", "seat 2", "seat 0")          # three-hand: the next player
    assert g3.value(1, "seat 2") == 1 and g3.value(1, "seat 1") == -1
    gc = multi_game(get_ruleset("lands-end-casino-4"), 2)
    assert gc.positions == (1, 2, 3, 4) and gc.goal["house"] == 1


@pytest.mark.parametrize("preset,seat", [("lands-end-3", 2), ("lands-end-casino-4", 1)])
def test_discard_pegging_is_the_mean_over_its_sampled_deals(preset, seat):
    """advise's three-/four-hand matching phase: the brute force plays every sampled deal out on explicit cards
    (suits given arbitrarily: the matching phase scores ranks only) and averages; the same figures exactly."""
    from companion.advice.discard import advise
    from companion.advice.pegging_multi import pegging_values_multi, sample_groups
    rules = get_ruleset(preset)
    dealt = random.Random(f"discard-{preset}").sample(DECK, rules.dealt)
    keep = dealt[:rules.held]
    t = Table(rules, seat)
    unseen = [c for c in DECK if c not in dealt]
    need = [0 if i == t.you else rules.held for i in range(t.n)]
    deals = sample_groups(unseen, need, [0] * t.n, 60, "test")
    tot, n = Counter(), 0
    for ranks, w in deals.items():
        pool = list(unseen)
        hands = []
        for i, rs in enumerate(ranks):
            h = []
            for r in rs:
                c = next(c for c in pool if c.rank == r)
                pool.remove(c)
                h.append(c)
            hands.append(h if i != t.you else list(keep))
        pts = t.run(hands, [], [], set(), t.pos.index(1), [])
        for s, v in pts.items():
            tot[s] += w * v
        n += w
    g = multi_game(rules, seat)
    by_side = {s: Fraction(v, n) for s, v in tot.items()}
    you = by_side.get(g.side[g.you], 0)
    from unittest import mock
    with mock.patch("companion.advice.pegging_multi.sample_groups", lambda *a: deals):
        (p_you, p_other), net, se = pegging_values_multi(rules, seat, keep, dealt)
    assert (p_you, p_other) == (you, sum(by_side.values()) - you)
    assert net == sum(g.value(g.you, s) * v for s, v in by_side.items()) and se > 0
    # advise carries it, with its standard error, for every discard
    a = advise(dealt, game=rules, seat=seat, pocket_owner=0 if rules.pocket_owner == "rotate" else None,
               pegging=True)
    d = a.to_dict()
    assert "sample of 400" in d["pegging_assumption"]
    for x in d["discards"]:
        assert 0 < x["pegging"]["stderr"] < 0.5
        assert abs(x["net_with_pegging"] - x["net"] - x["pegging"]["net"]) < 1e-9


def test_threads_advising_at_once_share_the_count_state_tables_without_mixing_them():
    """The web app's GET routes advise in their request threads, two at a time (a visitor's page asks them: issue
    37). The play-out's count-state tables are shared: a state was added row by row, and a thread switch between
    two rows gave another thread's state this one's id (wrong points, or an IndexError). Here threads rank at
    once on fresh tables, switching as often as the interpreter can: every ranking equals the one-thread one."""
    import sys
    import threading

    from companion.advice import pegging_multi as pm
    cases = [(("5H", "9C", "JD", "KS"), "lands-end-3"), (("2C", "10S", "4H", "9D"), "lands-end-4"),
             (("AS", "3D", "7C", "QH"), "lands-end-3"), (("6D", "6S", "8H", "KC"), "lands-end-4")]

    def rank(case):
        return [(tuple(map(str, p.cards)), p.net) for p in pm.rank_plays_multi(case[0], game=case[1], seat=1,
                                                                                 samples=200).plays]
    pm._cs_reset()
    want = [rank(c) for c in cases]
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pm._cs_reset()
        got, errors = {}, []

        def run(k):
            try:
                got[k] = rank(cases[k % 4])
            except Exception as exc:       # noqa: BLE001 - said by the assert below
                errors.append(exc)
        threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(before)
    assert not errors and [got[k] for k in range(8)] == [want[k % 4] for k in range(8)]
    assert pm._CS_BUSY == [0]
