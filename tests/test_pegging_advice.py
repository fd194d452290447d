"""Pegging advice: exact figures against a brute force over explicit card hands running the same policy.

The brute force here shares no code with companion/advice/pegging.py beyond the
rules it reads: it plays explicit cards, scores them with ``score_peg``, says go
and resets by its own transcription of C3/L9, decides by its own transcription
of the documented policy (Fractions, not integer scaling) and enumerates every
card hand (not rank multiset) the other player could hold.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from companion import DECK, IllegalAction, InvalidCard, UnknownGame, get_ruleset, parse_cards, score_peg
from companion.advice.discard import seating
from companion.advice.pegging import KINDS, game_for, peg_points, rank_plays, reply_points, tail

TWO_HAND = ["lands-end", "lands-end-casino-2", "cribbage", "reverse-cribbage", "five-card"]
HOUSE_RULES = [
    ("lands-end", {"go_lead": "other_player"}),
    ("cribbage", {"go_lead": "last_player"}),
    ("lands-end", {"pegging_credit": "self"}),
    ("lands-end", {"last_card": 2}),
    ("cribbage", {"pegging_credit": "next_opponent"}),
    ("reverse-cribbage", {"last_card": 0}),
]


# --- the brute force -------------------------------------------------------------------------


class Brute:
    """An explicit-card matching phase for two players (0 = you, 1 = the other)."""

    def __init__(self, rules, seat):
        self.rules = rules
        me, other = seating(rules, seat=seat).goal, seating(rules, seat=1 - seat).goal
        self.goal = (me, other)
        self.credit = (0, 1) if rules.pegging_credit == "self" else (1, 0)
        self.go_last = rules.go_lead == "last_player"
        self.memo = {}                  # decisions on explicit cards (a cache: same answer, computed once)

    def worth(self, p):
        c = self.credit[p]
        return self.goal[p] if c == p else -self.goal[c]

    def choose(self, hand, count_cards, played, other_left, other_in):
        """The documented policy on explicit cards: the card's worth less the expected best reply."""
        key = (tuple(hand), tuple(count_cards), frozenset(played), other_left, other_in, self._worth_now,
               self._worth_reply)
        if key not in self.memo:
            self.memo[key] = self._choose(hand, count_cards, played, other_left, other_in)
        return self.memo[key]

    def _choose(self, hand, count_cards, played, other_left, other_in):
        scores = self.scores(hand, count_cards, played, other_left, other_in)
        if not scores:
            return None
        return max(scores, key=lambda c: (scores[c], c.rank))

    def scores(self, hand, count_cards, played, other_left, other_in):
        """{card: the policy's score} for every card of ``hand`` that fits."""
        room = 31 - sum(c.value for c in count_cards)
        fits = [c for c in hand if c.value <= room]
        pool = [c for c in DECK if c not in played]        # the cards not yet played (public picture)
        scores = {}
        for c in fits:
            seq = list(count_cards) + [c]
            s = self._worth_now * peg(tuple(seq), self.rules)
            if other_in and sum(x.value for x in seq) != 31:
                rest = [x for x in pool if x is not c]
                n, h = len(rest), min(other_left, len(rest))
                f = {}
                for x in rest:
                    if sum(y.value for y in seq) + x.value <= 31:
                        f[x] = self._worth_reply * peg(tuple(seq) + (x,), self.rules)
                # E[max of f over a random h-subset]; unplayable cards count as minus infinity, none playable as 0
                exp = Fraction(0)
                dist = Counter(f.values())
                lt = n - len(f)                       # unplayable cards rank below every reply
                for v in sorted(dist):
                    le = lt + dist[v]
                    exp += v * Fraction(comb(le, h) - comb(lt, h), comb(n, h))
                    lt = le
                s -= exp
            scores[c] = s
        return scores

    def run(self, hands, count_cards, count_seats, played, turn, gone, left, *, first_go=None, record=None):
        """Play out from the given state; return points credited (to 0, to 1) and the other's next action."""
        pts = [0, 0]
        hands = [list(hands[0]), list(hands[1])]
        count_cards, count_seats, played, gone = list(count_cards), list(count_seats), set(played), list(gone)
        first = []
        while True:
            p = turn
            q = 1 - p
            self._worth_now, self._worth_reply = self.worth(p), self.worth(q)
            other_in = bool(hands[q]) and q not in gone
            c = self.choose(hands[p], count_cards, played, len(hands[q]), other_in)
            if p == 1 and not first:
                first.append(c if c is not None else "go")
                if record is not None:
                    record.append((c, list(count_cards)))
            if c is None:                              # go
                gone.append(p)
                holders = [s for s in (0, 1) if hands[s]]
                if all(s in gone for s in holders):
                    last = count_seats[-1]
                    pts[self.credit[last]] += self.rules.last_card
                    if self.rules.pegging_count == "single":
                        return pts
                    leader = last if self.go_last else gone[0]
                    count_cards, count_seats, gone = [], [], []
                    if not any(hands):
                        return pts
                    turn = leader if hands[leader] else 1 - leader
                else:
                    turn = q
                continue
            hands[p].remove(c)
            played.add(c)
            count_cards.append(c)
            count_seats.append(p)
            pts[self.credit[p]] += score_peg(count_cards, game=self.rules).points
            total = sum(x.value for x in count_cards)
            if total == 31:
                count_cards, count_seats, gone = [], [], []
                if self.rules.pegging_count == "single" or not any(hands):
                    return pts
                turn = q if hands[q] else p
                continue
            if not any(hands):
                pts[self.credit[p]] += self.rules.last_card
                return pts
            holders = [s for s in (0, 1) if hands[s]]
            if all(s in gone for s in holders):
                last = p
                pts[self.credit[last]] += self.rules.last_card
                if self.rules.pegging_count == "single":
                    return pts
                leader = last if self.go_last else gone[0]
                count_cards, count_seats, gone = [], [], []
                turn = leader if hands[leader] else 1 - leader
                continue
            turn = q if hands[q] and q not in gone else p


