"""Every command the table takes, with the functions that verify and apply it: one table to read.

``verify(state, command, ctx)`` is pure: it validates and normalises the command
and returns the event, or raises :class:`~companion.errors.RulesError` with one
sentence and its data (nothing changes). ``apply(state, event)`` folds a stored
event into the state. Card entry is a second level: the hand in progress is a
deal hand (:class:`~companion.deal.DealHand`) or a tabletop round
(:class:`~companion.grid.GridHand`), and :data:`HAND_RULES` says which of its
methods verifies and applies each card-entry command. ``undo`` is not here: it is
the table's (:data:`companion.table.TABLE_COMMANDS`), a fold of the events without
the undone ones; the table's ``new_match`` starts a new match id and verifies here.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from functools import partial
from typing import Callable

from dataclasses import replace

from . import amend, claims, host, match
from .deal import DealHand
from .deal import show
from .errors import IllegalAction, RulesError
from .grid import GridHand
from .grid import count, placement
from .hand import ENTRY_COMMANDS, current_hand, next_hand, note_entry
from .match import Context, MatchState
from .rulesets import Ruleset
from .steps import award_all


@dataclass(frozen=True)
class Command:
    """How one command kind becomes an event, and how that event changes the state."""

    verify: Callable[[MatchState, dict, Context], dict]
    apply: Callable[[MatchState, dict], None]
    needs_match: bool = True


def hand_class(rules: Ruleset) -> type:
    """Return the class of the hands of a game of ``rules``: tabletop rounds or deal hands."""
    return GridHand if rules.grid else DealHand


# card entry: (verify, apply) of each command, per kind of hand
HAND_RULES: dict[str, dict[str, tuple[Callable, Callable]]] = {
    "cards": {
        "turnup": (DealHand.verify_turnup, DealHand.apply_turnup),
        "play": (DealHand.verify_play, DealHand.apply_play),
        "go": (DealHand.verify_go, DealHand.apply_go),
        "show": (show.verify_show, show.apply_show),
        "pocket": (show.verify_pocket, show.apply_pocket),
        "claim": (DealHand.verify_claim, claims.apply_play_claim),
        "muggins": (claims.verify_muggins, claims.apply_muggins),
    },
    "grid": {
        "turnup": (GridHand.verify_turnup, GridHand.apply_turnup),
        "place": (placement.verify_place, placement.apply_place),
        "layout": (placement.verify_layout, placement.apply_layout),
        "claim": (count.verify_claim, count.apply_claim),
        "muggins": (claims.verify_muggins, claims.apply_muggins),
    },
}


def verify_entry(kind: str, state: MatchState, cmd: dict, ctx: Context) -> dict:
    """Verify card-entry command ``kind`` against the hand in progress (and the fixes kept in doubt in it)."""
    hand = current_hand(state)
    rule = HAND_RULES[hand.kind].get(kind)
    if rule is None:
        raise IllegalAction(hand.wrong_command(state, kind))
    ack = cmd.get("doubt")
    ack = ack if isinstance(ack, int) and not isinstance(ack, bool) else None
    if hand.doubts:
        _ask_again(kind, state, hand, cmd, ack)
    ev = rule[0](hand, state, cmd)
    if kind == "play" and cmd.get("answered") is True and not (ev.get("gos") or ev.get("by_seat") or ev.get("by_turn")):
        ev["answered"] = True      # the player to play, tapped as the answer to "whose card?": the show names it again
    if ack is not None and kind in ("play", "place") and "doubt" in cmd:
        ev["doubt"] = ack          # entered as it stands over that doubt: an amend re-derives it so
    return ev


# --- fixes dismissed, kept with the hand (issue 36) --------------------------------------------------------

def open_doubts(state: MatchState) -> list[dict]:
    """Return the fixes dismissed in the current hand (``doubt`` events) that still apply: not settled, and
    the amend still taken as it stands now (a dry run; nothing changes)."""
    hand = state.hand
    if not getattr(hand, "doubts", ()) or state.over:
        return []
    ctx = Context(rng=random.Random(0))
    out = []
    for d in hand.doubts:
        if d.get("settled"):
            continue
        try:
            COMMANDS["amend"].verify(state, copy.deepcopy(d["fix"]), ctx)
        except RulesError:
            continue
        out.append(d)
    return out


def _card_of(cmd: dict) -> str | None:
    try:
        return str(match.parse_command_card(cmd.get("card")))
    except RulesError:
        return None


def _ask_again(kind: str, state: MatchState, hand, cmd: dict, ack: int | None) -> None:
    """Refuse, asking which was meant, an entry that meets a fix kept in doubt: the same card entered again
    (unless the command says it is entered as it stands over that doubt: ``doubt``), or the hand's show
    while the fix still applies. The refusal carries the fix (``amend``) and the doubt's event (``doubt``)."""
    if kind in ("play", "place"):
        card = _card_of(cmd)
        for d in open_doubts(state) if card is not None else ():
            if d.get("card") == card and ack != d["seq"]:
                raise IllegalAction(f"{card} again: its fix was dismissed (event {d['seq']}: {d['text']}) and still "
                                    f"applies: which did you mean, the fix, or {card} entered now as it stands?",
                                    amend=copy.deepcopy(d["fix"]), doubt=d["seq"], again=True)
    elif kind in ("show", "pocket") or (kind == "claim" and hand.stage in ("show", "pocket")):
        for d in open_doubts(state):
            raise IllegalAction(f"before the show: the fix dismissed at event {d['seq']} still applies "
                                f"({d['text']}): take the fix, or keep the entries as they stand",
                                amend=copy.deepcopy(d["fix"]), doubt=d["seq"], settle=True)


