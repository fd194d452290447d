"""The host's events about people and nights: ``rename``, ``merge``, ``new_evening``, ``settle``.

They change nothing in the match: they are facts the season reads
(:mod:`companion.season`), stored in the match in play like any event, so they
show in History and an ``undo`` takes the last one back. ``verify`` checks the
command's own form (every field by type), then asks the table's judge of the host's
events (``ctx.host_check``, the season's :meth:`companion.season.Season.check` in
the web app) what needs every match kept: is there such a player, is the night
settled already. So the table judges every event it stores, a host's too.

>>> verify_rename(None, {"type": "rename", "name": " bob", "to": "Robert "}, None)["text"]
'Bob is now called Robert'
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import TYPE_CHECKING, Any

from .errors import IllegalAction
from .players import clean_name, player_key
from .view import MatchView

if TYPE_CHECKING:
    from .match import Context, MatchState


def _names(cmd: dict, *fields: str) -> list[str]:
    try:
        return [clean_name(cmd.get(f)) for f in fields]
    except IllegalAction:
        raise IllegalAction(f"{cmd.get('type')} needs {' and '.join(fields)}: players' names") from None


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def _judged(ctx: "Context | None", event: dict) -> dict:
    """Return ``event`` once the table's judge of the host's events (``ctx.host_check``) lets it stand."""
    check = getattr(ctx, "host_check", None)
    if check is not None:
        check(event)
    return event


def verify_rename(state: "MatchView | None", cmd: dict, ctx: "Context | None") -> dict:
    """``rename {name, to}``: the player called ``name`` is called ``to`` in every game, past and future."""
    name, to = _names(cmd, "name", "to")
    if name == to:
        raise IllegalAction(f"{name} is called {to} already: nothing to rename")
    return _judged(ctx, {"type": "rename", "name": name, "to": to, "text": f"{_title(name)} is now called {to}"})


def verify_merge(state: "MatchView | None", cmd: dict, ctx: "Context | None") -> dict:
    """``merge {name, into}``: the games played as ``name`` are ``into``'s (one person under two names)."""
    name, into = _names(cmd, "name", "into")
    if player_key(name) == player_key(into):
        raise IllegalAction(f"{name} and {into} are one player already (case and spacing do not count)")
    return _judged(ctx, {"type": "merge", "name": name, "into": into, "text": f"{_title(name)}'s games are {into}'s"})


def verify_new_evening(state: "MatchView | None", cmd: dict, ctx: "Context | None") -> dict:
    """``new_evening``: the games that end from now on count for a new night."""
    return _judged(ctx, {"type": "new_evening", "text": "a new evening begins"})


MAX_NIGHT = 1_000_000


def verify_settle(state: "MatchView | None", cmd: dict, ctx: "Context | None") -> dict:
    """``settle {night?}``: the night is settled (paid up). Without ``night``, tonight's: the games that end
    from now on count for a new night. With ``night`` (a number), that night, any one still open."""
    night = cmd.get("night")
    if night is None:
        return _judged(ctx, {"type": "settle", "text": "the night is settled"})
    if not isinstance(night, int) or isinstance(night, bool) or not 1 <= night <= MAX_NIGHT:
        raise IllegalAction(f"settle's night is a night's number (1, 2, ...), not {str(night)[:20]!r}")
    return _judged(ctx, {"type": "settle", "night": night, "text": f"night {night} is settled"})


def apply_nothing(state: "MatchState", ev: dict) -> None:
    """A new evening or a settle changes nothing in the match."""


