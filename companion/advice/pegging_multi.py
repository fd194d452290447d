"""Pegging advice for three- and four-hand games: the same policy, the other players' hands exact or sampled.

The model is :mod:`companion.advice.pegging`'s, played by three or four players
(docs/advice.md, "Three and four players"):

* **Rules** (M2, M3): play passes in the direction of play; a player who cannot
  play says go and is skipped until the count restarts, a player with no cards
  is always skipped; after a go the first player who said go in the count leads
  the next (from there, the first still holding cards), after a 31 the player
  after the one who made it. A point is credited to the next opponent in turn
  order (three-hand: the next player; four-hand: the other partnership), or to
  the player's own side under ``pegging_credit = self``.
* **What a point is worth** to a player: a point credited to its own side is
  worth ``goal(side)`` (+1 where reaching the target wins, -1 where it loses);
  a point credited to another side ``-goal(that side)`` (in three-hand Land's
  End a point that goes to another player pushes *that* player toward 16: +1
  to you; to the four-hand casino house, which wins at 16: -1). The net of a
  result is the sum over sides of these values.
* **The policy**, the same for every seat: a card's worth to the player plus
  what the next player's best single reply (its cards left drawn from the cards
  not yet played) is worth *to the player*. In two-hand games the reply is always
  the opponent's, so this is the two-hand policy exactly; here the next player
  may make points for a third side, which the player welcomes or not by their
  worth to it.
* **The other players' hands.** Exact, over every joint deal of their cards left
  among the cards you have not seen (grouped by rank multisets, each weighted
  by the card deals it stands for), when there are at most :data:`EXACT_GROUPS`
  such joint rank groups (late in a hand); otherwise a **seeded sample** of
  :data:`SAMPLES` joint deals drawn uniformly from the unseen cards (gos
  respected by rejection), the same deals for every play, with the standard
  error of each figure reported. Every result says which in its ``assumption``.
"""

from __future__ import annotations

import functools
import os
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb, sqrt
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from ..cards import DECK, Card, parse_cards
from ..errors import IllegalAction, UnknownGame
from ..rulesets import Ruleset
from .pegging import PegAdvice, PlayAdvice
from .pegging_model import (BINOM, COUNT_AFTER, KINDS, POLICY, VALUE, WITHOUT, Cache, best_rank, count_after,
                            count_reply, fill_scores, hand_groups, paused_collector, position_cards, replay_plays,
                            rank_hands, reply_points, rules_of, tail, trim, without)
from .pegging import rank_plays as two_hand_rank_plays
from .positions import positions as seat_range, side_of

__all__ = ["EXACT_GROUPS", "SAMPLES", "MultiGame", "multi_game", "rank_plays", "rank_plays_multi", "MultiAdvice",
           "warm_up", "WARM_ROUNDS"]

#: Exact enumeration of the other players' joint hands up to this many joint rank groups.
EXACT_GROUPS = 6000
#: Otherwise this many joint deals are sampled (seeded by the position: the same position, the same answer).
SAMPLES = 1000

#: Groups of up to this many deals are played out deal by deal (1, 4, 6, 8, 12, 30, 100 and all measured: 4-100 alike)
_SMALL = 2000
#: A play-out's first this many cards and gos keep the policy's scores per public state for the other deals
_SHARED_DEPTH = 5
_LOW = -1 << 62             # under every policy score

EXACT = ("the other players' hands are averaged exactly over every way the cards you have not seen could be "
         "dealt to them, all equally likely (only their gos narrow them); from now on every player follows the "
         "documented policy (docs/advice.md)")
SAMPLED = ("the other players' hands are a seeded sample of {n} deals of the cards you have not seen, each deal "
           "equally likely (only their gos narrow them), the same deals for every play: each figure has a "
           "standard error (stderr; the largest for a net here is {se:.3f}); from now on every player follows "
           "the documented policy (docs/advice.md)")


class MultiState(NamedTuple):
    """Public state of an n-player count: whose turn, the count's tail, the count, who said go (in order),
    who played last, cards left per player, cards played per rank (3 bits at bit 3r), over."""

    turn: int
    seq: tuple[int, ...]
    count: int
    gone: tuple[int, ...]
    last: int
    left: tuple[int, ...]
    played: int
    over: bool


@dataclass(frozen=True)
class MultiGame:
    """The matching phase of a three- or four-hand game: players 0..n-1 in the direction of play, player
    ``lead`` leads; ``side[i]`` is player i's side, ``credit[i]`` the side credited with its points,
    ``goal[s]`` +1/-1 per side, ``you`` the advised player."""

    rules: Ruleset
    positions: tuple[int, ...]            # seat position from the dealer (advice's numbering) of player i
    side: tuple[str, ...]
    credit: tuple[str, ...]
    goal: Mapping[str, int]
    you: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "_cache", Cache(200_000))       # the policy's scores (scores)
        n = len(self.positions)
        # after player p, the others in the direction of play, p itself last (the turn's search order)
        object.__setattr__(self, "_after", tuple(tuple((p + k) % n for k in range(1, n + 1)) for p in range(n)))
        # the policy's weights (scores): wp[p], wq[q] and sign[p][q], what a point of q's is worth to p per unit
        object.__setattr__(self, "_net", {s: self.value(self.you, s) for s in self.sides})
        object.__setattr__(self, "_wp", tuple(self.value(p, self.credit[p]) for p in range(n)))
        object.__setattr__(self, "_sign", tuple(tuple(self.value(p, self.credit[q]) * self.value(q, self.credit[q])
                                                      for q in range(n)) for p in range(n)))
        # the sides in a fixed order, and each player's credited side's index in it (the play-out's tallies)
        object.__setattr__(self, "_sides", self.sides)
        object.__setattr__(self, "_cidx", tuple(self.sides.index(self.credit[p]) for p in range(n)))
        # per player p and next player q: (wp[p], sign[p][q], wq[q], the reply groups' table for q's worth)
        object.__setattr__(self, "_pairs", tuple(tuple((self._wp[p], self._sign[p][q], self._wp[q],
                                                          _CS_UP if self._wp[q] > 0 else _CS_DN) for q in range(n))
                                                   for p in range(n)))

    @property
    def n(self) -> int:
        return len(self.positions)

    @property
    def sides(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.side + tuple(self.goal)))

    def value(self, p: int, side: str) -> int:
        """What one point credited to ``side`` is worth to player ``p`` by its goal."""
        return self.goal[side] if side == self.side[p] else -self.goal[side]

    def net(self, pts: Mapping[str, Any]) -> Any:
        """The net to you of points credited per side."""
        worth = self._net
        return sum(worth[s] * v for s, v in pts.items())

    def start(self) -> MultiState:
        """The state before the first lead: seat 1 (the dealer's left) leads, every player holds ``held`` cards."""
        return MultiState(self.positions.index(1) if 1 in self.positions else 0, (), 0, (), -1,
                          (self.rules.held,) * self.n, 0, False)

    def next_active(self, p: int, left: Sequence[int], gone: Sequence[int]) -> "int | None":
        """The next player after ``p`` (``p`` itself last) holding cards and not gone."""
        for j in self._after[p]:
            if left[j] and j not in gone:
                return j
        return None

    def holder_from(self, first: int, left: Sequence[int]) -> "int | None":
        for k in range(self.n):
            j = (first + k) % self.n
            if left[j]:
                return j
        return None


