"""The events the table stores, one small frozen type per kind.

An event is what an accepted command became: the table stores it as a JSON
object with a ``type`` (SQLite keeps it with sorted keys), folds it into the
state, and :meth:`companion.table.Table.history` gives it back. Each kind here
names its fields once; :meth:`Event.to_json` writes exactly the dict the table
has always stored and :func:`from_json` reads it back, so no stored match needs
a migration:

- a field without a default is always written (``new_match``'s ``teams`` is
  written even when it is null);
- a field with a default is written only when it differs from it (``by_turn``
  only when true, ``cut_bonus`` only when false, ``gos`` only when someone said go);
- lists are kept as tuples and written as lists again.

``seq`` (the event's number in its match) and ``at`` (when it was stored) are
filled in by the table; an entry an ``amend`` inserts has neither in its
``redo`` list (it takes the amend's number when folded).

>>> ev = from_json({"type": "play", "card": "5H", "player": "Ann", "by_turn": True, "seq": 3,
...                 "at": "2026-01-01T00:00:00+00:00"})
>>> ev.card, ev.player, ev.gos, ev.by_turn, ev.seq
('5H', 'Ann', (), True, 3)
>>> ev.to_json() == {"type": "play", "card": "5H", "player": "Ann", "by_turn": True, "seq": 3,
...                  "at": "2026-01-01T00:00:00+00:00"}
True
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from .frozen import Frozen


class EventError(ValueError):
    """A dict that is not an event of its kind: a field missing, one the kind does not have, an unknown type."""


def _frozen(value: Any) -> Any:
    """Return JSON data with every list a tuple (a frozen event holds no list)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def _thawed(value: Any) -> Any:
    """Return a frozen value as JSON data again (tuples are lists, events their dicts)."""
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    if isinstance(value, dict):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, Event):
        return value.to_json()
    return value


def _event(cls: type) -> type:
    """Make ``cls`` a frozen, keyword-only dataclass whose ``__init__``, ``__repr__``, ``__eq__``,
    ``__hash__``, ``__setattr__`` and ``__delattr__`` are :class:`Event`'s, written once, instead of six
    functions that the dataclass machinery compiles per kind at import (what importing the events cost,
    before the board's first answer: issue 25's start-up). They do what the generated ones do (the frozen
    ones included: :class:`Event` refuses every assignment, so the machinery need not be asked to)."""
    return dataclass(kw_only=True, init=False, repr=False, eq=False)(cls)


@_event
class Event(Frozen):
    """One stored event. Subclasses name their ``kind`` (the stored ``type``) and their fields."""

    kind: ClassVar[str] = ""
    seq: int | None = None          #: the event's number in its match (filled in by the table)
    at: str | None = None           #: when it was stored, ISO 8601 (filled in by the table)

    def __init__(self, **values: Any) -> None:
        """Set the fields, by keyword only (a field with a default may be left out)."""
        _, names, required, defaults = _layout(type(self))
        unknown = sorted(k for k in values if k not in names or k == "type")
        if unknown:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
        missing = sorted(required.difference(values))
        if missing:
            raise TypeError(f"{type(self).__name__}.__init__() missing required keyword-only argument(s): "
                            f"{', '.join(missing)}")
        held = self.__dict__
        held.update(defaults)
        held.update(values)


    def to_json(self) -> dict:
        """Return the dict the table stores for this event (a field at its default is left out)."""
        out: dict[str, Any] = {"type": self.kind}
        for name, default in _layout(type(self))[0]:
            value = getattr(self, name)
            if default is MISSING or value != default:
                out[name] = value if type(value) in _ATOMS else _thawed(value)
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Event":
        """Return the event of this kind stored as ``data``.

        :raises EventError: a field missing, or one this kind does not have.
        """
        _, names, required, defaults = _layout(cls)
        if not names.issuperset(data) or not required.issubset(data):
            extra = sorted(k for k in data if k not in names)
            if extra:
                raise EventError(f"a {cls.kind} event has no field {', '.join(extra)}")
            raise EventError(f"a {cls.kind} event needs {', '.join(sorted(required - set(data)))}")
        # every key is checked above: the fields are set without the frozen __init__'s setattr per field
        # (a third of the cost of a board press's typed event)
        ev = object.__new__(cls)
        held = ev.__dict__
        held.update(defaults)
        held.update(data)
        del held["type"]
        for k, v in data.items():
            if type(v) not in _ATOMS:
                held[k] = _frozen(v)
        return ev