_PEG = {}


def peg(cards, rules):
    """score_peg's points of explicit cards (memoised: the same cards always score the same)."""
    pts = _PEG.get(cards)
    if pts is None:
        pts = _PEG[cards] = score_peg(cards, game=rules).points
    return pts


def comb(n, k):
    from math import comb as c
    return c(n, k) if 0 <= k <= n else 0


def random_position(rules, rng, *, max_other=2):
    """Deal explicit hands, play random legal cards until the other player holds at most ``max_other``
    cards and it is your turn. Returns (mine, theirs, played tokens, dealer, turnup) or None."""
    held = rules.held
    cards = rng.sample(DECK, 2 * held + 1)
    hands = [cards[:held], cards[held:2 * held]]
    turnup = cards[-1]
    dealer = rng.random() < 0.5
    b = Brute(rules, 0 if dealer else 1)
    turn = 1 if dealer else 0
    count, toks, gone, count_seats = [], [], [], []
    while True:
        if turn == 0 and len(hands[1]) <= max_other and any(c.value <= 31 - sum(x.value for x in count)
                                                            for c in hands[0]):
            return hands[0], hands[1], toks, dealer, turnup
        room = 31 - sum(x.value for x in count)
        fits = [c for c in hands[turn] if c.value <= room]
        q = 1 - turn
        if not fits:
            toks.append("go")
            gone.append(turn)
            holders = [s for s in (0, 1) if hands[s]]
            if all(s in gone for s in holders):
                if rules.pegging_count == "single":
                    return None
                last = count_seats[-1]
                leader = last if b.go_last else gone[0]
                count, count_seats, gone = [], [], []
                turn = leader if hands[leader] else 1 - leader
            else:
                turn = q
            continue
        c = rng.choice(fits)
        hands[turn].remove(c)
        toks.append(str(c))
        count.append(c)
        count_seats.append(turn)
        if sum(x.value for x in count) == 31:
            count, count_seats, gone = [], [], []
            if rules.pegging_count == "single" or not any(hands):
                return None
            turn = q if hands[q] else turn
            continue
        if not any(hands):
            return None
        holders = [s for s in (0, 1) if hands[s]]
        if all(s in gone for s in holders):
            if rules.pegging_count == "single":
                return None
            leader = turn if b.go_last else gone[0]
            count, count_seats, gone = [], [], []
            turn = leader if hands[leader] else 1 - leader
            continue
        turn = q if hands[q] and q not in gone else turn


