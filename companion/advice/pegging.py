"""Two-hand pegging advice: every legal play ranked by the game's own goal, with exact expected points.

Read :mod:`companion.advice.pegging_model` first: the count, the game, the state, a play, a go, the policy
and its choice. This module walks that model (docs/advice.md, "Pegging"):

* **Exact values of a position** (:func:`rank_plays`): every legal play is
  followed through the rest of the matching phase with both players on the
  policy, over every hand the other player could hold among the cards the
  advised player has not seen (uniform, consistent with the other player's
  gos), giving the expected points credited to each side, the net by the
  game's goal and the chance that the reply scores, by kind.
* **The reference walk** (:func:`reference_walk`, below): that idea in one page, every hand of the
  other player's group played out by the model's own step and choice. Read it before the fast walk.
* **The fast walk** (:func:`_walk`): the same figures (tests/test_pegging_advice.py pins it to the
  reference walk). Pegging depends on ranks only and the policy's picture of a reply depends only on
  public cards, so the other player's possible hands, grouped by rank multiset, walk down one game
  tree together: at every turn of the other player the group splits by the card each hand plays (one
  node per public state, however few hands it holds). Below that the walk saves what does not change
  the figures: a player holding one rank that fits plays it unscored, once each player holds at most
  one card nobody chooses any more, so the rest comes from a table per game keyed by the count, not
  by the cards played before (:func:`_endgame`), and what the other player's last plays lead to is
  kept per state (:func:`_row_entry`). The tables are bounded :class:`Cache` s the garbage collector
  can untrack, and a ranking runs with the collector paused (bench/README.md, "Issue 25 item 3").

Two-hand games only (Land's End, two-hand casino, cribbage, reverse cribbage,
five-card); three- and four-hand games are refused with a clear error
(:mod:`companion.advice.pegging_multi`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from ..cards import DECK, Card
from ..errors import IllegalAction
from ..rulesets import RULESETS, Ruleset, get_ruleset
# the model, and its public names re-exported (the console, the page and the tests import them from here)
from .pegging_model import (BINOM, COUNT_AFTER, KINDS, POLICIES, POLICY, RANKS, VALUE, WITHOUT, Cache,  # noqa: F401
                            PegGame, State, best_rank, choose, count_after, count_reply, fill_scores, game_for,
                            hand_groups, hand_weights, infer_gos, paused_collector, peg_kinds, peg_points,
                            policy_scores, position_cards, rank_hands, replay, reply_points, rules_of, step_go,
                            step_play, tail, trim, without)

__all__ = ["POLICY", "POLICIES", "ASSUMPTION", "PegGame", "PlayAdvice", "PegAdvice", "peg_points",
           "rank_plays", "pegging_values", "play_out", "infer_gos", "warm_up", "WARM_ROUNDS"]

#: Said in every result: the model of the other player's cards and play.
ASSUMPTION = ("the other player's hand is averaged over every hand it could hold among the cards you have not "
              "seen, all equally likely (only its gos narrow them); from now on both players follow the "
              "documented policy (docs/advice.md)")

_mk = tuple.__new__     # _mk(State, fields): a state without NamedTuple's keyword __new__ (the walk's hot path)


# --- the reference walk: the idea, plainly ---------------------------------------------------------


def reference_walk(g: PegGame, st: State, mine: tuple[int, ...], group: Mapping[tuple[int, ...], int],
                   stats: "dict | None" = None) -> list[int]:
    """Return ``[sum of weight x points credited to you, ... to the other]`` from ``st`` to the end of the matching
    phase, over every hand the other player could hold (``group``: its sorted ranks -> weight, the card hands it
    stands for), you holding ``mine``, both players on the policy (the model's :func:`choose`, :func:`step_play`,
    :func:`step_go`). ``stats``, when given, collects the weight of each kind the other player's next action
    makes (``st`` must be its turn).

    Every hand of the group sees the same public cards, so the hands walk down one game tree together: on your
    turn you make one choice for them all; on the other player's turn the group splits by the card each hand
    plays. :func:`_walk` gives the same figures, faster (tests/test_pegging_advice.py pins it to this one)."""
    out = [0, 0]
    if st.over:
        return out
    if st.turn == 0:                                        # yours: one choice for the whole group
        plays = {choose(g, st, 0, mine): group}
    else:                                                   # the other's: the group splits by each hand's card
        plays = {}
        for hand, w in group.items():
            r = choose(g, st, 1, hand)
            plays.setdefault(r, {})[hand if r is None else without(hand, r)] = w
    for r, sub in plays.items():
        credits: list = []
        nxt = step_go(g, st, credits) if r is None else step_play(g, st, r, credits)
        weight = sum(sub.values())
        for who, pts, _ in credits:
            out[who] += pts * weight
        if stats is not None:
            count_reply(stats, st.count, st.seq, r, weight)
        rest = mine if st.turn == 1 or r is None else without(mine, r)
        below = reference_walk(g, nxt, rest, sub)
        out[0] += below[0]
        out[1] += below[1]
    return out


# --- the fast walk: the same, with what does not change the figures saved ---------------------------
#
# What :func:`_walk` saves over :func:`reference_walk`, each pinned (docs/architecture.md, "copies the advice keeps"):
#  * the choices: yours between two cards without choose's sets (_choose_two); the other's order over every rank
#    kept per state, with each rank's place in it (_preferred, _places), so a hand's card is its first in the order;
#  * the splits: one loop per hand length, unrolled (_split_two ...); a lead's first split from a table per order
#    (RootGroup, _root_split); a step without the kinds (_step);
#  * the leaves: once each player holds at most one card (or one holds none) nobody chooses any more, and an
#    endgame table per game keyed by the count, not by the cards played before, gives the rest (_endgame);
#  * the rows: what the other player's last plays lead to, kept per state without the cards played before
#    (_row_entry, _reply_two), shared by every position reaching it (PegGame.rows switches them off).


def _choose_two(g: PegGame, st: State, played: int, a: int, b: int) -> "int | None":
    """:func:`choose` for you (player 0) holding the ranks ``a <= b`` at ``st`` with the cards ``played`` (the
    dealer's rows, :func:`_reply_two`, and the walk's turns with two cards: without choose's sets, and only the
    choice kept; pinned to :func:`choose` by tests/test_pegging_engines.py)."""
    room = 31 - st.count
    if VALUE[b] > room or a == b:             # values grow with rank: b does not fit, or one rank: no choice
        return a if VALUE[a] <= room else None
    h = st.left[1] if g.policies[0] == "lookahead" and st.left[1] > 0 and not st.gone & 2 else 0
    key = (st.seq, st.count, played if h else None, h, a, b)
    hit = g.two_memo.get(key)
    if hit is None:                 # the choice alone is kept (not the scores: most of these states come once)
        scores: dict = {}
        fill_scores(scores, (a, b), st.count, st.seq, played, h, g.worth[0], g.worth[1], -1)
        hit = g.two_memo.put(key, b if scores[b] >= scores[a] else a)        # ties to the higher rank
    return hit


def _preferred(g: PegGame, st: State, p: int) -> tuple[tuple[int, ...], dict]:
    """The ranks player ``p`` could play now, the policy's favourite first (ties: higher rank first), over every
    rank, with each rank's place in it (:func:`_places`), kept together per state."""
    q = 1 - p
    replier = g.policies[p] == "lookahead" and st.left[q] > 0 and not st.gone >> q & 1
    key = (p, st.seq, st.count, st.played if replier else None, st.left[q] if replier else 0)
    hit = g.order_memo.get(key)
    if hit is None:             # the order is kept, not the scores it came from (most of these states come once)
        scores: dict = {}
        fill_scores(scores, RANKS, st.count, st.seq, st.played, st.left[q] if replier else 0, g.worth[p],
                    g.worth[q], -1)
        order = tuple(sorted((r for r in scores if scores[r] is not None), key=lambda r: (scores[r], r), reverse=True))
        hit = g.order_memo.put(key, (order, _places(order)))
    return hit


