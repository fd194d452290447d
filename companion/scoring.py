"""Scoring with breakdowns: shows (hand, crib/pocket, grid lines) and pegging.

Totals are fast (the rank-only part is cached per rank multiset); the item by
item breakdown is built on first access, in announcement order: fifteens,
pairs, runs, flush, nobs (C5), then any zero-hand bonus (L3).

>>> s = score_hand(["3H", "4D", "5H", "5C"], "JS")
>>> s.total, s.text
(12, 'fifteen two, fifteen four, a pair is six, a run of three is nine, and a run of three is twelve')
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, NamedTuple, Sequence

from .cards import DECK, Card, parse_card, parse_cards
from .errors import IllegalAction, InvalidCard
from .rulesets import Ruleset, get_ruleset

__all__ = [
    "Item", "Breakdown", "PegScore", "GridScore", "FlushRule", "FLUSH_RULES",
    "score_hand", "score_peg", "score_line", "score_grid", "number_words",
]


@dataclass(frozen=True, slots=True)
class Item:
    """One scoring item: ``kind`` (fifteen, pair, pair royal, double pair royal,
    run, flush, nobs, heels, zero, thirty-one, go, last), the ``cards`` that
    make it, and its ``points``."""

    kind: str
    cards: tuple[Card, ...]
    points: int

    def to_dict(self) -> dict:
        """Return ``{"kind", "cards": [str], "points"}``."""
        return {"kind": self.kind, "cards": [str(c) for c in self.cards], "points": self.points}


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """Return ``n`` (0..999) in words, as counts are said aloud.

    >>> number_words(24), number_words(31), number_words(121)
    ('twenty-four', 'thirty-one', 'one hundred twenty-one')
    """
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return _TENS[t] + ("-" + _ONES[o] if o else "")
    h, rest = divmod(n, 100)
    return _ONES[h] + " hundred" + (" " + number_words(rest) if rest else "")


# --- rank-only parts (fifteens, pairs, runs) ------------------------------------------

_PAIR_KINDS = {2: ("pair", 2), 3: ("pair royal", 6), 4: ("double pair royal", 12)}


def _rank_items(cards: Sequence[Card]) -> list[Item]:
    """Return fifteens, pairs and runs of ``cards`` in announcement order."""
    items: list[Item] = []
    n = len(cards)
    for size in range(2, n + 1):
        for combo in combinations(cards, size):
            if sum(c.value for c in combo) == 15:
                items.append(Item("fifteen", tuple(sorted(combo)), 2))
    by_rank: dict[int, list[Card]] = {}
    for c in cards:
        by_rank.setdefault(c.rank, []).append(c)
    for rank in sorted(by_rank):
        group = by_rank[rank]
        if len(group) >= 2:
            kind, pts = _PAIR_KINDS[len(group)]
            items.append(Item(kind, tuple(sorted(group)), pts))
    ranks = sorted(by_rank)
    start = 0
    while start < len(ranks):
        end = start
        while end + 1 < len(ranks) and ranks[end + 1] == ranks[end] + 1:
            end += 1
        length = end - start + 1
        if length >= 3:
            span = [by_rank[r] for r in ranks[start:end + 1]]
            for pick in _product(span):
                items.append(Item("run", tuple(pick), length))
        start = end + 1
    return items


def _product(groups: list[list[Card]]) -> Iterable[tuple[Card, ...]]:
    if not groups:
        yield ()
        return
    for head in sorted(groups[0]):
        for tail in _product(groups[1:]):
            yield (head,) + tail


def _rank_points_of(ranks: Sequence[int]) -> int:
    """Return the fifteens+pairs+runs points of the rank multiset ``ranks`` (any order)."""
    values = [min(r, 10) for r in ranks]
    # subset sums to 15, counted by a small DP over the values
    ways = [0] * 16
    ways[0] = 1
    for v in values:
        for t in range(15, v - 1, -1):
            ways[t] += ways[t - v]
    pts = 2 * ways[15]
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    for k in counts.values():
        pts += k * (k - 1)
    distinct = sorted(counts)
    i = 0
    while i < len(distinct):
        j = i
        while j + 1 < len(distinct) and distinct[j + 1] == distinct[j] + 1:
            j += 1
        if j - i + 1 >= 3:
            mult = 1
            for r in distinct[i:j + 1]:
                mult *= counts[r]
            pts += (j - i + 1) * mult
        i = j + 1
    return pts


# A rank multiset is keyed by an int: 4 bits per rank hold how many cards of it.
_RANK_SHIFT = 4
_RKEY: dict[Card, int] = {c: 1 << (_RANK_SHIFT * (c.rank - 1)) for c in DECK}
_RANK_POINTS: dict[int, int] = {}


def _ranks_of_key(key: int) -> list[int]:
    ranks = []
    for r in range(1, 14):
        ranks.extend([r] * ((key >> (_RANK_SHIFT * (r - 1))) & 15))
    return ranks


def _rank_points_key(key: int) -> int:
    """Return (and memoise) the rank-only points of the multiset encoded as ``key``."""
    pts = _RANK_POINTS.get(key)
    if pts is None:
        pts = _RANK_POINTS[key] = _rank_points_of(_ranks_of_key(key))
    return pts


def _rank_points(ranks: tuple[int, ...]) -> int:
    """Return the fifteens+pairs+runs points of a rank multiset."""
    key = 0
    for r in ranks:
        key += 1 << (_RANK_SHIFT * (r - 1))
    return _rank_points_key(key)


# --- shows ---------------------------------------------------------------------------

_RULESET_CACHE: dict[str, Ruleset] = {}


def _ruleset(game: "str | Ruleset") -> Ruleset:
    if isinstance(game, Ruleset):
        return game
    r = _RULESET_CACHE.get(game)
    if r is None:
        r = _RULESET_CACHE[game] = get_ruleset(game)
    return r


def _cards(cards: "Iterable[str | Card]") -> tuple[Card, ...]:
    if isinstance(cards, str):
        return parse_cards(cards)
    return tuple(c if c.__class__ is Card else parse_card(c) for c in cards)


class Breakdown:
    """A counted show: ``total``, ``items`` (built on first access) and ``text``.

    ``cards`` are the held cards (or a grid line), ``starter`` the turn-up
    (None for a grid line, whose centre card may be among ``cards``).
    """

    __slots__ = ("cards", "starter", "total", "_items", "_flush", "_nobs", "_zero", "label")

    def __init__(self, cards, starter, total, flush, nobs, zero, *, label=""):
        self.cards = cards
        self.starter = starter
        self.total = total
        self._flush = flush
        self._nobs = nobs
        self._zero = zero
        self._items = None
        self.label = label

    @property
    def items(self) -> tuple[Item, ...]:
        """Every scoring item in announcement order; their points add up to ``total``."""
        if self._items is None:
            every = self.cards + ((self.starter,) if self.starter is not None else ())
            items = _rank_items(every)
            if self._flush:
                items.append(Item("flush", self._flush[0], self._flush[1]))
            if self._nobs is not None:
                items.append(Item("nobs", (self._nobs,), 1))
            if self._zero:
                items.append(Item("zero", (), self._zero))
            self._items = tuple(items)
        return self._items

    @property
    def text(self) -> str:
        """The count as people say it: "fifteen two, fifteen four, and a pair is six"."""
        return show_text(self.items)

    def to_dict(self) -> dict:
        """Return ``{"total", "items": [...], "text"}`` (plus ``cards``/``starter``)."""
        d = {"total": self.total, "items": [i.to_dict() for i in self.items], "text": self.text,
             "cards": [str(c) for c in self.cards]}
        if self.starter is not None:
            d["starter"] = str(self.starter)
        if self.label:
            d["label"] = self.label
        return d

    def __repr__(self) -> str:
        return f"<Breakdown {self.total}: {self.text}>"


_SHOW_NAMES = {"pair": "a pair", "pair royal": "a pair royal", "double pair royal": "a double pair royal"}


def show_text(items: Sequence[Item]) -> str:
    """Return the spoken count of show ``items`` ("fifteen two, ... and a pair is six")."""
    if not items:
        return "nothing"
    phrases = []
    running = 0
    for it in items:
        running += it.points
        total = number_words(running)
        if it.kind == "fifteen":
            phrases.append(f"fifteen {total}")
        elif it.kind in _SHOW_NAMES:
            phrases.append(f"{_SHOW_NAMES[it.kind]} is {total}")
        elif it.kind == "run":
            phrases.append(f"a run of {number_words(it.points)} is {total}")
        elif it.kind == "flush":
            phrases.append(f"a flush of {number_words(it.points)} is {total}")
        elif it.kind == "nobs":
            phrases.append(f"one for his nob is {total}")
        elif it.kind == "zero":
            phrases.append(f"nothing, so the zero-hand bonus scores {total}")
        else:
            phrases.append(f"{it.kind} is {total}")
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


class FlushRule(NamedTuple):
    """What a show's flush scores under one value of a ruleset's ``hand_flush`` / ``pocket_flush``.

    The one encoding of the flush rules: scoring, the exact distributions
    (:mod:`companion.stats`) and the discard advice all read :data:`FLUSH_RULES`.
    """

    with_starter: bool      # every held card and the starter in one suit: held + 1 (C5)
    held_alone: bool        # every held card in one suit, the starter not: held (a hand's flush; not a crib's, C5)
    four_of_five: bool      # G7: any four of the four held cards and the starter in one suit: 4, all five 5

    def points(self, held: int, in_suit: int, starter_in_suit: bool) -> int:
        """Return the flush points of a show of ``held`` cards, ``in_suit`` of them in one suit and the starter
        in it or not (for the suit that holds the most of them; any other scores nothing).

        >>> FLUSH_RULES["five"].points(4, 4, False), FLUSH_RULES["hand"].points(4, 4, False)
        (0, 4)
        >>> FLUSH_RULES["four"].points(4, 3, True), FLUSH_RULES["four"].points(4, 4, True)
        (4, 5)
        """
        if in_suit == held:
            if starter_in_suit:
                return held + 1 if self.with_starter else 0
            return held if self.held_alone else 0
        if self.four_of_five and held == 4 and in_suit == 3 and starter_in_suit:
            return 4
        return 0


#: Every flush rule by its name in the rulesets (``hand_flush``, ``pocket_flush``).
FLUSH_RULES: dict[str, FlushRule] = {
    "hand": FlushRule(with_starter=True, held_alone=True, four_of_five=False),
    "five": FlushRule(with_starter=True, held_alone=False, four_of_five=False),
    "four": FlushRule(with_starter=True, held_alone=True, four_of_five=True),
    "none": FlushRule(with_starter=False, held_alone=False, four_of_five=False),
}


class _HandRules:
    """The few fields of a ruleset that a show needs, looked up once per ruleset."""

    __slots__ = ("rules", "held", "hand_flush", "pocket_flush", "pocket_four", "nobs", "zero", "zero_pocket")

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.held = rules.held
        # the flush rules as (with the starter, held cards alone); four of five is counted by _four_of_five
        hand, pocket = FLUSH_RULES[rules.hand_flush], FLUSH_RULES[rules.pocket_flush]
        self.hand_flush = (False, False) if hand.four_of_five else (hand.with_starter, hand.held_alone)
        self.pocket_flush = (False, False) if pocket.four_of_five else (pocket.with_starter, pocket.held_alone)
        self.pocket_four = pocket.four_of_five
        self.nobs = rules.nobs
        self.zero = rules.zero_bonus
        self.zero_pocket = rules.zero_bonus if rules.zero_bonus_pocket else 0


_HAND_RULES: dict = {}
_JACK_OF = {c.suit: c for c in DECK if c.rank == 11}


def _hand_rules(game: "str | Ruleset") -> _HandRules:
    if isinstance(game, Ruleset):
        hr = _HAND_RULES.get(id(game))
        if hr is None or hr.rules is not game:
            if len(_HAND_RULES) > 256:
                _HAND_RULES.clear()
            hr = _HAND_RULES[id(game)] = _HandRules(game)
        return hr
    hr = _HAND_RULES.get(game) if isinstance(game, str) else None
    if hr is None:
        hr = _HandRules(_ruleset(game))
        _HAND_RULES[game] = hr
    return hr


def _show_cards(hand, starter, want: int, rules: Ruleset, *, crib: bool):
    """Return ``(cards, starter)`` parsed and checked (slow path of :func:`score_hand`)."""
    if not isinstance(hand, (str, tuple, list)):
        try:
            hand = tuple(hand)
        except TypeError:
            raise InvalidCard(f"a hand is a list of cards, not {hand!r}") from None
    cards = _cards(hand)
    top = parse_card(starter)
    if len(cards) != want:
        what = rules.pocket_name if crib else "hand"
        raise InvalidCard(f"a {rules.title} {what} holds {want} cards, not {len(cards)}")
    seen: set[Card] = set()
    for c in cards + (top,):
        if c in seen:
            raise InvalidCard(f"duplicate card: {c}" + (" (it is the starter)" if c is top else ""))
        seen.add(c)
    return cards, top


def score_hand(hand: "Iterable[str | Card]", starter: "str | Card", *, crib: bool = False,
               game: "str | Ruleset" = "cribbage") -> Breakdown:
    """Return the counted show of ``hand`` with the turn-up ``starter`` under ``game``.

    ``crib=True`` scores the crib/pocket (its flush rule; the zero-hand bonus
    only where the ruleset covers the pocket). Cards are strings or
    :class:`Card` objects; ``game`` is a preset name or a :class:`Ruleset`.

    >>> score_hand("5H 5S 5D JC".split(), "5C").total
    29
    >>> score_hand("2H 4S 6D 8C".split(), "KD", game="lands-end").text
    'nothing, so the zero-hand bonus scores five'

    :raises InvalidCard: a bad token, a duplicate card, or the wrong number of cards.
    :raises UnknownGame: an unknown preset name.
    """
    hr = _HAND_RULES.get(game) if game.__class__ is str else None
    if hr is None:
        hr = _hand_rules(game)
    want = 4 if crib else hr.held
    cards = hand
    try:
        if hand.__class__ is not tuple:
            if hand.__class__ is str:
                raise KeyError(hand)
            cards = tuple(hand)
        key = _RKEY[starter]
        for c in cards:
            key += _RKEY[c]
        top = starter
        seen = set(cards)
        seen.add(top)
        if len(cards) != want or len(seen) != want + 1:
            raise KeyError
    except (KeyError, TypeError, AttributeError):
        cards, top = _show_cards(cards, starter, want, hr.rules, crib=crib)
        key = _RKEY[top]
        for c in cards:
            key += _RKEY[c]
    total = _RANK_POINTS.get(key)
    if total is None:
        total = _rank_points_key(key)
    flush = None
    with_top, alone = hr.pocket_flush if crib else hr.hand_flush
    if with_top:
        s = cards[0].suit
        for c in cards:
            if c.suit != s:
                break
        else:
            if top.suit == s:
                flush = (tuple(sorted(cards + (top,))), want + 1)
                total += want + 1
            elif alone:
                flush = (tuple(sorted(cards)), want)
                total += want
    if crib and hr.pocket_four:
        flush = _four_of_five(cards + (top,))
        if flush:
            total += flush[1]
    nobs = None
    if hr.nobs:
        jack = _JACK_OF[top.suit]
        if jack in cards:
            nobs = jack
            total += 1
    zero = 0
    if not total:
        zero = total = hr.zero_pocket if crib else hr.zero
    return Breakdown(cards, top, total, flush, nobs, zero, label="crib" if crib else "hand")


def _four_of_five(cards: tuple) -> "tuple[tuple, int] | None":
    """Return ``(cards, points)`` of a flush of four or five among five cards (G5, G7), or None."""
    by_suit: dict[str, list] = {}
    for c in cards:
        by_suit.setdefault(c.suit, []).append(c)
    best = max(by_suit.values(), key=len)
    return (tuple(sorted(best)), len(best)) if len(best) >= 4 else None


# --- grid lines ----------------------------------------------------------------------


def score_line(cards: "Iterable[str | Card]", *, game: "str | Ruleset" = "table-top-cribbage",
               center: "str | Card | None" = None, label: str = "") -> Breakdown:
    """Return the counted 5-card grid line ``cards`` under a tabletop ``game``.

    Flush per ``line_flush`` ("five": all five, 5; "four": four of five, 4);
    nobs only when the ruleset scores it in the centre lines and ``center``
    (the centre card, which must be in this line) is given.

    >>> score_line("7C 7D 7H 8S 9S".split()).total
    21

    :raises InvalidCard: a bad token, a duplicate, or not 5 cards.
    """
    rules = _ruleset(game)
    cs = parse_cards(list(cards), what="grid line")
    if len(cs) != 5:
        raise InvalidCard(f"a grid line holds 5 cards, not {len(cs)}")
    total = _rank_points(tuple(sorted(c.rank for c in cs)))
    flush = None
    if rules.line_flush != "none":
        flush = _four_of_five(cs)
        if flush and (flush[1] == 5 or rules.line_flush == "four"):
            total += flush[1]
        else:
            flush = None
    nobs = None
    if center is not None and rules.nobs and rules.grid_nobs == "center":
        mid = parse_card(center)
        if mid not in cs:
            raise InvalidCard(f"the centre card {mid} is not in this line")
        for c in cs:
            if c.rank == 11 and c.suit == mid.suit and c is not mid:
                nobs = c
                total += 1
    zero = 0
    if total == 0 and rules.zero_bonus:
        zero = total = rules.zero_bonus
    return Breakdown(cs, None, total, flush, nobs, zero, label=label)


@dataclass(frozen=True)
class GridScore:
    """A counted 5x5 layout: ``rows`` (the non-dealer's lines, top to bottom),
    ``cols`` (the dealer's lines, left to right) and their totals."""

    rows: tuple[Breakdown, ...]
    cols: tuple[Breakdown, ...]

    @property
    def rows_total(self) -> int:
        """Points of the five rows."""
        return sum(b.total for b in self.rows)

    @property
    def cols_total(self) -> int:
        """Points of the five columns."""
        return sum(b.total for b in self.cols)

    def to_dict(self) -> dict:
        """Return rows, columns and both totals as plain data."""
        return {"rows": [b.to_dict() for b in self.rows], "cols": [b.to_dict() for b in self.cols],
                "rows_total": self.rows_total, "cols_total": self.cols_total}


def score_grid(cards: "Iterable[str | Card]", *, game: "str | Ruleset" = "table-top-cribbage") -> GridScore:
    """Return every row and column of a 25-card layout given in row order (centre = 13th card).

    :raises InvalidCard: a bad token, a duplicate, or not 25 cards.
    """
    cs = parse_cards(list(cards), what="grid")
    if len(cs) != 25:
        raise InvalidCard(f"a grid holds 25 cards, not {len(cs)}")
    center = cs[12]
    rows = tuple(score_line(cs[r * 5:(r + 1) * 5], game=game, center=center if r == 2 else None,
                            label=f"row {r + 1}") for r in range(5))
    cols = tuple(score_line(cs[c::5], game=game, center=center if c == 2 else None,
                            label=f"column {c + 1}") for c in range(5))
    return GridScore(rows, cols)


# --- pegging -------------------------------------------------------------------------


@dataclass(frozen=True)
class PegScore:
    """The points of the last card of a count: ``items``, ``points``, the running ``count``."""

    cards: tuple[Card, ...]
    count: int
    items: tuple[Item, ...]

    @property
    def points(self) -> int:
        """Points the last card made."""
        return sum(i.points for i in self.items)

    total = points

    @property
    def text(self) -> str:
        """The announcement: "fifteen for two", "twenty-four for a run of three"."""
        return peg_text(self.count, self.items)

    def to_dict(self) -> dict:
        """Return ``{"points", "items", "count", "text"}``."""
        return {"points": self.points, "items": [i.to_dict() for i in self.items],
                "count": self.count, "text": self.text}


def peg_text(count: int, items: Sequence[Item]) -> str:
    """Return the pegging announcement for a card that made ``count`` and scored ``items``."""
    head = number_words(count)
    if not items:
        return head
    points = number_words(sum(i.points for i in items))
    others = [i for i in items if i.kind not in ("fifteen", "thirty-one")]
    names = [("a run of " + number_words(i.points)) if i.kind == "run" else _SHOW_NAMES[i.kind]
             for i in others]
    if len(others) == len(items):
        if len(items) == 1 and items[0].kind == "run":
            return f"{head} for {names[0]}"
        return f"{head}, {' and '.join(names)} for {points}"
    if not others:
        return f"{head} for {points}"
    return f"{head} and {' and '.join(names)} for {points}"


def score_peg(count: "Iterable[str | Card]", *, game: "str | Ruleset" = "cribbage") -> PegScore:
    """Return the points of the last card of ``count`` (the cards played since the count last reset).

    >>> score_peg(["5H", "6S", "4D"]).text
    'fifteen and a run of three for five'

    :raises InvalidCard: a bad token or a card played twice.
    :raises IllegalAction: the count would pass 31, or the game has no pegging.
    """
    rules = _ruleset(game)
    if not rules.pegging:
        raise IllegalAction(f"{rules.title} has no matching phase (no pegging)")
    cs = parse_cards(list(count), what="count")
    if not cs:
        raise IllegalAction("no card played: the count is empty")
    total = sum(c.value for c in cs)
    if total > 31:
        raise IllegalAction(f"{cs[-1]} would make the count {total}, over 31")
    last = cs[-1]
    items: list[Item] = []
    if total == 15:
        items.append(Item("fifteen", cs, 2))
    elif total == 31:
        items.append(Item("thirty-one", cs, 2))
    k = 1
    while k < len(cs) and cs[-1 - k].rank == last.rank:
        k += 1
    if k >= 2:
        kind, pts = _PAIR_KINDS[k]
        items.append(Item(kind, cs[-k:], pts))
    for n in range(len(cs), 2, -1):
        ranks = {c.rank for c in cs[-n:]}
        if len(ranks) == n and max(ranks) - min(ranks) == n - 1:
            items.append(Item("run", tuple(sorted(cs[-n:])), n))
            break
    return PegScore(cs, total, tuple(items))