def brute_rank(rules, mine, toks, dealer, turnup):
    """Every legal play of ``mine`` by brute force: {rank: (points to you, to the other, reply kinds)}."""
    b = Brute(rules, 0 if dealer else 1)
    # replay the history on explicit cards: who played what, the current count, the other's gos
    turn = 1 if dealer else 0
    held = rules.held
    left = [held, held]
    count, count_seats, gone, played = [], [], [], set()
    above = 0
    for t in toks:
        q = 1 - turn
        if t == "go":
            if turn == 1:
                above = max(above, 31 - sum(x.value for x in count))
            gone.append(turn)
            holders = [s for s in (0, 1) if left[s]]
            if all(s in gone for s in holders):
                last = count_seats[-1]
                leader = last if b.go_last else gone[0]
                count, count_seats, gone = [], [], []
                turn = leader if left[leader] else 1 - leader
            else:
                turn = q
            continue
        c = parse_cards([t])[0]
        left[turn] -= 1
        played.add(c)
        count.append(c)
        count_seats.append(turn)
        if sum(x.value for x in count) == 31:
            count, count_seats, gone = [], [], []
            turn = q if left[q] else turn
            continue
        holders = [s for s in (0, 1) if left[s]]
        if all(s in gone for s in holders):
            leader = turn if b.go_last else gone[0]
            count, count_seats, gone = [], [], []
            turn = leader if left[leader] else 1 - leader
            continue
        turn = q if left[q] and q not in gone else turn
    assert turn == 0
    unseen = [c for c in DECK if c not in played and c not in mine and c != turnup and c.value > above]
    out = {}
    for mc in {c.rank: c for c in mine if c.value <= 31 - sum(x.value for x in count)}.values():
        tot = [0, 0]
        kinds = Counter()
        cases = 0
        replied = False
        for theirs in combinations(unseen, left[1]):
            cases += 1
            # my chosen card first, then both on the policy
            hands = [[c for c in mine if c is not mc], list(theirs)]
            cc = count + [mc]
            pts = [0, 0]
            pts[b.credit[0]] += score_peg(cc, game=rules).points
            rec = []
            state = dict(count_cards=cc, count_seats=count_seats + [0], played=played | {mc})
            tv = sum(x.value for x in cc)
            if tv == 31:
                if rules.pegging_count == "single" or not any(hands):
                    rest = [0, 0]
                else:
                    rest = b.run(hands, [], [], played | {mc}, 1 if hands[1] else 0, [], None)
            elif not any(hands):
                pts[b.credit[0]] += rules.last_card
                rest = [0, 0]
            else:
                holders = [s for s in (0, 1) if hands[s]]
                if all(s in gone for s in holders):     # the other is out: go for me, new count
                    pts[b.credit[0]] += rules.last_card
                    if rules.pegging_count == "single":
                        rest = [0, 0]
                    else:
                        leader = 0 if b.go_last else gone[0]
                        turn2 = leader if hands[leader] else 1 - leader
                        rest = b.run(hands, [], [], played | {mc}, turn2, [], None)
                else:
                    turn2 = 1 if hands[1] and 1 not in gone else 0
                    replied = turn2 == 1
                    rest = b.run(hands, state["count_cards"], state["count_seats"], state["played"], turn2, gone,
                                 None, record=rec if turn2 == 1 else None)
            if rec:
                c2, before = rec[0]
                if c2 is None:
                    kinds["go"] += 1
                else:
                    items = score_peg(before + [c2], game=rules).items
                    names = {"pair royal": "pair", "double pair royal": "pair"}
                    got = {names.get(i.kind, i.kind) for i in items}
                    for k in got:
                        kinds[k] += 1
                    if got:
                        kinds["scores"] += 1
            tot[0] += pts[0] + rest[0]
            tot[1] += pts[1] + rest[1]
        reply = {k: Fraction(kinds[k], cases) for k in KINDS + ("scores",)} if replied else None
        out[mc.rank] = (Fraction(tot[0], cases), Fraction(tot[1], cases), reply)
    return out