def _places(order: tuple[int, ...]) -> dict:
    """Each rank's place in ``order``, 99 for a rank not in it (it does not fit), kept in ``_PLACE``: a dict of ints
    (min(key=at.__getitem__) is 3x faster than with a tuple's or a list's __getitem__, and the collector never
    tracks it)."""
    at = _PLACE.get(order)
    if at is None:
        at = dict.fromkeys(range(14), 99)
        for i, x in enumerate(order):
            at[x] = i
        _PLACE.put(order, at)
    return at


_ONE = [(x,) for x in range(14)]                                  # the hands less a card, made once (the splits
_DUO = [[(x, y) for y in range(14)] for x in range(14)]           # keep them as keys: one tuple each, not one per hand)
_FITS = [{x: 0 if VALUE[x] <= room else 99 for x in range(14)} for room in range(32)]   # a one-card split's places


_PLACE = Cache(50_000)      # a preference order -> each rank's place in it


def _over(left: tuple[int, int], played: int) -> State:
    return _mk(State, (-1, (), 0, 0, -1, -1, left, played, True))


def _new_count(g: PegGame, leader: int, left: tuple[int, int], played: int) -> State:
    """:func:`_reset`: the next count led by ``leader`` (or the other, if ``leader`` has no cards)."""
    if g.single or not (left[0] or left[1]):
        return _mk(State, (-1, (), 0, 0, -1, -1, left, played, True))
    if not left[leader]:
        leader = 1 - leader
    return _mk(State, (leader, (), 0, 0, -1, -1, left, played, False))


