"""The night and the season: every game the table has kept, per player, and who pays whom tonight.

Three layers, each a plain function of values:

* :func:`summarize_match` folds one match's stored events once into what the
  views need (each game's sides, result and money, its score race hand by
  hand, every show and pocket; the host's events). A match that is over is
  summarised once and the summary kept in the store (:meth:`Season.summaries`),
  so a view reads one row per match and refolds nothing.
* :func:`group_nights` cuts the games into nights: a night is the games of one
  sitting, from the first game after a break of :data:`BREAK_HOURS` or more,
  or after the host's ``new_evening``; marking a night settled (``settle``)
  closes it, so the next game starts another.
* :func:`settle_up` says who pays whom in the fewest payments (exact), and
  :func:`night_report` / :func:`season_report` give the figures per player
  (players as people: :mod:`companion.players`).

Money is counted exactly (fractions: a partnership's stake is split between
its two players) and written as numbers with at most the cents the stakes make.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from fractions import Fraction
from typing import Any, Callable

from .commands import COMMANDS, apply_event
from .errors import IllegalAction, StoreError
from .host import HOST_COMMANDS, verify_host
from .match import HOUSE_NAME, MatchState
from .players import Identity
from .table import effective

BREAK_HOURS = 4           # a game that starts this long after the last one ended starts a new night
HOST_EVENTS = tuple(HOST_COMMANDS)     # rename, merge, new_evening, settle
BATCH = 50                # a build reads the kept summaries of this many matches at a time
EXACT_UP_TO = 16          # settle-up is exact (subset DP) for up to this many players owed or owing


# the form of a kept summary: raise it when summarize_match writes something else, and every match is
# summarised again once (a finished match's games do not change with the code: it is not the fold's version)
SUMMARY_VERSION = "1"


def money(value: Fraction) -> int | float:
    """Return an exact amount as a JSON number (a whole number when it is one)."""
    if not isinstance(value, Fraction):
        value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


# --- one match ----------------------------------------------------------------------------------

_STAGE = {"pegging": "p", "show": "s", "pocket": "s", "count": "s", "grid": "s"}


def _game_record(state: MatchState, start: str, end: str, end_seq: int, cards: dict) -> dict:
    """Return what the season keeps of the game ``state`` holds (finished or not)."""
    rules = state.rules
    ids = [s.id for s in state.sides]
    race, shows = [], []
    for st in state.steps:
        if st.get("points"):
            race.append([st["hand"], ids.index(st["side"]), st["points"], st["score"],
                         _STAGE.get(st.get("step"), "o")])
        if st.get("kind") in ("show", "pocket"):
            side = state.sides[ids.index(st["side"])]
            who = st.get("player")
            players = [who] if who in side.players else list(side.players)
            zero = sum(i.get("points", 0) for i in st.get("items") or [] if i.get("kind") == "zero")
            key = (st["hand"], st["kind"], who)
            shows.append({"hand": st["hand"], "kind": st["kind"], "players": players, "points": st["points"],
                          "counted": st["points"] - zero, "zero": bool(zero),
                          "cards": cards.get(key, [[], None])[0], "starter": cards.get(key, [[], None])[1]})
    result = None
    if state.result is not None:
        r = state.result
        result = {"winners": list(r["winners"]), "losers": list(r["losers"]),
                  "multipliers": dict(r["multipliers"]), "settlement": dict(r["settlement"]),
                  "skunk": r.get("skunk", 0)}
    return {"game": state.game_no, "preset": rules.name, "title": rules.title, "stake": state.stake,
            "target": rules.target, "reach": rules.reach,
            "start": start, "end": end, "end_seq": end_seq,
            "skunks": bool(rules.skunks), "zero_bonus": bool(rules.zero_bonus),
            "sides": [{"id": s.id, "name": s.name, "players": list(s.players), "house": s.house, "score": s.score}
                      for s in state.sides],
            "result": result, "race": race, "shows": shows}


def summarize_match(events: list[dict]) -> dict:
    """Return the season's summary of one match from its stored events (undos included).

    ``{"match_id", "start", "end", "games": [...], "host": [...]}``: each game
    with its sides (players, house), final scores, result (winners, losers,
    multipliers, settlement by side, skunk), ``race`` (every scoring step as
    ``[hand, side index, points, score after, stage]``, stage ``p`` pegging,
    ``s`` a show, pocket or grid line, ``o`` anything else: heels, a peg by
    hand), ``shows`` (each hand and pocket shown: its players, points, what
    the cards counted, whether it was a zero hand, the cards and starter);
    ``host`` the host's events that stand (rename, merge, new evening, settle)
    with their ``seq`` and time. A game where nothing was scored is left out.
    """
    live = effective(events)
    state = MatchState()
    games: list[dict] = []
    host: list[dict] = []
    cards: dict = {}
    game = None            # [start, last at, last seq] of the game being folded

    def close() -> None:
        if game is not None and (state.steps or state.result is not None):
            games.append(_game_record(state, game[0], game[1], game[2], cards))

    def note_cards(ev: dict) -> None:
        if ev.get("type") in ("show", "pocket") and isinstance(ev.get("cards"), list):
            turnup = getattr(state.hand, "turnup", None)
            who = ev.get("player") if ev["type"] == "show" else None
            if ev["type"] == "pocket":
                who = state.sides[state.pocket_owner()].name
            cards[(state.hand_no, ev["type"], who)] = [list(ev["cards"]), str(turnup) if turnup else None]

    for ev in live:
        kind = ev.get("type")
        if kind in HOST_EVENTS:
            host.append({k: v for k, v in ev.items() if k not in ("undone", "steps")})
        if kind not in COMMANDS:
            continue
        if kind in ("new_match", "new_game"):
            close()
            cards = {}
            game = [ev.get("at", ""), ev.get("at", ""), ev.get("seq", 0)]
        note_cards(ev)
        for redo in ev.get("redo") or [] if kind == "amend" else []:
            note_cards(redo)
        apply_event(state, ev)
        if game is not None and kind not in HOST_EVENTS:
            game[1], game[2] = ev.get("at", game[1]), ev.get("seq", game[2])
    close()
    return {"match_id": live[0].get("match_id") if live else None,
            "players": [p for s in state.sides for p in s.players] if state.rules is not None else [],
            "start": live[0].get("at", "") if live else "", "end": live[-1].get("at", "") if live else "",
            "games": games, "host": host}


# --- who pays whom ---------------------------------------------------------------------------

def settle_up(balances: dict[str, Fraction]) -> list[tuple[str, str, Fraction]]:
    """Return the payments ``(payer, payee, amount)`` that settle ``balances`` (won +, lost -; they sum
    to 0) in the fewest payments.

    The fewest is the number of people owed or owing less the most groups they
    split into that each sum to zero (each group of k settles in k - 1
    payments, and no fewer can settle it): found exactly over the subsets for
    up to :data:`EXACT_UP_TO` people. Within a group the largest debt pays the
    largest credit first. Ties are broken by name, so the answer is the same
    every time.

    >>> settle_up({"Ann": Fraction(5), "Bob": Fraction(-2), "Cy": Fraction(-3)})
    [('Cy', 'Ann', Fraction(3, 1)), ('Bob', 'Ann', Fraction(2, 1))]

    :raises ValueError: the balances do not sum to zero.
    """
    vals = {p: Fraction(v) for p, v in balances.items() if Fraction(v) != 0}
    if sum(vals.values(), Fraction(0)) != 0:
        raise ValueError(f"the balances do not sum to zero: {sum(vals.values(), Fraction(0))}")
    people = sorted(vals, key=lambda p: (vals[p], p))
    groups = _zero_groups(people, vals) if len(people) <= EXACT_UP_TO else [people]
    payments = []
    for group in groups:
        left = {p: vals[p] for p in group}
        while any(left.values()):
            payer = min(left, key=lambda p: (left[p], p))
            payee = max(left, key=lambda p: (left[p], [-ord(c) for c in p]))
            amount = min(-left[payer], left[payee])
            payments.append((payer, payee, amount))
            left[payer] += amount
            left[payee] -= amount
    return payments


def _zero_groups(people: list[str], vals: dict[str, Fraction]) -> list[list[str]]:
    """Return ``people`` split into the most groups that each sum to zero (a DP over the subsets)."""
    n = len(people)
    full = (1 << n) - 1
    total = [Fraction(0)] * (1 << n)
    for mask in range(1, 1 << n):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + vals[people[low]]
    best = [0] * (1 << n)            # the most zero-sum groups the people of mask split into
    came = [0] * (1 << n)            # the person whose removal gave it
    for mask in range(1, 1 << n):
        b, c = -1, 0
        for i in range(n):
            if mask >> i & 1 and best[mask ^ (1 << i)] > b:
                b, c = best[mask ^ (1 << i)], i
        best[mask] = b + (1 if total[mask] == 0 else 0)
        came[mask] = c
    # walk back: a group closes each time the people left sum to zero again
    groups, current, mask = [], [], full
    while mask:
        i = came[mask]
        current.append(people[i])
        mask ^= 1 << i
        if total[mask] == 0:
            groups.append(sorted(current))
            current = []
    return groups


# --- nights ------------------------------------------------------------------------------

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


# --- per player ---------------------------------------------------------------------------------

def _share(value) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


class _Game:
    """One game summary read through an identity: its sides as people, each person's money."""

    def __init__(self, g: dict, ids: Identity) -> None:
        self.g = g
        self.sides = [[ids.saw(p) for p in s["players"]] for s in g["sides"]]
        self.side_ids = [s["id"] for s in g["sides"]]
        r = g["result"]
        self.finished = r is not None
        self.won = {i for i, sid in enumerate(self.side_ids) if r and sid in r["winners"]}
        self.lost = {i for i, sid in enumerate(self.side_ids) if r and sid in r["losers"]}
        self.money: dict[str, Fraction] = {}
        self.flows: list[tuple[int, int, Fraction]] = []     # (paying side, receiving side, amount)
        if r:
            settle = {sid: _share(v) for sid, v in r["settlement"].items()}
            for i, people in enumerate(self.sides):
                for p in people:
                    self.money[p] = self.money.get(p, Fraction(0)) + settle.get(self.side_ids[i], 0) / len(people)
            payers, takers = sorted(self.lost), sorted(self.won)
            if len(payers) == 1:
                self.flows = [(payers[0], t, settle[self.side_ids[t]]) for t in takers]
            else:
                self.flows = [(p, takers[0], -settle[self.side_ids[p]]) for p in payers]

    def side_of(self, person: str) -> int | None:
        for i, people in enumerate(self.sides):
            if person in people:
                return i
        return None

    def people(self) -> list[str]:
        return [p for people in self.sides for p in people]