# --- tests ---------------------------------------------------------------------------------


def test_peg_points_equal_score_peg():
    from companion.advice.pegging_model import peg_kinds
    rng = random.Random("peg-points")
    checked = Counter()
    for _ in range(3000):
        n = rng.randrange(1, 8)
        cards = rng.sample(DECK, n)
        # bias toward runs and pairs: sometimes build from close ranks
        if rng.random() < 0.5:
            base = rng.randrange(1, 9)
            pool = [c for c in DECK if base <= c.rank < base + 5]
            cards = rng.sample(pool, min(n, len(pool)))
        if sum(c.value for c in cards) > 31:
            continue
        s = score_peg(cards)
        total, fif, pair, run, t31 = peg_points(tuple(c.rank for c in cards))
        assert total == s.points
        for k in range(len(cards)):          # a count's tail scores every later card alike
            assert peg_kinds(sum(c.value for c in cards), tail(tuple(c.rank for c in cards[:k])) + tuple(
                c.rank for c in cards[k:]))[0] == s.points
        kinds = {i.kind: i.points for i in s.items}
        assert fif == kinds.get("fifteen", 0) and t31 == kinds.get("thirty-one", 0)
        assert pair == sum(v for k, v in kinds.items() if "pair" in k)
        assert run == kinds.get("run", 0)
        checked.update(kinds)
        # every rank's points after this count at once (the policy's and the walk's table) equal the points of
        # each card played there, by score_peg
        count, head = sum(c.value for c in cards[:-1]), tuple(c.rank for c in cards[:-1])
        row = reply_points(count, tail(head))
        assert row[cards[-1].rank] == s.points
        assert row == (-1,) + tuple(peg_kinds(count + (x if x < 10 else 10), head + (x,))[0] if count + min(x, 10) <= 31
                                    else -1 for x in range(1, 14))
    assert {"fifteen", "pair", "pair royal", "run", "thirty-one"} <= set(checked)


def test_the_engine_s_trimmed_count_scores_every_card_to_come_as_the_whole_count():
    """The walk's states keep only ``trim(count, tail(...))`` of a count: the cards that a run may still begin
    at (the ranks missing in between fit the room under 31). Along random counts played through the engine's
    own step (``step_play``), every card scores, by the trimmed state's row, what ``score_peg`` gives it after
    every card of the count; the state is a suffix of the count's ranks, and trimmed at least sometimes."""
    from companion.advice.pegging import State, step_play, trim

    rng = random.Random("two-trim")
    g = game_for(get_ruleset("cribbage"), 0)
    trimmed = 0
    for _ in range(2000):
        cards: list = []
        st = State(turn=0, left=(26, 26))
        for c in rng.sample(DECK, 52):
            if st.count + c.value > 31:
                continue
            assert reply_points(st.count, st.seq)[c.rank] == score_peg(cards + [c]).points, \
                ([str(x) for x in cards], str(c), st.seq)
            cards.append(c)
            st = step_play(g, st, c.rank, [])
            if st.count == 0:
                break
            ranks = tuple(x.rank for x in cards)
            assert st.seq == ranks[len(ranks) - len(st.seq):] == trim(st.count, tail(ranks))
            trimmed += len(st.seq) < len(tail(ranks))
            if rng.random() < 0.1:
                break
    assert trimmed > 500


