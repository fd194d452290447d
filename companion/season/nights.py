"""Nights: the games of one sitting, cut by a break of :data:`BREAK_HOURS` or more and by the host's marks (a new
evening, a settle).
"""

from __future__ import annotations

import datetime as _dt

BREAK_HOURS = 4           # a game that starts this long after the last one ended starts a new night


def _time(iso: str) -> _dt.datetime | None:
    try:
        return _dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return None


class Nights:
    """The nights of the games added so far, grouped as they come (:func:`group_nights`): a game's night
    depends only on the games and marks before it, so the nights of the matches that are over are kept and
    only the match in play is added to a :meth:`fork` of them."""

    def __init__(self, break_hours: float = BREAK_HOURS) -> None:
        self.list: list[dict] = []
        self.break_hours = break_hours
        self.fresh = True               # the next game starts a night
        self.last_end = None

    def add(self, m: dict) -> None:
        """Add one match's summary (its games and the host's marks, in the order they happened)."""
        items = [(g["end_seq"], 1, g) for g in m["games"]] + [(e.get("seq", 0), 0, e) for e in m.get("host", [])]
        for _, is_game, item in sorted(items, key=lambda t: (t[0], t[1])):
            if not is_game:
                self.fresh = _mark(self.list, item) or self.fresh
                continue
            start = _time(item["start"])
            if (self.last_end is not None and start is not None
                    and (start - self.last_end).total_seconds() >= self.break_hours * 3600):
                self.fresh = True
            if self.fresh:
                self.list.append({"night": len(self.list) + 1, "start": item["start"], "end": item["end"],
                                  "settled": False, "settled_at": None, "games": []})
                self.fresh = False
            self.list[-1]["games"].append(item)
            self.list[-1]["end"] = item["end"]
            self.last_end = _time(item["end"]) or self.last_end

    def fork(self) -> "Nights":
        """Return a copy that more matches can be added to, this one unchanged (only its last night can change)."""
        other = Nights(self.break_hours)
        other.list = self.list[:-1] + [dict(n, games=list(n["games"])) for n in self.list[-1:]]
        other.fresh, other.last_end = self.fresh, self.last_end
        return other


def group_nights(matches: list[dict], *, break_hours: float = BREAK_HOURS) -> list[dict]:
    """Return the nights of ``matches`` (summaries, oldest first): ``{"night", "start", "end",
    "settled", "settled_at", "games": [game summaries]}``.

    A game belongs to the night it ends in. A night begins with the first game, with a game that
    starts ``break_hours`` or more after the game before it ended, and with the first game that
    ends after the host's ``new_evening`` or ``settle`` (which marks the night before it settled).
    """
    nights = Nights(break_hours)
    for m in matches:
        nights.add(m)
    return nights.list


def _mark_is_last(matches: list[dict]) -> bool:
    """Return whether the host's last night event (new evening, settle) came after the last game that ended."""
    last = False
    for m in matches:
        items = [(g["end_seq"], False) for g in m["games"] if g["result"] is not None]
        items += [(e.get("seq", 0), True) for e in m.get("host", [])
                  if e.get("type") == "new_evening" or (e.get("type") == "settle" and not e.get("night"))]
        for _, is_mark in sorted(items):
            last = is_mark
    return last


def _mark(nights: list[dict], ev: dict) -> bool:
    """Apply a host's night event; return True when it starts a new night (a settle of an earlier night,
    one that names it, settles that night only)."""
    if ev.get("type") == "settle":
        k = ev.get("night") or len(nights)
        if 1 <= k <= len(nights) and not nights[k - 1]["settled"]:     # a copy: a fork shares the nights before
            nights[k - 1] = dict(nights[k - 1], settled=True, settled_at=ev.get("at"))
        return k == len(nights) or not ev.get("night")
    return ev.get("type") == "new_evening"
