"""What to offer when an entry is refused: the amend that fixes it, what was entered meanwhile.

A refusal that names an event to undo back to (its ``undo_to``) can often be fixed by one
amend (:mod:`companion.amend`): a card credited to the wrong player, a go that
should not be there. :func:`amend_fixing` tries the likely amends on a copy
of the state (the suspects from event N on first) and returns the first after
which the refused command goes through, as a command the page offers in one
tap; a refusal that proves a go false (its ``false_go``) is offered only that
go's removal (:func:`go_removal`) or nothing. :func:`stale_note` explains a command refused because the table moved on
since its phone saw it (``if_seq``): what was entered meanwhile, and the amend
that puts the late card where it belongs before those entries.

Both only read the state; nothing here changes the table.
"""

from __future__ import annotations

import copy

from .amend import AMENDABLE, describe, as_entered
from .errors import RulesError
from .commands import COMMANDS, apply_event
from .match import Context, MatchState

MAX_TRIES = 32          # amends tried for one refusal (each refolds the current hand once, twice if it fits)


def _passes(state: MatchState, amend: dict, command: dict, ctx: Context) -> bool:
    """Return whether ``command`` would be taken after ``amend`` (both dry runs on a copy)."""
    try:
        ev = COMMANDS["amend"].verify(state, amend, ctx)
        sim = copy.copy(state)      # folding an amend replaces every field: the state itself is untouched
        ev["seq"] = state.seq + 1
        apply_event(sim, ev)
        kind = command.get("type")
        h = COMMANDS.get(kind) if isinstance(kind, str) else None
        if h is None:
            return False
        h.verify(sim, {k: v for k, v in command.items() if k != "if_seq"}, ctx)
        return True
    except RulesError:
        return False


def offer_amend(state: MatchState, command: dict, ctx: Context, exc: RulesError) -> None:
    """Add to refusal ``exc`` of ``command`` the amend that fixes it (``exc.data["amend"]``), when the
    refusal names an event to undo back to (its ``undo_to``: a wrong credit) and offers no amend yet.

    Read from the refusal's data, never from its sentence.
    """
    back = exc.data.get("undo_to")
    if back is None or "amend" in exc.data:
        return
    false_go = exc.data.get("false_go")
    if false_go is not None:        # a go the card shows false: its removal or nothing (issue 36 item 7)
        fix = go_removal(state, command, ctx, false_go["seq"], false_go["player"])
    else:
        fix = amend_fixing(state, command, ctx, back)
    if fix is not None:
        exc.data["amend"] = fix


def go_removal(state: MatchState, command: dict, ctx: Context, seq: int, player: str) -> dict | None:
    """Return the amend that removes ``player``'s go, entered as event ``seq``, when ``command`` is taken
    after it and every card entered since stays with the player it was entered for; else None.

    Never another player's go, and never a go implied by another entry (removing that entry would remove
    a card or someone else's go): then the refusal's undo back to the event is the fix. A removal after
    which a later card or go entered for whoever was to play would pass to another player is no fix either:
    right if the go was only tapped by mistake, wrong if it was said and the others played on as it stood,
    and the table cannot tell which (issue 36).
    """
    log = state.hand_log if state.hand_key == (state.game_no, state.hand_no) else []
    ev = next((e for e in log if e["seq"] == seq), None)
    if ev is None or ev["type"] != "go" or ev.get("player") != player:
        return None
    amend = {"type": "amend", "seq": seq, "remove": True}
    try:
        redo = COMMANDS["amend"].verify(state, amend, ctx)["redo"]
    except RulesError:
        return None

    def who(e: dict) -> tuple:
        return e["type"], e.get("player"), tuple(e.get("gos", ()))
    was = {e["seq"]: who(e) for e in log}
    if any(who(r) != was.get(r.get("seq")) for r in redo if r["type"] in ("play", "go")):
        return None
    return amend if _passes(state, amend, command, ctx) else None


def amend_fixing(state: MatchState, command: dict, ctx: Context, first: int | None = None) -> dict | None:
    """Return an amend after which ``command`` (just refused) is taken, or None.

    Tried in order: the go of event ``first`` removed (a go said by mistake), who played each card or
    said each go of the hand (from event ``first`` on first, the latest suspects last), then each go removed.
    """
    log = state.hand_log if state.hand_key == (state.game_no, state.hand_no) else []
    entries = [e for e in log if e["type"] in ("play", "go")]
    if not entries or state.rules is None:
        return None
    if first is not None:
        entries = [e for e in entries if e["seq"] >= first] + [e for e in entries if e["seq"] < first]
    tries = [{"type": "amend", "seq": e["seq"], "remove": True} for e in entries
             if e["seq"] == first and e["type"] == "go"]
    for e in entries:
        for p in state.seats:
            if p != e["player"]:
                tries.append({"type": "amend", "seq": e["seq"], "player": p})
    tries += [{"type": "amend", "seq": e["seq"], "remove": True} for e in entries if e["type"] == "go"]
    for amend in tries[:MAX_TRIES]:
        if _passes(state, amend, command, ctx):
            return amend
    return None


def stale_note(state: MatchState, command: dict, seen: int, ctx: Context) -> dict:
    """Return what a command made at ``seen`` (its ``if_seq``) missed: ``meanwhile`` (the entries of the
    current hand since, each ``{"seq", "text"}``) and ``amend`` (the amend that puts the command's
    entry before them, when the table takes that and every later entry still stands), or no ``amend``."""
    log = state.hand_log if state.hand_key == (state.game_no, state.hand_no) else []
    later = [e for e in log if e["seq"] > seen]
    out: dict = {"meanwhile": [{"seq": e["seq"], "text": _entered(e)} for e in later]}
    cmd = {k: v for k, v in command.items() if k not in ("if_seq", "client_id")}
    if later and later[0]["type"] in AMENDABLE and cmd.get("type") in AMENDABLE:
        amend = {"type": "amend", "seq": later[0]["seq"], "insert": cmd}
        try:
            COMMANDS["amend"].verify(state, amend, ctx)
            out["amend"] = amend
        except RulesError:
            pass
    return out


def _entered(ev: dict) -> str:
    """Return an entry as the page words it: "10D for Ann", "Bob's go"."""
    if ev["type"] == "play":
        return f"{ev['card']} for {ev['player']}"
    return describe({**as_entered(ev), "player": ev.get("player")} if ev["type"] == "go" else as_entered(ev))
