"""Discard advice: every legal discard ranked by the game's own goal, with exact figures.

Given a game (a :class:`~companion.rulesets.Ruleset`: any deal preset with its
house rules), the cards a player was dealt, where that player sits and who owns
the pocket, :func:`advise` returns every way of throwing cards into the pocket
(crib) with:

* the kept hand's exact **distribution** and mean over every turn-up among the
  unseen cards, counted by the game's own show rules (flush, nobs, the
  zero-hand bonus of L3);
* the pocket's exact mean over every turn-up **and every set of cards the other
  players could add** (their discards, and the card dealt straight into the
  pocket in three-hand) drawn from the unseen cards, **all assumed equally
  likely** -- real players throw better than at random, so this is the
  pocket's value against an indifferent table;
* the **net** value by the game's goal: ``d(me) * hand + s * pocket`` where
  ``d`` is +1 for a side that wins by reaching the target and -1 for one that
  loses by it (the ruleset's ``reach``, or ``house_reach`` for the house), and
  ``s`` is ``d(me)`` when the player's side owns the pocket and ``-d(owner)``
  when another side does (its points help the player when they hurt the owner);
* given the current scores, the exact **probability of reaching the target**
  this hand through the heels (to the dealing side), the player's own show and,
  when the player's side owns it, the pocket (the matching phase and a partner's
  show are not counted).

The unseen cards are the 52 minus the player's own dealt cards. Every figure is
a ratio of exact integer counts (a :class:`fractions.Fraction`); the counting
groups cards by rank multiset and counts suit assignments with binomials, so
a six-card hand's fifteen discards take a few milliseconds (see bench/).

Seats are counted from the dealer in the direction of play: ``seat=0`` is the
dealer, 1 the dealer's left (who cuts and leads), and so on; where the house
deals without holding a seat (four-hand casino) the players sit at 1..4 and the
house is position 0. Partners sit two apart.

>>> a = advise("5H 5S 6D JC 4C KD", game="cribbage", dealer=True)
>>> best = a.discards[0]
>>> [str(c) for c in best.discard], [str(c) for c in best.keep]
(['JC', 'KD'], ['5H', '5S', '6D', '4C'])
>>> float(round(best.hand_mean, 4)), best.turnups
(15.9565, 46)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb, prod
from typing import Any, Iterable, Mapping, Sequence

from ..cards import DECK, Card, parse_cards
from ..errors import IllegalAction, InvalidCard, UnknownGame
from ..rulesets import Ruleset, get_ruleset
from ..scoring import _RANK_POINTS, FLUSH_RULES, _rank_points_key, score_hand
from .positions import positions as _positions, side_of as _side_of

__all__ = ["Advice", "DiscardAdvice", "Seating", "ASSUMPTION", "advise", "seating"]

#: Said in every result: the model of the other players' discards.
ASSUMPTION = ("the pocket is averaged over every turn-up and every set of cards the other players "
              "could put in it from the cards you have not seen, all assumed equally likely "
              "(real players throw better than at random)")

_JACK = 11
_SHIFT = 4


def _key(ranks: Iterable[int]) -> int:
    return sum(1 << (_SHIFT * (r - 1)) for r in ranks)


def _rp(key: int) -> int:
    """Return the rank-only points (fifteens, pairs, runs) of the multiset ``key``."""
    pts = _RANK_POINTS.get(key)
    return _rank_points_key(key) if pts is None else pts


# --- seating ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seating:
    """Where the advised player sits, resolved against the ruleset.

    ``seat`` and ``owner`` are positions from the dealer (0) in the direction of
    play; ``side``/``owner_side``/``dealer_side`` name scoring sides
    (``"seat N"``, ``"team A"``/``"team B"``, ``"house"``); ``goal`` is +1 when
    the player's side wins by reaching the target and -1 when it loses by it;
    ``pocket_sign`` is the sign the pocket's points carry in the net value.
    """

    seat: int
    owner: int
    side: str
    owner_side: str
    dealer_side: str
    goal: int
    owner_goal: int

    @property
    def owns_pocket(self) -> bool:
        """True when the player's side owns the pocket."""
        return self.owner_side == self.side

    @property
    def pocket_sign(self) -> int:
        """+1 when more pocket points are better for the player, -1 when worse."""
        return self.goal if self.owns_pocket else -self.owner_goal

    @property
    def deals(self) -> bool:
        """True when the player's side deals (and so takes the heels)."""
        return self.dealer_side == self.side

    def owner_words(self) -> str:
        """Return who owns the pocket, seen from the player: you, your partner, an opponent, the house."""
        if self.owner == self.seat:
            return "you"
        if self.owns_pocket:
            return "your partner"
        return "the house" if self.owner_side == "house" else "an opponent"


