"""Pegging advice: which card to lead or play next, by the game's own goal, with exact expected points.

The model (docs/advice.md, "Pegging"):

* **One policy for every seat** (:data:`POLICY`, ``"lookahead"``). A player knows
  its own cards and the cards played so far. For each card it may play it
  scores ``worth(points this card makes) - E[worth of the next player's best
  reply]``, where *worth* is what the points do by the game's goal (see
  :class:`PegGame`), and the next player's reply is judged as its best single
  card when its cards left are drawn at random from **the cards not yet played**
  (a public picture: the same for both players, which leaves out the player's
  own cards and the turn-up). A reply that cannot be made counts nothing; after
  a 31 there is no reply. It plays the highest score; ties go to the higher
  rank (keeping low cards, which still fit late in a count). It must play when
  it can, and says go only when it cannot. The other candidate, ``"greedy"``,
  scores only the points the card makes now.
* **Exact values of a position** (:func:`rank_plays`): every legal play is
  followed through the rest of the matching phase with both players on the
  policy, over every hand the other player could hold among the cards the
  advised player has not seen (uniform, consistent with the other player's
  gos), giving the expected points credited to each side, the net by the
  game's goal and the chance that the reply scores, by kind.

Pegging depends on ranks only (there is no flush in the matching phase), and
the policy's picture of a reply depends only on public cards, so the other
player's possible hands are grouped by rank multiset (each weighted by how many
card hands it stands for) and walked down one game tree together: at every
turn of the other player the group splits by the card each hand plays (one node
per public state, however few hands it holds). Below that the walk saves what
does not change the figures: a player holding one rank that fits plays it
unscored, and once each player holds at most one card nobody chooses any more,
so the rest comes from a table per game keyed by the count, not by the cards
played before. The caches are plain dicts the garbage collector can untrack, and
a ranking runs with the collector paused (bench/README.md, "Issue 25 item 3").

Two-hand games only (Land's End, two-hand casino, cribbage, reverse cribbage,
five-card); three- and four-hand games are refused with a clear error.
"""

from __future__ import annotations

import functools
import gc
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from ..cards import DECK, Card, parse_cards
from ..errors import IllegalAction, InvalidCard, UnknownGame
from ..rulesets import RULESETS, Ruleset, get_ruleset

__all__ = ["POLICY", "POLICIES", "ASSUMPTION", "PegGame", "PlayAdvice", "PegAdvice", "peg_points",
           "rank_plays", "pegging_values", "play_out", "infer_gos", "warm_up", "WARM_ROUNDS"]

POLICY = "lookahead"
POLICIES = ("lookahead", "greedy")
KINDS = ("fifteen", "pair", "run", "thirty-one", "go")

#: Said in every result: the model of the other player's cards and play.
ASSUMPTION = ("the other player's hand is averaged over every hand it could hold among the cards you have not "
              "seen, all equally likely (only its gos narrow them); from now on both players follow the "
              "documented policy (docs/advice.md)")

_VAL = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
_PAIR = {2: 2, 3: 6, 4: 12}


class Cache:
    """A memo table with a bound: a plain dict, emptied whole when it holds more than ``bound`` entries and a new one
    comes (what it keeps changes no figure, only how soon the next answer comes; the bound keeps a long-lived
    worker's memory flat). Reads go straight to the dict (``get``); ``put`` adds. A plain dict, not a subclass nor
    an lru_cache: the collector untracks a dict of ints and tuples, and walked every tracked cache at each full
    collection (bench/README.md, "Issue 25 item 3")."""

    __slots__ = ("data", "get", "bound")

    def __init__(self, bound: int) -> None:
        self.data: dict = {}
        self.get = self.data.get
        self.bound = bound

    def put(self, key, value):
        """Keep ``value`` under ``key`` (the table emptied first when full); return ``value``."""
        data = self.data
        if len(data) > self.bound:
            data.clear()
        data[key] = value
        return value

    def clear(self) -> None:
        self.data.clear()

    def __len__(self) -> int:
        return len(self.data)


# the count's tables, shared by every game and call (bounds in entries)
_TAIL = Cache(200_000)      # count's ranks -> their tail()
_RP = Cache(200_000)        # (count, tail) -> reply_points
_RG = Cache(200_000)        # (count, tail, wq) -> the reply groups (_reply_groups)
_RG2 = Cache(200_000)       # (count, tail, wq) -> per rank r, the reply groups after a card of r (fill_scores)
_REM = Cache(200_000)       # (hand, r) -> hand less one r (_remove)
_PLAY = Cache(200_000)      # (count, tail, r) -> what a card of r does to the count (_play)