_ATOMS = frozenset((str, int, float, bool, type(None)))
_LAYOUTS: dict[type, tuple] = {}


def _layout(cls: type) -> tuple[tuple[tuple[str, Any], ...], frozenset[str], frozenset[str], dict[str, Any]]:
    """Return, for an event type (computed once): its fields in the order the table writes them (its own,
    then seq and at) with their defaults, every key its dict may hold, the keys it must hold, and the
    defaults of the others."""
    got = _LAYOUTS.get(cls)
    if got is None:
        fs = fields(cls)
        order = [f for f in fs if f.name not in ("seq", "at")] + [f for f in fs if f.name in ("seq", "at")]
        got = _LAYOUTS[cls] = (tuple((f.name, f.default) for f in order),
                               frozenset(f.name for f in fs) | {"type"},
                               frozenset(f.name for f in fs if f.default is MISSING),
                               {f.name: f.default for f in fs if f.default is not MISSING})
    return got


# --- the match: set up, next game, a manual peg, undo --------------------------------------------

@_event
class NewMatch(Event):
    """A new match: the game, its house rules, seating, stake, series and first dealer."""

    kind: ClassVar[str] = "new_match"
    game: str                       #: the preset's name
    options: dict                   #: the house rules chosen
    players: tuple[str, ...]        #: clockwise, the house not included
    teams: tuple | None             #: four-hand partnerships, else None (always written)
    stake: float
    series: dict                    #: {"kind": "single" | "best_of" | "first_to", "n": n}
    first_dealer: str
    go_lead: str | None = None      #: the rules the match was played under, when not the old ones
    grid_rows: str | None = None
    pocket_flush: str | None = None
    skunk_lines: str | None = None
    rows: str | None = None         #: tabletop: the side that scores the rows (G6)
    cut: dict | None = None         #: the cut for the deal ({"dealer", ...}) when one was made or implied (F1)
    cut_bonus: bool = True          #: five-card: false when no "3 for last" was given
    match_id: str | None = None     #: filled in by the table


@_event
class NewGame(Event):
    """The next game of the match."""

    kind: ClassVar[str] = "new_game"
    first_dealer: str | None = None
    rows: str | None = None
    direction: str | None = None    #: casino: "cw" | "ccw", chosen again each game (H1)
    new_series: bool = False        #: the last game ended a series: a new one starts


@_event
class Peg(Event):
    """A manual peg (a board button pegs 1)."""

    kind: ClassVar[str] = "peg"
    side: str                       #: the side's id
    points: int


@_event
class Undo(Event):
    """An undo of the live event on top (the table's own: a fold without it)."""

    kind: ClassVar[str] = "undo"
    undoes: int                     #: the seq of the event undone


# --- card entry: deal games ----------------------------------------------------------------------

@_event
class Turnup(Event):
    """The cut card (deal games) or the centre card (tabletop)."""

    kind: ClassVar[str] = "turnup"
    card: str


@_event
class Play(Event):
    """A card played in the matching phase."""

    kind: ClassVar[str] = "play"
    card: str
    player: str
    gos: tuple[str, ...] = ()       #: the players between the turn and ``player``, who said go
    by_turn: bool = False           #: entered for whoever was to play (an amend re-derives the player)
    by_seat: bool = False           #: entered on the player's own phone: never a guess (issue 26)
    doubt: int | None = None        #: entered as it stands over the dismissed fix of that doubt event (issue 36)
    answered: bool = False          #: its player tapped as the answer to "whose card?": a doubt until the show (issue 36)


@_event
class Go(Event):
    """A go."""

    kind: ClassVar[str] = "go"
    player: str
    gos: tuple[str, ...] = ()
    by_turn: bool = False


