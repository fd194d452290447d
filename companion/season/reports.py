"""The reports: a night's standing and settle-up, the season per player, a game's score race, from the matches'
summaries (:mod:`companion.season.summary`) grouped into nights (:mod:`companion.season.nights`).
"""

from __future__ import annotations

from fractions import Fraction

from ..match import HOUSE_NAME
from ..players import Identity
from .nights import BREAK_HOURS, group_nights
from .settle import settle_up
from .summary import money


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
