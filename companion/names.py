"""What commands name: a player, a side, a list of cards; each checked with a one-sentence refusal."""

from __future__ import annotations

from typing import Any

from .cards import Card, parse_cards
from .errors import IllegalAction
from .match import MatchState


def seat_named(state: MatchState, name: Any) -> int:
    """Return the seat of the player called ``name`` (case-insensitive).

    :raises IllegalAction: not a name, or nobody of that name at the table.
    """
    if not isinstance(name, str) or not name.strip():
        raise IllegalAction("player must be a player's name")
    key = name.strip().lower()
    for i, s in enumerate(state.seats):
        if s.lower() == key:
            return i
    raise IllegalAction(f"{name!r} is not playing; the players are {', '.join(state.seats)}")


def side_named(state: MatchState, value: Any) -> int:
    """Return the side index named by ``value``: a side id, a side index or a player's name.

    :raises IllegalAction: when no side matches.
    """
    ids = [s.id for s in state.sides]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ids):
        return value
    if isinstance(value, str):
        if value in ids:
            return ids.index(value)
        for i, s in enumerate(state.sides):
            if value.strip().lower() in (p.lower() for p in s.players):
                return i
    raise IllegalAction(f"no side {value!r}; sides are {', '.join(ids)}")


def card_list(value: Any, what: str) -> tuple[Card, ...]:
    """Return the cards of a command field (a list of card strings), refusing duplicates.

    :raises IllegalAction: the field is not a list.
    :raises InvalidCard: a bad token or a duplicate.
    """
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)):
        raise IllegalAction(f"{what} must be a list of cards like [\"5H\", \"JS\"]")
    return parse_cards(list(value), what=what)
