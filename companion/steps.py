"""A score step as a value: what a rule scored, for whom, and at which stage of the hand.

The rules return steps (:class:`Step`); only :func:`award` turns them into points on
the match, in order, stopping the moment one ends the game (C4). A step says its own
stage (``"cut"``, ``"pegging"``, ``"show"``, ...), so nothing sets the match's phase
to label it.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Step(NamedTuple):
    """Points a rule made: ``side`` (index) scores ``points`` as ``kind``, said as ``text``."""

    side: int
    points: int
    kind: str
    text: str
    stage: str
    items: list | None = None
    player: str | None = None
    card: str | None = None


def award(state: Any, step: Step) -> bool:
    """Score ``step`` on the match; return True when the game is over (then or before)."""
    return state.award(step.side, step.points, kind=step.kind, text=step.text, items=step.items,
                       player=step.player, card=step.card, step=step.stage)


def award_all(state: Any, scored, final):
    """Score each ``(step, value)`` of ``scored`` in order; return the value to keep: the one paired with
    the step that ended the game, else ``final``."""
    for step, value in scored:
        if award(state, step):
            return value
    return final
