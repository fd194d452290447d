"""One match's summary: what the season keeps of a match, folded once from its stored events (the kept store,
:mod:`companion.season.store`, keeps it for a match that is over), and how money is written.
"""

from __future__ import annotations

from fractions import Fraction

from ..commands import COMMANDS, apply_event
from ..host import HOST_COMMANDS
from ..match import MatchState
from ..table import effective

HOST_EVENTS = tuple(HOST_COMMANDS)     # rename, merge, new_evening, settle

# the form of a kept summary: raise it when summarize_match writes something else, and every match is
# summarised again once (a finished match's games do not change with the code: it is not the fold's version)
SUMMARY_VERSION = "1"


def money(value: Fraction) -> int | float:
    """Return an exact amount as a JSON number (a whole number when it is one)."""
    if not isinstance(value, Fraction):
        value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


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