def peg_points(seq: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    """Return ``(total, fifteen, pair, run, thirty-one)`` points of the last card of a count, by ranks.

    ``seq``: the ranks (1..13) played since the count last reset, in order. Equal to
    :func:`companion.scoring.score_peg` for any cards of these ranks (tests/test_pegging_advice.py).

    >>> peg_points((5, 6, 4))
    (5, 2, 0, 3, 0)
    """
    return _peg(sum(_VAL[r] for r in seq), seq)


@lru_cache(maxsize=100_000)
def _peg(total: int, seq: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    """:func:`peg_points` of a count reaching ``total`` whose last cards are ``seq`` (a :func:`tail` will do)."""
    fif = 2 if total == 15 else 0
    t31 = 2 if total == 31 else 0
    last = seq[-1]
    k = 1
    while k < len(seq) and seq[-1 - k] == last:
        k += 1
    pair = _PAIR.get(k, 0)
    run = 0
    for n in range(len(seq), 2, -1):
        part = seq[-n:]
        if len(set(part)) == n and max(part) - min(part) == n - 1:
            run = n
            break
    return fif + t31 + pair + run, fif, pair, run, t31




def tail(seq: tuple[int, ...]) -> tuple[int, ...]:
    """Return the part of a count's ranks that any later card's points depend on (the count aside).

    A pair needs the trailing block of equal ranks, a run a suffix of distinct ranks; so the
    trailing block when it has two or more cards, else the longest suffix of distinct ranks.
    Positions that differ only before it score every future card alike, so they share caches.
    """
    out = _TAIL.get(seq)
    if out is None:
        out = _TAIL.put(seq, _tail(seq))
    return out


def _tail(seq: tuple[int, ...]) -> tuple[int, ...]:
    if len(seq) >= 2 and seq[-1] == seq[-2]:
        k = 2
        while k < len(seq) and seq[-1 - k] == seq[-1]:
            k += 1
        return seq[-k:]
    seen = set()
    i = len(seq)
    while i > 0 and seq[i - 1] not in seen:
        seen.add(seq[i - 1])
        i -= 1
    return seq[i:]


def trim(count: int, seq: tuple[int, ...]) -> tuple[int, ...]:
    """The part of a count's :func:`tail` that can still make points, at a count of ``count``: the tail from its
    earliest card that may still begin a run. A run of distinct ranks is a suffix of the count: one beginning at
    a card needs every rank missing between the ranks from there on to be played later, so not when those
    missing ranks are worth more than the room left under 31 (nor after more cards: they fill at most what they
    take from the room). Pairs read only the trailing block, kept whole. Two counts with the same count and
    trimmed tail score every card to come alike, so they share every cache (tests/test_pegging_multi.py)."""
    n = len(seq)
    if n < 2 or seq[-1] == seq[-2]:
        return seq
    room = 31 - count
    lo = hi = seq[-1]
    have = 1 << lo
    start = n - 1
    for i in range(n - 2, -1, -1):
        y = seq[i]
        have |= 1 << y
        if y < lo:
            lo = y
        elif y > hi:
            hi = y
        gap = ((1 << hi) - (2 << lo)) & ~have          # the ranks missing between lo and hi, as bits
        if _GAP_LO[gap & 127] + _GAP_HI[gap >> 7] <= room:
            start = i
    return seq[start:]


# the value of the ranks whose bits are set in a 7-bit mask: ranks 0-6 (_GAP_LO), ranks 7-13 (_GAP_HI)
_GAP_LO = tuple(sum(_VAL[z] for z in range(7) if m >> z & 1) for m in range(128))
_GAP_HI = tuple(sum(_VAL[z + 7] for z in range(7) if m >> z & 1) for m in range(128))


def paused_collector(fn):
    """Run ``fn`` with the cyclic garbage collector paused, and resumed after (if it was on).

    The walks make no reference cycles (reference counting frees all they drop), but they add thousands of
    cache entries a call, and each full collection walks every tracked cache: 10-50 ms at a time, on whichever
    call it falls (bench/README.md, "Issue 25 item 3"). Pausing it changes no figure."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return run


# --- the game: who is credited, what points are worth --------------------------------------


@dataclass(frozen=True)
class PegGame:
    """The matching-phase rules of a two-hand game, seen from player 0 ("you"); player 1 is the other.

    ``goal[p]`` is +1 when side p wins by reaching the target and -1 when it loses by
    it; points made by player p are credited to p (``pegging_credit = self``) or to
    the other (``next_opponent``, L2); ``worth[p]`` is what one point made by p is
    worth to p by its goal; the net to you of a result is
    ``goal[0] * points credited to you - goal[1] * points credited to the other``.
    After a go the next count is led by the last player to play (``go_lead =
    last_player``, L9) or by the player who said go first (``other_player``).
    """

    rules: Ruleset
    goal: tuple[int, int]
    policies: tuple[str, str] = (POLICY, POLICY)
    #: the fast walk keeps per state what the other player's last plays lead to (:func:`_row_entry`); False: it
    #: walks them as any other node (tests/test_pegging_advice.py compares the two)
    rows: bool = True

    def __post_init__(self) -> None:
        cr = (0, 1) if self.rules.pegging_credit == "self" else (1, 0)
        object.__setattr__(self, "_cr", cr)
        object.__setattr__(self, "_worth", tuple(self.goal[p] if cr[p] == p else -self.goal[cr[p]] for p in (0, 1)))
        object.__setattr__(self, "_scores", Cache(200_000))     # policy caches, per game (states hash fast; rules do not)
        object.__setattr__(self, "_order", Cache(200_000))
        object.__setattr__(self, "_two", Cache(200_000))        # your choice between two cards (_choose_two)
        object.__setattr__(self, "_end", Cache(50_000))         # the endgame with at most one card each (_walk)
        object.__setattr__(self, "_rows", Cache(50_000))        # what each play of the other player leads to (_row_entry)
        object.__setattr__(self, "_single_count", self.rules.pegging_count == "single")
        object.__setattr__(self, "_go_last", self.rules.go_lead == "last_player")
        object.__setattr__(self, "_last_card", self.rules.last_card)

    @property
    def credit_self(self) -> bool:
        return self.rules.pegging_credit == "self"

    @property
    def single(self) -> bool:
        return self.rules.pegging_count == "single"

    @property
    def go_last(self) -> bool:
        return self.rules.go_lead == "last_player"

    def credited(self, p: int) -> int:
        """Return the player credited with the points player ``p`` makes."""
        return self._cr[p]

    def worth(self, p: int) -> int:
        """What one point made by player ``p`` is worth to ``p`` by its goal."""
        return self._worth[p]

    def net(self, pts: Sequence[Fraction]) -> Fraction:
        """Return the net to player 0 of ``pts`` = (points credited to 0, points credited to 1)."""
        return self.goal[0] * pts[0] - self.goal[1] * pts[1]


def game_for(rules: Ruleset, seat: int, policies: tuple[str, str] = (POLICY, POLICY), rows: bool = True) -> PegGame:
    """Return the :class:`PegGame` of a two-hand ``rules`` seen from ``seat`` (0 deals, 1 leads); cached, so its
    policy caches serve the next call. The seat changes only the goals (a house), so both seats of a game
    without a house share one (and every cache of it). ``rows``: :attr:`PegGame.rows`."""
    return _game(rules, (_goal(rules, seat), _goal(rules, 1 - seat)), tuple(policies), rows)


@lru_cache(maxsize=64)
def _game(rules: Ruleset, goal: tuple[int, int], policies: tuple[str, str], rows: bool = True) -> PegGame:
    if not rules.pegging:
        raise UnknownGame(f"{rules.title} has no matching phase (no pegging)")
    if rules.players != 2:
        raise UnknownGame(f"this model covers the two-hand games; {rules.title} has {rules.players} players "
                          f"(companion.advice.pegging_multi)")
    for pol in policies:
        if pol not in POLICIES:
            raise UnknownGame(f"unknown pegging policy {pol!r}: {' or '.join(POLICIES)}")
    return PegGame(rules, goal, policies, rows)


def _goal(rules: Ruleset, seat: int) -> int:
    """+1 when the side at two-hand ``seat`` wins by reaching the target, -1 when it loses by it (as
    :func:`companion.advice.discard.seating`: a dealing house, seat 0 of the two-hand casino, follows ``house_reach``)."""
    reach = rules.house_reach if rules.house and seat == 0 else rules.reach
    return 1 if reach == "wins" else -1


# --- the state of a matching phase ------------------------------------------------------------


class _State(NamedTuple):
    """Public state: whose turn, the current count, who said go, cards left, cards played per rank."""

    turn: int
    seq: tuple[int, ...] = ()     # the count's ranks, only their trim(tail()) (the count is kept whole)
    count: int = 0
    gone: int = 0                 # bit p: player p said go in this count
    first_go: int = -1
    last: int = -1                # who played the last card of this count
    left: tuple[int, int] = (4, 4)
    played: int = 0               # cards played per rank r, 3 bits each at bit 3r (a small int hashes fast)
    over: bool = False


_mk = tuple.__new__     # _mk(_State, fields): a state without NamedTuple's keyword __new__ (the walk's hot path)


def _reset(g: PegGame, st: _State, leader: int, left, played) -> _State:
    if g.single or not (left[0] or left[1]):
        return _State(turn=-1, left=left, played=played, over=True)
    if not left[leader]:
        leader = 1 - leader
    return _State(turn=leader, left=left, played=played)


def _end_count(g: PegGame, st: _State, credits: list) -> _State:
    """Nobody can continue under 31: go (last, in a single count) to the last player, then a new count."""
    last = st.last
    credits.append((g.credited(last), g.rules.last_card, "go" if not g.single else "last"))
    leader = last if g.go_last else st.first_go
    return _reset(g, st, leader, st.left, st.played)


def step_play(g: PegGame, st: _State, r: int, credits: list) -> _State:
    """Player ``st.turn`` plays a card of rank ``r``; append ``(player credited, points, kind)`` to ``credits``."""
    p = st.turn
    count = st.count + _VAL[r]
    seq = trim(count, tail(st.seq + (r,)))
    left = (st.left[0] - 1, st.left[1]) if p == 0 else (st.left[0], st.left[1] - 1)
    played = st.played + (1 << 3 * r)
    pts = reply_points(st.count, st.seq)[r]        # the points of every rank after this count, cached per count
    if pts:
        credits.append((g.credited(p), pts, "play"))
    if count == 31:
        return _reset(g, st, 1 - p, left, played)
    if not (left[0] or left[1]):
        credits.append((g.credited(p), g.rules.last_card, "last"))
        return _State(turn=-1, left=left, played=played, over=True)
    gone = st.gone
    q = 1 - p
    if (not left[0] or gone & 1) and (not left[1] or gone & 2):        # every holder has said go
        return _end_count(g, _mk(_State, (p, seq, count, gone, st.first_go, p, left, played, False)), credits)
    turn = q if left[q] and not gone >> q & 1 else p
    return _mk(_State, (turn, seq, count, gone, st.first_go, p, left, played, False))


def step_go(g: PegGame, st: _State, credits: list) -> _State:
    """Player ``st.turn`` says go (it holds no card that fits)."""
    p = st.turn
    gone = st.gone | (1 << p)
    first = st.first_go if st.first_go >= 0 else p
    nxt = _State(turn=1 - p, seq=st.seq, count=st.count, gone=gone, first_go=first, last=st.last, left=st.left,
                 played=st.played)
    if all(gone >> s & 1 for s in (0, 1) if st.left[s]):
        return _end_count(g, nxt, credits)
    return nxt


# --- the policy ---------------------------------------------------------------------------


def reply_points(count: int, seq: tuple[int, ...]) -> tuple[int, ...]:
    """Return, per rank x (index 1..13), the points a card of rank x makes played at ``count`` after the
    count's ranks ``seq`` (or their :func:`tail`); -1 if it does not fit under 31."""
    key = (count, seq)
    out = _RP.get(key)
    if out is None:
        out = _RP.put(key, _reply_row(count, seq))
    return out


def _reply_row(count: int, seq: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`reply_points` computed: ``_peg(count + value, seq + (x,))[0]`` for every rank x at once (the
    fifteen and 31 from the count, the pair from the trailing block, the run grown card by card back from x;
    equal to _peg, tests/test_pegging_advice.py)."""
    last = seq[-1] if seq else 0
    k = 0
    while k < len(seq) and seq[-1 - k] == last:
        k += 1
    back = seq[::-1]
    out = [-1]
    for x in range(1, 14):
        total = count + _VAL[x]
        if total > 31:
            out.append(-1)
            continue
        p = 2 if total == 15 or total == 31 else 0
        if x == last:
            p += _PAIR.get(k + 1, 0)
        seen = 1 << x                  # the run: the longest suffix of distinct, consecutive ranks
        lo = hi = x
        m = 0
        run = 0
        for y in back:
            if seen >> y & 1:
                break
            seen |= 1 << y
            if y < lo:
                lo = y
            elif y > hi:
                hi = y
            m += 1
            if m >= 2 and hi - lo == m:
                run = m + 1
        out.append(p + run)
    return tuple(out)


def _reply_groups(count: int, seq: tuple[int, ...], wq: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Return the ranks of a reply at ``count`` after ``seq`` grouped by its worth ``wq * points``, best first:
    ``((worth, ranks), ...)``, only ranks that fit; a group of worth 0 only when a worse one follows (the
    expectation needs the cards above each worth, not the zeros below the last)."""
    key = (count, seq, wq)
    hit = _RG.get(key)
    if hit is not None:
        return hit
    nxt = reply_points(count, seq)
    by: dict[int, list[int]] = {}
    for x in range(1, 14):
        if nxt[x] >= 0:
            by.setdefault(wq * nxt[x], []).append(x)
    out = [(v, tuple(by[v])) for v in sorted(by, reverse=True)]
    if out and out[-1][0] == 0:
        out.pop()
    return _RG.put(key, tuple(out))


_ALL = tuple(range(1, 14))
BINOM = [[comb(m, h) for m in range(53)] for h in range(14)]     # BINOM[h][m] = C(m, h): h of m cards
_POOL = Cache(100_000)                                           # played -> cards not yet played per rank


def policy_scores(g: PegGame, st: _State, p: int, ranks: Iterable[int] = _ALL) -> dict[int, "int | None"]:
    """Return ``{rank: score}`` for ``ranks`` player ``p`` might play now (None: it does not fit, or no
    card of that rank is left); scores compare within one state. Cached by what they depend on.

    ``"greedy"``: the worth of the points the card makes. ``"lookahead"``: that times
    C(n, h), less the next player's expected best reply times C(n, h), where the next
    player holds its h cards left drawn from the n cards not yet played (other than this
    card): integers, so ties are exact.
    """
    q = 1 - p
    if g.policies[p] == "lookahead" and st.left[q] > 0 and not st.gone >> q & 1:
        return _scores_at(g, p, st.seq, st.count, st.played, st.left[q], ranks)
    return _scores_at(g, p, st.seq, st.count, st.played, 0, ranks)


def _scores_at(g: PegGame, p: int, seq: tuple[int, ...], count: int, played: int, h: int,
               ranks: Iterable[int]) -> dict[int, "int | None"]:
    """:func:`policy_scores` of player ``p`` at ``count`` after ``seq`` with ``played``, the next player replying
    with ``h`` cards (0: no reply to look ahead to, and the cards played are not read)."""
    key = (p, seq, count, played if h else None, h)
    out = g._scores.get(key)
    if out is None:
        out = g._scores.put(key, {})
    todo = [r for r in ranks if r not in out]
    if todo:
        fill_scores(out, todo, count, seq, played, h, g.worth(p), g.worth(1 - p), -1)
    return out


def _choose_two(g: PegGame, st: _State, played: int, a: int, b: int) -> "int | None":
    """:func:`choose` for you (player 0) holding the ranks ``a <= b`` at ``st`` with the cards ``played`` (the
    dealer's rows, :func:`_reply_two`, and the walk's turns with two cards: without choose's sets, and only the
    choice kept; pinned to :func:`choose` by tests/test_pegging_engines.py)."""
    room = 31 - st.count
    if _VAL[b] > room or a == b:             # values grow with rank: b does not fit, or one rank: no choice
        return a if _VAL[a] <= room else None
    h = st.left[1] if g.policies[0] == "lookahead" and st.left[1] > 0 and not st.gone & 2 else 0
    key = (st.seq, st.count, played if h else None, h, a, b)
    hit = g._two.get(key)
    if hit is None:                 # the choice alone is kept (not the scores: most of these states come once)
        scores: dict = {}
        fill_scores(scores, (a, b), st.count, st.seq, played, h, g._worth[0], g._worth[1], -1)
        hit = g._two.put(key, b if scores[b] >= scores[a] else a)        # ties to the higher rank
    return hit


def fill_scores(out: dict, todo: Iterable[int], count: int, seq: tuple[int, ...], played: int, h: int, wp: int,
                wq: int, sign: int) -> None:
    """Put the look-ahead score of each rank of ``todo`` into ``out`` (None: it does not fit, or no card of it
    is left): ``wp`` x its points x C(n, h) + ``sign`` x the replier's expected best ``wq`` x points x C(n, h),
    the replier holding ``h`` cards (0: no reply, the card's own worth unscaled) drawn from the ``n`` cards
    not yet played other than this one. ``sign`` is what one unit of the replier's worth is worth to the
    player: -1 in two-hand games; in three- and four-hand games +1 or -1 by whose the replier's points are."""
    now = _RP.get((count, seq)) or reply_points(count, seq)
    if not h:
        for r in todo:
            out[r] = wp * now[r] if now[r] >= 0 else None
        return
    hit = _POOL.get(played)
    if hit is None:
        pool = tuple([4 - (played >> 3 * x & 7) for x in range(14)])
        hit = _POOL.put(played, (pool, sum(pool) - 5))      # 4 - 0 at index 0; less the card just played
    pool, n1 = hit
    if h > n1:
        h = n1
    cn = BINOM[h]                         # C(m, h) for m = 0..52
    c_all = cn[n1]
    after = _RG2.get((count, seq, wq))
    if after is None:
        after = _RG2.put((count, seq, wq), [None] * 14)
    for r in todo:
        pr = now[r]
        if pr < 0 or not pool[r]:        # does not fit, or every card of the rank is played
            out[r] = None
            continue
        own = wp * pr * c_all
        if count + _VAL[r] == 31:        # no reply after a 31
            out[r] = own
            continue
        groups = after[r]
        if groups is None:
            groups = after[r] = _after_groups(count, seq, r, wq)
        exp = 0
        top = n1              # n1 less the cards with a better reply than v
        for v, rs, mine in groups:
            m = -mine         # the card just played is not in the pool the replier draws from
            for x in rs:
                m += pool[x]
            if m:
                # P(best reply == v) * C(n1, h) = C(n1 - above, h) - C(n1 - above - m, h)
                if v:
                    exp += v * (cn[top] - cn[top - m])
                top -= m
        out[r] = own + sign * exp


def _after_groups(count: int, seq: tuple[int, ...], r: int, wq: int) -> tuple:
    """:func:`_reply_groups` after a card of rank ``r`` at ``count`` after ``seq``, each group with 1 when
    it holds ``r`` (one card fewer of it in the pool): ``((worth, ranks, 0 or 1), ...)`` (kept in ``_RG2``)."""
    c2, s2, _ = _PLAY.get((count, seq, r)) or _play(count, seq, r)
    return tuple([(v, rs, 1 if r in rs else 0) for v, rs in _reply_groups(c2, s2, wq)])


def _preferred(g: PegGame, st: _State, p: int) -> tuple[tuple[int, ...], dict]:
    """The ranks player ``p`` could play now, the policy's favourite first (ties: higher rank first), over every
    rank, with each rank's place in it (:func:`_places`), kept together per state."""
    q = 1 - p
    replier = g.policies[p] == "lookahead" and st.left[q] > 0 and not st.gone >> q & 1
    key = (p, st.seq, st.count, st.played if replier else None, st.left[q] if replier else 0)
    hit = g._order.get(key)
    if hit is None:             # the order is kept, not the scores it came from (most of these states come once)
        scores: dict = {}
        fill_scores(scores, _ALL, st.count, st.seq, st.played, st.left[q] if replier else 0, g._worth[p],
                    g._worth[q], -1)
        order = tuple(sorted((r for r in scores if scores[r] is not None), key=lambda r: (scores[r], r), reverse=True))
        hit = g._order.put(key, (order, _places(order)))
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


def choose(g: PegGame, st: _State, p: int, ranks: Iterable[int]) -> "int | None":
    """Return the rank player ``p`` plays from ``ranks`` (its cards) by its policy, or None for go.

    A player holding one rank that fits must play it (the policy plays when it can), so only a choice
    among two or more ranks is scored."""
    room = 31 - st.count
    ranks = {r for r in ranks if _VAL[r] <= room}
    if len(ranks) <= 1:
        return next(iter(ranks), None)
    return best_rank(policy_scores(g, st, p, ranks), ranks)


def best_rank(scores: Mapping[int, "int | None"], ranks: Iterable[int]) -> "int | None":
    """The rank of ``ranks`` with the highest score (ties: the higher rank); None when none fits (go)."""
    best = None
    for r in ranks:
        s = scores[r]
        if s is not None and (best is None or (s, r) > (scores[best], best)):
            best = r
    return best


# --- the exact walk: the other player's hands as one weighted group -------------------------


_ONE = [(x,) for x in range(14)]                                  # the hands less a card, made once (the splits
_DUO = [[(x, y) for y in range(14)] for x in range(14)]           # keep them as keys: one tuple each, not one per hand)
_FITS = [{x: 0 if _VAL[x] <= room else 99 for x in range(14)} for room in range(32)]   # a one-card split's places


_PLACE = Cache(50_000)      # a preference order -> each rank's place in it


def _remove(hand: tuple[int, ...], r: int) -> tuple[int, ...]:
    """``hand`` (sorted ranks) less one ``r``, kept in ``_REM`` (the hot loops read ``_REM.get`` first)."""
    out = _REM.get((hand, r))
    if out is None:
        i = hand.index(r)
        out = _REM.put((hand, r), hand[:i] + hand[i + 1:])
    return out


def _play(count: int, seq: tuple[int, ...], r: int) -> tuple:
    """``(count after a card of rank r, the new tail, the points it makes)``, into ``_PLAY``."""
    c2 = count + _VAL[r]
    return _PLAY.put((count, seq, r), (c2, trim(c2, tail(seq + (r,))), reply_points(count, seq)[r]))


def _over(left: tuple[int, int], played: int) -> _State:
    return _mk(_State, (-1, (), 0, 0, -1, -1, left, played, True))


def _new_count(g: PegGame, leader: int, left: tuple[int, int], played: int) -> _State:
    """:func:`_reset`: the next count led by ``leader`` (or the other, if ``leader`` has no cards)."""
    if g._single_count or not (left[0] or left[1]):
        return _mk(_State, (-1, (), 0, 0, -1, -1, left, played, True))
    if not left[leader]:
        leader = 1 - leader
    return _mk(_State, (leader, (), 0, 0, -1, -1, left, played, False))


def _step(g: PegGame, st: _State, r: "int | None") -> tuple:
    """:func:`step_play` (``r`` a rank) or :func:`step_go` (None) for player ``st.turn``, without the kinds:
    ``(next state, points credited to 0, points credited to 1)`` (the walk's hot path)."""
    p = st.turn
    left = st.left
    if r is None:
        gone = st.gone | (1 << p)
        first = st.first_go if st.first_go >= 0 else p
        if (not left[0] or gone & 1) and (not left[1] or gone & 2):       # every holder has said go
            last = st.last
            pts = g._last_card
            st2 = _new_count(g, last if g._go_last else first, left, st.played)
            return (st2, pts, 0) if g._cr[last] == 0 else (st2, 0, pts)
        return _mk(_State, (1 - p, st.seq, st.count, gone, first, st.last, left, st.played, False)), 0, 0
    count, seq, pts = _PLAY.get((st.count, st.seq, r)) or _play(st.count, st.seq, r)
    left = (left[0] - 1, left[1]) if p == 0 else (left[0], left[1] - 1)
    played = st.played + (1 << 3 * r)
    who = g._cr[p]
    if count == 31:
        st2 = _new_count(g, 1 - p, left, played)
    elif not (left[0] or left[1]):
        pts += g._last_card
        st2 = _over(left, played)
    else:
        gone = st.gone
        if (not left[0] or gone & 1) and (not left[1] or gone & 2):    # every holder has said go
            pts += g._last_card             # the go (last) to the player of the last card: p
            st2 = _new_count(g, p if g._go_last else st.first_go, left, played)
            return (st2, pts, 0) if who == 0 else (st2, 0, pts)
        q = 1 - p
        turn = q if left[q] and not gone >> q & 1 else p
        st2 = _mk(_State, (turn, seq, count, gone, st.first_go, p, left, played, False))
    return (st2, pts, 0) if who == 0 else (st2, 0, pts)


def _walk(g: PegGame, st: _State, mine: tuple[int, ...], group: Mapping[tuple[int, ...], int],
          stats: "dict | None" = None) -> list[int]:
    """Return ``[sum of weight * points credited to 0, ... to 1]`` over the group, both on the policy.

    One node per public state: the advised player's moves are made once for the whole group, and at each
    turn of the other player the group splits by the card each hand plays (its favourite by the policy's
    order at that state); once each player holds at most one card the rest comes from the endgame table.
    ``stats``, when given, collects the weight of each kind the other player's next action makes (only at
    the first node, which must be the other player's).
    """
    a0 = a1 = 0
    wsum = None
    while True:
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
            m2 = _REM.get((mine, r))
            mine = _remove(mine, r) if m2 is None else m2
        st, c0, c1 = _step(g, st, r)
        if c0 or c1:
            if wsum is None:
                wsum = sum(group.values())
            a0 += c0 * wsum
            a1 += c1 * wsum
    # the other player's turn: split the group by what each hand does
    room = 31 - st.count
    if st.left[1] == 1:                     # one card: played if it fits, else go (no choice, so no order)
        order, at = None, _FITS[room]
    elif len(group) < 8:
        held = {x for hand in group for x in hand if _VAL[x] <= room}
        if len(held) <= 1:
            order = tuple(held)
        else:
            scores = policy_scores(g, st, 1, held)
            order = tuple(sorted(held, key=lambda x: (scores[x], x), reverse=True))
        at = _places(order)                 # each rank's place in the order; 99: it does not fit
    else:
        order, at = _preferred(g, st, 1)
    parts: dict = {}
    # each hand's favourite (its rank first in the order; min(hand, key=at.__getitem__), unrolled for the hand's
    # length: most of a ranking's time is this loop) and the hand less it (distinct hands less one r stay distinct)
    held = st.left[1]
    if type(group) is RootGroup:            # a ranking's first split: every hand of k ranks, split once per order
        parts = group.split(order, at)
    elif held == 2:
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
    elif held == 3:
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
    elif held == 4:
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
    elif held == 1:                         # one card each: played if it fits, else go
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
    else:
        place = at.__getitem__
        rem = _REM.get
        for hand, w in group.items():
            r = min(hand, key=place)
            if at[r] == 99:
                r = None
                rest = hand
            else:
                rest = rem((hand, r))
                if rest is None:
                    rest = _remove(hand, r)
            sub = parts.get(r)
            if sub is None:
                parts[r] = {rest: w}
            else:
                sub[rest] = w
    if stats is None and held == 2 and len(mine) == 2 and g.rows:
        return _reply_two(g, st, mine, parts, a0, a1)
    if stats is None and (held <= 2 and len(mine) <= 1 or not mine or held == 1) and g.rows:
        # every part ends in the endgame table (or the go goes on; after its last card the other holds none):
        # what each rank leads to, kept per state without the cards played before (the endgame does not read
        # them), serves every position reaching it
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


def _reply_two(g: PegGame, st: _State, mine: tuple[int, ...], parts: dict, a0: int, a1: int) -> list[int]:
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
                hand = _remove(mine, play)
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


def _with_played(st: _State, played: int) -> _State:
    """``st`` (your turn) with the cards ``played``."""
    return _mk(_State, (0, st.seq, st.count, st.gone, st.first_go, st.last, st.left, played, False))


def _row_rest(g: PegGame, end: bool, st2: "_State | None", base: _State, r: "int | None",
              mine: tuple[int, ...], group: Mapping[tuple[int, ...], int]) -> tuple[int, int]:
    """What follows a row entry's play ``r`` at ``base`` (:func:`_row_entry`: ``st2``, ``end``), you holding
    ``mine``, summed over the group: nothing when it ended the phase, the endgame table's sum, or the walk from the
    state itself (its cards played are this position's)."""
    if st2 is None:
        return 0, 0
    if end:
        return _end_sum(g, _end_table(g, st2, mine), st2, mine, group)
    return _walk(g, _step(g, base, r)[0], mine, group)


def _row(g: PegGame, st: _State) -> dict:
    """The row of ``st`` (the other player's turn): what each of its plays leads to (:func:`_row_entry`), keyed
    by the state without the cards played before and without your cards (what a play leads to does not read
    them: five times as many positions share a row as when they were in its key)."""
    return _table(g._rows, (st.seq, st.count, st.gone, st.first_go, st.last, st.left))


def _table(cache: Cache, key: tuple) -> dict:
    """``cache``'s dict under ``key``, a new empty one if there is none."""
    tbl = cache.get(key)
    if tbl is None:
        tbl = cache.put(key, {})
    return tbl


def _row_entry(g: PegGame, st: _State, r: "int | None") -> tuple:
    """What the play of ``r`` (None: go) at ``st`` leads to: ``(points credited to 0, to 1, the state after it
    or None when it is over, whether that state goes to the endgame table)``; the state's played cards are those
    of the first walk to get here (the endgame does not read them, and a walk that goes on takes its own
    state)."""
    st2, c0, c1 = _step(g, st, r)
    if st2.over:
        return c0, c1, None, False
    left = st2.left
    return c0, c1, st2, left[0] <= 1 and left[1] <= 1 or not left[0] or not left[1]


def _ended(g: PegGame, st: _State, mine: tuple[int, ...], group: Mapping[tuple[int, ...], int]) -> tuple[int, int]:
    """The points credited to (0, 1) from ``st`` summed over the group (weights), by the endgame table."""
    return _end_sum(g, _end_table(g, st, mine), st, mine, group)


def _end_sum(g: PegGame, tbl: dict, st: _State, mine: tuple[int, ...],
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


def _end_table(g: PegGame, st: _State, mine: tuple[int, ...]) -> dict:
    """The endgame table of ``st`` with your cards ``mine``: ``{their cards: (points to 0, points to 1)}``, filled as
    the walks reach it (:func:`_endgame`)."""
    return _table(g._end, (st.turn, st.seq, st.count, st.gone, st.first_go, st.last, mine))


_PAIRS = [[(a, b) for b in range(48)] for a in range(48)]


def _pair(a: int, b: int) -> tuple[int, int]:
    """``(a, b)``, one tuple for each pair of small points (the endgame tables hold tens of thousands of them)."""
    return _PAIRS[a][b] if a < 48 and b < 48 else (a, b)


def _endgame(g: PegGame, st: _State, mine: tuple[int, ...], theirs: tuple[int, ...]) -> tuple[int, int]:
    """The points credited to (0, 1) from ``st`` when each player holds at most one card, or one holds none
    (``mine``, ``theirs``).

    Either nobody chooses any more (a card that fits must be played), or the one who does has no reply to
    look ahead to, so its policy scores only the points a card makes now: the rest depends on the count, its
    tail, the gos and who played last, and not on the cards played before. One table per game (keyed by those
    and the two hands) serves every branch of every walk that reaches it (most of a walk's leaves)."""
    turn, seq, count, gone, first, last, (l0, l1), played, over = st
    if over:
        return 0, 0
    cr = g._cr
    pts_last = g._last_card
    left = [l0, l1]
    hands = [mine, theirs]
    got = [0, 0]
    while True:                 # _step's rules on plain variables (no state tuples): the walk's most run loop
        p = turn
        hand = hands[p]
        if len(hand) > 1:       # one side is out of cards: no reply to look ahead to
            r = choose(g, _mk(_State, (p, seq, count, gone, first, last, tuple(left), played, False)), p, hand)
        else:
            r = hand[0] if hand and _VAL[hand[0]] <= 31 - count else None
        if r is None:           # go
            gone |= 1 << p
            if first < 0:
                first = p
            if (left[0] and not gone & 1) or (left[1] and not gone & 2):
                turn = 1 - p
                continue
            got[cr[last]] += pts_last               # every holder has said go: the go to the last card's player
            leader = last if g._go_last else first
        else:
            hands[p] = _remove(hand, r) if len(hand) > 1 else ()
            count, seq, pts = _PLAY.get((count, seq, r)) or _play(count, seq, r)
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
                leader = p if g._go_last else first
            else:
                got[cr[p]] += pts
                last = p
                q = 1 - p
                turn = q if left[q] and not gone >> q & 1 else p
                continue
        if g._single_count or not (left[0] or left[1]):      # the next count (_new_count), if any
            return _pair(got[0], got[1])
        turn = leader if left[leader] else 1 - leader
        seq, count, gone, first, last = (), 0, 0, -1, -1


def count_reply(stats: dict, count: int, seq: tuple[int, ...], r: "int | None", w: int) -> None:
    """Add weight ``w`` to ``stats`` for each kind a reply of rank ``r`` (None: go) at ``count`` after ``seq`` makes."""
    if r is None:
        stats["go"] = stats.get("go", 0) + w
        return
    _, fif, pair, run, t31 = _peg(count + _VAL[r], seq + (r,))
    for kind, v in (("fifteen", fif), ("pair", pair), ("run", run), ("thirty-one", t31)):
        if v:
            stats[kind] = stats.get(kind, 0) + w
    if fif or pair or run or t31:
        stats["scores"] = stats.get("scores", 0) + w


def play_out(g: PegGame, st: _State, mine: Sequence[int], theirs: Sequence[int]) -> tuple[int, int]:
    """Return the points credited to (0, 1) when both play the rest from ``st`` by their policies."""
    acc = _walk(g, st, tuple(sorted(mine)), {tuple(sorted(theirs)): 1})
    return acc[0], acc[1]


def hand_groups(avail: Sequence[int], k: int, above: int = 0) -> dict[tuple[int, ...], int]:
    """Return ``{ranks: number of card hands}`` of every k-card hand from ``avail[r]`` cards of rank r,
    only cards of value over ``above`` (the other player said go at a count of 31 - above)."""
    return {hand: w for (hand, _), w in zip(_multisets(k), _weights(avail, k, above)) if w}


def _weights(avail: Sequence[int], k: int, above: int) -> list[int]:
    """The number of card hands of each k-rank hand of :func:`_multisets` (0: none), as :func:`hand_groups`: the
    weights with four cards of every rank (made once per k), changed only at the hands holding a rank with fewer
    (a position knows at most a few ranks' cards: its hand, the turn-up, the cards played)."""
    base = _BASE.get(k)
    if base is None:
        by = [[[] for _ in range(5)] for _ in range(14)]
        base = []
        for i, (hand, parts) in enumerate(_multisets(k)):
            w = 1
            for r, m in parts:
                w *= BINOM[m][4]
                by[r][m].append(i)
            base.append(w)
        base = _BASE[k] = (base, by)
    weights, by = base
    out = list(weights)
    for r in range(1, 14):
        a = avail[r] if _VAL[r] > above else 0
        if a >= 4:
            continue
        at_r = by[r]
        for m in range(1, min(k, 4) + 1):
            if m > a:
                for i in at_r[m]:
                    out[i] = 0
            else:
                f, d = BINOM[m][a], BINOM[m][4]
                for i in at_r[m]:
                    out[i] = out[i] // d * f
    return out


_BASE: dict = {}            # k -> (the weights of _multisets(k) with four cards of every rank, hands by rank and count)


class RootGroup(dict):
    """:func:`hand_groups` at the root of a ranking, with ``weights`` aligned with :func:`_multisets` ``(k)`` and
    the indexes of the hands it leaves out (``zeros``: no card hand holds them): the walk's first split of it
    comes from :func:`_root_split` (the same for every position of a game at the same public state) instead of a
    pass over its hands."""

    def __init__(self, avail: Sequence[int], k: int, above: int = 0) -> None:
        weights = _weights(avail, k, above)
        super().__init__((hand, w) for (hand, _), w in zip(_multisets(k), weights) if w)
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
_RESTS: dict = {}           # k -> per k-rank hand of _multisets(k), the hand less its card at each place


def _root_split(order: tuple[int, ...], at: Mapping[int, int], k: int) -> tuple:
    """The split of every k-rank hand of :func:`_multisets` by its favourite in ``order`` (``at``: each rank's
    place in it, 99 if it does not fit): ``([(rank or None for go, indexes of its hands, those hands less it),
    ...], per hand (rank, hand less it))``. It depends on the order only, which a ranking's first node shares
    with every position of the game at the same public state (a lead of the same rank): kept in ``_SPLITS``."""
    key = (order, k)
    hit = _SPLITS.get(key)
    if hit is not None:
        return hit
    rests = _RESTS.get(k)
    if rests is None:
        canon = {h: h for h, _ in _multisets(k - 1)}
        rests = _RESTS[k] = [tuple(canon[h[:j] + h[j + 1:]] for j in range(k)) for h, _ in _multisets(k)]
    by: dict = {}
    where = []
    for i, (hand, _) in enumerate(_multisets(k)):
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


_MULTISETS: dict = {}


def _multisets(k: int) -> list:
    """Every sorted k-rank hand with its ``((rank, how many), ...)``, in order (made once per k)."""
    hit = _MULTISETS.get(k)
    if hit is None:
        from itertools import combinations_with_replacement
        hit = _MULTISETS[k] = [(h, tuple(sorted(Counter(h).items()))) for h in combinations_with_replacement(_ALL, k)]
    return hit


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


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    return tuple(parse_cards(list(value), what=what))


def _rules(game: "str | Ruleset", options: "Mapping[str, Any] | None") -> Ruleset:
    rules = game if isinstance(game, Ruleset) else get_ruleset(game, **dict(options or {}))
    if isinstance(game, Ruleset) and options:
        rules = rules.with_options(**dict(options))
    return rules


def replay(g: PegGame, hand: Sequence[Card], played: Sequence["Card | None"], leader: int):
    """Replay the matching phase so far (cards, None for a go) from ``leader``'s first card.

    Returns ``(state, go thresholds per player, cards played per player)``; a go by a player at
    count c means its remaining cards are all worth more than 31 - c.
    """
    held = g.rules.held
    st = _State(turn=leader, left=(held, held))
    above = [0, 0]
    by = ([], [])
    for tok in played:
        if st.over:
            raise IllegalAction("the matching phase is already over: every card has been played")
        p = st.turn
        who = "you" if p == 0 else "the other player"
        if tok is None:
            if p == 0 and any(c.value <= 31 - st.count for c in hand):
                raise IllegalAction(f"you said go at a count of {st.count}, but you hold a card that fits")
            above[p] = max(above[p], 31 - st.count)
            st = step_go(g, st, [])
            continue
        if st.left[p] == 0:
            raise IllegalAction(f"{who} has no cards left to play {tok}")
        if tok.value > 31 - st.count:
            raise IllegalAction(f"{tok} would take the count from {st.count} past 31")
        if tok.value <= above[p]:
            raise IllegalAction(f"{who} said go earlier holding only cards over {above[p]}, then played {tok}")
        by[p].append(tok)
        st = step_play(g, st, tok.rank, [])
    return st, above, by


def infer_gos(rules: Ruleset, plays: Sequence[tuple[int, "Card | str"]], leader: int) -> list[str]:
    """Return the tokens of a two-hand matching phase (cards, ``"go"``) from its cards alone.

    ``plays``: ``(player, card)`` in order (players 0 and 1), ``leader``: who led. A card
    by the player whose turn it is not means the other said go first (what the table's
    record leaves implicit).

    :raises IllegalAction: a card where nobody could have said go before it.
    """
    g = game_for(rules, 1 - leader)
    held = rules.held
    st = _State(turn=leader, left=(held, held))
    out: list[str] = []
    for p, card in plays:
        c = card if isinstance(card, Card) else parse_cards([card], what="played card")[0]
        # gos until it is p's turn with c fitting under 31: the other said go, or both did and the count
        # ended (p too may have said go first); nobody says go at 0, where every card fits
        for _ in range(4):
            if st.over or st.turn == p and c.value <= 31 - st.count or st.count == 0:
                break
            out.append("go")
            st = step_go(g, st, [])
        if st.over or st.turn != p or st.left[p] == 0 or c.value > 31 - st.count:
            raise IllegalAction(f"{c} cannot have been played by that player at that point")
        out.append(str(c))
        st = step_play(g, st, c.rank, [])
    return out


def position_cards(hand: Any, played: Any, turnup: Any, seen: Any) -> tuple[tuple[Card, ...], list, list[Card]]:
    """Parse a position: ``(your cards, the plays as cards and None for a go, every card you know)``.

    :raises InvalidCard: a bad card or one given twice. :raises IllegalAction: no cards in hand.
    """
    mine = _cards(hand, "hand")
    if isinstance(played, str):
        played = played.replace(",", " ").split()
    toks: list = []
    for t in played:
        if t is None or isinstance(t, str) and t.strip().lower() == "go":
            toks.append(None)
        else:
            toks.extend(_cards([t], "played cards"))
    up = _cards([turnup], "turn-up") if turnup is not None else ()
    known = list(mine) + [c for c in toks if c is not None] + list(up) + list(_cards(seen, "seen cards"))
    dup = [c for c, n in Counter(known).items() if n > 1]
    if dup:
        raise InvalidCard(f"{dup[0]} is given twice (hand, played, turn-up, seen)")
    if not mine:
        raise IllegalAction("give the cards you still hold")
    return mine, toks, known


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
    rules = _rules(game, options)
    if seat not in (None, 0, 1):
        raise IllegalAction(f"in {rules.title} you sit at seat 0 (the dealer) or 1, not {seat!r}")
    seat = (0 if dealer else 1) if seat is None else seat
    return rank_position(game_for(rules, seat), seat, hand, played=played, turnup=turnup, seen=seen)


def rank_position(g: PegGame, seat: int, hand: "Iterable[str | Card] | str",
                  played: "Iterable[str | Card | None] | str" = (), turnup: "str | Card | None" = None,
                  seen: "Iterable[str | Card] | str" = ()) -> PegAdvice:
    """:func:`rank_plays` for the game ``g`` seen from ``seat`` (0 deals, 1 leads)."""
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
        rest = _remove(ranks, r)
        stats: "dict | None" = {} if st2.count and st2.turn == 1 else None      # a reply in this count
        acc = _walk(g, st2, rest, group, stats)
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
    st = _State(turn=0 if seat == 1 else 1, left=(held, held))
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