def multi_game(rules: Ruleset, seat: int) -> MultiGame:
    """Return the :class:`MultiGame` of ``rules`` seen from ``seat`` (a position from the dealer, as
    :func:`companion.advice.discard.seating`: 0 deals, 1 is the dealer's left and leads; where the house deals
    without cards, four-hand casino, the players sit at 1..4)."""
    if not rules.pegging:
        raise UnknownGame(f"{rules.title} has no matching phase (no pegging)")
    if rules.players == 2:
        raise UnknownGame(f"{rules.title} is a two-hand game: companion.advice.pegging ranks its plays")
    low, high = seat_range(rules)
    if isinstance(seat, bool) or not isinstance(seat, int) or not low <= seat <= high:
        raise IllegalAction(f"{rules.title}: your seat is {low}..{high} from the dealer, not {seat!r}")
    positions = tuple(range(low, high + 1))
    side = tuple(side_of(rules, pos) for pos in positions)
    n = len(positions)
    credit = []
    for i in range(n):
        c = side[i]
        if rules.pegging_credit != "self":
            c = next((side[(i + k) % n] for k in range(1, n) if side[(i + k) % n] != side[i]), side[i])
        credit.append(c)
    goal = {s: (1 if (rules.house_reach if s == "house" else rules.reach) == "wins" else -1)
            for s in dict.fromkeys(side + (("house",) if rules.house else ()))}
    return MultiGame(rules, positions, side, tuple(credit), goal, positions.index(seat))


# --- the count ----------------------------------------------------------------------------


def _new_count(g: MultiGame, leader: "int | None", left: tuple[int, ...], played: int) -> MultiState:
    if g.rules.pegging_count == "single" or leader is None:
        return MultiState(-1, (), 0, (), -1, left, played, True)
    return MultiState(leader, (), 0, (), -1, left, played, False)


def _end_count(g: MultiGame, st: MultiState, credits: list) -> MultiState:
    """Nobody can continue under 31: go (last, in a single count) to the last player; the first who said go
    leads the next count (M2)."""
    credits.append((g.credit[st.last], g.rules.last_card, "last" if g.rules.pegging_count == "single" else "go"))
    return _new_count(g, g.holder_from(st.gone[0], st.left), st.left, st.played)


def step(g: MultiGame, st: MultiState, r: "int | None", credits: list) -> MultiState:
    """Player ``st.turn`` plays rank ``r`` (None: says go); append ``(side credited, points, kind)`` to ``credits``."""
    p = st.turn
    if r is None:
        gone = st.gone + (p,)
        nxt = st._replace(gone=gone)
        if all(j in gone for j in range(g.n) if st.left[j]):
            return _end_count(g, nxt, credits)
        return nxt._replace(turn=g.next_active(p, st.left, gone))
    count = st.count + VALUE[r]
    seq = tail(st.seq + (r,))
    left = st.left[:p] + (st.left[p] - 1,) + st.left[p + 1:]
    played = st.played + (1 << 3 * r)
    pts = reply_points(st.count, st.seq)[r]      # the points of every rank after this count, cached per count
    if pts:
        credits.append((g.credit[p], pts, "play"))
    if count == 31:
        return _new_count(g, g.holder_from((p + 1) % g.n, left), left, played)
    gone = st.gone
    nxt = None
    for j in g._after[p]:                # the next player holding cards and not gone (p itself last)
        if left[j] and j not in gone:
            nxt = j
            break
    if nxt is None:
        if not any(left):
            credits.append((g.credit[p], g.rules.last_card, "last"))
            return MultiState(-1, (), count, (), p, left, played, True)
        return _end_count(g, MultiState(p, seq, count, gone, p, left, played, False), credits)
    return MultiState(nxt, seq, count, gone, p, left, played, False)


def scores(g: MultiGame, st: MultiState, p: int, ranks: Iterable[int]) -> dict:
    """The policy's scores of ``ranks`` for player ``p`` at ``st`` (see the module's docstring); cached."""
    left = st.left[:p] + (st.left[p] - 1,) + st.left[p + 1:]
    q = g.next_active(p, left, st.gone)
    h = left[q] if q is not None and q != p else 0
    wp = g.value(p, g.credit[p])
    wq = g.value(q, g.credit[q]) if h else 0
    sign = g.value(p, g.credit[q]) * wq if h else 0          # wq is +1 or -1: value to p per unit of q's worth
    key = (wp, wq, sign, st.seq, st.count, st.played if h else None, h)
    out = g._cache.get(key)
    if out is None:
        out = g._cache.put(key, {})
    todo = [r for r in ranks if r not in out]
    if todo:
        fill_scores(out, todo, st.count, st.seq, st.played, h, wp, wq, sign)
    return out


def choose(g: MultiGame, st: MultiState, p: int, ranks: Iterable[int]) -> "int | None":
    """The rank player ``p`` plays from its ``ranks`` by the policy (ties: the higher rank), None for go."""
    room = 31 - st.count
    ranks = {r for r in ranks if VALUE[r] <= room}
    if len(ranks) <= 1:                  # one rank that fits must be played: nothing to score
        return next(iter(ranks), None)
    return best_rank(scores(g, st, p, ranks), ranks)


# --- the walk: every joint deal of the others as one weighted group ----------------------------