def apply_names(state: "MatchState", ev: dict) -> None:
    """A rename or merge renames the player in the match in play too: every name of ``state`` that is
    ``ev["name"]`` (case and spacing aside) becomes ``ev["to"]`` / ``ev["into"]`` (seats, sides, money,
    the hand, its log and the state an amend refolds from), so the page, the seats and the commands
    the phones send next all say the new name; ``state.renames`` keeps it so that History's lines written
    before it say the new name too (:func:`follow_names`); an undo refolds without the event, and the old
    name is back everywhere."""
    new = ev.get("to") if ev.get("type") == "rename" else ev.get("into")
    if getattr(state, "rules", None) is None or not isinstance(new, str):
        return
    key = player_key(ev.get("name", ""))
    old = {p for s in state.sides for p in s.players if player_key(p) == key}
    if not old:
        return
    names = {o: new for o in old}
    for f in dataclasses.fields(state):
        if f.name not in ("rules", "renames"):
            setattr(state, f.name, _renamed(getattr(state, f.name), names))
    state.renames = list(getattr(state, "renames", None) or []) + [(o, new) for o in sorted(old)]


def follow_names(records: list[dict], renames: list[tuple]) -> list[dict]:
    """Return History's ``records`` with the names of ``renames`` (``MatchState.renames``: the host's renames
    and merges in force in the match, oldest first) as they are now: a line written before Bob became
    Robert says Robert, in its fields and its text (whole words only: Ann's rename leaves "Annie" alone).
    The rename and merge events themselves keep what they said. Stored events are not changed: an undo of
    the rename refolds without it, and History says Bob again."""
    if not renames:
        return records
    subs = [(re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)"), new) for old, new in renames]

    def said(value: Any) -> Any:
        if isinstance(value, str):
            for pattern, new in subs:
                value = pattern.sub(lambda _m, n=new: n, value)
            return value
        if isinstance(value, dict):
            return {k: (v if k in ("type", "card", "client_id") else said(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [said(v) for v in value]
        return value
    return [rec if rec.get("type") in ("rename", "merge") else said(rec) for rec in records]


def _renamed(obj: Any, names: dict[str, str]) -> Any:
    """Return ``obj`` with every string that is a key of ``names`` replaced by its value (containers and
    dataclasses copied, never changed in place: they may be shared with the stored events or an
    earlier state)."""
    if isinstance(obj, str):
        return names.get(obj, obj)
    if obj is None or isinstance(obj, (int, float, bool)):
        return obj
    if isinstance(obj, dict):
        items = {_renamed(k, names): _renamed(v, names) for k, v in obj.items()}
        return items if type(obj) is dict else type(obj)(items)
    if isinstance(obj, list):
        return [_renamed(v, names) for v in obj]
    if isinstance(obj, tuple):
        items = [_renamed(v, names) for v in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_renamed(v, names) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and type(obj).__name__ != "Ruleset":
        out = copy.copy(obj)
        for f in dataclasses.fields(obj):
            object.__setattr__(out, f.name, _renamed(getattr(obj, f.name), names))
        return out
    return obj          # a card, a ruleset, a number: no player's name in it


HOST_COMMANDS = {"rename": verify_rename, "merge": verify_merge, "new_evening": verify_new_evening,
                 "settle": verify_settle}
"""Each host's event kind and its verify."""


def verify_host(cmd: Any) -> dict:
    """Return the event a host's command makes, every field checked by type before anything reads it (the
    ``type`` a known kind's name, the names text, a night a number).

    >>> verify_host({"type": "new_evening"})["text"]
    'a new evening begins'
    >>> verify_host({"type": ["rename"]})
    Traceback (most recent call last):
    ...
    companion.errors.IllegalAction: a host's event needs a "type": rename, merge, new_evening or settle

    :raises IllegalAction: with the reason.
    """
    kind = cmd.get("type") if isinstance(cmd, dict) else None
    if not isinstance(kind, str) or kind not in HOST_COMMANDS:
        raise IllegalAction('a host\'s event needs a "type": rename, merge, new_evening or settle')
    return HOST_COMMANDS[kind](None, cmd, None)

HOST_APPLY = {"rename": apply_names, "merge": apply_names, "new_evening": apply_nothing, "settle": apply_nothing}
"""Each host's event kind and its apply (a rename or merge renames the player in the match in play)."""