def seating(rules: Ruleset, *, dealer: "bool | None" = None, seat: "int | None" = None,
            pocket_owner: "int | str | None" = None) -> Seating:
    """Return the resolved :class:`Seating` of a player under ``rules``.

    Give ``dealer`` (two-hand shorthand: seat 0 or 1) or ``seat``. The pocket's
    owner follows the ruleset (``pocket_owner``: the dealer, the one non-house
    player, the house); a rotating pocket (three-hand casino, H3) needs
    ``pocket_owner`` (a seat position) for the hand in question.

    :raises IllegalAction: a seat that does not exist, a missing or impossible owner.
    """
    low, high = _positions(rules)
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
        raise IllegalAction(f"seat must be a whole number, not {seat!r}")
    if dealer is not None and not isinstance(dealer, bool):
        raise IllegalAction(f"dealer is true or false, not {dealer!r}")
    if seat is None:
        if dealer is None:
            raise IllegalAction(f"say where you sit: dealer true/false, or seat {low}..{high} from the dealer")
        if rules.house and rules.house_deals and dealer and low > 0:
            raise IllegalAction(f"in {rules.title} the house deals and holds no cards: give your seat {low}..{high}")
        if dealer:
            seat = 0
        elif high - low == 1:
            seat = high
        else:
            raise IllegalAction(f"{rules.title} seats {rules.players}: give your seat {low}..{high} "
                                f"(0 is the dealer, 1 the dealer's left)")
    elif dealer is not None and dealer != (seat == 0):
        raise IllegalAction(f"seat {seat} {'is' if seat == 0 else 'is not'} the dealer's seat")
    if not low <= seat <= high:
        raise IllegalAction(f"{rules.title}: your seat is {low}..{high} from the dealer, not {seat}")
    owner = _owner(rules, pocket_owner, low, high)

    def goal(side: str) -> int:
        reach = rules.house_reach if side == "house" else rules.reach
        return 1 if reach == "wins" else -1

    side, owner_side, dealer_side = _side_of(rules, seat), _side_of(rules, owner), _side_of(rules, 0)
    return Seating(seat=seat, owner=owner, side=side, owner_side=owner_side, dealer_side=dealer_side,
                   goal=goal(side), owner_goal=goal(owner_side))


