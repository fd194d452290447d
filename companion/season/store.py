"""The kept store: :class:`Season`, the season views of a table's store at a cost that stays flat as it grows
(each match that is over summarised once and its summary kept in the store), and the check of the host's events
against every game kept.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from ..errors import IllegalAction, StoreError
from ..host import verify_host
from ..players import Identity
from .nights import BREAK_HOURS, Nights, _mark_is_last, group_nights
from .reports import Tally, _identity, _night_report, _renames, _seen, race
from .summary import SUMMARY_VERSION, summarize_match

BATCH = 50                # a build reads the kept summaries of this many matches at a time


class Season:
    """The season views of a table's store, at a cost that stays flat as the store grows.

    Each match that is over is summarised once and its summary kept in the store
    (:func:`summarize_match`); in memory the views keep those summaries, their
    nights and the figures they add up to (per the host's renames and merges),
    so a view adds only the match in play to a copy of them, and reads the
    store again only when a match was closed.

    :param store: the table's event store (:mod:`companion.store`).
    :param break_hours: the break that starts a new night.
    """

    def __init__(self, store, *, break_hours: float = BREAK_HOURS) -> None:
        self.store = store
        self.break_hours = break_hours
        self._closed: list[dict] = []          # the summaries of the matches that are over, oldest first
        self._closed_ids: list[str] = []
        self._closed_renames: tuple = ()       # the host's renames and merges in them
        self._current: tuple | None = None     # (match id, head, summary) of the match in play
        self._base: tuple | None = None        # (closed count, renames, Nights, Tally, Identity, ids) of the closed
        self.step_every = 10                   # a build says how far it is (and may be stopped) every this many matches

    def summaries(self) -> list[dict]:
        """Return every match's summary, oldest first; a match that is over and not yet summarised (or
        summarised by other code) is folded once and its summary stored. Many such matches (the first view
        of an old database) take long: the web app runs :meth:`build` in the background first (:meth:`ready`)."""
        last = self.store.matches(last=1)
        if not last:
            return []
        if self._current is None or self._current[0] != last[0]:     # a match was closed since: read it
            ids = self.store.matches()
            if ids[:-1] != self._closed_ids:
                self._install(ids[:-1], self._take_closed(ids))
        head = self.store.head(last[0])
        if self._current is None or self._current[:2] != (last[0], head):
            self._current = (last[0], head, summarize_match(self.store.events(last[0])))
        return self._closed + [self._current[2]]

    def ready(self) -> bool:
        """Return whether a view costs little now: at most one match that is over is not in memory yet (a
        view folds it, as it folds the match in play). Otherwise :meth:`build` should run first."""
        last = self.store.matches(last=1)
        if not last or (self._current is not None and self._current[0] == last[0]):
            return True
        return len(self._missing(self.store.matches())) <= 1

    def build(self, step: Callable[[int, int, str], None] | None = None, lock: Any = None) -> int:
        """Read or fold the summary of every match that is over and not in memory, and add the season up,
        calling ``step(done, of, what)`` between matches: it may raise to stop the build (the summaries
        folded so far are kept in the store: the next build goes on from there). ``lock`` (a context
        manager; the web app's) is held only to take the result in. Returns how many matches were read.
        """
        step = step or (lambda done, of, what: None)
        ids = self.store.matches()
        if not ids:
            return 0
        need = self._missing(ids)
        closed = self._take_closed(ids, step)
        step(len(need), len(need), "adding up the season")
        current = summarize_match(self.store.events(ids[-1]))
        head = self.store.head(ids[-1])
        renames = _renames(closed) + _renames([current])
        base = self._new_base(closed, ids[:-1], renames)
        with lock or contextlib.nullcontext():
            self._install(ids[:-1], closed)
            self._current = (ids[-1], head, current)
            self._base = base
        return len(need)

    def _missing(self, ids: list[str]) -> list[str]:
        have = set(self._closed_ids)
        return [m for m in ids[:-1] if m not in have]

    def _take_closed(self, ids: list[str], step: Callable | None = None) -> list[dict]:
        """Return the summaries of the matches ``ids[:-1]``: those in memory, the rest read from the store
        (one read, when more than one is missing) or folded and stored."""
        got = dict(zip(self._closed_ids, self._closed))
        need = self._missing(ids)
        if step:
            step(0, len(need), "reading the summaries kept")
        kept: dict = {}
        for i, m in enumerate(need):
            if i % BATCH == 0 and len(need) > 1:       # the kept summaries, a batch at a time (short reads)
                kept = self.store.summaries(SUMMARY_VERSION, need[i:i + BATCH])
            if step and i % self.step_every == 0:
                step(i, len(need), f"match {i + 1} of {len(need)}")
            s = kept.get(m)
            if s is None:
                s = summarize_match(self.store.events(m))
                try:
                    self.store.put_summary(m, SUMMARY_VERSION, s)
                except StoreError:      # a read-only file: summarised again next time
                    pass
            got[m] = s
        return [got[m] for m in ids[:-1]]

    def _install(self, closed_ids: list[str], closed: list[dict]) -> None:
        n = len(self._closed_ids)
        if self._closed_ids and list(closed_ids[:n]) == self._closed_ids:      # matches closed since: theirs only
            self._closed_renames = self._closed_renames + _renames(closed[n:])
        else:
            self._closed_renames = _renames(closed)
        self._closed, self._closed_ids = closed, list(closed_ids)

    def _new_base(self, closed: list[dict], closed_ids: list[str], renames: tuple, base: tuple | None = None) -> tuple:
        """Return the nights and figures of the matches that are over: ``base``'s with the matches after
        it added (when it is of the same renames and its matches come first), else added up anew."""
        if base is not None and base[1] == renames and list(closed_ids[:base[0]]) == base[5]:
            _, _, nights, tally, ids, _ = base
            before = len(nights.list)
            new = closed[base[0]:]
            for m in new:
                nights.add(m)
            fresh = {id(g) for m in new for g in m["games"]}
            for n in nights.list[max(before - 1, 0):]:
                for g in n["games"]:
                    if id(g) in fresh:
                        tally.add(g, n["night"], ids)
        else:
            ids, nights, tally = Identity(renames), Nights(self.break_hours), Tally()
            for m in closed:
                nights.add(m)
            for n in nights.list:
                for g in n["games"]:
                    tally.add(g, n["night"], ids)
        tally.freeze(len(nights.list) - 1)         # the last night of the closed matches may go on
        return (len(closed), renames, nights, tally, ids, list(closed_ids))

    def _views(self) -> tuple:
        """Return ``(nights, tally, identity)`` of every match: those of the closed ones are kept (a match
        closed since is added to them), and the match in play is added to copies of them."""
        matches = self.summaries()
        closed = matches[:-1]
        renames = self._closed_renames + _renames(matches[len(closed):])
        if self._base is None or self._base[:2] != (len(closed), renames):
            self._base = self._new_base(closed, self._closed_ids, renames, self._base)
        _, _, base, tally, ids, _ = self._base
        nights, ids = base.fork(), ids.fork()
        for m in matches[len(closed):]:
            nights.add(m)
        return nights.list, tally, ids, len(base.list), matches[len(closed):]

    def check(self, command: dict) -> None:
        """Refuse a host's event that would say something untrue of the games kept: a rename or merge of a
        name nobody played under, a rename onto another player's name (that is a merge), a merge of one
        person with itself or of two names that played in one game; a settle or a new evening when no game
        has ended since the last new evening or settle (a settled night is closed: the next game starts
        another).

        :raises IllegalAction: with the reason (the command is then not sent: nothing changes).
        """
        verified = verify_host(command)        # every field checked by type before anything reads it
        kind = verified["type"]
        matches = self.summaries()
        ids = _identity(matches)
        known = {ids.saw(p) for m in matches for g in m["games"] for s in g["sides"] for p in s["players"]}
        known |= {ids.saw(p) for p in (matches[-1].get("players", []) if matches else [])}
        if kind in ("rename", "merge"):
            name, other = verified["name"], verified["to" if kind == "rename" else "into"]
            for n in (name, other) if kind == "merge" else (name,):
                if ids.key(n) not in known:
                    raise IllegalAction(f"nobody has played as {n!r} at this table")
            if kind == "rename" and ids.key(other) in known and ids.key(other) != ids.key(name):
                raise IllegalAction(f"{other} is another player: merge {name} into {other} to make them one")
            if kind == "merge" and ids.key(name) == ids.key(other):
                raise IllegalAction(f"{name} and {other} are one player already")
            if kind == "merge" and any({ids.key(name), ids.key(other)} <= {ids.key(p) for s in g["sides"]
                                                                         for p in s["players"]}
                                       for m in matches for g in m["games"]):
                raise IllegalAction(f"{name} and {other} played in one game: they are two players")
            return
        nights = group_nights(matches, break_hours=self.break_hours)
        last = nights[-1] if nights else None
        fresh = _mark_is_last(matches)
        if kind == "settle" and verified.get("night") is not None:
            k = verified["night"]
            if not 1 <= k <= len(nights):
                raise IllegalAction(f"no night {k}: the nights are 1 to {len(nights)}" if nights
                                    else f"no night {k}: no game has ended yet")
            if nights[k - 1]["settled"]:
                raise IllegalAction(f"night {k} is settled already")
            if not any(g["result"] for g in nights[k - 1]["games"]):
                raise IllegalAction(f"no game of night {k} has ended: nothing to settle")
            return
        if kind == "settle":
            if last is None or fresh or not any(g["result"] for g in last["games"]):
                raise IllegalAction("no game of this night has ended: nothing to settle")
        elif kind == "new_evening" and (last is None or fresh):
            raise IllegalAction("a new evening has begun already: no game has ended since")

    def games(self, *, offset: int = 0, limit: int = 50) -> dict:
        """Return the games kept, newest first (``limit`` of them from ``offset``): ``{"total", "games":
        [{"match_id", "game", "title", "end", "finished", "sides": [{"name", "score"}]}]}``, the players
        named as they are now (renames and merges followed). A game where nothing was scored is left out."""
        matches = self.summaries()
        ids = _seen(matches)
        every = [(m["match_id"], g) for m in matches for g in m["games"]]
        out = []
        for match_id, g in reversed(every[max(len(every) - offset - limit, 0):max(len(every) - offset, 0)]):
            out.append({"match_id": match_id, "game": g["game"], "title": g["title"], "end": g["end"],
                        "finished": g["result"] is not None,
                        "sides": [{"name": " & ".join(ids.name(ids.key(p)) for p in s["players"]) or s["name"],
                                   "score": s["score"]} for s in g["sides"]]})
        return {"total": len(every), "games": out}

    def race(self, match_id: str | None = None, game: int | None = None) -> dict:
        """Return :func:`race` of game ``game`` of match ``match_id`` (default the match in play; its last
        game that scored by default), with ``match_id``, ``game``, ``title`` and ``finished``; the sides
        named as the players are called now.

        :raises ValueError: no such match, or no such game in it that scored.
        """
        matches = self.summaries()
        m = matches[-1] if matches and match_id is None else next(
            (x for x in matches if x["match_id"] == match_id), None)
        if m is None:
            raise ValueError(f"no match {match_id} is kept at this table" if match_id else "no game has scored yet")
        games = [g for g in m["games"] if game is None or g["game"] == game]
        if not games:
            raise ValueError(f"no game {game} has scored" if game is not None else "no game of the match in play has scored yet")
        g, ids = games[-1], _seen(matches)
        out = {"match_id": m["match_id"], "game": g["game"], "title": g["title"], "finished": g["result"] is not None,
               **race(g)}
        out["sides"] = [" & ".join(ids.name(ids.key(p)) for p in s["players"]) or s["name"] for s in g["sides"]]
        return out

    def night(self, night: int | None = None) -> dict:
        """Return :func:`night_report` of this store (only the night's own games are read)."""
        nights, _, ids, _, _ = self._views()
        return _night_report(nights, ids, night)

    def season(self, player: str | None = None) -> dict:
        """Return :func:`season_report` of this store (the match in play added to the figures kept)."""
        nights, tally, ids, before, current = self._views()
        tally = tally.fork()
        playing = {id(g) for m in current for g in m["games"]}
        for n in nights[max(before - 1, 0):]:
            for g in n["games"]:
                if id(g) in playing:
                    tally.add(g, n["night"], ids)
        return tally.report(nights, ids, player)