def check_position(rules, pos):
    mine, theirs, toks, dealer, turnup = pos
    a = rank_plays(mine, game=rules, played=toks, dealer=dealer, turnup=turnup)
    want = brute_rank(rules, mine, toks, dealer, turnup)
    assert {p.card.rank for p in a.plays} == set(want)
    g = game_for(rules, 0 if dealer else 1)
    for p in a.plays:
        me, other, reply = want[p.card.rank]
        assert p.points == (me, other), (rules.name, toks, str(p.card))
        assert p.net == g.goal[0] * me - g.goal[1] * other
        assert p.reply == reply, (rules.name, toks, str(p.card))
    nets = [p.net for p in a.plays]
    assert nets == sorted(nets, reverse=True)


def check_random_positions(rules, seed, n):
    """``n`` random positions of ``rules`` against the brute force, the other player holding 2 then 1 cards."""
    rng = random.Random(seed)
    done = 0
    while done < n:
        pos = random_position(rules, rng, max_other=2 - done % 2)
        if pos is None:
            continue
        check_position(rules, pos)
        done += 1


@pytest.mark.parametrize("preset", TWO_HAND)
def test_positions_equal_brute_force(preset):
    check_random_positions(get_ruleset(preset), f"peg-{preset}", 2)


@pytest.mark.parametrize("preset,options", HOUSE_RULES)
def test_house_rules_equal_brute_force(preset, options):
    check_random_positions(get_ruleset(preset, **options), f"peg-{preset}-{sorted(options.items())}", 2)


@pytest.mark.parametrize("preset", TWO_HAND)
def test_policy_scores_equal_the_written_policy(preset):
    """The fast integer scores (over C(n, h)) equal the policy written out with Fractions, at every depth."""
    from math import comb as C
    from companion.advice.pegging import policy_scores, replay
    rules = get_ruleset(preset)
    rng = random.Random(f"policy-{preset}")
    seen_h = Counter()
    for _ in range(12):
        pos = random_position(rules, rng, max_other=rng.choice([1, 2, 3, 4]))
        if pos is None:
            continue
        mine, theirs, toks, dealer, turnup = pos
        g = game_for(rules, 0 if dealer else 1)
        played = [parse_cards([t])[0] for t in toks if t != "go"]
        st, _, _ = replay(g, mine, [None if t == "go" else parse_cards([t])[0] for t in toks], 1 if dealer else 0)
        b = Brute(rules, 0 if dealer else 1)
        b._worth_now, b._worth_reply = b.worth(0), b.worth(1)
        count_cards, total = [], 0          # the last cards played that add up to the current count
        while total < st.count:
            count_cards.insert(0, played[-1 - len(count_cards)])
            total += count_cards[0].value
        other_in = st.left[1] > 0 and not st.gone >> 1 & 1
        want = b.scores(mine, count_cards, set(played), st.left[1], other_in)
        fast = policy_scores(g, st, 0)
        n1 = 52 - len(played) - 1
        h = min(st.left[1], n1)
        scale = C(n1, h) if other_in else 1        # no reply to judge: the card's own worth, unscaled
        for c, v in want.items():
            assert Fraction(fast[c.rank], scale) == v, (preset, toks, str(c))
        seen_h[st.left[1]] += 1
    assert len(seen_h) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("preset,dealer", [("five-card", True)])
def test_discard_pegging_value_equals_brute_force(preset, dealer):
    """A kept hand's whole matching phase, over every card hand the other player could keep (16,215 of them)."""
    from companion.advice.pegging import pegging_values
    rules = get_ruleset(preset)
    rng = random.Random(f"discard-peg-{preset}-{dealer}")
    dealt = rng.sample(DECK, rules.dealt)
    keep = dealt[:rules.held]
    seat = 0 if dealer else 1
    b = Brute(rules, seat)
    unseen = [c for c in DECK if c not in dealt]
    tot, cases = [0, 0], 0
    for theirs in combinations(unseen, rules.held):
        pts = b.run([list(keep), list(theirs)], [], [], set(), 1 if dealer else 0, [], None)
        tot[0] += pts[0]
        tot[1] += pts[1]
        cases += 1
    assert pegging_values(rules, seat, keep, dealt) == (Fraction(tot[0], cases), Fraction(tot[1], cases))