def _owner(rules: Ruleset, given: Any, low: int, high: int) -> int:
    if given == "house":
        if not rules.house:
            raise IllegalAction(f"{rules.title} has no house to own the {rules.pocket_name}")
        given = 0
    if given is not None and (isinstance(given, bool) or not isinstance(given, int) or not 0 <= given <= high):
        raise IllegalAction(f"pocket_owner is a seat 0..{high} from the dealer (or \"house\"), not {given!r}")
    rule = rules.pocket_owner
    if rule == "rotate":
        if given is None:
            raise IllegalAction(f"the {rules.pocket_name} rotates in {rules.title}: say whose it is this hand "
                                f"(pocket_owner, a seat 0..{high} from the dealer)")
        return given
    if rule == "player":
        players = [p for p in range(low, high + 1) if _side_of(rules, p) != "house"]
        default = players[0] if len(players) == 1 else None
        if default is None:
            raise UnknownGame(f"{rules.title}: the {rules.pocket_name} belongs to 'the player' but there are several")
    else:                           # "dealer", and "house" (the house always deals, H1)
        default = 0
    if given is not None and given != default:
        raise IllegalAction(f"in {rules.title} the {rules.pocket_name} belongs to seat {default} this hand, "
                            f"not seat {given}")
    return default


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscardAdvice:
    """The figures of one discard.

    ``hand_counts`` maps the kept hand's points to how many of the ``turnups``
    unseen cards give them; ``pocket_points`` is the pocket's total over its
    ``pocket_cases`` equally likely (other cards, turn-up) cases;
    ``reach`` the probability of reaching the target (None without scores).
    """

    discard: tuple[Card, ...]
    keep: tuple[Card, ...]
    hand_counts: Mapping[int, int]
    turnups: int
    pocket_points: int
    pocket_cases: int
    net: Fraction
    reach: "Fraction | None" = None
    pocket_counts: "Mapping[int, int] | None" = None
    pegging: "tuple[Fraction, Fraction] | None" = None     # expected matching-phase points (you, the other side)
    pegging_net: "Fraction | None" = None                   # their value by the goal
    pegging_stderr: "float | None" = None                   # three- and four-hand: a sample's standard error

    @property
    def total(self) -> Fraction:
        """The net including the matching phase (the plain ``net`` when pegging is not counted)."""
        return self.net + (self.pegging_net or 0)

    @property
    def hand_mean(self) -> Fraction:
        """The kept hand's expected show points."""
        return Fraction(sum(p * n for p, n in self.hand_counts.items()), self.turnups)

    @property
    def pocket_mean(self) -> Fraction:
        """The pocket's own expected points, whoever owns it."""
        return Fraction(self.pocket_points, self.pocket_cases)

    def hand_distribution(self) -> dict[int, Fraction]:
        """Return ``{points: probability}`` of the kept hand, points ascending."""
        return {p: Fraction(n, self.turnups) for p, n in sorted(self.hand_counts.items())}

    def to_dict(self) -> dict:
        """Return the JSON form: cards as text, figures as floats, exact values as "p/q" text."""
        d = {"discard": [str(c) for c in self.discard], "keep": [str(c) for c in self.keep],
             "hand_mean": float(self.hand_mean), "pocket_mean": float(self.pocket_mean), "net": float(self.net),
             "hand_distribution": {str(p): float(q) for p, q in self.hand_distribution().items()},
             "exact": {"hand_mean": str(self.hand_mean), "pocket_mean": str(self.pocket_mean),
                       "net": str(self.net)},
             "turnups": self.turnups, "pocket_cases": self.pocket_cases}
        if self.reach is not None:
            d["reach_probability"] = float(self.reach)
            d["exact"]["reach_probability"] = str(self.reach)
        if self.pegging is not None:
            d["pegging"] = {"you": float(self.pegging[0]), "other": float(self.pegging[1]),
                            "net": float(self.pegging_net)}
            if self.pegging_stderr is not None:
                d["pegging"]["stderr"] = self.pegging_stderr
            d["net_with_pegging"] = float(self.total)
            d["exact"].update({"pegging_you": str(self.pegging[0]), "pegging_other": str(self.pegging[1]),
                               "pegging_net": str(self.pegging_net), "net_with_pegging": str(self.total)})
        if self.pocket_counts is not None:
            d["pocket_distribution"] = {str(p): n / self.pocket_cases for p, n in sorted(self.pocket_counts.items())}
        return d


@dataclass(frozen=True)
class Advice:
    """Every legal discard of one dealt hand, best first (see :func:`advise`)."""

    rules: Ruleset
    cards: tuple[Card, ...]
    seating: Seating
    discards: tuple[DiscardAdvice, ...]
    scores: "tuple[int, ...] | None" = None
    rank_by: str = "net"
    assumption: str = field(default=ASSUMPTION)
    pegging: bool = False

    def to_dict(self) -> dict:
        """Return the JSON form (``{"discards": [...], ...}``, best first)."""
        s = self.seating
        extra = {"pegging": self.pegging}
        if self.pegging:
            from .pegging import ASSUMPTION as PEG, POLICY
            if self.rules.players != 2:
                from .pegging_multi import DISCARD_ASSUMPTION as PEG
            extra.update({"pegging_policy": POLICY, "pegging_assumption": PEG})
        return {**extra, "game": self.rules.name, "title": self.rules.title, "cards": [str(c) for c in self.cards],
                "seat": s.seat, "dealer": s.seat == 0, "pocket_owner": s.owner_words(),
                "pocket_name": self.rules.pocket_name, "goal": "reach" if s.goal > 0 else "avoid",
                "target": self.rules.target, "pocket_sign": s.pocket_sign,
                "scores": list(self.scores) if self.scores is not None else None,
                "rank_by": self.rank_by, "assumption": self.assumption,
                "discards": [d.to_dict() for d in self.discards]}