def _avg(total: Fraction, n: int) -> float | None:
    return None if not n else round(float(Fraction(total) / n), 2)


def _renames(matches: list[dict]) -> tuple:
    """Return the host's renames and merges that stand in ``matches``, oldest first."""
    return tuple(e for m in matches for e in m.get("host", []) if e.get("type") in ("rename", "merge"))


def _identity(matches: list[dict]) -> Identity:
    return Identity(e for m in matches for e in m.get("host", []) if e.get("type") in ("rename", "merge"))


def _seen(matches: list[dict]) -> Identity:
    """Return the identity of ``matches`` with every name seen at the table, in order (each person is
    called as the host named them, else as last spelled at the table)."""
    ids = _identity(matches)
    for m in matches:
        for g in m["games"]:
            for s in g["sides"]:
                for p in s["players"]:
                    ids.saw(p)
    return ids


def night_report(matches: list[dict], *, night: int | None = None, break_hours: float = BREAK_HOURS) -> dict:
    """Return one night (default the last) with its standing per player and its settle-up.

    ``{"night", "nights", "start", "end", "settled", "settled_at", "open", "open_nights", "in_play", "players":
    [{"name", "money", "games", "wins", "losses"}], "payments": [{"from", "to", "amount"}], "games": [...]}``;
    ``players`` by money won, most first. ``open``: the night has a game that ended and is not settled (the
    host may settle it, any night); ``open_nights``: every such night's number. With no game yet: ``night``
    is None and the lists are empty.

    :raises ValueError: no such night.
    """
    ids = _identity(matches)
    return _night_report(group_nights(matches, break_hours=break_hours), ids, night)


