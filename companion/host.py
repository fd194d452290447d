"""The host's events about people and nights: ``rename``, ``merge``, ``new_evening``, ``settle``.

They change nothing in the match: they are facts the season reads
(:mod:`companion.season`), stored in the match in play like any event, so they
show in History and an ``undo`` takes the last one back. ``verify`` checks only
the command's own form; what needs every match kept (is there such a player, is
the night settled already) :meth:`companion.season.Season.check` says before the
page sends one.

>>> verify_rename(None, {"type": "rename", "name": " bob", "to": "Robert "}, None)["text"]
'Bob is now called Robert'
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalAction
from .players import clean_name, player_key


def _names(cmd: dict, *fields: str) -> list[str]:
    try:
        return [clean_name(cmd.get(f)) for f in fields]
    except IllegalAction:
        raise IllegalAction(f"{cmd.get('type')} needs {' and '.join(fields)}: players' names") from None


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def verify_rename(state: Any, cmd: dict, ctx: Any) -> dict:
    """``rename {name, to}``: the player called ``name`` is called ``to`` in every game, past and future."""
    name, to = _names(cmd, "name", "to")
    if name == to:
        raise IllegalAction(f"{name} is called {to} already: nothing to rename")
    return {"type": "rename", "name": name, "to": to, "text": f"{_title(name)} is now called {to}"}


def verify_merge(state: Any, cmd: dict, ctx: Any) -> dict:
    """``merge {name, into}``: the games played as ``name`` are ``into``'s (one person under two names)."""
    name, into = _names(cmd, "name", "into")
    if player_key(name) == player_key(into):
        raise IllegalAction(f"{name} and {into} are one player already (case and spacing do not count)")
    return {"type": "merge", "name": name, "into": into, "text": f"{_title(name)}'s games are {into}'s"}


def verify_new_evening(state: Any, cmd: dict, ctx: Any) -> dict:
    """``new_evening``: the games that end from now on count for a new night."""
    return {"type": "new_evening", "text": "a new evening begins"}


def verify_settle(state: Any, cmd: dict, ctx: Any) -> dict:
    """``settle``: the night is settled (paid up); the games that end from now on count for a new night."""
    return {"type": "settle", "text": "the night is settled"}


def apply_nothing(state: Any, ev: dict) -> None:
    """A host's event changes nothing in the match."""


HOST_COMMANDS = {"rename": verify_rename, "merge": verify_merge, "new_evening": verify_new_evening,
                 "settle": verify_settle}
"""Each host's event kind and its verify (their apply is :func:`apply_nothing`)."""