# --- the counting -------------------------------------------------------------------------


class _Deal:
    """Per dealt hand: the unseen cards and the rank-multiset weight tables shared by every discard."""

    def __init__(self, rules: Ruleset, dealt: tuple[Card, ...]) -> None:
        self.rules = rules
        self.dealt = dealt
        seen = set(dealt)
        self.unseen = tuple(c for c in DECK if c not in seen)
        self.n = len(self.unseen)
        self.k = 4 - rules.discards              # pocket cards the player does not know
        self.avail = [0] * 14
        for c in self.unseen:
            self.avail[c.rank] += 1
        self.by_suit: dict[str, list[Card]] = {}
        for c in self.unseen:
            self.by_suit.setdefault(c.suit, []).append(c)
        self.jacks = {c.suit: c for c in DECK if c.rank == _JACK}
        self.unseen_set = set(self.unseen)
        self._z = None
        self._m = None

    def z_table(self) -> list[tuple[int, int]]:
        """``(key, ways)`` for every rank multiset of the k other pocket cards plus the turn-up."""
        if self._z is None:
            a = self.avail
            out = []
            for ranks in combinations_with_replacement(range(1, 14), self.k + 1):
                w = prod(comb(a[r], m) for r, m in Counter(ranks).items())
                if w:
                    out.append((_key(ranks), w))
            self._z = out
        return self._z

    def m_tables(self) -> dict[int, list[tuple[int, int, int]]]:
        """Per turn-up rank: ``(key of turn-up + multiset, ways, ways holding one given jack)`` of the k other cards."""
        if self._m is None:
            out = {}
            multisets = [(ranks, Counter(ranks)) for ranks in combinations_with_replacement(range(1, 14), self.k)]
            for rho in range(1, 14):
                if not self.avail[rho]:
                    continue
                a = list(self.avail)
                a[rho] -= 1
                rows = []
                for ranks, cnt in multisets:
                    w = prod(comb(a[r], m) for r, m in cnt.items())
                    if not w:
                        continue
                    mj = cnt.get(_JACK, 0)
                    wj = w * mj // a[_JACK] if mj else 0      # = C(aJ-1, mJ-1) * rest
                    rows.append((_key(ranks) + (1 << (_SHIFT * (rho - 1))), w, wj))
                out[rho] = rows
            self._m = out
        return self._m

    # pocket: the mean by linearity ------------------------------------------------------
    def pocket_total(self, discard: Sequence[Card]) -> tuple[int, int]:
        """Return (sum of pocket points over every case, number of cases) -- no zero bonus."""
        rules, n, k = self.rules, self.n, self.k
        cases = comb(n, k) * (n - k)
        kx = _key(c.rank for c in discard)
        rank_sum = sum(w * _rp(kx + kz) for kz, w in self.z_table())
        total = rank_sum * (k + 1)               # each (k+1)-card set is k+1 (cards, turn-up) cases
        flush = FLUSH_RULES[rules.pocket_flush]
        for suit, pool in self.by_suit.items():
            u, mine = len(pool), sum(c.suit == suit for c in discard)
            for j in range(k + 1):           # j of the k other cards in the suit, the turn-up in it or not
                total += u * comb(u - 1, j) * comb(n - u, k - j) * flush.points(4, mine + j, True)
                total += (n - u) * comb(u, j) * comb(n - u - 1, k - j) * flush.points(4, mine + j, False)
        if rules.nobs:
            dset = set(discard)
            for t in self.unseen:
                j = self.jacks[t.suit]
                if j in dset:
                    total += comb(n - 1, k)
                elif j in self.unseen_set and j is not t:
                    total += comb(n - 2, k - 1)
        return total, cases

    # pocket: the distribution for each turn-up ----------------------------------------------
    def pocket_by_turnup(self, discard: Sequence[Card]) -> dict[Card, Counter]:
        """Return, for every unseen turn-up, ``{pocket points: number of other-card sets}``."""
        rules, k = self.rules, self.k
        kx = _key(c.rank for c in discard)
        dset = set(discard)
        hists: dict[int, tuple[Counter, Counter]] = {}
        for rho, rows in self.m_tables().items():
            h, hj = Counter(), Counter()
            for key, w, wj in rows:
                r = _rp(kx + key)
                h[r] += w
                if wj:
                    hj[r] += wj
            hists[rho] = (h, hj)
        flush = FLUSH_RULES[rules.pocket_flush]
        zero = rules.zero_bonus if rules.zero_bonus_pocket else 0
        out: dict[Card, Counter] = {}
        for t in self.unseen:
            h, hj = hists[t.rank]
            j = self.jacks[t.suit]
            own = 1 if rules.nobs and j in dset else 0
            open_jack = rules.nobs and j is not t and j in self.unseen_set
            hist = Counter({r + own: w for r, w in h.items()})
            if open_jack:
                for r, w in hj.items():
                    hist[r + own] -= w
                    hist[r + own + 1] += w
            kt = 1 << (_SHIFT * (t.rank - 1))
            for suit, cards in self.by_suit.items():
                # the sets of other cards that make a flush in this suit: moved up by its points
                mine = sum(c.suit == suit for c in discard)
                scores = [(n_in, pts) for n_in in range(k + 1) if (pts := flush.points(4, mine + n_in, t.suit == suit))]
                if not scores:
                    continue
                pool = [c for c in cards if c is not t]
                off = [c for c in self.unseen if c.suit != suit and c is not t]
                for n_in, pts in scores:
                    for ins in combinations(pool, n_in):
                        for outs in combinations(off, k - n_in):
                            ys = ins + outs
                            r = (_rp(kx + kt + _key(c.rank for c in ys)) + own
                                 + (1 if open_jack and j in ys else 0))
                            hist[r] -= 1
                            hist[r + pts] += 1
            if zero and hist.get(0):
                hist[zero] += hist.pop(0)
            out[t] = +hist
        return out