def _night_report(nights: list[dict], ids: Identity, night: int | None) -> dict:
    if not nights:
        if night is not None:
            raise ValueError(f"no night {night}: the table has not kept a game yet")
        return {"night": None, "nights": 0, "start": None, "end": None, "settled": False, "settled_at": None,
                "open": False, "open_nights": [], "in_play": False, "players": [], "payments": [], "games": []}
    if night is None:
        night = len(nights)
    if not isinstance(night, int) or isinstance(night, bool) or not 1 <= night <= len(nights):
        raise ValueError(f"no night {night!r}: the nights are 1 to {len(nights)}")
    n = nights[night - 1]
    games = [_Game(g, ids) for g in n["games"]]
    per: dict[str, dict] = {}
    for gm in games:
        for i, people in enumerate(gm.sides):
            for p in people:
                row = per.setdefault(p, {"money": Fraction(0), "games": 0, "wins": 0, "losses": 0})
                if gm.finished:
                    row["games"] += 1
                    row["wins"] += i in gm.won
                    row["losses"] += i in gm.lost
                    row["money"] += gm.money.get(p, 0)
    payments = settle_up({p: r["money"] for p, r in per.items()})
    listed = []
    for k, gm in enumerate(games, start=1):
        g = gm.g
        listed.append({"n": k, "title": g["title"], "preset": g["preset"], "stake": g["stake"], "end": g["end"],
                       "finished": gm.finished,
                       "sides": [{"name": ids.name(people[0]) if len(people) == 1 else
                                  " & ".join(ids.name(p) for p in people),
                                  "score": s["score"], "house": s["house"],
                                  "won": i in gm.won, "lost": i in gm.lost}
                                 for i, (people, s) in enumerate(zip(gm.sides, g["sides"]))],
                       "money": {ids.name(p): money(v) for p, v in gm.money.items()}})
    return {"night": night, "nights": len(nights), "start": n["start"], "end": n["end"],
            "settled": n["settled"], "settled_at": n["settled_at"],
            "open": not n["settled"] and any(gm.finished for gm in games),
            "open_nights": [m["night"] for m in nights if not m["settled"]
                            and any(g["result"] is not None for g in m["games"])],
            "in_play": any(not gm.finished for gm in games),
            "players": [{"name": ids.name(p), "money": money(r["money"]), "games": r["games"], "wins": r["wins"],
                         "losses": r["losses"]}
                        for p, r in sorted(per.items(), key=lambda kv: (-kv[1]["money"], ids.name(kv[0])))],
            "payments": [{"from": ids.name(a), "to": ids.name(b), "amount": money(v)} for a, b, v in payments],
            "games": listed}