def _step(g: PegGame, st: State, r: "int | None") -> tuple:
    """:func:`step_play` (``r`` a rank) or :func:`step_go` (None) for player ``st.turn``, without the kinds:
    ``(next state, points credited to 0, points credited to 1)`` (the walk's hot path)."""
    p = st.turn
    left = st.left
    if r is None:
        gone = st.gone | (1 << p)
        first = st.first_go if st.first_go >= 0 else p
        if (not left[0] or gone & 1) and (not left[1] or gone & 2):       # every holder has said go
            last = st.last
            pts = g.last_card
            st2 = _new_count(g, last if g.go_last else first, left, st.played)
            return (st2, pts, 0) if g.credit[last] == 0 else (st2, 0, pts)
        return _mk(State, (1 - p, st.seq, st.count, gone, first, st.last, left, st.played, False)), 0, 0
    count, seq, pts = COUNT_AFTER.get((st.count, st.seq, r)) or count_after(st.count, st.seq, r)
    left = (left[0] - 1, left[1]) if p == 0 else (left[0], left[1] - 1)
    played = st.played + (1 << 3 * r)
    who = g.credit[p]
    if count == 31:
        st2 = _new_count(g, 1 - p, left, played)
    elif not (left[0] or left[1]):
        pts += g.last_card
        st2 = _over(left, played)
    else:
        gone = st.gone
        if (not left[0] or gone & 1) and (not left[1] or gone & 2):    # every holder has said go
            pts += g.last_card             # the go (last) to the player of the last card: p
            st2 = _new_count(g, p if g.go_last else st.first_go, left, played)
            return (st2, pts, 0) if who == 0 else (st2, 0, pts)
        q = 1 - p
        turn = q if left[q] and not gone >> q & 1 else p
        st2 = _mk(State, (turn, seq, count, gone, st.first_go, p, left, played, False))
    return (st2, pts, 0) if who == 0 else (st2, 0, pts)


def _walk(g: PegGame, st: State, mine: tuple[int, ...], group: Mapping[tuple[int, ...], int],
          stats: "dict | None" = None) -> list[int]:
    """Return ``[sum of weight * points credited to 0, ... to 1]`` over the group, both on the policy:
    :func:`reference_walk`'s figures, faster.

    One node per public state: the advised player's moves are made once for the whole group, and at each
    turn of the other player the group splits by the card each hand plays (its favourite by the policy's
    order at that state); once each player holds at most one card the rest comes from the endgame table.
    ``stats``, when given, collects the weight of each kind the other player's next action makes (only at
    the first node, which must be the other player's).
    """
    a0 = a1 = 0
    wsum = None
    while True:                             # your turns: one choice for the whole group
        if st.over:
            return [a0, a1]
        left = st.left
        if (left[0] <= 1 and left[1] <= 1 or not left[0] or not left[1]) and stats is None:    # _endgame
            e0, e1 = _ended(g, st, mine, group)
            return [a0 + e0, a1 + e1]
        if st.turn == 1:
            break
        r = _choose_two(g, st, st.played, mine[0], mine[1]) if len(mine) == 2 else choose(g, st, 0, mine)
        if r is not None:
            m2 = WITHOUT.get((mine, r))
            mine = without(mine, r) if m2 is None else m2
        st, c0, c1 = _step(g, st, r)
        if c0 or c1:
            if wsum is None:
                wsum = sum(group.values())
            a0 += c0 * wsum
            a1 += c1 * wsum
    # the other player's turn: its order (each rank's place in it), then the group split by what each hand does
    held = st.left[1]
    room = 31 - st.count
    if held == 1:                           # one card: played if it fits, else go (no choice, so no order)
        order, at = None, _FITS[room]
    elif len(group) < 8:                    # a few hands: only their ranks are scored
        ranks = {x for hand in group for x in hand if VALUE[x] <= room}
        if len(ranks) <= 1:
            order = tuple(ranks)
        else:
            scores = policy_scores(g, st, 1, ranks)
            order = tuple(sorted(ranks, key=lambda x: (scores[x], x), reverse=True))
        at = _places(order)
    else:
        order, at = _preferred(g, st, 1)
    if type(group) is RootGroup:            # a ranking's first split: every hand of k ranks, split once per order
        parts = group.split(order, at)
    else:
        parts = _SPLIT.get(held, _split_any)(group, at)
    if stats is None and g.rows:
        if held == 2 and len(mine) == 2:
            return _reply_two(g, st, mine, parts, a0, a1)
        if held <= 2 and len(mine) <= 1 or not mine or held == 1:
            return _rows_sum(g, st, mine, parts, a0, a1)
    return _parts_sum(g, st, mine, parts, a0, a1, stats)


# The split of a group at the other player's turn: ``{rank played (None: go): {hand less it: weight}}``, each
# hand playing its favourite (its rank first in the order: min(hand, key=at.__getitem__)). Most of a ranking's
# time is these loops, so there is one per hand length, unrolled, alike but for the favourite's test: with
# _split_any for every length a lead took 1.33x and a mid-count position 1.18x as long (bench/ab_pegging.py).
# Distinct hands less one rank stay distinct, so a part's weights are never added.


def _split_one(group: Mapping, at: Mapping[int, int]) -> dict:
    """One card each: played if it fits, else go."""
    parts: dict = {}
    for hand, w in group.items():
        r = hand[0]
        if at[r] == 99:
            r, rest = None, hand
        else:
            rest = ()
        sub = parts.get(r)
        if sub is None:
            parts[r] = {rest: w}
        else:
            sub[rest] = w
    return parts


def _split_two(group: Mapping, at: Mapping[int, int]) -> dict:
    parts: dict = {}
    for hand, w in group.items():
        a, b = hand
        if at[a] <= at[b]:
            r, rest = a, _ONE[b]
        else:
            r, rest = b, _ONE[a]
        if at[r] == 99:
            r, rest = None, hand
        sub = parts.get(r)
        if sub is None:
            parts[r] = {rest: w}
        else:
            sub[rest] = w
    return parts


