"""The round count of a tabletop game, and its claims in claim mode.

After the last card the round is counted: the non-dealing side's lines one by one,
the dealer's side's lines, then the dealer's crib with the centre card as starter,
stopping the moment a score ends the game (T2, G3). The rows go to each round's
non-dealer (T1, ``grid_rows="non_dealer"``) or, in Table Top Cribbage, to one side for
the whole game (G6, ``grid_rows="fixed"``: ``state.rows_side``, set at each game's start). With ``round_scoring="difference"``
the side with more hand points gains the margin as one step, heels counting as the
dealer's hand points (G5); ``reach="highest"`` decides only after both sides counted
(G4). :func:`round_steps` is that rule, one function for both ways of scoring. In
claim mode each line is claimed by its owner in the counting order (L8).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from ..claims import age_claims, claim_of, claim_words, open_claim
from ..errors import IllegalAction
from ..hand import STAGE_WORDS
from ..names import side_named
from ..scoring import Breakdown, number_words, score_grid, score_hand
from ..steps import Outcome, Step
from ..view import MatchView

if TYPE_CHECKING:
    from . import GridHand

STAGE = "grid"


class Line(NamedTuple):
    """A line to count (a row, a column, the crib): whose it is and what it holds."""

    side: int
    label: str
    breakdown: Breakdown

    @property
    def kind(self) -> str:
        return "crib" if self.label == "crib" else "line"


def line_owners(state: MatchView) -> tuple[int, int]:
    """Return ``(rows side, columns side)`` of this round: the non-dealer's rows (T1), or in Table Top
    Cribbage the side that scores the rows all game (G6, ``state.rows_side``)."""
    if state.rules.grid_rows == "fixed" and state.rows_side is not None:
        rows = state.rows_side
    else:
        rows = state.seat_side[state.next_seat(state.dealer)]
    return rows, next(i for i in range(len(state.sides)) if i != rows)


def lines_of(state: MatchView, cells, crib, turnup) -> list[Line]:
    """Return the lines of a finished grid in counting order: the non-dealing side's lines, the dealer's
    side's, then the dealer's crib (if any)."""
    rows_side, cols_side = line_owners(state)
    dealer = state.dealer_side()
    grid = score_grid([c for row in cells for c in row], game=state.rules)
    lines = [Line(rows_side, b.label, b) for b in grid.rows] + [Line(cols_side, b.label, b) for b in grid.cols]
    if rows_side == dealer:     # G6: the dealer's side holds the rows this round; the columns count first
        lines = lines[5:] + lines[:5]
    if crib:
        lines.append(Line(dealer, "crib", score_hand(tuple(crib), turnup, crib=True, game=state.rules)))
    return lines


def round_steps(state: MatchView, scored: list[tuple[int, str, int, str, list]], heels: int, *,
                heels_item: bool = True) -> list[Step]:
    """Return the score steps of a counted round: ``scored`` is each line as ``(side, kind, points, text,
    items)`` in counting order. Line by line; or, with ``round_scoring="difference"``, one step: the side
    with more hand points (heels among the dealer's) gains the margin."""
    if state.rules.round_scoring != "difference":
        return [Step(side, points, kind, text, STAGE, items=items) for side, kind, points, text, items in scored]
    dealer = state.dealer_side()
    first = next(s for s in line_owners(state) if s != dealer)      # the non-dealing side, named first
    mine = sum(points for side, _, points, _, _ in scored if side == first)
    theirs = sum(points for side, _, points, _, _ in scored if side != first) + heels
    win = first if mine >= theirs else dealer
    margin = abs(mine - theirs)
    text = (f"{state.sides[first].name} {mine} against {state.sides[dealer].name} {theirs}: "
            + (f"{number_words(margin)} for {state.sides[win].name}" if margin else "level, nobody scores"))
    items = [{"kind": "hand points", "side": state.sides[first].id, "points": mine},
             {"kind": "hand points", "side": state.sides[dealer].id, "points": theirs}]
    if heels_item and heels:
        items.append({"kind": "heels", "side": state.sides[dealer].id, "points": heels})
    return [Step(win, margin, "round", text, STAGE, items=items)]


def count_round(hand: GridHand, state: MatchView) -> Outcome:
    """Count rows, columns and crib in order (T2, G3, G4, G5); claim mode: wait for each line's claim."""
    hand = replace(hand, stage="count", turn=None)
    lines = lines_of(state, hand.cells, hand.crib, hand.turnup)
    if state.rules.claim_mode:     # L8: each line is claimed by its owner, in this order
        return Outcome(replace(hand, to_claim=tuple(lines)))
    hand = replace(hand, lines=tuple({"side": state.sides[ln.side].id, "label": ln.label,
                                      "points": ln.breakdown.total, "breakdown": ln.breakdown.to_dict()}
                                     for ln in lines))
    steps = round_steps(state, [(ln.side, ln.kind, ln.breakdown.total, f"{ln.label}: {ln.breakdown.text}",
                                 [i.to_dict() for i in ln.breakdown.items]) for ln in lines], hand.heels)
    return Outcome(hand, tuple((s, hand) for s in steps), then="end_round")


# --- claim mode (L8): each line claimed by its owner in the counting order -------------------

def verify_claim(hand: GridHand, state: MatchView, cmd: dict) -> dict:
    if hand.stage != "count" or not hand.to_claim:
        raise IllegalAction("nothing to claim: " + ("the table is not in claim mode: the companion counts"
                                                    if not state.rules.claim_mode else
                                                    f"the round is {STAGE_WORDS.get(hand.stage, hand.stage)}"))
    line = hand.to_claim[0]
    who = state.sides[line.side].name
    if cmd.get("side", cmd.get("player")) is not None:
        if side_named(state, cmd.get("side", cmd.get("player"))) != line.side:
            raise IllegalAction(f"it is {who}'s {line.label} to claim next")
    claimed = claim_of(state, {"claimed": cmd.get("points", cmd.get("claimed"))}, line.breakdown.total, who)
    return {"type": "claim", "line": line.label, "claimed": claimed}


def apply_claim(hand: GridHand, state: MatchView, ev: dict) -> Outcome:
    hand = age_claims(hand, state, 1)       # each line's count is an entry (L8)
    line, claimed = hand.to_claim[0], ev["claimed"]
    side, b = line.side, line.breakdown
    hand = replace(hand.logged("claims_log", {"claimed": claimed}), to_claim=hand.to_claim[1:],
                   lines=hand.lines + ({"side": state.sides[side].id, "label": line.label, "points": claimed,
                                        "claimed": claimed, "breakdown": b.to_dict()},))
    name = state.sides[side].name
    text, items = f"{line.label}: " + claim_words(name, claimed), []    # right or short alike (L8)
    after = replace(hand, pending=open_claim(hand, state, side, claimed, b.total, name))
    if state.rules.round_scoring == "difference":
        # G5: claimed lines are hand points; the round's margin is scored after the last line
        scored = [(Step(side, 0, line.kind, text + " (hand points)", STAGE, items=items), hand)]
        if after.to_claim:
            return Outcome(after, tuple(scored))
        claimed_lines = [([s.id for s in state.sides].index(ln["side"]), "", ln["points"], "", [])
                         for ln in after.lines]
        scored += [(s, after) for s in round_steps(state, claimed_lines, hand.heels, heels_item=False)]
        return Outcome(after, tuple(scored), then="end_round")
    step = Step(side, claimed, line.kind, text, STAGE, items=items)
    return Outcome(after, ((step, hand),), then=None if after.to_claim else "end_round")
