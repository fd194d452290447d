"""Players as people across matches: one key per person, whatever the spelling, renames and merges.

A name typed at the table is the same player in every match: case and spacing do
not split a player (``"bob "``, ``"Bob"`` and ``"BOB"`` are one person). The host
may rename a player or merge two names (the events ``rename`` and ``merge``,
:mod:`companion.season`); every game, past and future, follows, and an undone
rename is as if it never was. A team is its players: a partnership's result is
each of its players'.

>>> ids = Identity([{"type": "rename", "name": "bob", "to": "Robert"}])
>>> ids.key("BOB "), ids.name(ids.key("bob"))
('robert', 'Robert')
>>> ids.key("Robert") == ids.key("bob")
True
"""

from __future__ import annotations

from typing import Iterable

from .errors import IllegalAction

MAX_NAME = 24     # as the table trims a player's name (companion.match.build_seating)


def player_key(name: str) -> str:
    """Return the key of a player's name: spacing folded, case ignored.

    >>> player_key("  Ann   Lee "), player_key("ANN LEE")
    ('ann lee', 'ann lee')
    """
    return " ".join(str(name).split()).casefold()


def clean_name(value) -> str:
    """Return ``value`` as a player's name (spacing folded, at most 24 characters).

    :raises IllegalAction: not text, or empty.
    """
    if not isinstance(value, str) or not value.split():
        raise IllegalAction("a player's name must be text that is not empty")
    return " ".join(value.split())[:MAX_NAME]


class Identity:
    """Who is who: each name's key mapped to its person, and each person's name.

    :param host_events: the live ``rename`` (``name`` → ``to``) and ``merge`` (``name`` into
        ``into``) events, oldest first; both join the first name's person to the second's,
        whose spelling becomes the person's name.
    """

    def __init__(self, host_events: Iterable[dict] = ()) -> None:
        self._parent: dict[str, str] = {}
        self._names: dict[str, str] = {}       # person (root key) -> the name the host gave
        self._seen: dict[str, str] = {}        # key -> the spelling last seen at the table
        for ev in host_events:
            kind = ev.get("type")
            if kind == "rename":
                self.join(ev["name"], ev["to"])
            elif kind == "merge":
                self.join(ev["name"], ev["into"])

    def _root(self, key: str) -> str:
        while self._parent.get(key, key) != key:
            key = self._parent[key]
        return key

    def join(self, name: str, into: str) -> None:
        """Make ``name`` the person ``into`` is, called ``into``."""
        a, b = self._root(player_key(name)), self._root(player_key(into))
        if a != b:
            self._parent[a] = b
        self._names[b] = " ".join(into.split())

    def key(self, name: str) -> str:
        """Return the person (a key) ``name`` is."""
        return self._root(player_key(name))

    def saw(self, name: str) -> str:
        """Note ``name`` as spelled at the table; return its person."""
        self._seen[self._root(player_key(name))] = " ".join(name.split())
        return self.key(name)

    def name(self, person: str) -> str:
        """Return how ``person`` is called: the host's name for it, else the spelling last seen."""
        return self._names.get(person) or self._seen.get(person) or person

    def fork(self) -> "Identity":
        """Return a copy (more names may be seen by it, this one unchanged)."""
        other = Identity()
        other._parent, other._names, other._seen = dict(self._parent), dict(self._names), dict(self._seen)
        return other

    def same(self, a: str, b: str) -> bool:
        """Return whether names ``a`` and ``b`` are one person."""
        return self.key(a) == self.key(b)
