"""The pegging advice's model: the count, the game, the state, a play, a go, the policy and its choice.

Read this first (docs/advice.md, "Pegging"). Both engines import it: the two-hand walk
(:mod:`companion.advice.pegging`, exact) and the three- and four-hand one
(:mod:`companion.advice.pegging_multi`, exact late in a hand, sampled before).

* **The count** depends on ranks only: a card's points (:func:`peg_points`, equal to
  :func:`companion.scoring.score_peg`) read the count and the count's last ranks, and only their
  :func:`tail` (then :func:`trim`) can still make points, so positions that differ only before it share
  every table.
* **The game** (:class:`PegGame`, two-hand): who is credited with a player's points (L2), what a point is
  worth to each player by its goal, who leads after a go (L9).
* **The state** (:class:`State`): whose turn, the count, who said go, the cards left and the cards played
  per rank. **A play** (:func:`step_play`) and **a go** (:func:`step_go`) move it on by the table's rules
  (pinned to :mod:`companion.deal.pegging` by tests/test_pegging_engines.py).
* **The policy** every player follows (:data:`POLICY`, ``"lookahead"``): for each card that fits, the
  worth of the points it makes now less the next player's expected best reply, the reply's cards drawn at
  random from the cards not yet played (:func:`policy_scores`, :func:`fill_scores`: integers, so ties are
  exact). **The choice** (:func:`choose`) plays the highest, ties to the higher rank, and says go only when
  nothing fits. ``"greedy"`` scores only the points now.
* **The other player's hands** (:func:`hand_groups`): grouped by rank multiset, each weighted by the card
  hands it stands for.

Every table here is a :class:`Cache`: bounded, and what it keeps changes no figure.
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

from ..cards import Card, parse_cards
from ..errors import IllegalAction, InvalidCard, UnknownGame
from ..rulesets import Ruleset, get_ruleset

#: The policy every player follows (docs/advice.md, "The policy both players follow"); ``"greedy"`` the other candidate.
POLICY = "lookahead"
POLICIES = ("lookahead", "greedy")
#: What a reply can make (the advice's reply chances), and ``"go"``.
KINDS = ("fifteen", "pair", "run", "thirty-one", "go")


# --- memo tables ----------------------------------------------------------------------------------------


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


# --- the count ------------------------------------------------------------------------------------------


VALUE = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)     # a card's value in the count, by rank (1..13)
_PAIR = {2: 2, 3: 6, 4: 12}                                 # a pair, pair royal, double pair royal


# the count's tables, shared by every game and call (bounds in entries)
_PEG = Cache(100_000)           # (total, tail) -> peg_kinds
_TAIL = Cache(200_000)          # count's ranks -> their tail()
_RP = Cache(200_000)            # (count, tail) -> reply_points
_RG = Cache(200_000)            # (count, tail, wq) -> the reply groups (_reply_groups)
_RG2 = Cache(200_000)           # (count, tail, wq) -> per rank r, the reply groups after a card of r (fill_scores)
WITHOUT = Cache(200_000)        # (hand, r) -> hand less one r (without)
COUNT_AFTER = Cache(200_000)    # (count, tail, r) -> what a card of r does to the count (count_after)


def peg_points(seq: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    """Return ``(total, fifteen, pair, run, thirty-one)`` points of the last card of a count, by ranks.

    ``seq``: the ranks (1..13) played since the count last reset, in order. Equal to
    :func:`companion.scoring.score_peg` for any cards of these ranks (tests/test_pegging_advice.py).

    >>> peg_points((5, 6, 4))
    (5, 2, 0, 3, 0)
    """
    return peg_kinds(sum(VALUE[r] for r in seq), seq)


def peg_kinds(total: int, seq: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    """:func:`peg_points` of a count reaching ``total`` whose last cards are ``seq`` (a :func:`tail` will do)."""
    out = _PEG.get((total, seq))
    if out is None:
        out = _PEG.put((total, seq), _peg_kinds(total, seq))
    return out


def _peg_kinds(total: int, seq: tuple[int, ...]) -> tuple[int, int, int, int, int]:
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
_GAP_LO = tuple(sum(VALUE[z] for z in range(7) if m >> z & 1) for m in range(128))
_GAP_HI = tuple(sum(VALUE[z + 7] for z in range(7) if m >> z & 1) for m in range(128))


def reply_points(count: int, seq: tuple[int, ...]) -> tuple[int, ...]:
    """Return, per rank x (index 1..13), the points a card of rank x makes played at ``count`` after the
    count's ranks ``seq`` (or their :func:`tail`); -1 if it does not fit under 31."""
    key = (count, seq)
    out = _RP.get(key)
    if out is None:
        out = _RP.put(key, _reply_row(count, seq))
    return out