def season_report(matches: list[dict], *, player: str | None = None, break_hours: float = BREAK_HOURS) -> dict:
    """Return the season per player: money over the nights, games, wins, losses, skunks, the hands, head to head.

    ``{"nights": [{"night", "date", "settled", "games"}], "players": [...]}``, each player ``{"name", "house",
    "money", "nights", "games", "wins", "losses", "skunks_won", "skunked", "hands", "average_hand", "pockets",
    "average_pocket", "best_hand", "twenty_nines", "zero_hands", "by_night": [{"night", "money", "total"}],
    "head_to_head": [{"opponent", "games", "wins", "losses", "money"}]}``, by money won, most first.
    Skunks count in the games whose bands are skunks (cribbage and reverse cribbage; their lines move
    with the target, S3); ``skunks_won`` where the player's side received a skunk's multiplier,
    ``skunked`` where it paid one. ``zero_hands`` counts the hands that counted nothing in the games that
    pay a zero hand (Land's End, L3); a pocket is each player's of the side that owned it.

    :raises ValueError: ``player`` names nobody who has played.
    """
    ids = _identity(matches)
    nights = group_nights(matches, break_hours=break_hours)
    tally = Tally()
    for n in nights:
        for g in n["games"]:
            tally.add(g, n["night"], ids)
    return tally.report(nights, ids, player)