def _walk(g: MultiGame, st: MultiState, mine: tuple[int, ...], group: dict, base: tuple, acc: dict,
          stats: "dict | None" = None) -> None:
    """Add to ``acc`` (side -> sum of weight x points, and ``"sq"``: sum of weight x net^2 per deal) every
    deal of ``group`` (joint hands of the players as hand ids, :func:`_by_ids`; yours left out as the empty hand's
    -> weight) played out from
    ``st``; ``base``: the points per side made so far on this path (a tuple of (side, points))."""
    while not st.over and st.turn == g.you:
        credits: list = []
        r = choose(g, st, g.you, mine)
        if r is not None:
            mine = without(mine, r)
        st = step(g, st, r, credits)
        base = _add(base, credits)
    if len(group) <= _SMALL and not st.over:   # a few deals (most nodes): play each out
        _play_each(g, st, mine, group, base, acc, stats)
        return
    if st.over:
        w = sum(group.values())
        pts = dict(base)
        for s, v in pts.items():
            acc[s] = acc.get(s, 0) + w * v
        acc["sq"] = acc.get("sq", 0) + w * g.net(pts) ** 2
        return
    p = st.turn
    room = 31 - st.count
    fit_tab = _H_FIT
    ri = room if room < 10 else 10
    held = {r for hands in group for r in fit_tab[hands[p]][ri]}
    if len(held) <= 1:                   # every hand plays its one rank that fits, or says go
        order = tuple(held)
    else:
        sc = scores(g, st, p, held)
        order = sorted((r for r in held if sc[r] is not None), key=lambda r: (sc[r], r), reverse=True)
    at = dict.fromkeys(range(14), 99)       # each rank's place in the order (99: it does not fit)
    for i, r in enumerate(order):
        at[r] = i
    place = at.__getitem__
    less = _H_LESS
    parts: dict = {}
    for hands, w in group.items():
        mine_p = hands[p]
        fit = fit_tab[mine_p][ri]
        r = (min(fit, key=place) if len(fit) > 1 else fit[0]) if fit else 0   # the hand's favourite: first in the order
        if at[r] == 99:
            r, h2 = None, hands
        else:
            h2 = hands[:p] + (less[mine_p][r],) + hands[p + 1:]
        sub = parts.get(r)
        if sub is None:
            sub = parts[r] = {}
        sub[h2] = sub.get(h2, 0) + w
    for r, sub in parts.items():
        credits = []
        st2 = step(g, st, r, credits)
        if stats is not None:
            count_reply(stats, st.count, st.seq, r, sum(sub.values()))
        _walk(g, st2, mine, sub, _add(base, credits), acc)


# The play-out's tables, shared by every call (ints and tuples of ints, each made once): a count state (the
# count and its tail) is a small int, made when a play-out first reaches it; per state, per rank (None until
# first needed): what a card of that rank does to the count, and the reply groups the policy's look-ahead
# score reads after it (as fill_scores: ((worth, ranks, 1 if the card played is of one of them), ...), best
# first), for a replier whose points are worth +1 to it and for one whose points are worth -1.
_CS_ID: dict = {}           # (count, tail) -> id
_CS_AT: list = []           # id -> (count, tail)
_CS_PTS: list = []          # id -> reply_points(count, tail): the points of a card of each rank
_CS_NEXT: list = []         # id -> per rank: (next id, count after it; 0 after a 31: a new count)
_CS_UP: list = []           # id -> per rank: the reply groups after it, the replier's points worth +1
_CS_DN: list = []           # the same, worth -1
_CS_STEP: list = []         # id -> per rank: (its points, the next id: 0 after a 31, 14 + the room after it capped at 10)


# The tables are shared by the threads that advise at once (the web app's GET routes answer in their request
# threads, two at a time): a new state is added under _CS_LOCK, its rows first and its id last, so a thread that
# finds an id finds its rows; and they start again only when no call holds ids into them (_CS_BUSY).
_CS_LOCK = threading.Lock()
_CS_BUSY = [0]              # the calls (rank_plays_multi, pegging_values_multi) running now


def _cs(count: int, seq: tuple) -> int:
    """The id of the count state (count, tail), the tail trimmed (:func:`companion.advice.pegging.trim`: counts
    that trim alike score every card to come alike, so they share a state); a new one is added to the tables."""
    seq = trim(count, seq)
    i = _CS_ID.get((count, seq))
    if i is None:
        with _CS_LOCK:
            i = _cs_add(count, seq)
    return i


def _cs_add(count: int, seq: tuple) -> int:
    """The id of the trimmed state (count, seq), added when new (under :data:`_CS_LOCK`): its rows first, its id
    last, so a thread that finds the id finds its rows."""
    i = _CS_ID.get((count, seq))
    if i is None:
        pts = reply_points(count, seq)
        i = len(_CS_AT)
        _CS_AT.append((count, seq))
        _CS_PTS.append(pts)
        _CS_NEXT.append([None] * 14)
        _CS_UP.append([None] * 14)
        _CS_DN.append([None] * 14)
        _CS_STEP.append([None] * 14)
        _CS_ID[count, seq] = i
    return i


def _cs_reset(*, alone: bool = False) -> None:
    """Forget the tables (between calls only: ids held by a running play-out would change meaning; ``alone``:
    only when the one call running is the caller's)."""
    with _CS_LOCK:
        if alone and _CS_BUSY[0] != 1:
            return
        _CS_ID.clear()
        del _CS_AT[:], _CS_PTS[:], _CS_NEXT[:], _CS_UP[:], _CS_DN[:], _CS_STEP[:]
        _cs_add(0, ())                  # id 0: a new count


_cs_reset()
#: More count states than this and the tables start again (checked between calls).
_CS_MAX = 100_000