def _fix_words(fix: dict) -> str:
    seq = fix.get("seq")
    if fix.get("remove"):
        return f"remove event {seq}"
    ins = fix.get("insert")
    if isinstance(ins, dict) and ins.get("card") is not None:
        return f"{ins['card']}{' for ' + str(ins['player']) if ins.get('player') else ''} entered before event {seq}"
    if isinstance(ins, dict):
        return f"{amend.describe(ins)} entered before event {seq}"
    return f"event {seq}: " + ", ".join(f"{k} {v}" for k, v in fix.items() if k not in ("type", "seq", "if_seq"))


def verify_doubt(state: MatchState, cmd: dict, ctx: Context) -> dict:
    """``doubt {fix}``: a refusal's fix dismissed is kept with the hand: the same card entered again, or the
    hand's show while the fix still applies, asks again which was meant. ``doubt {settle: N}``: the doubt
    kept by event N is settled as the entries stand."""
    hand = state.hand
    log = state.hand_log if state.hand_key == (state.game_no, state.hand_no) else []
    if hand is None or not log:
        raise IllegalAction("nothing to keep in doubt: no entry in the current hand")
    if cmd.get("settle") is not None:
        n = cmd["settle"]
        d = next((d for d in getattr(hand, "doubts", ()) if d["seq"] == n and not d.get("settled")), None)
        if isinstance(n, bool) or not isinstance(n, int):
            d = None
        if d is None:
            raise IllegalAction(f"event {n} is not a fix kept in doubt in this hand")
        return {"type": "doubt", "settle": n, "text": f"kept as entered ({d['text']})"}
    fix = cmd.get("fix")
    seq = fix.get("seq") if isinstance(fix, dict) else None
    if not isinstance(fix, dict) or fix.get("type") != "amend" or not isinstance(seq, int) or isinstance(seq, bool):
        raise IllegalAction('fix is the amend a refusal offered, e.g. {"type": "amend", "seq": 3, "player": "Ann"}')
    entry = next((e for e in log if e.get("seq") == seq), None)
    if entry is None:
        raise IllegalAction(f"event {seq} is not an entry of this hand")
    fix = {k: copy.deepcopy(v) for k, v in fix.items() if k != "if_seq"}
    card = _card_of(fix["insert"]) if isinstance(fix.get("insert"), dict) else _card_of(fix) or entry.get("card")
    return {"type": "doubt", "fix": fix, "entry": seq, "card": card, "text": _fix_words(fix)}


