"""Exact score distributions over every possible show, counted by rank multiset.

A show's score is its rank-only part (fifteens, pairs, runs: a function of the
rank multiset) plus a flush and nobs (which depend on suits). So instead of
scoring all 12,994,800 four-card hands with every starter one by one, this
module walks the 13 starter ranks and every multiset of held ranks (23,660
pairs for four-card hands), and counts combinatorially how many suit
assignments give a flush with or without the starter, nobs, or neither. The
preset's rules decide the rest: hand or crib flush rule, nobs, and the
zero-hand bonus (under Land's End a 0 hand scores 5, so the 0 count moves to 5).

Grid games have no hands; their distribution is over every 5-card line
(2,598,960 of them) under the preset's line flush rule and zero bonus,
without nobs (which needs the centre card in a centre line).

>>> d = distribution("cribbage")
>>> d.hands, d.counts[0], d.counts[29], round(d.mean, 4)
(12994800, 1009008, 4, 4.7692)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, prod
from typing import Callable, Iterable, Mapping

from .errors import UnknownGame
from .rulesets import Ruleset, get_ruleset
from .scoring import FLUSH_RULES, _rank_points

__all__ = ["Distribution", "distribution", "hand_classes", "line_classes"]

log = logging.getLogger(__name__)

JACK = 11
RANKS = range(1, 14)

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Distribution:
    """How many shows score each number of points.

    ``hands`` deals in all; ``counts`` maps every score from 0 to the highest
    possible to its number of deals (0 where none); ``what`` is ``"hand"``,
    ``"crib"`` or ``"line"``.
    """

    game: str
    what: str
    hands: int
    counts: Mapping[int, int]

    @property
    def mean(self) -> float:
        """The average score over all deals."""
        return float(self.exact_mean)

    @property
    def exact_mean(self) -> Fraction:
        """The average score as an exact fraction."""
        return Fraction(sum(k * n for k, n in self.counts.items()), self.hands)

    def to_dict(self) -> dict:
        """Return ``{"game", "what", "hands", "counts": {"0": n, ...}, "mean"}`` (mean to 6 places)."""
        return {"game": self.game, "what": self.what, "hands": self.hands,
                "counts": {str(k): n for k, n in self.counts.items()},
                "mean": round(self.mean, 6)}

    def table(self) -> str:
        """Return the distribution as aligned text lines: score, count, share."""
        lines = [f"{self.hands:,} {self.what}s ({self.game}); mean {self.mean:.4f}",
                 f"{'points':>6} {'count':>12} {'share':>9}"]
        for k, n in self.counts.items():
            lines.append(f"{k:>6} {n:>12,} {100 * n / self.hands:>8.4f}%")
        return "\n".join(lines)


def _held_multisets(size: int) -> list[tuple[int, ...]]:
    return [m for m in combinations_with_replacement(RANKS, size) if max(m.count(r) for r in set(m)) <= 4]


def hand_classes(starter_rank: int, held: Iterable[int], rules: Ruleset, *, crib: bool = False) -> dict[int, int]:
    """Return ``{score: deals}`` for one starter rank and one multiset of held ranks.

    Counts every choice of suits (the starter's suit too) for the held cards
    and the starter; zero when the ranks need more than four cards of a rank.
    """
    held = tuple(sorted(held))
    k = len(held)
    mult = {r: held.count(r) for r in set(held)}
    avail = {r: 4 - (r == starter_rank) for r in mult}
    if any(mult[r] > avail[r] for r in mult):
        return {}
    per_suit = prod(comb(avail[r], m) for r, m in mult.items())   # the starter's suit fixed
    base = _rank_points(held + (starter_rank,))
    flush = FLUSH_RULES[rules.pocket_flush if crib else rules.hand_flush]
    distinct = len(mult) == k
    has_jack = JACK in mult
    # all held cards in the starter's suit (impossible if one shares its rank)
    top_flush = 1 if distinct and starter_rank not in mult else 0
    # all held cards in one of the three other suits
    other_flush = 3 if distinct else 0
    nobs_all = 0
    if rules.nobs and has_jack and starter_rank != JACK:
        nobs_all = comb(3, mult[JACK] - 1) * prod(comb(avail[r], m) for r, m in mult.items() if r != JACK)
    top_nobs = 1 if rules.nobs and has_jack else 0
    # all held cards but one in the starter's suit (G7's flush of four with the starter): the odd card is any
    # rank of the hand in one of the three other suits, the rest distinct ranks other than the starter's
    near, near_nobs = 0, 0
    if flush.points(k, k - 1, True):
        for odd in mult:
            rest = dict(mult)
            rest[odd] -= 1
            if all(m <= 1 for m in rest.values()) and not rest.get(starter_rank):
                near += 3
                if rules.nobs and rest.get(JACK) and starter_rank != JACK:
                    near_nobs += 3
    classes: dict[int, int] = {}

    def add(points: int, n: int) -> None:
        if n:
            classes[points] = classes.get(points, 0) + 4 * n    # 4 starter suits

    nobs_only = nobs_all - top_flush * top_nobs - near_nobs
    add(base + flush.points(k, k, True) + top_nobs, top_flush)
    add(base + flush.points(k, k, False), other_flush)
    add(base + flush.points(k, k - 1, True) + 1, near_nobs)
    add(base + flush.points(k, k - 1, True), near - near_nobs)
    add(base + 1, nobs_only)
    add(base, per_suit - top_flush - other_flush - near - nobs_only)
    bonus = rules.zero_bonus if (not crib or rules.zero_bonus_pocket) else 0
    if bonus and 0 in classes:
        classes[bonus] = classes.get(bonus, 0) + classes.pop(0)
    return classes


def line_classes(ranks: Iterable[int], rules: Ruleset) -> dict[int, int]:
    """Return ``{score: lines}`` for one multiset of 5 ranks on a grid (no nobs)."""
    ranks = tuple(sorted(ranks))
    mult = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if len(ranks) != 5 or mult[0] > 4:
        return {}
    total = prod(comb(4, m) for m in mult)
    base = _rank_points(ranks)
    five = 4 if mult == [1, 1, 1, 1, 1] else 0
    # exactly four of one suit: the odd card is any card (distinct ranks) or one of the pair
    four = {(1, 1, 1, 1, 1): 4 * 5 * 3, (2, 1, 1, 1): 4 * 3}.get(tuple(mult), 0)
    classes: dict[int, int] = {}

    def add(points: int, n: int) -> None:
        if n:
            classes[points] = classes.get(points, 0) + n

    add(base + (5 if rules.line_flush != "none" else 0), five)
    add(base + (4 if rules.line_flush == "four" else 0), four)
    add(base, total - five - four)
    if rules.zero_bonus and 0 in classes:
        classes[rules.zero_bonus] = classes.get(rules.zero_bonus, 0) + classes.pop(0)
    return classes


def distribution(game: "str | Ruleset" = "cribbage", *, crib: bool = False,
                 starter_ranks: Iterable[int] = RANKS, progress: "Progress | None" = None) -> Distribution:
    """Return the exact score distribution of every show under ``game``.

    Four-card hands: 52 starters x C(51, 4) hands = 12,994,800 deals; three-card
    hands (five-card): 1,082,900; ``crib=True`` counts the crib/pocket (four
    cards, its own flush rule and bonus coverage). Grid games count their
    2,598,960 possible lines, or with ``crib=True`` the crib. ``starter_ranks``
    restricts the deals to starters of those ranks (for checks).
    ``progress(done, total)`` is called as the work advances.

    :raises UnknownGame: an unknown preset, or ``crib`` for a game without one.
    """
    rules = game if isinstance(game, Ruleset) else get_ruleset(game)
    counts: dict[int, int] = {}
    if rules.grid and not crib:
        what = "line"
        multisets = _held_multisets(5)
        steps = len(multisets)
        for i, m in enumerate(multisets):
            for pts, n in line_classes(m, rules).items():
                counts[pts] = counts.get(pts, 0) + n
            if progress and i % 500 == 0:
                progress(i, steps)
    else:
        if rules.grid and not rules.grid_crib:
            raise UnknownGame(f"{rules.title} has no crib")
        what = "crib" if crib else "hand"
        size = 4 if crib else rules.held
        multisets = _held_multisets(size)
        starters = sorted(set(starter_ranks))
        if not starters or any(r not in RANKS for r in starters):
            raise UnknownGame(f"starter ranks must be 1..13, not {starters}")
        steps = len(starters)
        for i, s in enumerate(starters):
            for m in multisets:
                for pts, n in hand_classes(s, m, rules, crib=crib).items():
                    counts[pts] = counts.get(pts, 0) + n
            if progress:
                progress(i + 1, steps)
    if progress:
        progress(steps, steps)
    hands = sum(counts.values())
    full = {k: counts.get(k, 0) for k in range(max(counts) + 1)}
    log.debug("%s %s distribution: %d deals", rules.name, what, hands)
    return Distribution(rules.name, what, hands, full)