class Tally:
    """The season's figures per person, added up game by game (:meth:`add`); :meth:`fork` copies them so
    the match in play is added to a copy of the matches that are over."""

    def __init__(self) -> None:
        self.per: dict[str, dict] = {}
        self.frozen: dict[str, tuple] = {}      # person -> (up to night, its money-by-night rows, running total)

    def freeze(self, upto: int) -> None:
        """Write each person's money-by-night rows up to night ``upto`` once (no later game can change
        them): a report then writes only the nights after it."""
        for p, r in self.per.items():
            # the rows written already stay (a game added later is of a later night): only the nights since
            done, rows, total = self.frozen.get(p, (0, [], Fraction(0)))
            if done > upto:
                done, rows, total = 0, [], Fraction(0)
            more = []
            for k in sorted(k for k in r["by_night"] if done < k <= upto):
                total += r["by_night"][k]
                more.append({"night": k, "money": money(r["by_night"][k]), "total": money(total)})
            self.frozen[p] = (upto, rows + more if more else rows, total)

    def fork(self) -> "Tally":
        """Return a copy that more games can be added to, this one unchanged."""
        other = Tally()
        other.frozen = self.frozen
        other.per = {p: {**r, "by_night": dict(r["by_night"]), "h2h": {q: dict(h) for q, h in r["h2h"].items()}}
                     for p, r in self.per.items()}
        return other

    def _row(self, p: str) -> dict:
        return self.per.setdefault(p, {
            "money": Fraction(0), "games": 0, "wins": 0, "losses": 0, "skunks_won": 0, "skunked": 0,
            "hands": 0, "hand_points": 0, "pockets": 0, "pocket_points": 0, "best": None, "t29": 0, "zeros": 0,
            "by_night": {}, "h2h": {}})

    def add(self, g: dict, night: int, ids: Identity) -> None:
        """Add one game (a summary) of night ``night``, its players as ``ids`` says."""
        gm = _Game(g, ids)
        for s in g["shows"]:
            for p in s["players"]:
                r = self._row(ids.key(p))
                if s["kind"] == "show":
                    r["hands"] += 1
                    r["hand_points"] += s["points"]
                    r["zeros"] += s["zero"] and g["zero_bonus"]
                    if r["best"] is None or s["counted"] > r["best"]["points"]:
                        r["best"] = {"points": s["counted"], "cards": s["cards"], "starter": s["starter"],
                                     "night": night, "date": g["end"][:10], "title": g["title"]}
                else:
                    r["pockets"] += 1
                    r["pocket_points"] += s["points"]
                r["t29"] += s["counted"] == 29
        if not gm.finished:
            return
        for i, people in enumerate(gm.sides):
            for p in people:
                r = self._row(p)
                r["games"] += 1
                r["wins"] += i in gm.won
                r["losses"] += i in gm.lost
                r["money"] += gm.money.get(p, 0)
                r["by_night"][night] = r["by_night"].get(night, Fraction(0)) + gm.money.get(p, 0)
                if g["skunks"] and g["result"]["skunk"]:
                    r["skunks_won"] += i in gm.won
                    r["skunked"] += i in gm.lost
                for j, others in enumerate(gm.sides):
                    if j == i:
                        continue
                    for q in others:
                        h = r["h2h"].setdefault(q, {"games": 0, "wins": 0, "losses": 0, "money": Fraction(0)})
                        h["games"] += 1
                        h["wins"] += i in gm.won and j in gm.lost
                        h["losses"] += i in gm.lost and j in gm.won
                        for a, b, amount in gm.flows:
                            share = amount / (len(gm.sides[a]) * len(gm.sides[b]))
                            h["money"] += share if (a, b) == (j, i) else -share if (a, b) == (i, j) else 0

    def report(self, nights: list[dict], ids: Identity, player: str | None = None) -> dict:
        """Return the figures as :func:`season_report` does."""
        per = self.per
        if player is not None:
            key = ids.key(player)
            if key not in per:
                raise ValueError(f"no player {player!r} has played at this table")
            keys = [key]
        else:
            keys = sorted(per, key=lambda p: (-per[p]["money"], ids.name(p)))
        dates = {n["night"]: n["start"][:10] for n in nights}
        out = []
        for p in keys:
            r = per[p]
            upto, frozen, total = self.frozen.get(p, (0, [], Fraction(0)))
            by_night = [{**row, "date": dates.get(row["night"], "")} for row in frozen]
            for k in sorted(k for k in r["by_night"] if k > upto):
                total += r["by_night"][k]
                by_night.append({"night": k, "date": dates.get(k, ""), "money": money(r["by_night"][k]),
                                 "total": money(total)})
            out.append({
                "name": ids.name(p), "house": p == ids.key(HOUSE_NAME), "money": money(r["money"]),
                "nights": len(by_night), "games": r["games"], "wins": r["wins"], "losses": r["losses"],
                "skunks_won": r["skunks_won"], "skunked": r["skunked"],
                "hands": r["hands"], "average_hand": _avg(r["hand_points"], r["hands"]),
                "pockets": r["pockets"], "average_pocket": _avg(r["pocket_points"], r["pockets"]),
                "best_hand": r["best"], "twenty_nines": r["t29"], "zero_hands": r["zeros"], "by_night": by_night,
                "head_to_head": [{"opponent": ids.name(q), "games": h["games"], "wins": h["wins"],
                                  "losses": h["losses"], "money": money(h["money"])}
                                 for q, h in sorted(r["h2h"].items(), key=lambda kv: ids.name(kv[0]))]})
        return {"nights": [{"night": n["night"], "date": n["start"][:10], "start": n["start"], "end": n["end"],
                            "settled": n["settled"],
                            "games": sum(1 for g in n["games"] if g["result"] is not None)} for n in nights],
                "players": out}