def _split_three(group: Mapping, at: Mapping[int, int]) -> dict:
    parts: dict = {}
    for hand, w in group.items():
        a, b, c = hand
        pa = at[a]
        pb = at[b]
        pc = at[c]
        if pa <= pb and pa <= pc:
            r, rest = a, _DUO[b][c]
        elif pb <= pc:
            r, rest = b, _DUO[a][c]
        else:
            r, rest = c, _DUO[a][b]
        if at[r] == 99:
            r, rest = None, hand
        sub = parts.get(r)
        if sub is None:
            parts[r] = {rest: w}
        else:
            sub[rest] = w
    return parts


def _split_four(group: Mapping, at: Mapping[int, int]) -> dict:
    parts: dict = {}
    for hand, w in group.items():
        a, b, c, d = hand
        pa = at[a]
        pb = at[b]
        pc = at[c]
        pd = at[d]
        if pa <= pb and pa <= pc and pa <= pd:
            r, rest = a, (b, c, d)
        elif pb <= pc and pb <= pd:
            r, rest = b, (a, c, d)
        elif pc <= pd:
            r, rest = c, (a, b, d)
        else:
            r, rest = d, (a, b, c)
        if at[r] == 99:
            r, rest = None, hand
        sub = parts.get(r)
        if sub is None:
            parts[r] = {rest: w}
        else:
            sub[rest] = w
    return parts


def _split_any(group: Mapping, at: Mapping[int, int]) -> dict:
    """Any hand length (the loops above, not unrolled)."""
    parts: dict = {}
    place = at.__getitem__
    rem = WITHOUT.get
    for hand, w in group.items():
        r = min(hand, key=place)
        if at[r] == 99:
            r = None
            rest = hand
        else:
            rest = rem((hand, r))
            if rest is None:
                rest = without(hand, r)
        sub = parts.get(r)
        if sub is None:
            parts[r] = {rest: w}
        else:
            sub[rest] = w
    return parts


_SPLIT = {1: _split_one, 2: _split_two, 3: _split_three, 4: _split_four}


def _rows_sum(g: PegGame, st: State, mine: tuple[int, ...], parts: dict, a0: int, a1: int) -> list[int]:
    """The other player's turn when every part ends in the endgame table (or the go goes on; after its last card
    the other holds none): what each rank leads to, kept per state without the cards played before (the endgame
    does not read them), serves every position reaching it. Adds to ``a0``, ``a1``."""
    row = _row(g, st)
    for r, sub in parts.items():
        ent = row.get(r)
        if ent is None:
            ent = row[r] = _row_entry(g, st, r)
        c0, c1, st2, end = ent
        if c0 or c1:
            ws = sum(sub.values())
            a0 += c0 * ws
            a1 += c1 * ws
        s0, s1 = _row_rest(g, end, st2, st, r, mine, sub)     # a go not ending the count: the walk
        a0 += s0
        a1 += s1
    return [a0, a1]


def _parts_sum(g: PegGame, st: State, mine: tuple[int, ...], parts: dict, a0: int, a1: int,
               stats: "dict | None") -> list[int]:
    """The other player's turn, each part's play made and walked on (``stats``: as :func:`_walk`'s). Adds to
    ``a0``, ``a1``."""
    for r, sub in parts.items():
        st2, c0, c1 = _step(g, st, r)
        if c0 or c1 or stats is not None:
            ws = sum(sub.values())
            a0 += c0 * ws
            a1 += c1 * ws
            if stats is not None:
                count_reply(stats, st.count, st.seq, r, ws)
        if st2.over:                        # that was the last card (or count): nothing more to credit
            continue
        left = st2.left
        if left[0] <= 1 and left[1] <= 1 or not left[0] or not left[1]:     # _endgame, without a _walk
            s0, s1 = _ended(g, st2, mine, sub)
        else:
            s0, s1 = _walk(g, st2, mine, sub)
        a0 += s0
        a1 += s1
    return [a0, a1]


def _reply_two(g: PegGame, st: State, mine: tuple[int, ...], parts: dict, a0: int, a1: int) -> list[int]:
    """The other player's turn holding two cards, you two (the dealer's side of a count): after each part's play
    r it is usually your turn, you play y by the policy (the one thing that reads the cards played before) and
    the endgame follows. What r leads to and what (r, y) leads to are kept per state without the cards played
    before (:func:`_row_entry`), so a part costs your choice and the endgame table's sum. Parts that go another
    way (a go, the count ending, the walk going on) take the walk. Adds to ``a0``, ``a1``."""
    row = _row(g, st)
    played = st.played
    for r, sub in parts.items():
        ent = row.get(r)
        if ent is None:
            ent = row[r] = _row_entry(g, st, r)
        c0, c1, st2, end = ent
        base, play, hand = st, r, mine
        if st2 is not None and not end and st2.turn == 0:
            # your turn, both of your cards still in hand: the policy reads the cards played (this one's state)
            now = played + (1 << 3 * r) if r is not None else played
            play = _choose_two(g, st2, now, mine[0], mine[1])
            key = (r, play)
            ent2 = row.get(key)
            if ent2 is None:        # from st2 as kept: its cards played are not read
                ent2 = row[key] = _row_entry(g, st2, play)
            d0, d1, st3, end = ent2
            if play is not None:
                hand = without(mine, play)
            if not end and st3 is not None:             # the walk goes on: from this position's state
                base = _with_played(st2, now)
            st2 = st3
            c0 += d0
            c1 += d1
        if c0 or c1:
            ws = sum(sub.values())
            a0 += c0 * ws
            a1 += c1 * ws
        s0, s1 = _row_rest(g, end, st2, base, play, hand, sub)
        a0 += s0
        a1 += s1
    return [a0, a1]