@_event
class Show(Event):
    """A hand shown and counted."""

    kind: ClassVar[str] = "show"
    player: str
    cards: tuple[str, ...]
    from_plays: bool = False        #: confirmed from the plays (an amend re-derives the cards)
    claimed: int | None = None      #: claim mode: what its player claimed
    named: dict | None = None       #: who played each card the table had guessed, as answered (issue 36)


@_event
class Pocket(Event):
    """The pocket (crib) shown and counted."""

    kind: ClassVar[str] = "pocket"
    cards: tuple[str, ...]
    claimed: int | None = None


@_event
class Doubt(Event):
    """A refusal's fix dismissed, kept with the hand (``fix``: the amend; ``entry``: the entry it would move;
    ``card``: the card it is about), or a doubt settled as entered (``settle``: the doubt event's seq)."""

    kind: ClassVar[str] = "doubt"
    text: str
    fix: dict | None = None
    entry: int | None = None
    card: str | None = None
    settle: int | None = None


# --- card entry: tabletop ------------------------------------------------------------------------

@_event
class Place(Event):
    """A card placed on the grid, or into the crib."""

    kind: ClassVar[str] = "place"
    card: str
    player: str
    row: int | None = None
    col: int | None = None
    crib: bool = False


@_event
class Layout(Event):
    """The final 5x5 layout and the crib at once."""

    kind: ClassVar[str] = "layout"
    cards: tuple[str, ...]          #: 25, row order
    crib: tuple[str, ...]


# --- claim mode ----------------------------------------------------------------------------------

@_event
class Claim(Event):
    """A claim: of a card's or go's points (``side``) or of a grid line (``line``)."""

    kind: ClassVar[str] = "claim"
    claimed: int
    side: str | None = None
    line: str | None = None
    by_turn: bool = False


@_event
class Muggins(Event):
    """Muggins called on a claim."""

    kind: ClassVar[str] = "muggins"
    claimant: str                   #: whose claim (side id)
    caller: str                     #: who called it (side id)
    missed: int
    by_turn: bool = False


# --- amend ---------------------------------------------------------------------------------------

@_event
class Amend(Event):
    """A past entry of the current hand corrected (:mod:`companion.amend`)."""

    kind: ClassVar[str] = "amend"
    amends: int                     #: the seq of the entry corrected
    was: dict                       #: that entry as it was entered (a command)
    change: dict                    #: what changed
    redo: tuple[Event, ...]         #: the hand's entries re-derived from it on
    text: str

    @classmethod
    def from_json(cls, data: dict) -> "Amend":
        ev = super().from_json(data)
        redo = data.get("redo")
        if not isinstance(redo, list):
            raise EventError("an amend event's redo is a list of events")
        object.__setattr__(ev, "redo", tuple(from_json(e) for e in redo))
        return ev


# --- the host's events about people and nights (companion.host): nothing in the match --------------

@_event
class Rename(Event):
    """The player called ``name`` is called ``to`` in every game, past and future."""

    kind: ClassVar[str] = "rename"
    name: str
    to: str
    text: str


@_event
class Merge(Event):
    """The games played as ``name`` are ``into``'s (one person under two names)."""

    kind: ClassVar[str] = "merge"
    name: str
    into: str
    text: str


@_event
class NewEvening(Event):
    """The games that end from now on count for a new night."""

    kind: ClassVar[str] = "new_evening"
    text: str


@_event
class Settle(Event):
    """The night is settled (paid up): tonight's, or the open night ``night`` names."""

    kind: ClassVar[str] = "settle"
    text: str
    night: int | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (NewMatch, NewGame, Peg, Undo, Turnup, Play, Go, Show, Pocket, Place, Layout,
                              Claim, Muggins, Amend, Doubt, Rename, Merge, NewEvening, Settle)}
"""Every kind of event, by its stored ``type``."""


def from_json(data: Any) -> Event:
    """Return the typed event stored as ``data`` (a dict with a ``type``).

    :raises EventError: not a dict, an unknown type, or a field its kind does not have or needs.
    """
    cls = EVENT_TYPES.get(data.get("type")) if isinstance(data, dict) and isinstance(data.get("type"), str) else None
    if cls is None:
        raise EventError(f"not an event: {data.get('type') if isinstance(data, dict) else data!r}")
    return cls.from_json(data)