def race(game: dict) -> dict:
    """Return a game's score race by hand: each side's score after the pegging and after the shows of
    every hand (``{"sides": [names], "target", "reach", "hands": [{"hand", "pegging": [points by side],
    "shows": [...], "other": [...], "after_pegging": [scores], "scores": [scores]}]}``): ``other`` is what
    neither the pegging nor a show made (heels, a peg by hand), counted with the pegging."""
    n = len(game["sides"])
    score = [0] * n
    hands: dict[int, dict] = {}
    for hand, side, points, after, stage in game["race"]:
        h = hands.setdefault(hand, {"hand": hand, "pegging": [0] * n, "shows": [0] * n, "other": [0] * n,
                                    "after_pegging": None, "scores": None})
        key = {"p": "pegging", "s": "shows"}.get(stage, "other")
        h[key][side] += points
        score[side] = after
        if stage != "s":
            h["after_pegging"] = list(score)
        h["scores"] = list(score)
    out, last = [], [0] * n
    for k in sorted(hands):
        h = hands[k]
        if h["after_pegging"] is None:
            h["after_pegging"] = list(last)
        last = h["scores"]
        out.append(h)
    return {"sides": [s["name"] for s in game["sides"]], "target": game.get("target"), "reach": game.get("reach"),
            "hands": out}


# --- the store ------------------------------------------------------------------------------------

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


# --- out ------------------------------------------------------------------------------------------

NIGHT_CSV = ("night", "date", "row", "player", "to", "amount", "games", "wins", "losses", "settled")
SEASON_CSV = ("player", "money", "nights", "games", "wins", "losses", "skunks_won", "skunked", "hands",
              "average_hand", "pockets", "average_pocket", "best_hand", "best_hand_cards", "twenty_nines", "zero_hands")


def _csv(header: tuple, rows: list[list]) -> str:
    import csv
    import io
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(header)
    w.writerows(["" if v is None else v for v in r] for r in rows)
    return out.getvalue()


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def night_csv(report: dict) -> str:
    """Return a night (:func:`night_report`) as CSV: a ``standing`` row per player (``amount`` won, + or -),
    then a ``payment`` row per payment (``player`` pays ``to`` the ``amount``)."""
    date = (report["start"] or "")[:10]
    rows = [[report["night"], date, "standing", p["name"], "", p["money"], p["games"], p["wins"], p["losses"],
             _yes(report["settled"])] for p in report["players"]]
    rows += [[report["night"], date, "payment", p["from"], p["to"], p["amount"], "", "", "", _yes(report["settled"])]
             for p in report["payments"]]
    return _csv(NIGHT_CSV, rows)


def season_csv(report: dict) -> str:
    """Return the season (:func:`season_report`) as CSV: a row per player."""
    rows = []
    for p in report["players"]:
        best = p["best_hand"] or {}
        cards = " ".join(best.get("cards") or []) + (f" / {best['starter']}" if best.get("starter") else "")
        rows.append([p["name"], p["money"], p["nights"], p["games"], p["wins"], p["losses"], p["skunks_won"],
                     p["skunked"], p["hands"], p["average_hand"], p["pockets"], p["average_pocket"],
                     best.get("points"), cards.strip(), p["twenty_nines"], p["zero_hands"]])
    return _csv(SEASON_CSV, rows)