def _with_played(st: State, played: int) -> State:
    """``st`` (your turn) with the cards ``played``."""
    return _mk(State, (0, st.seq, st.count, st.gone, st.first_go, st.last, st.left, played, False))


def _row_rest(g: PegGame, end: bool, st2: "State | None", base: State, r: "int | None",
              mine: tuple[int, ...], group: Mapping[tuple[int, ...], int]) -> tuple[int, int]:
    """What follows a row entry's play ``r`` at ``base`` (:func:`_row_entry`: ``st2``, ``end``), you holding
    ``mine``, summed over the group: nothing when it ended the phase, the endgame table's sum, or the walk from the
    state itself (its cards played are this position's)."""
    if st2 is None:
        return 0, 0
    if end:
        return _end_sum(g, _end_table(g, st2, mine), st2, mine, group)
    return _walk(g, _step(g, base, r)[0], mine, group)


def _row(g: PegGame, st: State) -> dict:
    """The row of ``st`` (the other player's turn): what each of its plays leads to (:func:`_row_entry`), keyed
    by the state without the cards played before and without your cards (what a play leads to does not read
    them: five times as many positions share a row as when they were in its key)."""
    return _table(g.rows_memo, (st.seq, st.count, st.gone, st.first_go, st.last, st.left))


def _table(cache: Cache, key: tuple) -> dict:
    """``cache``'s dict under ``key``, a new empty one if there is none."""
    tbl = cache.get(key)
    if tbl is None:
        tbl = cache.put(key, {})
    return tbl


def _row_entry(g: PegGame, st: State, r: "int | None") -> tuple:
    """What the play of ``r`` (None: go) at ``st`` leads to: ``(points credited to 0, to 1, the state after it
    or None when it is over, whether that state goes to the endgame table)``; the state's played cards are those
    of the first walk to get here (the endgame does not read them, and a walk that goes on takes its own
    state)."""
    st2, c0, c1 = _step(g, st, r)
    if st2.over:
        return c0, c1, None, False
    left = st2.left
    return c0, c1, st2, left[0] <= 1 and left[1] <= 1 or not left[0] or not left[1]


def _ended(g: PegGame, st: State, mine: tuple[int, ...], group: Mapping[tuple[int, ...], int]) -> tuple[int, int]:
    """The points credited to (0, 1) from ``st`` summed over the group (weights), by the endgame table."""
    return _end_sum(g, _end_table(g, st, mine), st, mine, group)


def _end_sum(g: PegGame, tbl: dict, st: State, mine: tuple[int, ...],
             group: Mapping[tuple[int, ...], int]) -> tuple[int, int]:
    """The points credited to (0, 1) from ``st`` summed over the group, by its endgame table ``tbl`` (filled as
    it goes; ``st``'s cards played are not read)."""
    a0 = a1 = 0
    for theirs, w in group.items():
        e = tbl.get(theirs)
        if e is None:
            e = tbl[theirs] = _endgame(g, st, mine, theirs)
        a0 += e[0] * w
        a1 += e[1] * w
    return a0, a1


def _end_table(g: PegGame, st: State, mine: tuple[int, ...]) -> dict:
    """The endgame table of ``st`` with your cards ``mine``: ``{their cards: (points to 0, points to 1)}``, filled as
    the walks reach it (:func:`_endgame`)."""
    return _table(g.end_memo, (st.turn, st.seq, st.count, st.gone, st.first_go, st.last, mine))


_PAIRS = [[(a, b) for b in range(48)] for a in range(48)]


def _pair(a: int, b: int) -> tuple[int, int]:
    """``(a, b)``, one tuple for each pair of small points (the endgame tables hold tens of thousands of them)."""
    return _PAIRS[a][b] if a < 48 and b < 48 else (a, b)