def apply_doubt(state: MatchState, ev: dict) -> None:
    hand = state.hand
    if ev.get("settle") is not None:
        doubts = tuple({**d, "settled": True} if d["seq"] == ev["settle"] else d for d in hand.doubts)
    else:
        doubts = hand.doubts + ({"seq": state.seq, "fix": ev["fix"], "entry": ev["entry"], "card": ev.get("card"),
                                 "text": ev["text"]},)
    state.hand = replace(hand, doubts=doubts)


def apply_entry(state: MatchState, ev: dict) -> None:
    """Fold a card-entry event into the match: the hand's rule returns the new hand and its steps; the
    steps are scored in order until one ends the game (the hand is kept as it stood then), and a hand or
    round that is over makes way for the next."""
    hand = note_entry(state.hand, state, ev)
    out = HAND_RULES[hand.kind][ev["type"]][1](hand, state, ev)
    state.hand = award_all(state, out.scored, out.hand)
    if state.over:
        return
    state.phase = state.hand.phase
    if out.then == "end_round":          # a tabletop round: G4 decides over the target after both counted
        if state.rules.reach == "highest":
            state.finish_round_highest()
            if state.over:
                return
        state.hand = replace(state.hand, stage="done")
    if out.then is not None:
        next_hand(state)


COMMANDS: dict[str, Command] = {
    "new_match": Command(match.verify_new_match, partial(match.apply_new_match, hands=hand_class), needs_match=False),
    "new_game": Command(match.verify_new_game, match.apply_new_game),
    "peg": Command(match.verify_peg, match.apply_peg),
    "doubt": Command(verify_doubt, apply_doubt),
    **{kind: Command(partial(verify_entry, kind), apply_entry) for kind in ENTRY_COMMANDS},
    # the host's events about people and nights: facts the season reads, nothing in the match (companion.host)
    **{kind: Command(verify, host.HOST_APPLY[kind]) for kind, verify in host.HOST_COMMANDS.items()},
}


def apply_event(state: MatchState, ev: dict) -> None:
    """Fold one stored event into ``state`` (in place); the current hand's events are logged beside the
    state at the hand's start (what an amend refolds: :func:`companion.match.note_hand`)."""
    kind = ev["type"]
    if kind in host.HOST_COMMANDS:       # not an entry of the hand: an amend never re-derives it
        state.seq = state.applied = ev.get("seq", state.seq + 1)
        state.fresh = []
        host.HOST_APPLY[kind](state, ev)
        return
    if kind == "new_match":
        state.match_id = ev.get("match_id", state.match_id)
    elif kind != "amend":
        match.note_hand(state)
    state.seq = ev.get("seq", state.seq + 1)
    state.applied = state.seq
    state.fresh = []
    COMMANDS[kind].apply(state, ev)
    if kind not in ("new_match", "amend") and state.hand_key is not None:
        state.hand_log.append(ev)


def verify_any(state: MatchState, cmd: dict, ctx: Context) -> dict:
    """Verify a command of any kind (what an amend re-derives the hand's later entries with)."""
    return COMMANDS[cmd["type"]].verify(state, cmd, ctx)


# amend (companion.amend) re-derives the hand through this very table
COMMANDS["amend"] = Command(partial(amend.verify_amend, verify=verify_any, fold_one=apply_event),
                            partial(amend.apply_amend, fold_one=apply_event))


def fold(events: list[dict]) -> MatchState:
    """Return the state built from ``events`` (already stripped of undone ones)."""
    state = MatchState()
    for ev in events:
        apply_event(state, ev)
    return state