def test_goals_match_the_discard_advice_seating():
    """game_for's goals are advice.discard.seating's for every two-hand preset and seat (advice.pegging cannot import it)."""
    for preset in TWO_HAND:
        rules = get_ruleset(preset)
        for seat in (0, 1):
            assert game_for(rules, seat).goal == (seating(rules, seat=seat).goal, seating(rules, seat=1 - seat).goal)


@pytest.mark.parametrize("preset", TWO_HAND)
def test_whole_phase_of_known_hands_equals_brute_force(preset):
    """Both hands known, the whole matching phase from the first lead: the walk's play-out (its forced plays,
    its endgame table of one card each, its small-group play-outs) against the explicit-card brute force."""
    from companion.advice.pegging import State, play_out
    rules = get_ruleset(preset)
    rng = random.Random(f"playout-{preset}")
    held = rules.held
    for i in range(12):
        cards = rng.sample(DECK, 2 * held)
        mine, theirs = cards[:held], cards[held:]
        seat = i % 2                         # 0 deals: the other player leads
        g = game_for(rules, seat)
        leader = 1 if seat == 0 else 0
        got = play_out(g, State(turn=leader, left=(held, held)), [c.rank for c in mine], [c.rank for c in theirs])
        want = Brute(rules, seat).run([mine, theirs], [], [], set(), leader, [], None)
        assert list(got) == want, (preset, [str(c) for c in mine], [str(c) for c in theirs])


def test_a_ranking_s_first_split_from_the_per_order_table_equals_the_pass_over_its_hands(monkeypatch):
    """A four-card lead's root group splits by a table per order (``RootGroup``, shared by every position with the
    same order) and its weights start from four cards a rank: every figure of a ranking equals the one made with
    a plain group (the pass over the hands, the weights counted hand by hand), seats, goals and gos alike."""
    from math import comb

    from companion.advice import pegging as two

    rng = random.Random("root-split")
    for _ in range(300):                                 # the weights: against the product of C(avail, m)
        k = rng.choice([1, 2, 3, 4])
        avail = [0] + [rng.choice([0, 1, 2, 3, 4, 4, 4]) for _ in range(13)]
        above = rng.choice([0, 0, 3, 9])
        want = {}
        for hand, parts in two.rank_hands(k):
            w = 1
            for r, m in parts:
                w *= comb(avail[r], m) if two.VALUE[r] > above else 0
            if w:
                want[hand] = w
        assert two.hand_groups(avail, k, above) == want
        if k == 4:
            root = two.RootGroup(avail, 4, above)
            assert dict(root) == want and root.zeros == [i for i, (h, _) in enumerate(two.rank_hands(4))
                                                         if h not in want]
            order = tuple(rng.sample(range(1, 14), rng.randint(1, 13)))     # the ranks that fit, best first
            at = dict.fromkeys(range(14), 99) | {x: i for i, x in enumerate(order)}
            parts = {}
            for hand, w in want.items():        # each hand plays its first rank in the order, or says go
                r = min(hand, key=at.__getitem__)
                r, rest = (None, hand) if at[r] == 99 else (r, hand[:hand.index(r)] + hand[hand.index(r) + 1:])
                parts.setdefault(r, {})[rest] = w
            assert root.split(order, at) == parts
    positions = [(("lands-end", "cribbage", "reverse-cribbage", "lands-end-casino-2")[i % 4], rng.sample(DECK, 5))
                 for i in range(8)]
    fast = [rank_plays(c[:4], game=g, turnup=c[4], seat=i % 2 if g == "lands-end-casino-2" else None).to_dict()
            for i, (g, c) in enumerate(positions)]
    monkeypatch.setattr(two, "RootGroup", lambda avail, k, above=0: two.hand_groups(avail, k, above))
    plain = [rank_plays(c[:4], game=g, turnup=c[4], seat=i % 2 if g == "lands-end-casino-2" else None).to_dict()
             for i, (g, c) in enumerate(positions)]
    assert fast == plain