def _endgame(g: PegGame, st: State, mine: tuple[int, ...], theirs: tuple[int, ...]) -> tuple[int, int]:
    """The points credited to (0, 1) from ``st`` when each player holds at most one card, or one holds none
    (``mine``, ``theirs``).

    Either nobody chooses any more (a card that fits must be played), or the one who does has no reply to
    look ahead to, so its policy scores only the points a card makes now: the rest depends on the count, its
    tail, the gos and who played last, and not on the cards played before. One table per game (keyed by those
    and the two hands) serves every branch of every walk that reaches it (most of a walk's leaves)."""
    turn, seq, count, gone, first, last, (l0, l1), played, over = st
    if over:
        return 0, 0
    cr = g.credit
    pts_last = g.last_card
    left = [l0, l1]
    hands = [mine, theirs]
    got = [0, 0]
    while True:                 # _step's rules on plain variables (no state tuples): the walk's most run loop
        p = turn
        hand = hands[p]
        if len(hand) > 1:       # one side is out of cards: no reply to look ahead to
            r = choose(g, _mk(State, (p, seq, count, gone, first, last, tuple(left), played, False)), p, hand)
        else:
            r = hand[0] if hand and VALUE[hand[0]] <= 31 - count else None
        if r is None:           # go
            gone |= 1 << p
            if first < 0:
                first = p
            if (left[0] and not gone & 1) or (left[1] and not gone & 2):
                turn = 1 - p
                continue
            got[cr[last]] += pts_last               # every holder has said go: the go to the last card's player
            leader = last if g.go_last else first
        else:
            hands[p] = without(hand, r) if len(hand) > 1 else ()
            count, seq, pts = COUNT_AFTER.get((count, seq, r)) or count_after(count, seq, r)
            left[p] -= 1
            played += 1 << 3 * r
            if count == 31:
                got[cr[p]] += pts
                leader = 1 - p
            elif not (left[0] or left[1]):
                got[cr[p]] += pts + pts_last        # the last card
                return _pair(got[0], got[1])
            elif (not left[0] or gone & 1) and (not left[1] or gone & 2):
                got[cr[p]] += pts + pts_last        # every holder has said go: the go to this card's player
                leader = p if g.go_last else first
            else:
                got[cr[p]] += pts
                last = p
                q = 1 - p
                turn = q if left[q] and not gone >> q & 1 else p
                continue
        if g.single or not (left[0] or left[1]):      # the next count (_new_count), if any
            return _pair(got[0], got[1])
        turn = leader if left[leader] else 1 - leader
        seq, count, gone, first, last = (), 0, 0, -1, -1


def play_out(g: PegGame, st: State, mine: Sequence[int], theirs: Sequence[int]) -> tuple[int, int]:
    """Return the points credited to (0, 1) when both play the rest from ``st`` by their policies."""
    acc = _walk(g, st, tuple(sorted(mine)), {tuple(sorted(theirs)): 1})
    return acc[0], acc[1]


class RootGroup(dict):
    """:func:`hand_groups` at the root of a ranking, with ``weights`` aligned with :func:`rank_hands` ``(k)`` and
    the indexes of the hands it leaves out (``zeros``: no card hand holds them): the walk's first split of it
    comes from :func:`_root_split` (the same for every position of a game at the same public state) instead of a
    pass over its hands."""

    def __init__(self, avail: Sequence[int], k: int, above: int = 0) -> None:
        weights = hand_weights(avail, k, above)
        super().__init__((hand, w) for (hand, _), w in zip(rank_hands(k), weights) if w)
        self.weights = weights
        self.zeros = [i for i, w in enumerate(weights) if not w]
        self.k = k

    def split(self, order: tuple[int, ...], at: Mapping[int, int]) -> dict:
        """``{rank played (None: go): {hand less it: weight}}``, as the walk's pass over the hands would give."""
        weights = self.weights
        parts, where = _root_split(order, at, self.k)
        out = {r: dict(zip(rests, map(weights.__getitem__, idxs))) for r, idxs, rests in parts}
        for i in self.zeros:                    # the few hands no card hand holds (a rank you hold, a go)
            r, rest = where[i]
            sub = out[r]
            del sub[rest]
            if not sub:
                del out[r]
        return out


_SPLITS = Cache(256)        # (order, k) -> the split of every k-rank hand by its favourite in the order (_root_split)
_RESTS: dict = {}           # k -> per k-rank hand of rank_hands(k), the hand less its card at each place


def _root_split(order: tuple[int, ...], at: Mapping[int, int], k: int) -> tuple:
    """The split of every k-rank hand of :func:`rank_hands` by its favourite in ``order`` (``at``: each rank's
    place in it, 99 if it does not fit): ``([(rank or None for go, indexes of its hands, those hands less it),
    ...], per hand (rank, hand less it))``. It depends on the order only, which a ranking's first node shares
    with every position of the game at the same public state (a lead of the same rank): kept in ``_SPLITS``."""
    key = (order, k)
    hit = _SPLITS.get(key)
    if hit is not None:
        return hit
    rests = _RESTS.get(k)
    if rests is None:
        canon = {h: h for h, _ in rank_hands(k - 1)}
        rests = _RESTS[k] = [tuple(canon[h[:j] + h[j + 1:]] for j in range(k)) for h, _ in rank_hands(k)]
    by: dict = {}
    where = []
    for i, (hand, _) in enumerate(rank_hands(k)):
        j = 0
        best = at[hand[0]]
        for jj in range(1, k):
            p = at[hand[jj]]
            if p < best:
                j, best = jj, p
        r, rest = (None, hand) if best == 99 else (hand[j], rests[i][j])
        part = by.get(r)
        if part is None:
            part = by[r] = ([], [])
        part[0].append(i)
        part[1].append(rest)
        where.append((r, rest))
    return _SPLITS.put(key, ([(r, tuple(idxs), tuple(rs)) for r, (idxs, rs) in by.items()], where))


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayAdvice:
    """One legal play: the expected points credited to each side over the rest of the matching phase
    (``points[0]`` you, ``points[1]`` the other side), the net by the goal, the reply's chances."""

    cards: tuple[Card, ...]           # the cards of this rank you hold (any of them: suits do not matter)
    points: tuple[Fraction, Fraction]
    net: Fraction
    reply: "dict[str, Fraction] | None"
    policy_choice: bool = False

    @property
    def card(self) -> Card:
        return self.cards[0]

    def to_dict(self) -> dict:
        d = {"card": str(self.card), "cards": [str(c) for c in self.cards],
             "points_you": float(self.points[0]), "points_other": float(self.points[1]), "net": float(self.net),
             "policy_choice": self.policy_choice,
             "reply": None if self.reply is None else {k: float(v) for k, v in self.reply.items()},
             "exact": {"points_you": str(self.points[0]), "points_other": str(self.points[1]),
                       "net": str(self.net)}}
        if self.reply is not None:
            d["exact"]["reply"] = {k: str(v) for k, v in self.reply.items()}
        return d