def _parse_scores(rules: Ruleset, scores: Any) -> "tuple[int, ...] | None":
    if scores is None:
        return None
    if isinstance(scores, str):
        try:
            scores = [int(s) for s in scores.replace(" ", "").split(",") if s != ""]
        except ValueError:
            raise IllegalAction(f"scores are whole numbers separated by commas, not {scores!r}") from None
    if not isinstance(scores, (list, tuple)) or not scores:
        raise IllegalAction(f"scores are a list of whole numbers (yours first), not {scores!r}")
    sides = rules.sides
    if len(scores) != sides:
        raise IllegalAction(f"{rules.title} has {sides} sides: give {sides} scores, yours first, not {len(scores)}")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < rules.target:
            raise IllegalAction(f"a score is a whole number from 0 to {rules.target - 1} "
                                f"(the game ends at {rules.target}), not {s!r}")
    return tuple(scores)


def advise(cards: "Iterable[str | Card] | str", *, game: "str | Ruleset" = "lands-end",
           options: "Mapping[str, Any] | None" = None, dealer: "bool | None" = None, seat: "int | None" = None,
           pocket_owner: "int | str | None" = None, scores: "Sequence[int] | str | None" = None,
           pocket_distribution: bool = False, pegging: bool = False) -> Advice:
    """Return every legal discard of the dealt ``cards`` under ``game``, best first.

    ``cards``: the dealt cards (6 in two-hand games, 5 in three-hand, four-hand
    and five-card). ``dealer``/``seat``/``pocket_owner``: see :func:`seating`.
    ``scores``: the sides' current scores, the player's side first (then the
    others in play order); with them each discard gets the exact probability of
    reaching the target this hand, and the ranking puts that first (the lowest
    where reaching it loses, the highest where it wins), the net value breaking
    ties. Without them discards are ranked by net value. ``pocket_distribution``
    adds the pocket's whole distribution (slower: the pocket is then counted
    turn-up by turn-up). ``pegging`` adds each kept hand's expected matching-phase
    points to each side (:func:`companion.advice.pegging.pegging_values`: every hand
    the other player could keep, both on the documented policy; two-hand games)
    and ranks by the net including them (``total``).

    :raises InvalidCard: bad tokens, duplicates, the wrong number of cards.
    :raises IllegalAction: an impossible seat or owner, bad scores.
    :raises UnknownGame: an unknown preset or option, or a tabletop game.
    """
    rules = game if isinstance(game, Ruleset) else get_ruleset(game, **dict(options or {}))
    if isinstance(game, Ruleset) and options:
        rules = rules.with_options(**dict(options))
    if rules.grid:
        raise UnknownGame(f"{rules.title} is played on a grid: nothing is thrown to a {rules.pocket_name} from a hand")
    dealt = parse_cards(cards.replace(",", " ").split() if isinstance(cards, str) else list(cards), what="deal")
    if len(dealt) != rules.dealt:
        raise InvalidCard(f"{rules.title} deals {rules.dealt} cards, not {len(dealt)}")
    seat_info = seating(rules, dealer=dealer, seat=seat, pocket_owner=pocket_owner)
    score_list = _parse_scores(rules, scores)
    deal = _Deal(rules, dealt)
    results = []
    mine = seat_info.owns_pocket
    need = rules.target - score_list[0] if score_list is not None else None
    heels = rules.heels if seat_info.deals else 0
    peg_game = None
    if pegging:
        from .pegging import game_for, pegging_values
        if rules.pegging and rules.players == 2:
            peg_game = game_for(rules, seat_info.seat)
        elif rules.pegging:
            from .pegging_multi import multi_game, pegging_values_multi
            peg_game = multi_game(rules, seat_info.seat)
    for discard in combinations(dealt, rules.discards):
        keep = tuple(c for c in dealt if c not in discard)
        hand = {t: score_hand(keep, t, game=rules).total for t in deal.unseen}
        counts = Counter(hand.values())
        full = pocket_distribution or rules.zero_bonus_pocket or (need is not None and mine)
        pocket_counts = None
        if full:
            per_t = deal.pocket_by_turnup(discard)
            pocket_counts = Counter()
            for hist in per_t.values():
                pocket_counts.update(hist)
            cases = sum(pocket_counts.values())
            total = sum(p * w for p, w in pocket_counts.items())
        else:
            total, cases = deal.pocket_total(discard)
        reach = None
        if need is not None:
            extra = {t: hand[t] + (heels if t.rank == _JACK else 0) for t in deal.unseen}
            if mine:
                hits = sum(w for t, hist in per_t.items() for p, w in hist.items() if extra[t] + p >= need)
                reach = Fraction(hits, cases)
            else:
                reach = Fraction(sum(1 for t in deal.unseen if extra[t] >= need), deal.n)
        hand_mean = Fraction(sum(p * n for p, n in counts.items()), deal.n)
        net = seat_info.goal * hand_mean + seat_info.pocket_sign * Fraction(total, cases)
        peg = peg_net = peg_se = None
        if peg_game is not None and rules.players == 2:
            peg = pegging_values(rules, seat_info.seat, keep, dealt)
            peg_net = peg_game.net(peg)
        elif peg_game is not None:
            peg, peg_net, peg_se = pegging_values_multi(rules, seat_info.seat, keep, dealt)
        results.append(DiscardAdvice(discard=tuple(discard), keep=keep, hand_counts=dict(sorted(counts.items())),
                                     turnups=deal.n, pocket_points=total, pocket_cases=cases, net=net, reach=reach,
                                     pocket_counts=dict(sorted(pocket_counts.items())) if pocket_distribution else None,
                                     pegging=peg, pegging_net=peg_net, pegging_stderr=peg_se))
    order = {c: i for i, c in enumerate(dealt)}
    goal = seat_info.goal

    def rank(d: DiscardAdvice):
        tie = tuple(order[c] for c in d.discard)
        if d.reach is None:
            return (-d.total, tie)
        return (-goal * d.reach, -d.total, tie)

    results.sort(key=rank)
    return Advice(rules=rules, cards=dealt, seating=seat_info, discards=tuple(results), scores=score_list,
                  rank_by="net" if score_list is None else "reach", pegging=peg_game is not None)