def _holding_tables(fn):
    """Run ``fn`` as one call that holds ids into the tables: they start again (past :data:`_CS_MAX`) before it
    only when no other thread's call is running."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with _CS_LOCK:
            _CS_BUSY[0] += 1
            over = len(_CS_AT) > _CS_MAX
        try:
            if over:
                _cs_reset(alone=True)
            return fn(*args, **kwargs)
        finally:
            with _CS_LOCK:
                _CS_BUSY[0] -= 1
    return call


def _cs_next(cs: int, r: int) -> tuple:
    """``_CS_NEXT[cs][r]``, made."""
    count, seq = _CS_AT[cs]
    hit = COUNT_AFTER.get((count, seq, r))
    c2, s2, _ = count_after(count, seq, r) if hit is None else hit
    out = _CS_NEXT[cs][r] = (0, 0) if c2 == 31 else (_cs(c2, s2), c2)
    return out


def _cs_step(cs: int, r: int) -> tuple:
    """``_CS_STEP[cs][r]``, made: a card of rank ``r`` at the count state ``cs``."""
    nxt, count = _CS_NEXT[cs][r] or _cs_next(cs, r)
    out = _CS_STEP[cs][r] = (_CS_PTS[cs][r], nxt, 14 + (31 - count if count > 20 else 10))
    return out


def _cs_groups(cs: int, r: int, wq: int) -> tuple:
    """``_CS_UP[cs][r]`` (``wq`` 1) or ``_CS_DN[cs][r]`` (-1), made: the replies after rank ``r`` grouped by
    their worth ``wq`` x points, best first, only ranks that fit, a group of worth 0 only when a worse one
    follows (none after a 31: no reply), each ``(worth, ranks, 1 if r is one of them)``. Kept as the play-out
    reads it fastest: one group of one rank as ``(worth, rank, 0 or 1)``, no group as ``()``, else
    ``(groups,)``."""
    count, seq = _CS_AT[cs]
    hit = COUNT_AFTER.get((count, seq, r))
    c2, s2, _ = count_after(count, seq, r) if hit is None else hit
    out: "list | tuple" = []
    if c2 != 31:
        row = reply_points(c2, s2)
        by: dict = {}
        for x in range(1, 14):
            if row[x] >= 0:
                by.setdefault(wq * row[x], []).append(x)
        out = [(v, tuple(by[v]), 1 if r in by[v] else 0) for v in sorted(by, reverse=True)]
        if out and out[-1][0] == 0:
            out.pop()
    if len(out) == 1 and len(out[0][1]) == 1:     # one group of one rank (most): (worth, rank, 0 or 1) itself
        v, (y,), mine = out[0]
        out = (v, y, mine)
    else:                                        # none: (); else the groups in a 1-tuple (never 3 long)
        out = (tuple(out),) if out else ()
    (_CS_UP if wq > 0 else _CS_DN)[cs][r] = out
    return out


# The play-out's hands: every rank multiset a player can hold in the matching phase (up to 4 cards: held is 3 or
# 4) is a small int, made at import; per hand, its distinct ranks that fit under each room (what a player may play:
# the room capped at 10, where every rank fits), and per rank the hand less one card of it.
_H_ID: dict = {}            # sorted ranks -> id
_H_FIT: list = []           # id -> per room 0..10: the distinct ranks that fit, ascending
_H_LESS: list = []          # id -> per rank: the id of the hand less one card of it (None: it holds none)
_H_RANKS: list = []         # id -> its sorted ranks


def _h_add(hand: tuple) -> int:
    i = _H_ID.get(hand)
    if i is None:
        less = [None] * 14
        for r in set(hand):
            less[r] = _h_add(without(hand, r))
        i = len(_H_FIT)
        _H_FIT.append(tuple(tuple(sorted({r for r in hand if VALUE[r] <= room})) for room in range(11)))
        _H_LESS.append(less)
        _H_RANKS.append(hand)
        _H_ID[hand] = i
    return i


for _k in range(5):
    for _hand, _ in rank_hands(_k):
        _h_add(_hand)
del _k, _hand
# The play-out's own form of a hand: one tuple per hand id, read with one index: [0] its id, [r] (1..13) the entry of
# the hand less one card of rank r (None: it holds none), [14 + room] (room capped at 10) its distinct ranks that
# fit (``_H_FIT``). A smaller hand's entry is made first (ids grow with the hands they are made from).
_H_ENTRY: list = []
for _i, _fit in enumerate(_H_FIT):
    _H_ENTRY.append((_i,) + tuple(None if j is None else _H_ENTRY[j] for j in _H_LESS[_i][1:]) + _fit)
del _i, _fit

# The players' turn order as tables, per player count n and player p, indexed by a bitmask of players: the first in
# the mask after p in the direction of play, p itself last (None: the mask is empty).
_NEXT = {n: tuple(tuple(next((j for j in ((p + k) % n for k in range(1, n + 1)) if m >> j & 1), None)
                        for m in range(1 << n)) for p in range(n)) for n in (3, 4)}


def _native():
    """The compiled play-out (the optional package ``pegwalk``, native/ in the repository: :func:`_play_out`'s loop
    and :func:`sample_groups`'s draws in C, pinned to them by tests/test_pegging_multi_fast.py), or None: it is not
    installed, or ``LANDSEND_PURE_PLAYOUT=1`` asks for the pure-Python loops (the reference)."""
    if os.environ.get("LANDSEND_PURE_PLAYOUT", "") not in ("", "0"):
        return None
    try:
        import pegwalk
    except ImportError:
        return None
    pegwalk.set_hands(_H_ENTRY)
    return pegwalk


#: the module ``pegwalk`` (:func:`_play_out` and :func:`sample_groups` run its loops), or None (theirs); tests switch it
_NATIVE = _native()


def _play_each(g: MultiGame, st: MultiState, mine: tuple, group: dict, base: tuple, acc: dict,
               stats: "dict | None" = None) -> None:
    """:func:`_walk` for a group played out deal by deal (``st`` not over): add to ``acc`` as it does (and, with
    ``stats``, the first player's reply as :func:`count_reply` counts it)."""
    sides = g._sides
    worth = [g._net[s] for s in sides]
    start = [0] * len(sides)
    for s, v in base:
        start[sides.index(s)] += v
    you = g.you
    if _NATIVE is not None and len(sides) <= 6:  # the compiled loop reads the group's hand ids as they are
        sums, sq, firsts = _play_out(g, st, group, start, worth, stats is not None, (you, _H_ID[mine]))
    else:
        entry = _H_ENTRY
        mine_e = entry[_H_ID[mine]]
        deals = []
        for hands, w in group.items():
            hands = [entry[h] for h in hands]
            hands[you] = mine_e
            deals.append((hands, w))
        sums, sq, firsts = _play_out(g, st, deals, start, worth, stats is not None)
    for s, v in zip(sides, sums):
        acc[s] = acc.get(s, 0) + v
    acc["sq"] = acc.get("sq", 0) + sq
    for r, w in firsts.items():
        count_reply(stats, st.count, st.seq, r, w)


def _play_deal(g: MultiGame, st: MultiState, hands: list, pts: dict) -> None:
    """Play one deal out from ``st`` (``hands``: every player's sorted ranks, yours included; emptied as they are
    played), adding the points credited per side to ``pts``: :func:`step` and :func:`choose` with the state in
    local variables (a sampled walk's nodes are nearly all one deal: this loop is most of its time)."""
    if st.over:
        return
    ids = [_H_ENTRY[_H_ID[tuple(h)]] for h in hands]
    sums, _, _ = _play_out(g, st, [(ids, 1)], [0] * len(g._sides), [0] * len(g._sides), False)
    hands[:] = [_H_RANKS[h[0]] for h in ids]
    for s, v in zip(g._sides, sums):
        if v:
            pts[s] = pts.get(s, 0) + v


def _play_out(g: MultiGame, st: MultiState, deals: "list | dict", start: list, worth: list, firsts: bool,
              mine: "tuple | None" = None) -> tuple:
    """Play every deal of ``deals`` (``(hand entries of every player, yours included, weight)``; the hands are
    changed in place; or, for the compiled loop only, with ``mine`` = (you, your hand id), a group as
    :func:`_play_each` has it: {hand ids of every player: weight}, yours put in) out from ``st`` (not over), each starting from the points per side ``start`` (by index in
    ``g._sides``; a deal's own points are tallied in one int, 10 bits a side: a side makes far fewer than 1,024
    points in a matching phase); return the sums over the deals of weight x points per side, of weight x net^2 (``worth``: a
    side's point to you), and (``firsts``) the weight of each first play (its rank, None: a go).

    Everything the loop reads is a small int indexing a table made once: the count state (``_CS_STEP``: what
    each rank does to it, ``_CS_PTS`` its points), a hand (``_H_ENTRY``: its distinct ranks that fit under the
    room, and the entry of the hand less a card), the players who may still play in this count and those holding cards as bitmasks
    (``_NEXT``: the next of them in turn); the cards not yet played a list per rank kept as cards go, and the
    policy's look-ahead score (:func:`fill_scores`) computed from them. :func:`step`'s rules on these. The deals
    start from one state, so the policy's scores at their first public states (the first ``_SHARED_DEPTH`` cards
    and gos, a digit each in ``ph``) are kept for the deals after.

    Why one piece: the policy's choice is inline. As a function (it needs nine of the loop's variables) it cost
    3-5% of the three- and four-hand rows (bench/ab_pegging.py); the turn order and the end of a count are
    written once, and the tests pin the loop to :func:`step` and :func:`choose` (tests/test_pegging_engines.py,
    tests/test_pegging_multi_fast.py).

    Where the compiled play-out is installed (:data:`_NATIVE`, the package ``pegwalk`` in native/), this loop runs
    in C over the same tables instead (without the kept scores, which only save time), and with the draws of
    :func:`sample_groups` in C too a three- or four-hand lead takes about a quarter of the time (bench/README.md). This loop stays the reference: the tests play random groups both
    ways and compare every sum (tests/test_pegging_multi_fast.py)."""
    n = g.n
    nxt_of = _NEXT[n]
    cidx = g._cidx
    wps = g._wp
    pairs = g._pairs
    last_card = g.rules.last_card
    single = g.rules.pegging_count == "single"
    step_tab = _CS_STEP
    pts_tab = _CS_PTS
    low = _LOW
    binom = BINOM
    p0, _, count, gone, last0, left0, played, _ = st
    cs0 = _cs(count, st.seq)
    ri0 = 14 + (31 - count if count > 20 else 10)   # where a hand's entry lists its ranks that fit under the room
    pool0 = [4 - (played >> 3 * x & 7) for x in range(14)]     # the cards not yet played per rank
    unplayed0 = sum(pool0) - 4
    left0 = list(left0)
    hold0 = 0                                   # the players holding cards, a bit each
    for j in range(n):
        if left0[j]:
            hold0 |= 1 << j
    act0 = hold0                                # those of them who have not said go in this count
    for j in gone:
        act0 &= ~(1 << j)
    first0 = gone[0] if gone else -1            # the first who said go in this count
    share = 1 << 4 * _SHARED_DEPTH              # ph under this: the history is short enough to keep scores by
    memo: dict = {}
    shift = [10 * c for c in cidx]              # a side's points in a deal's tally: 10 bits a side, from bit 10 x
    ends: dict = {}                             # the tallies the deals ended with -> their weight
    seen: dict = {}
    native = _NATIVE
    if native is not None and len(start) <= 6:  # the compiled loop (pegwalk): this one, every deal, in C
        ends, seen = native.play_out(deals, n, nxt_of, shift, wps, pairs, last_card, single, step_tab, pts_tab, _cs_step,
                            _cs_groups, binom, p0, cs0, ri0, pool0, unplayed0, left0, hold0, act0, first0, last0,
                            firsts, *(mine or ()))
        deals = ()
    for hands, w in deals:
        tot = 0
        pool = pool0[:]
        left = left0[:]
        p, cs, ri, hold, act, first, last, unplayed = p0, cs0, ri0, hold0, act0, first0, last0, unplayed0
        ph = 1                                  # the public history so far, a digit a card (0: a go), while short
        while True:
            h_e = hands[p]
            cands = h_e[ri]
            if not cands:                       # a go
                if first < 0:
                    first = p
                act &= ~(1 << p)
                if ph < share:
                    ph <<= 4
            else:
                r = cands[0]
                if len(cands) > 1:              # two ranks or more fit: the policy's choice (choose, fill_scores)
                    # the next player who will hold cards after this one and is not gone
                    q = nxt_of[p][act & ~(1 << p) if left[p] == 1 else act]
                    prow = pts_tab[cs]
                    bs = low
                    if q != p and q is not None:    # the points now less the next player's expected best reply
                        wp, sign, wq, groups = pairs[p][q]
                        grow = groups[cs]
                        h = left[q]
                        n1 = unplayed - 1
                        if h > n1:
                            h = n1
                        cn = binom[h]
                        call = cn[n1]
                        wpc = wp * call
                        if ph < share:          # early: the scores at this public state, kept for the group's deals
                            sc = memo.get(ph)
                            if sc is None:
                                sc = memo[ph] = {}
                            for x in cands:
                                s = sc.get(x)
                                if s is None:
                                    s = sc[x] = _lookahead(cs, x, wq, wpc * prow[x], grow, pool, n1, cn, sign)
                                if s >= bs:
                                    r, bs = x, s
                            cands = ()
                        for x in cands:
                            s = wpc * prow[x]
                            grp = grow[x]
                            if grp is None:
                                grp = _cs_groups(cs, x, wq)
                            if len(grp) == 3:       # one group of one rank: the reply scores v with a card of y
                                v, y, mine = grp
                                m = pool[y] - mine
                                if m:
                                    s += sign * v * (call - cn[n1 - m])
                            elif grp:
                                s += sign * _expected(grp[0], pool, n1, cn)
                            if s >= bs:
                                r, bs = x, s
                    else:                       # no reply to look ahead to: the points now
                        wp = wps[p]
                        for x in cands:
                            s = wp * prow[x]
                            if s >= bs:
                                r, bs = x, s
                # a play
                if ph < share:
                    ph = ph << 4 | r
                pr, cs, ri = step_tab[cs][r] or _cs_step(cs, r)
                hands[p] = h_e[r]
                left[p] -= 1
                if not left[p]:
                    hold &= ~(1 << p)
                    act &= ~(1 << p)
                pool[r] -= 1
                unplayed -= 1
                if pr:
                    tot += pr << shift[p]
                if not cs:                      # a 31: the next player holding cards leads the next count
                    if single or not hold:
                        break
                    p = nxt_of[p][hold]
                    act, first, last = hold, -1, -1
                    continue
                last = p
            if act:                             # the next player holding cards and not gone (p itself last)
                p = nxt_of[p][act]
                continue
            # nobody can go on: the go (the last card) to the player of the count's last card, then the first who
            # said go leads the next count (from there, the first still holding cards)
            tot += last_card << shift[last]
            if single or first < 0 or not hold:
                break
            p = nxt_of[(first - 1) % n][hold]
            cs, ri, act, first, last = 0, 24, hold, -1, -1
        ends[tot] = ends.get(tot, 0) + w
        if firsts:                              # the first token: ph's top digit
            r = ph >> ((ph.bit_length() - 1) // 4 - 1) * 4 & 15
            seen[r or None] = seen.get(r or None, 0) + w
    ns = range(len(start))
    sums = [0] * len(start)
    sq = 0
    for tot, w in ends.items():                 # fewer tallies than deals: summed once each
        net = 0
        for i in ns:
            v = start[i] + (tot >> 10 * i & 1023)
            if v:
                sums[i] += w * v
                net += worth[i] * v
        sq += w * net * net
    return sums, sq, seen


def _lookahead(cs: int, x: int, wq: int, s: int, grow: list, pool: list, n1: int, cn: list, sign: int) -> int:
    """:func:`_play_out`'s look-ahead score of rank ``x`` at the count state ``cs``, from ``s``, its own points' part
    (the loop's inline copy, for the scores it keeps per public state)."""
    grp = grow[x]
    if grp is None:
        grp = _cs_groups(cs, x, wq)
    if len(grp) == 3:
        v, y, mine = grp
        m = pool[y] - mine
        if m:
            s += sign * v * (cn[n1] - cn[n1 - m])
    elif grp:
        s += sign * _expected(grp[0], pool, n1, cn)
    return s


def _expected(groups: tuple, pool: list, n1: int, cn: list) -> int:
    """The replier's expected best worth x C(n1, h) over ``groups`` (``(worth, ranks, 1 if the card just played is
    of one of them)``, best first), its h cards drawn from the ``n1`` not yet played (``pool`` per rank, the card
    just played still in it; ``cn``: C(m, h) by m), as :func:`fill_scores` reads them: P(best reply == v) x
    C(n1, h) = C(n1 - above, h) - C(n1 - above - m, h)."""
    exp = 0
    top = n1
    for v, rs, mine in groups:
        m = -mine
        for y in rs:
            m += pool[y]
        if m:
            if v:
                exp += v * (cn[top] - cn[top - m])
            top -= m
    return exp


def _add(base: tuple, credits: Sequence) -> tuple:
    if not credits:
        return base
    pts = dict(base)
    for s, v, _ in credits:
        pts[s] = pts.get(s, 0) + v
    return tuple(sorted(pts.items()))


# --- the other players' hands ---------------------------------------------------------------


def joint_groups(avail: Sequence[int], need: Sequence[int], above: Sequence[int], limit: int) -> "dict | None":
    """Every joint deal of ``need[i]`` cards to each player i (0 for you) from ``avail[r]`` cards of rank r,
    player i's cards worth over ``above[i]``, as {joint rank hands: card deals}; None past ``limit`` groups."""
    # a lower bound first (a lead's deals are far past the limit: building 6,000 groups to find that out took
    # 10 ms): each player's rank groups counted from what is left whatever the
    # players before it hold (the first: exactly; a later one: k distinct ranks among those the cards taken
    # before it cannot all have used up); past the limit, the enumeration below would pass it too
    bound = 1
    taken = 0
    for i, k in enumerate(need):
        if k:
            ok = [avail[r] if VALUE[r] > above[i] else 0 for r in range(14)]
            bound *= _count_rank_hands(ok, k) if not taken else comb(max(0, sum(1 for a in ok if a) - taken), k)
            taken += k
    if bound > limit:
        return None
    out: dict = {(): 1}
    for i, k in enumerate(need):
        nxt: dict = {}
        for hands, w in out.items():
            av = list(avail)
            for h in hands:
                for r in h:
                    av[r] -= 1
            for h, wh in (hand_groups(av, k, above[i]).items() if k else (((), 1),)):
                nxt[hands + (h,)] = w * wh
                if len(nxt) > limit:
                    return None
        out = nxt
    return out


def _count_rank_hands(avail: Sequence[int], k: int) -> int:
    """How many k-card rank groups (multisets) ``avail[r]`` cards of each rank r allow."""
    ways = [1] + [0] * k
    for a in avail:
        if a:
            ways = [sum(ways[j - m] for m in range(min(a, j) + 1)) for j in range(k + 1)]
    return ways[k]


def _by_ids(group: dict) -> dict:
    """``group`` (joint rank hands -> weight) keyed by the players' hand ids (``_H_ID``), as the walk reads it."""
    hid = _H_ID
    return {tuple([hid[h] for h in hands]): w for hands, w in group.items()}


#: sample_groups draws in C (pegwalk): set at import when its draws are this Python's (:func:`_draws_match`)
_SAMPLE_IN_C = False


def sample_groups(unseen: Sequence[Card], need: Sequence[int], above: Sequence[int], n: int, seed: Any) -> dict:
    """``n`` joint deals drawn uniformly from ``unseen`` (rejecting those a player's gos rule out), as
    {joint rank hands: how many times drawn}."""
    rng = random.Random(seed)
    sample = rng.sample
    ranks = [c.rank for c in unseen]     # the draw reads the random source as a draw of the cards themselves would
    total = sum(need)
    cuts = []
    for i, k in enumerate(need):
        cuts.append((len(cuts) and cuts[-1][1], (len(cuts) and cuts[-1][1]) + k, above[i] if k else 0))
    gos = any(a for _, _, a in cuts)
    if _NATIVE is not None and len(cuts) <= 4 and _SAMPLE_IN_C:    # the same draws, the loop below in C (pegwalk)
        out = _NATIVE.sample_groups(rng.getrandbits, ranks, cuts, n, VALUE)
        if out is None:
            raise IllegalAction("the other players' gos leave almost no deal of the unseen cards possible")
        return out
    out: dict = {}
    tries = 0
    drawn = 0
    while drawn < n:
        tries += 1
        if tries > 200 * n:
            raise IllegalAction("the other players' gos leave almost no deal of the unseen cards possible")
        draw = sample(ranks, total)
        hands = tuple([tuple(sorted(draw[i0:i1])) for i0, i1, _ in cuts])
        if gos and any(h and VALUE[h[0]] <= a for h, (_, _, a) in zip(hands, cuts)):
            continue                     # a player's card at or under its go's threshold: drawn again
        out[hands] = out.get(hands, 0) + 1
        drawn += 1
    return out


def _draws_match() -> bool:
    """Whether pegwalk's draws are this Python's: it copies ``random.Random.sample`` as CPython 3.11 makes it, so
    here both loops draw a few small samples (both of ``sample``'s methods, a list and a set) from one seed; where
    they differ (another Python's ``sample``), :func:`sample_groups` keeps its own loop."""
    global _SAMPLE_IN_C
    if _NATIVE is None:
        return False
    cases = ((DECK[:40], [0, 4, 4, 4], [0, 0, 3, 0]), (DECK[5:45], [0, 2, 0], [0, 0, 0]))
    got = []
    for flag in (True, False):
        _SAMPLE_IN_C = flag
        got.append([list(sample_groups(unseen, need, above, 30, "draws").items()) for unseen, need, above in cases])
    return got[0] == got[1]


_SAMPLE_IN_C = _draws_match()


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MultiPlay:
    """One legal play: expected points per side, the net to you, the reply's chances, and (sampled) the
    standard errors."""

    cards: tuple[Card, ...]
    by_side: Mapping[str, Fraction]
    you: str
    net: Fraction
    reply: "dict[str, Fraction] | None"
    policy_choice: bool = False
    stderr: "float | None" = None                 # of the net; None when exact

    @property
    def card(self) -> Card:
        return self.cards[0]

    @property
    def points(self) -> tuple[Fraction, Fraction]:
        """(points credited to your side, to every other side together)."""
        mine = self.by_side.get(self.you, Fraction(0))
        return mine, sum((v for s, v in self.by_side.items() if s != self.you), Fraction(0))

    def to_dict(self) -> dict:
        d = PlayAdvice(cards=self.cards, points=self.points, net=self.net, reply=self.reply,
                       policy_choice=self.policy_choice).to_dict()
        d["points_by_side"] = {s: float(v) for s, v in self.by_side.items()}
        d["stderr"] = self.stderr
        d["exact"]["points_by_side"] = {s: str(v) for s, v in self.by_side.items()}
        return d


@dataclass(frozen=True)
class MultiAdvice:
    """Every legal play of a three- or four-hand position, best first by the net."""

    rules: Ruleset
    hand: tuple[Card, ...]
    played: tuple[str, ...]
    count: int
    seat: int
    side: str
    goal: Mapping[str, int]
    exact: bool
    deals: int                                    # joint card deals (exact) or deals sampled
    others_left: Mapping[int, int]               # seat position -> cards it still holds
    plays: tuple[MultiPlay, ...]
    go: bool = False
    assumption: str = field(default=EXACT)

    @property
    def hands(self) -> int:
        return self.deals

    def to_dict(self) -> dict:
        return {"game": self.rules.name, "title": self.rules.title, "hand": [str(c) for c in self.hand],
                "played": list(self.played), "count": self.count, "seat": self.seat, "dealer": self.seat == 0,
                "side": self.side, "goal": "reach" if self.goal[self.side] > 0 else "avoid",
                "goals": dict(self.goal), "credit": self.rules.pegging_credit, "policy": POLICY,
                "exact_enumeration": self.exact, "other_hands": self.deals, "sampled": 0 if self.exact else self.deals,
                "others_left": {str(k): v for k, v in self.others_left.items()},
                "other_left": sum(self.others_left.values()), "go": self.go,
                "assumption": self.assumption, "plays": [p.to_dict() for p in self.plays]}


def replay(g: MultiGame, hand: Sequence[Card], played: Sequence["Card | None"]):
    """Replay the plays so far (cards, None for a go) from the leader; returns (state, go thresholds per
    player, cards played per player) (:func:`companion.advice.pegging_model.replay_plays`)."""
    st = g.start()
    return replay_plays(st, played, hand, g.you,
                        lambda p: "you" if p == g.you else f"the player at seat {g.positions[p]}",
                        lambda st, r: step(g, st, r, []))


def rank_plays(hand: "Iterable[str | Card] | str", *, game: "str | Ruleset" = "lands-end",
               options: "Mapping[str, Any] | None" = None, played: "Iterable[str | Card | None] | str" = (),
               dealer: bool = False, turnup: "str | Card | None" = None, seen: "Iterable[str | Card] | str" = (),
               seat: "int | None" = None) -> "PegAdvice | MultiAdvice":
    """Rank every legal play of a position in any game with a matching phase: two-hand games by
    :func:`companion.advice.pegging.rank_plays` (exact), three- and four-hand games by
    :func:`rank_plays_multi` (``seat`` from the dealer, default 1 or the dealer with ``dealer``)."""
    rules = rules_of(game, options)
    if rules.players == 2 or not rules.pegging:
        return two_hand_rank_plays(hand, game=rules, played=played, dealer=dealer, turnup=turnup, seen=seen,
                                   seat=seat)
    return rank_plays_multi(hand, game=rules, played=played, seat=(0 if dealer else 1) if seat is None else seat,
                            turnup=turnup, seen=seen)


@paused_collector
@_holding_tables
def rank_plays_multi(hand: "Iterable[str | Card] | str", *, game: "str | Ruleset" = "lands-end-3",
                     options: "Mapping[str, Any] | None" = None, played: "Iterable[str | Card | None] | str" = (),
                     seat: int = 1, turnup: "str | Card | None" = None, seen: "Iterable[str | Card] | str" = (),
                     samples: "int | None" = None, exact_groups: "int | None" = None, seed: Any = None,
                     ) -> MultiAdvice:
    """Rank every legal play of ``hand`` in a three- or four-hand matching phase, best first.

    ``seat``: yours, from the dealer (1 leads). ``played``: every card played so far in order,
    ``"go"`` where a player said go, from the first lead. ``samples``/``exact_groups``/``seed``
    override :data:`SAMPLES`, :data:`EXACT_GROUPS` and the position's own seed.
    """
    rules = rules_of(game, options)
    g = multi_game(rules, seat)
    mine, toks, known = position_cards(hand, played, turnup, seen)
    st, above, by = replay(g, mine, toks)
    if st.over:
        raise IllegalAction("the matching phase is over: every card has been played")
    if len(mine) + len(by[g.you]) != rules.held:
        raise IllegalAction(f"in {rules.title} you hold {rules.held} cards in the matching phase: "
                            f"{len(mine)} in hand and {len(by[g.you])} played is {len(mine) + len(by[g.you])}")
    if st.turn != g.you:
        raise IllegalAction(f"it is the turn of the player at seat {g.positions[st.turn]}, not yours")
    kset = set(known)
    unseen = [c for c in DECK if c not in kset]
    avail = [0] * 14
    for c in unseen:
        avail[c.rank] += 1
    need = [0 if i == g.you else st.left[i] for i in range(g.n)]
    limit = EXACT_GROUPS if exact_groups is None else exact_groups
    group = joint_groups(avail, need, above, limit)
    exact = group is not None
    if exact and not group:
        raise IllegalAction("no deal of the unseen cards fits the other players' gos")
    if not exact:
        n = SAMPLES if samples is None else samples
        seed = seed if seed is not None else "|".join([rules.name, str(seat)] + [str(c) for c in known]
                                                       + ["go" if t is None else str(t) for t in toks])
        group = sample_groups(unseen, need, above, n, seed)
    total = sum(group.values())
    group = _by_ids(group)
    ranks = tuple(sorted(c.rank for c in mine))
    fits = sorted({c.rank for c in mine if c.value <= 31 - st.count}, reverse=True)
    policy = choose(g, st, g.you, set(ranks))
    results = []
    for r in fits:
        credits: list = []
        st2 = step(g, st, r, credits)
        stats = {} if st2.count and not st2.over and st2.turn != g.you else None
        acc: dict = {}
        _walk(g, st2, without(ranks, r), group, _add((), credits), acc, stats)
        by_side = {s: Fraction(acc.get(s, 0), total) for s in g.sides if s in acc or s in g.goal}
        net = g.net(by_side)
        se = None
        if not exact:
            var = Fraction(acc["sq"], total) - net ** 2
            se = sqrt(max(float(var), 0.0) / max(total - 1, 1))
        reply = None if stats is None else {k: Fraction(stats.get(k, 0), total) for k in KINDS + ("scores",)}
        results.append(MultiPlay(cards=tuple(c for c in mine if c.rank == r), by_side=by_side, you=g.side[g.you],
                                 net=net, reply=reply, policy_choice=r == policy, stderr=se))
    results.sort(key=lambda a: (-a.net, -a.card.rank))
    if exact:
        deals = total
        assumption = EXACT
    else:
        deals = total
        assumption = SAMPLED.format(n=total, se=max((p.stderr for p in results), default=0.0))
    return MultiAdvice(rules=rules, hand=mine, played=tuple("go" if t is None else str(t) for t in toks),
                       count=st.count, seat=seat, side=g.side[g.you], goal=dict(g.goal), exact=exact, deals=deals,
                       others_left={g.positions[i]: st.left[i] for i in range(g.n) if i != g.you},
                       plays=tuple(results), go=not fits, assumption=assumption)


#: Deals sampled for a discard's matching phase (advise): each of its 5 discards walks the whole phase.
DISCARD_SAMPLES = 400

DISCARD_ASSUMPTION = ("three- and four-hand: each kept hand's matching phase is averaged over a seeded sample of "
                      f"{DISCARD_SAMPLES} deals of the cards you were not dealt to the other players (the same deals "
                      "for every discard; `pegging.stderr` is the standard error of its net), every player "
                      "following the documented policy from the first lead (docs/advice.md)")


@paused_collector
@_holding_tables
def pegging_values_multi(rules: Ruleset, seat: int, keep: Sequence[Card], dealt: Sequence[Card],
                         samples: "int | None" = None) -> tuple[tuple[Fraction, Fraction], Fraction, float]:
    """Return ``((points to your side, to the other sides), net, standard error of the net)`` of a whole
    three- or four-hand matching phase: you keep ``keep`` (of ``dealt``), the other players' hands are a
    seeded sample of deals of the cards you were not dealt (the same sample for every ``keep`` of one deal,
    so discards compare on the same deals), every player on the policy from the first lead."""
    g = multi_game(rules, seat)
    dset = set(dealt)
    unseen = [c for c in DECK if c not in dset]
    need = [0 if i == g.you else rules.held for i in range(g.n)]
    n = DISCARD_SAMPLES if samples is None else samples
    group = sample_groups(unseen, need, [0] * g.n, n, "|".join([rules.name, str(seat)] + sorted(map(str, dealt))))
    st = g.start()
    acc: dict = {}
    _walk(g, st, tuple(sorted(c.rank for c in keep)), _by_ids(group), (), acc)
    total = sum(group.values())
    by_side = {s: Fraction(acc.get(s, 0), total) for s in g.sides}
    net = g.net(by_side)
    var = Fraction(acc.get("sq", 0), total) - net ** 2
    you = by_side.get(g.side[g.you], Fraction(0))
    return (you, sum(by_side.values(), Fraction(0)) - you), net, sqrt(max(float(var), 0.0) / max(total - 1, 1))


def infer_gos_multi(rules: Ruleset, plays: Sequence[tuple[int, "Card | str"]], then: "int | None" = None) -> list[str]:
    """Return the tokens of a three- or four-hand matching phase (cards, ``"go"``) from its cards alone.

    ``plays``: ``(seat position from the dealer, card)`` in order. A card by a player whose turn it
    was not means every player between said go first (M2: the turn passes round the table, a player
    who cannot play says go), which the table's record leaves implicit.

    :raises IllegalAction: a card where nobody could have said go before it.
    """
    g = multi_game(rules, 1)                       # whose advice does not matter: only the turns are followed
    st = g.start()
    out: list[str] = []

    def gos_until(p: int, c: "Card | None" = None) -> None:
        """Gos until it is ``p``'s turn with ``c`` fitting under 31 (``p`` too may have said go first)."""
        nonlocal st
        for _ in range(2 * g.n):
            if st.over or st.turn == p and (c is None or c.value <= 31 - st.count) or st.count == 0:
                break                                  # nobody says go at 0: every card fits
            out.append("go")
            st = step(g, st, None, [])
    for pos, card in plays:
        c = card if isinstance(card, Card) else parse_cards([card], what="played card")[0]
        p = g.positions.index(pos) if pos in g.positions else -1
        gos_until(p, c)
        if st.over or st.turn != p or st.left[p] == 0 or c.value > 31 - st.count:
            raise IllegalAction(f"{c} cannot have been played by that player at that point")
        out.append(str(c))
        st = step(g, st, c.rank, [])
    if then is not None and then in g.positions:
        gos_until(g.positions.index(then))
    return out


#: Leads a fresh worker ranks per three- or four-hand game while it waits (:func:`warm_up`).
WARM_ROUNDS = 8


def warm_up(games: "Iterable[str | Ruleset] | None" = None, rounds: int = WARM_ROUNDS, seed: str = "warm-up-multi"):
    """Rank seeded random four-card leads (seat 1, sampled) of the three- and four-hand ``games`` (default: every
    one), one of each game a round, for ``rounds`` rounds; yield after each ranking.

    A fresh process starts with the play-out's count-state tables empty (shared by every three- and four-hand
    game), and its first leads take 1.5-2.5 times as long as later ones (bench/README.md). The job worker runs
    this while it waits for its first call, one ranking at a time, and stops as soon as a call comes
    (web/jobworker.py); what it fills changes no figure, only how soon it comes."""
    from ..rulesets import RULESETS, get_ruleset
    rng = random.Random(seed)
    rules = [get_ruleset(x) if isinstance(x, str) else x for x in games] if games is not None else \
        [r for r in RULESETS.values() if r.players > 2 and r.pegging]
    for _ in range(rounds):
        for r in rules:
            cards = rng.sample(DECK, r.held + 1)
            rank_plays_multi(cards[:r.held], game=r, seat=1, turnup=cards[-1])
            yield
