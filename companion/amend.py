"""Amend: correct a past entry of the current hand where it happened.

``{"type": "amend", "seq": N, ...}`` changes entry ``N`` of the current hand
(who played a card, which card it was, a go that should not be there, a
missing go or a card never entered) without undoing what came after it. The
table stores one event that says what changed (``amends``, ``was``,
``change``) with the hand's entries re-derived from ``N`` on (``redo``):
every later entry is kept *as entered*, so a card entered for whoever was
to play (``by_turn``) goes to whoever is to play after the correction, and
a show confirmed from the plays (``from_plays``) shows the corrected plays.
If a later entry becomes impossible (a player would play a card they no
longer hold, a count over 31, the game would be over before it), the amend
is refused naming that entry and why; nothing changes.

Folding the event restores the state kept at the hand's start
(``MatchState.hand_base``) and folds the hand's unchanged entries and
``redo``: an amend refolds at most the current hand, and undo undoes it as
one step (it is one event). Its score steps (kind ``amend``) are the
scores it moved, one per side, for History and the announcement.

>>> from companion.table import Table
>>> t = Table.memory()
>>> for c in ({"type": "turnup", "card": "KC"}, {"type": "play", "card": "5H", "player": "Player 1"}):
...     _ = t.submit(c)
>>> ev = t.submit({"type": "amend", "seq": 2, "card": "10H"})
>>> ev["change"], t.snapshot()["count"]
({'card': '10H'}, 10)
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from .errors import IllegalAction, RulesError
from .hand import ENTRY_COMMANDS
from .match import Context, MatchState
from .scoring import number_words

AMENDABLE = ENTRY_COMMANDS + ("peg",)

#: The fields an amend may change, per kind of entry (the command's own field names).
FIELDS: dict[str, tuple[str, ...]] = {
    "play": ("player", "card"), "go": ("player",), "turnup": ("card",),
    "show": ("cards", "claimed"), "pocket": ("cards", "claimed"),
    "place": ("card", "row", "col", "crib"), "layout": ("cards", "crib"),
    "claim": ("claimed", "side"), "muggins": ("side",), "peg": ("side", "points"),
}
KEYS = ("type", "seq", "if_seq", "remove", "insert") + tuple(sorted({f for fs in FIELDS.values() for f in fs}))


def as_entered(ev: dict) -> dict:
    """Return the command an entry was entered as (what an amend re-derives it from)."""
    kind = ev["type"]
    cmd: dict[str, Any] = {"type": kind}
    if kind == "play":
        cmd["card"] = ev["card"]
        if not ev.get("by_turn"):
            cmd["player"] = ev["player"]
        if ev.get("by_seat"):
            cmd["by_seat"] = True
        if ev.get("doubt") is not None:
            cmd["doubt"] = ev["doubt"]
        if ev.get("answered"):
            cmd["answered"] = True
    elif kind == "go":
        if not ev.get("by_turn"):
            cmd["player"] = ev["player"]
    elif kind == "show":
        cmd["player"] = ev["player"]
        if not ev.get("from_plays"):
            cmd["cards"] = list(ev["cards"])
        if ev.get("named"):
            # the cards a doubt was settled for, each as credited when re-derived: a later amend that moves one
            # is the newer word (companion.deal.show: a list re-derives, a dict is an answer checked)
            cmd["named"] = sorted(ev["named"])
    elif kind in ("pocket", "layout"):
        cmd.update({k: copy.deepcopy(v) for k, v in ev.items() if k in ("cards", "crib")})
    elif kind == "turnup":
        cmd["card"] = ev["card"]
    elif kind == "place":
        cmd.update({k: ev[k] for k in ("card", "row", "col", "crib") if k in ev})
    elif kind == "claim":
        cmd["claimed"] = ev["claimed"]
        if "side" in ev and not ev.get("by_turn"):
            cmd["side"] = ev["side"]
    elif kind == "muggins":
        if not ev.get("by_turn"):
            cmd["side"] = ev["caller"]
    elif kind == "peg":
        cmd.update(side=ev["side"], points=ev["points"])
    elif kind == "doubt":
        cmd.update({k: copy.deepcopy(ev[k]) for k in ("fix", "settle") if ev.get(k) is not None})
    if kind in ("show", "pocket") and ev.get("claimed") is not None:
        cmd["claimed"] = ev["claimed"]
    return cmd


def _named(value: Any, missing: str) -> str:
    """Return a command's card(s) as words: ``missing`` when absent, every item as text when it is a list (a
    command is described before it is verified, so its fields may be of any type)."""
    if value is None:
        return missing
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or missing
    return str(value)


def describe(cmd: dict) -> str:
    """Return a short phrase naming an entry ("Bob's 2D", "Ann's go", "the turn-up KC").

    Absent-safe: a command not yet verified (an insert, a late command) may lack any field.

    >>> describe({"type": "play", "card": "2D", "player": "Bob"}), describe({"type": "play"})
    ("Bob's 2D", 'a card, for the player to play')
    """
    kind, who = cmd.get("type"), cmd.get("player")
    owner = f"{who}'s " if who else ""
    if kind == "play":
        card = _named(cmd.get("card"), "a card")
        return f"{owner}{card}" if who else f"{card}, for the player to play"
    if kind == "go":
        return f"{owner}go" if who else "a go by the player to play"
    if kind == "turnup":
        return f"the turn-up {_named(cmd.get('card'), '(no card)')}"
    if kind == "show":
        return f"{owner}hand" + (f" {_named(cmd['cards'], '')}" if cmd.get("cards") else " (the cards played)")
    if kind == "pocket":
        return f"the pocket {_named(cmd.get('cards'), '(no cards)')}"
    if kind == "place":
        return f"{_named(cmd.get('card'), 'a card')} " + (
            "into the crib" if cmd.get("crib") else f"at row {cmd.get('row')}, col {cmd.get('col')}")
    if kind == "layout":
        return "the layout"
    if kind == "claim":
        return f"the claim of {cmd.get('claimed')}"
    if kind == "muggins":
        return f"muggins called by {cmd['side']}" if cmd.get("side") else "muggins"
    if kind == "doubt":
        return "a fix kept as entered" if cmd.get("settle") is not None else "a fix kept in doubt"
    return f"a peg of {cmd.get('points')} for {cmd.get('side')}"


class AmendRefused(IllegalAction):
    """An amend that a later entry of the hand does not survive (``entry``: that entry's seq)."""

    def __init__(self, message: str, entry: int | None = None) -> None:
        super().__init__(message, entry=entry)
        self.entry = entry


def _hand_log(state: MatchState) -> list[dict]:
    if state.hand_key != (state.game_no, state.hand_no) or not state.hand_log or state.hand_base is None:
        raise IllegalAction("nothing to amend: no entry in the current hand yet (undo to change an earlier hand)")
    return state.hand_log


def _change(cmd: dict, old: dict | None) -> tuple[list[dict], dict]:
    """Return the commands that replace entry ``old`` (``[]``: removed; two: one inserted before it)
    and the change as stored."""
    extra = [k for k in cmd if k not in KEYS]
    if extra:
        raise IllegalAction(f"amend takes seq and one change ({', '.join(KEYS[3:])}), not {', '.join(extra)}")
    if cmd.get("remove") is not None and cmd["remove"] is not True:
        raise IllegalAction("remove is true (drop the entry) or left out")
    fields = {k: v for k, v in cmd.items() if k not in ("type", "seq", "if_seq", "remove", "insert")}
    if "points" in fields and old is not None and old["type"] == "claim":
        fields["claimed"] = fields.pop("points")
    picked = [k for k in ("remove", "insert") if k in cmd] + (["fields"] if fields else [])
    if len(picked) != 1:
        raise IllegalAction("an amend makes one change: remove the entry, insert one before it, "
                            "or give the fields to change")
    if cmd.get("remove"):
        return [], {"remove": True}
    if "insert" in cmd:
        ins = cmd["insert"]
        if not isinstance(ins, dict) or ins.get("type") not in AMENDABLE:
            raise IllegalAction(f"insert is a card-entry command ({', '.join(AMENDABLE)}), e.g. "
                                f"{{\"type\": \"go\", \"player\": \"Bob\"}}")
        ins = {k: v for k, v in ins.items() if k not in ("seq", "if_seq")}
        return [ins, old], {"insert": ins}
    allowed = FIELDS.get(old["type"], ())
    wrong = [k for k in fields if k not in allowed]
    if wrong:
        raise IllegalAction(f"a {old['type']} entry can change " + (" or ".join(allowed) or "nothing")
                            + f", not {', '.join(wrong)} (remove it or insert one before it instead)")
    new = {**old, **fields}
    if old["type"] == "play" and "player" in fields:
        new.pop("answered", None)          # the amend names the player: no answer to "whose card?" is left in doubt
    if old["type"] == "place" and fields.get("crib"):
        new.pop("row", None)
        new.pop("col", None)
    elif old["type"] == "place" and ("row" in fields or "col" in fields):
        new.pop("crib", None)
    return [new], dict(fields)


def _scores(state: MatchState) -> list[int]:
    return [s.score for s in state.sides]


def verify_amend(state: MatchState, cmd: dict, ctx: Context, *, verify: Callable, fold_one: Callable) -> dict:
    """Return the ``amend`` event: the entry's change and the hand's entries re-derived from it
    (``verify``: any command's verify, ``fold_one``: fold one event; from companion.commands)."""
    n = cmd.get("seq")
    if not isinstance(n, int) or isinstance(n, bool):
        raise IllegalAction("amend needs the seq of the entry to correct (History lists every event with its number)")
    log = _hand_log(state)
    at = next((i for i, e in enumerate(log) if e["seq"] == n), None)
    if at is None:
        first = log[0]["seq"]
        why = (f"it comes before the current hand (its first entry is event {first}): undo back to it instead"
               if n < first else "it is not a live entry of this hand (undone, or not an entry)")
        raise IllegalAction(f"cannot amend event {n}: {why}")
    old_ev = log[at]
    if old_ev["type"] not in AMENDABLE:
        raise IllegalAction(f"cannot amend event {n}: a {old_ev['type']} is not a card entry")
    was = as_entered(old_ev)
    replace, change = _change(cmd, was)
    later = [(e["seq"], as_entered(e)) for e in log[at + 1:]]
    plan = [(None if (len(replace) == 2 and j == 0) else n, c) for j, c in enumerate(replace)] + later
    sim = copy.deepcopy(state.hand_base)
    for e in log[:at]:
        fold_one(sim, e)
    redo: list[dict] = []
    for seq, c in plan:
        what = describe(c) if seq is None else f"event {seq} ({describe(c)})"
        try:
            if sim.over:
                raise IllegalAction("the game would be over before it")
            ev = verify(sim, c, ctx)
        except RulesError as exc:
            lead = "the amended entry" if seq == n else what
            raise AmendRefused(f"cannot amend event {n}: {lead} no longer fits: {exc.args[0]}; nothing changed",
                               entry=seq) from None
        if seq is not None:
            ev["seq"] = seq
            orig = next((e for e in log if e["seq"] == seq), None)
            if orig is not None and "at" in orig:
                ev["at"] = orig["at"]
        else:
            ev["seq"] = state.seq + 1          # an inserted entry takes the amend's own number
        fold_one(sim, ev)
        if seq is None:
            ev.pop("seq")                      # filled in from the amend's seq when folded
        redo.append(ev)
    return {"type": "amend", "amends": n, "was": was, "change": change, "redo": redo,
            "text": f"event {n} amended: {_what_changed(old_ev, was, change)}"}

def apply_amend(state: MatchState, ev: dict, *, fold_one: Callable) -> None:
    log = state.hand_log
    at = next(i for i, e in enumerate(log) if e["seq"] == ev["amends"])
    base = state.hand_base
    new = copy.deepcopy(base)
    new.hand_base, new.hand_log, new.hand_key = base, [], base.hand_key
    before = _scores(state)
    for e in log[:at]:
        fold_one(new, e)
    for e in ev["redo"]:
        fold_one(new, e if "seq" in e else {**e, "seq": ev["seq"]})
    vars(state).update(vars(new))
    state.seq = ev["seq"]        # applied stays the hand's last entry: a muggins still open stays open
    state.fresh = []
    after = _scores(state)
    moved = [i for i in range(len(after)) if after[i] != before[i]]
    for i in moved or [None]:
        s = state.sides[i] if i is not None else None
        text = ev["text"] + (f"; {s.name} {after[i]}, was {before[i]}" if s else "; no score moved")
        rec = {"game": state.game_no, "hand": state.hand_no, "kind": "amend",
               "side": s.id if s else None, "credited": s.name if s else None,
               "points": after[i] - before[i] if s else 0, "score": after[i] if s else None,
               "was": before[i] if s else None, "text": text, "items": [], "player": None,
               "step": state.phase, "seq": ev["seq"]}
        state.steps.append(rec)
        state.fresh.append(rec)


def _what_changed(old: dict, was: dict, change: dict) -> str:
    """Return what an amend changed, naming players as the table had credited them."""
    named = {**was, "player": old.get("player", was.get("player"))} if old["type"] in ("play", "go") else was
    if change.get("remove"):
        return f"{describe(named)} removed"
    if "insert" in change:
        return f"{describe(change['insert'])} added before {describe(named)}"
    if old["type"] == "play" and set(change) == {"player"}:
        return f"{old['card']} is {change['player']}'s, not {old['player']}'s"
    if old["type"] == "go" and set(change) == {"player"}:
        return f"the go is {change['player']}'s, not {old['player']}'s"
    if set(change) == {"card"} and "card" in was:
        return f"{describe(named)} is {change['card']}"
    return f"{describe(named)} is now {describe({**named, **change})}"


__all__ = ["verify_amend", "apply_amend", "AmendRefused", "as_entered", "describe", "number_words"]
