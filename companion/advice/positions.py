"""Seat positions and sides of a deal game, counted from the dealer in the direction of play.

Shared by the discard advice (:mod:`companion.advice.discard`) and the three- and four-hand
pegging advice (:mod:`companion.advice.pegging_multi`): position 0 deals, 1 is the dealer's
left (and leads); where the house deals without cards (four-hand casino) the players
sit at 1..4.

>>> from companion.rulesets import get_ruleset
>>> r = get_ruleset("lands-end-4")
>>> positions(r), [side_of(r, p) for p in range(4)]
((0, 3), ['team A', 'team B', 'team A', 'team B'])
"""

from __future__ import annotations

from ..rulesets import Ruleset


def positions(rules: Ruleset) -> tuple[int, int]:
    """Return the first and last seat positions that hold cards (0 = dealer)."""
    if rules.house and not rules.house_plays:
        return 1, rules.players          # the house deals from position 0 and holds no seat
    return 0, rules.players - 1


def side_of(rules: Ruleset, pos: int) -> str:
    """Return the side of the player at ``pos``: "house", "team A"/"team B" (partners opposite), or "seat N"."""
    if rules.house and pos == 0 and rules.house_deals:
        return "house"
    if rules.partnerships:
        return "team A" if pos % 2 == 0 else "team B"
    return f"seat {pos}"