@pytest.mark.parametrize("preset", ["lands-end", "cribbage", "reverse-cribbage", "five-card", "lands-end-casino-2"])
def test_the_walk_s_rows_of_its_last_plays_give_the_plain_walk_s_figures(preset):
    """What the other player's last plays (and your reply to them) lead to is kept per state without the cards
    played before (``_row_entry``, ``_reply_two``): only your choice reads those. Dealer's replies to a lead and
    random positions deep in a count rank exactly as with the plain walk (itself pinned by the brute force)."""
    from companion.advice import pegging as two

    rules = get_ruleset(preset)
    rng = random.Random(f"rows-{preset}")
    calls = []
    for i in range(6):
        c = rng.sample(DECK, rules.held + 2)
        calls.append(dict(hand=c[:rules.held], game=rules, turnup=c[-1], played=[c[rules.held]], dealer=True))
    while len(calls) < 12:
        pos = random_position(rules, rng, max_other=rng.choice([2, 3]))
        if pos is not None:
            mine, _, toks, dealer, turnup = pos
            calls.append(dict(hand=mine, game=rules, turnup=turnup, played=toks, dealer=dealer))
    fast = [rank_plays(**kw).to_dict() for kw in calls]

    def plain(hand, game, turnup, played, dealer):     # the same position, the game with its rows off
        seat = 0 if dealer else 1
        return two.rank_position(two.game_for(game, seat, rows=False), seat, hand, played=played, turnup=turnup)
    assert [plain(**kw).to_dict() for kw in calls] == fast
    assert not two.game_for(rules, 0, rows=False).rows_memo


@pytest.mark.parametrize("preset,options", [(p, {}) for p in TWO_HAND] + HOUSE_RULES)
def test_the_fast_walk_gives_the_reference_walk_s_choice_and_figures(preset, options):
    """``reference_walk`` is the walk's idea in plain code (the model's step and choice, every hand of the group
    split at each of the other player's turns, no rows, no endgame tables, no unrolled splits). The fast walk ranks
    every position exactly as it does: a lead (the root group's split by a table per order), a dealer's reply, and
    random positions later in the hand, every seat, every two-hand game and house rule: the same plays in the same
    order (so the same choice), the same points to each side, nets and reply chances, the policy's card alike."""
    from companion.advice import pegging as two

    rules = get_ruleset(preset, **options)
    rng = random.Random(f"reference-{preset}-{sorted(options.items())}")
    calls = []
    for dealer in (False, True):
        c = rng.sample(DECK, rules.held + 2)
        calls.append(dict(hand=c[:rules.held], turnup=c[-1], played=[c[rules.held]] if dealer else [], dealer=dealer))
    while len(calls) < 8:
        pos = random_position(rules, rng, max_other=rng.choice([1, 2, 3]))
        if pos is not None:
            mine, _, toks, dealer, turnup = pos
            calls.append(dict(hand=mine, turnup=turnup, played=toks, dealer=dealer))
    for kw in calls:
        seat = 0 if kw["dealer"] else 1
        g = two.game_for(rules, seat)
        fast = rank_plays(kw["hand"], game=rules, turnup=kw["turnup"], played=kw["played"], dealer=kw["dealer"])
        ref = two.rank_position(g, seat, kw["hand"], played=kw["played"], turnup=kw["turnup"],
                                walk=two.reference_walk)
        assert ref.to_dict() == fast.to_dict(), (preset, options, kw)
        assert [p.card for p in ref.plays] == [p.card for p in fast.plays]