@dataclass(frozen=True)
class PegAdvice:
    """Every legal play of a position, best first by the net."""

    rules: Ruleset
    hand: tuple[Card, ...]
    played: tuple[str, ...]
    count: int
    seat: int
    goal: tuple[int, int]
    hands: int                        # card hands the other player could hold
    other_left: int
    plays: tuple[PlayAdvice, ...]
    go: bool = False                  # you hold no card that fits: you must say go
    assumption: str = field(default=ASSUMPTION)

    def to_dict(self) -> dict:
        return {"game": self.rules.name, "title": self.rules.title, "hand": [str(c) for c in self.hand],
                "played": list(self.played), "count": self.count, "dealer": self.seat == 0,
                "goal": "reach" if self.goal[0] > 0 else "avoid",
                "credit": self.rules.pegging_credit, "go_lead": self.rules.go_lead,
                "policy": POLICY, "other_hands": self.hands, "other_left": self.other_left, "go": self.go,
                "assumption": self.assumption, "plays": [p.to_dict() for p in self.plays]}


# --- positions ----------------------------------------------------------------------------


@paused_collector
def rank_plays(hand: "Iterable[str | Card] | str", *, game: "str | Ruleset" = "lands-end",
               options: "Mapping[str, Any] | None" = None, played: "Iterable[str | Card | None] | str" = (),
               dealer: bool = False, turnup: "str | Card | None" = None, seen: "Iterable[str | Card] | str" = (),
               seat: "int | None" = None) -> PegAdvice:
    """Rank every legal play of ``hand`` (your cards left) in a two-hand matching phase, best first.

    ``played``: every card played so far in the matching phase in order, ``"go"`` (or None)
    where a player said go; the first was led by the non-dealer. ``dealer``: you dealt
    (so the other player led); or ``seat`` (0 deals, 1 leads; in three- and four-hand games
    the seat from the dealer in the direction of play, as :func:`companion.advice.discard.seating`).
    ``turnup`` and ``seen`` (e.g. your discards) are cards the other player cannot hold. It must
    be your turn. Three- and four-hand games: :func:`companion.advice.pegging_multi.rank_plays` (which
    takes every game).

    :raises InvalidCard: bad or repeated cards.
    :raises IllegalAction: an impossible history, or not your turn.
    :raises UnknownGame: a game without pegging or with more than two players.
    """
    rules = rules_of(game, options)
    if seat not in (None, 0, 1):
        raise IllegalAction(f"in {rules.title} you sit at seat 0 (the dealer) or 1, not {seat!r}")
    seat = (0 if dealer else 1) if seat is None else seat
    return rank_position(game_for(rules, seat), seat, hand, played=played, turnup=turnup, seen=seen)