def _reply_row(count: int, seq: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`reply_points` computed: ``peg_kinds(count + value, seq + (x,))[0]`` for every rank x at once (the
    fifteen and 31 from the count, the pair from the trailing block, the run grown card by card back from x;
    equal to peg_kinds, tests/test_pegging_advice.py)."""
    last = seq[-1] if seq else 0
    k = 0
    while k < len(seq) and seq[-1 - k] == last:
        k += 1
    back = seq[::-1]
    out = [-1]
    for x in range(1, 14):
        total = count + VALUE[x]
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


def without(hand: tuple[int, ...], r: int) -> tuple[int, ...]:
    """``hand`` (sorted ranks) less one ``r``, kept in ``WITHOUT`` (the hot loops read ``WITHOUT.get`` first)."""
    out = WITHOUT.get((hand, r))
    if out is None:
        i = hand.index(r)
        out = WITHOUT.put((hand, r), hand[:i] + hand[i + 1:])
    return out


def count_after(count: int, seq: tuple[int, ...], r: int) -> tuple:
    """``(count after a card of rank r, the new tail, the points it makes)``, into ``COUNT_AFTER``."""
    c2 = count + VALUE[r]
    return COUNT_AFTER.put((count, seq, r), (c2, trim(c2, tail(seq + (r,))), reply_points(count, seq)[r]))


def count_reply(stats: dict, count: int, seq: tuple[int, ...], r: "int | None", w: int) -> None:
    """Add weight ``w`` to ``stats`` for each kind a reply of rank ``r`` (None: go) at ``count`` after ``seq`` makes."""
    if r is None:
        stats["go"] = stats.get("go", 0) + w
        return
    _, fif, pair, run, t31 = peg_kinds(count + VALUE[r], seq + (r,))
    for kind, v in (("fifteen", fif), ("pair", pair), ("run", run), ("thirty-one", t31)):
        if v:
            stats[kind] = stats.get(kind, 0) + w
    if fif or pair or run or t31:
        stats["scores"] = stats.get("scores", 0) + w


# --- the game: who is credited, what points are worth --------------------------------------


@dataclass(frozen=True)
class PegGame:
    """The matching-phase rules of a two-hand game, seen from player 0 ("you"); player 1 is the other.

    ``goal[p]`` is +1 when side p wins by reaching the target and -1 when it loses by
    it; points made by player p are credited to ``credit[p]``: p (``pegging_credit = self``) or
    the other (``next_opponent``, L2); ``worth[p]`` is what one point made by p is
    worth to p by its goal; the net to you of a result is
    ``goal[0] * points credited to you - goal[1] * points credited to the other``.
    After a go the next count is led by the last player to play (``go_lead =
    last_player``, L9) or by the player who said go first (``other_player``).
    """

    rules: Ruleset
    goal: tuple[int, int]
    policies: tuple[str, str] = (POLICY, POLICY)
    #: the fast walk keeps per state what the other player's last plays lead to (``pegging._row_entry``); False:
    #: it walks them as any other node (tests/test_pegging_advice.py compares the two)
    rows: bool = True
    # from the rules, set once (the walks read them at every step):
    credit: tuple[int, int] = field(init=False, repr=False, compare=False)    # the player credited with p's points
    worth: tuple[int, int] = field(init=False, repr=False, compare=False)     # one point made by p, to p
    single: bool = field(init=False, repr=False, compare=False)               # one count only (five-card)
    go_last: bool = field(init=False, repr=False, compare=False)              # after a go the last player leads
    last_card: int = field(init=False, repr=False, compare=False)             # the go's (the last card's) points
    # the walks' tables, per game (its states hash fast; its rules do not):
    scores_memo: Cache = field(init=False, repr=False, compare=False)    # the policy's scores (policy_scores)
    order_memo: Cache = field(init=False, repr=False, compare=False)     # the other's order (pegging._preferred)
    two_memo: Cache = field(init=False, repr=False, compare=False)       # your choice of two (pegging._choose_two)
    end_memo: Cache = field(init=False, repr=False, compare=False)       # endgame tables (pegging._endgame)
    rows_memo: Cache = field(init=False, repr=False, compare=False)      # rows (pegging._row_entry)

    def __post_init__(self) -> None:
        cr = (0, 1) if self.rules.pegging_credit == "self" else (1, 0)
        put = functools.partial(object.__setattr__, self)
        put("credit", cr)
        put("worth", tuple(self.goal[p] if cr[p] == p else -self.goal[cr[p]] for p in (0, 1)))
        put("single", self.rules.pegging_count == "single")
        put("go_last", self.rules.go_lead == "last_player")
        put("last_card", self.rules.last_card)
        put("scores_memo", Cache(200_000))
        put("order_memo", Cache(200_000))
        put("two_memo", Cache(200_000))
        put("end_memo", Cache(50_000))
        put("rows_memo", Cache(50_000))

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


class State(NamedTuple):
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


_mk = tuple.__new__     # _mk(State, fields): a state without NamedTuple's keyword __new__ (the walk's hot path)


def _reset(g: PegGame, st: State, leader: int, left, played) -> State:
    if g.single or not (left[0] or left[1]):
        return State(turn=-1, left=left, played=played, over=True)
    if not left[leader]:
        leader = 1 - leader
    return State(turn=leader, left=left, played=played)


def _end_count(g: PegGame, st: State, credits: list) -> State:
    """Nobody can continue under 31: go (last, in a single count) to the last player, then a new count."""
    last = st.last
    credits.append((g.credit[last], g.rules.last_card, "go" if not g.single else "last"))
    leader = last if g.go_last else st.first_go
    return _reset(g, st, leader, st.left, st.played)


def step_play(g: PegGame, st: State, r: int, credits: list) -> State:
    """Player ``st.turn`` plays a card of rank ``r``; append ``(player credited, points, kind)`` to ``credits``."""
    p = st.turn
    count = st.count + VALUE[r]
    seq = trim(count, tail(st.seq + (r,)))
    left = (st.left[0] - 1, st.left[1]) if p == 0 else (st.left[0], st.left[1] - 1)
    played = st.played + (1 << 3 * r)
    pts = reply_points(st.count, st.seq)[r]        # the points of every rank after this count, cached per count
    if pts:
        credits.append((g.credit[p], pts, "play"))
    if count == 31:
        return _reset(g, st, 1 - p, left, played)
    if not (left[0] or left[1]):
        credits.append((g.credit[p], g.rules.last_card, "last"))
        return State(turn=-1, left=left, played=played, over=True)
    gone = st.gone
    q = 1 - p
    if (not left[0] or gone & 1) and (not left[1] or gone & 2):        # every holder has said go
        return _end_count(g, _mk(State, (p, seq, count, gone, st.first_go, p, left, played, False)), credits)
    turn = q if left[q] and not gone >> q & 1 else p
    return _mk(State, (turn, seq, count, gone, st.first_go, p, left, played, False))


def step_go(g: PegGame, st: State, credits: list) -> State:
    """Player ``st.turn`` says go (it holds no card that fits)."""
    p = st.turn
    gone = st.gone | (1 << p)
    first = st.first_go if st.first_go >= 0 else p
    nxt = State(turn=1 - p, seq=st.seq, count=st.count, gone=gone, first_go=first, last=st.last, left=st.left,
                 played=st.played)
    if all(gone >> s & 1 for s in (0, 1) if st.left[s]):
        return _end_count(g, nxt, credits)
    return nxt


# --- the policy ---------------------------------------------------------------------------


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


RANKS = tuple(range(1, 14))
BINOM = [[comb(m, h) for m in range(53)] for h in range(14)]     # BINOM[h][m] = C(m, h): h of m cards
_POOL = Cache(100_000)                                           # played -> cards not yet played per rank


def policy_scores(g: PegGame, st: State, p: int, ranks: Iterable[int] = RANKS) -> dict[int, "int | None"]:
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
    out = g.scores_memo.get(key)
    if out is None:
        out = g.scores_memo.put(key, {})
    todo = [r for r in ranks if r not in out]
    if todo:
        fill_scores(out, todo, count, seq, played, h, g.worth[p], g.worth[1 - p], -1)
    return out


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
        if count + VALUE[r] == 31:        # no reply after a 31
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
    c2, s2, _ = COUNT_AFTER.get((count, seq, r)) or count_after(count, seq, r)
    return tuple([(v, rs, 1 if r in rs else 0) for v, rs in _reply_groups(c2, s2, wq)])


def choose(g: PegGame, st: State, p: int, ranks: Iterable[int]) -> "int | None":
    """Return the rank player ``p`` plays from ``ranks`` (its cards) by its policy, or None for go.

    A player holding one rank that fits must play it (the policy plays when it can), so only a choice
    among two or more ranks is scored."""
    room = 31 - st.count
    ranks = {r for r in ranks if VALUE[r] <= room}
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

# --- the other player's hands, by rank -----------------------------------------------------------


def hand_groups(avail: Sequence[int], k: int, above: int = 0) -> dict[tuple[int, ...], int]:
    """Return ``{ranks: number of card hands}`` of every k-card hand from ``avail[r]`` cards of rank r,
    only cards of value over ``above`` (the other player said go at a count of 31 - above)."""
    return {hand: w for (hand, _), w in zip(rank_hands(k), hand_weights(avail, k, above)) if w}


def hand_weights(avail: Sequence[int], k: int, above: int) -> list[int]:
    """The number of card hands of each k-rank hand of :func:`rank_hands` (0: none), as :func:`hand_groups`: the
    weights with four cards of every rank (made once per k), changed only at the hands holding a rank with fewer
    (a position knows at most a few ranks' cards: its hand, the turn-up, the cards played)."""
    base = _BASE.get(k)
    if base is None:
        by = [[[] for _ in range(5)] for _ in range(14)]
        base = []
        for i, (hand, parts) in enumerate(rank_hands(k)):
            w = 1
            for r, m in parts:
                w *= BINOM[m][4]
                by[r][m].append(i)
            base.append(w)
        base = _BASE[k] = (base, by)
    weights, by = base
    out = list(weights)
    for r in range(1, 14):
        a = avail[r] if VALUE[r] > above else 0
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


_BASE: dict = {}            # k -> (the weights of rank_hands(k) with four cards of every rank, hands by rank and count)


_MULTISETS: dict = {}


def rank_hands(k: int) -> list:
    """Every sorted k-rank hand with its ``((rank, how many), ...)``, in order (made once per k)."""
    hit = _MULTISETS.get(k)
    if hit is None:
        from itertools import combinations_with_replacement
        hit = _MULTISETS[k] = [(h, tuple(sorted(Counter(h).items()))) for h in combinations_with_replacement(RANKS, k)]
    return hit

# --- positions -----------------------------------------------------------------------------------


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    return tuple(parse_cards(list(value), what=what))


def rules_of(game: "str | Ruleset", options: "Mapping[str, Any] | None") -> Ruleset:
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

    def step(st: State, r: "int | None") -> State:
        return step_go(g, st, []) if r is None else step_play(g, st, r, [])
    return replay_plays(State(turn=leader, left=(held, held)), played, hand, 0,
                        lambda p: "you" if p == 0 else "the other player", step)


def replay_plays(st, played: Sequence["Card | None"], hand: Sequence[Card], you: int, who, step):
    """Replay ``played`` (cards, None for a go) from the state ``st`` with ``step(state, rank or None)``, checking
    each against what the plays before allow (the engines' own :func:`replay`: two-hand here,
    ``pegging_multi.replay``). ``you``: your player, holding ``hand``; ``who(p)``: player p in a refusal.

    Returns ``(state, go thresholds per player, cards played per player)``.
    :raises IllegalAction: a play or a go the plays before rule out.
    """
    above = [0] * len(st.left)
    by: list[list[Card]] = [[] for _ in st.left]
    for tok in played:
        if st.over:
            raise IllegalAction("the matching phase is already over: every card has been played")
        p = st.turn
        if tok is None:
            if p == you and any(c.value <= 31 - st.count for c in hand):
                raise IllegalAction(f"you said go at a count of {st.count}, but you hold a card that fits")
            above[p] = max(above[p], 31 - st.count)
            st = step(st, None)
            continue
        if st.left[p] == 0:
            raise IllegalAction(f"{who(p)} has no cards left to play {tok}")
        if tok.value > 31 - st.count:
            raise IllegalAction(f"{tok} would take the count from {st.count} past 31")
        if tok.value <= above[p]:
            raise IllegalAction(f"{who(p)} said go earlier holding only cards over {above[p]}, then played {tok}")
        by[p].append(tok)
        st = step(st, tok.rank)
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
    st = State(turn=leader, left=(held, held))
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