def rank_position(g: PegGame, seat: int, hand: "Iterable[str | Card] | str",
                  played: "Iterable[str | Card | None] | str" = (), turnup: "str | Card | None" = None,
                  seen: "Iterable[str | Card] | str" = (), walk=None) -> PegAdvice:
    """:func:`rank_plays` for the game ``g`` seen from ``seat`` (0 deals, 1 leads); ``walk``: what values each
    play (default the fast :func:`_walk`; :func:`reference_walk` gives the same figures)."""
    walk = _walk if walk is None else walk
    rules = g.rules
    mine, toks, known = position_cards(hand, played, turnup, seen)
    st, above, by = replay(g, mine, toks, leader=1 if seat == 0 else 0)
    if st.over:
        raise IllegalAction("the matching phase is over: every card has been played")
    if len(mine) + len(by[0]) != rules.held:
        raise IllegalAction(f"in {rules.title} you hold {rules.held} cards in the matching phase: "
                            f"{len(mine)} in hand and {len(by[0])} played is {len(mine) + len(by[0])}")
    if st.turn != 0:
        raise IllegalAction("it is the other player's turn, not yours")
    avail = [0] * 14
    kset = set(known)
    for c in DECK:
        if c not in kset:
            avail[c.rank] += 1
    group = RootGroup(avail, 4, above[1]) if st.left[1] == 4 else hand_groups(avail, st.left[1], above[1])
    if st.left[1] and not group:
        raise IllegalAction("no hand the other player could hold fits its gos")
    total = sum(group.values()) if group else 1
    if not group:
        group = {(): 1}
    ranks = tuple(sorted(c.rank for c in mine))
    fits = sorted({c.rank for c in mine if c.value <= 31 - st.count}, reverse=True)
    policy = choose(g, st, 0, set(ranks))
    results = []
    for r in fits:
        credits: list = []
        st2 = step_play(g, st, r, credits)
        rest = without(ranks, r)
        stats: "dict | None" = {} if st2.count and st2.turn == 1 else None      # a reply in this count
        acc = walk(g, st2, rest, group, stats)
        for who, pts, _ in credits:
            acc[who] += pts * total
        pts = (Fraction(acc[0], total), Fraction(acc[1], total))
        reply = None
        if stats is not None:
            reply = {k: Fraction(stats.get(k, 0), total) for k in KINDS + ("scores",)}
        cards = tuple(c for c in mine if c.rank == r)
        results.append(PlayAdvice(cards=cards, points=pts, net=g.net(pts), reply=reply, policy_choice=r == policy))
    results.sort(key=lambda a: (-a.net, -a.card.rank))
    return PegAdvice(rules=rules, hand=mine, played=tuple("go" if t is None else str(t) for t in toks),
                     count=st.count, seat=seat, goal=g.goal, hands=total if st.left[1] else 0,
                     other_left=st.left[1], plays=tuple(results), go=not fits)


def pegging_values(rules: Ruleset, seat: int, keep: Sequence[Card], dealt: Sequence[Card]) -> tuple[Fraction, Fraction]:
    """Return the expected points credited to (you, the other side) over a whole matching phase.

    You keep ``keep`` (of your ``dealt`` cards) and sit at ``seat`` (0 deals, 1 leads);
    the other player's hand is every ``held``-card hand among the cards you have not
    seen, equally likely, and both players follow the policy from the first lead. The
    turn-up does not change the policy (its picture of a reply uses only played cards),
    so averaging over every turn-up too gives the same figure.
    """
    g = game_for(rules, seat)
    return _pegging_cached(g, tuple(sorted(c.rank for c in keep)), _avail_key(dealt), seat)


def _avail_key(dealt: Sequence[Card]) -> tuple[int, ...]:
    avail = [0] + [4] * 13
    for c in dealt:
        avail[c.rank] -= 1
    return tuple(avail)


@lru_cache(maxsize=4096)
@paused_collector
def _pegging_cached(g: PegGame, ranks: tuple[int, ...], avail: tuple[int, ...], seat: int) -> tuple[Fraction, Fraction]:
    group = _groups_cached(avail, g.rules.held)
    total = sum(group.values())
    held = g.rules.held
    st = State(turn=0 if seat == 1 else 1, left=(held, held))
    acc = _walk(g, st, ranks, group)
    return Fraction(acc[0], total), Fraction(acc[1], total)


@lru_cache(maxsize=256)
def _groups_cached(avail: tuple[int, ...], k: int) -> dict:
    return RootGroup(avail, k) if k == 4 else hand_groups(avail, k)


# --- warming the caches ---------------------------------------------------------------------

WARM_ROUNDS = 40
"""Rounds of :func:`warm_up`: in each, a lead and a dealer's reply of each game (bench/README.md, "a warm
worker"). The job worker stops sooner when its memory reaches half of what retires it (web/jobworker.py): all 40
rounds of one game take a worker to 49 MiB here, so about as many fit on a 512 MiB Zero 2 W (48 MiB); of the
bench's two games, 30 rounds fit in 80 MiB."""


def warm_up(games: "Iterable[str | Ruleset] | None" = None, rounds: int = WARM_ROUNDS, seed: str = "warm-up"):
    """Rank seeded random positions of the two-hand ``games`` (default: every two-hand game with pegging), a lead
    and a dealer's reply of each game a round, for ``rounds`` rounds; yield after each ranking.

    A fresh process starts with empty caches, and its first rankings take 1.5-2.5 times as long as later ones
    (the count tables, the policy's orders at the first plays, the endgame tables: all shared by every position
    of a game). The job worker runs this while it waits for its first call, one ranking at a time, and stops
    as soon as a call comes (web/jobworker.py); what it fills changes no figure, only how soon it comes.
    """
    import random
    rng = random.Random(seed)
    rules = [get_ruleset(x) if isinstance(x, str) else x for x in games] if games is not None else \
        [r for r in RULESETS.values() if r.players == 2 and r.pegging]
    for _ in range(rounds):
        for r in rules:
            cards = rng.sample(DECK, r.held + 2)
            hand, lead, up = cards[:r.held], cards[r.held], cards[-1]
            rank_plays(hand, game=r, turnup=up)                                 # your lead
            yield
            rank_plays(hand, game=r, turnup=up, played=[lead], dealer=True)    # your reply to the other's lead
            yield
