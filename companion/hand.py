"""Card entry: what every hand is, whatever the game (the deal games' hands, the tabletop rounds).

The companion does not know the hands in advance: it learns each card as it is
turned up, played, shown or placed. A hand is a frozen value (:class:`EntryHand`);
its kind's rules live beside it, one file per rule noun:

- :mod:`companion.deal` — a hand of a deal game; :mod:`companion.deal.pegging` the
  matching phase (the count, a play, a go, who leads next), :mod:`companion.deal.show`
  the shows in order and the pocket;
- :mod:`companion.grid` — a tabletop round; :mod:`companion.grid.placement` the cards
  put on the grid or into the crib, :mod:`companion.grid.count` the round count;
- :mod:`companion.claims` — claim mode and muggins, over any hand's steps.

Each card-entry command has a pure ``verify`` (returns the event, or raises
:class:`~companion.errors.IllegalAction` / :class:`~companion.errors.InvalidCard`
with one sentence and its data) and a pure ``apply`` that returns an
:class:`~companion.steps.Outcome`: the new hand and the score steps it made, each
carrying its stage. :data:`companion.commands.HAND_RULES` lists them all; only
:func:`companion.commands.apply_entry` puts the outcome on the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from .cards import Card, parse_card
from .claims import Pending, Window, age_claims, claim_open, muggins_calls, under_claim, veiled
from .errors import IllegalAction
from .match import HOUSE_NAME, MatchState, begin_hand
from .record import hand_record
from .steps import FrozenMap

ENTRY_COMMANDS = ("turnup", "play", "go", "show", "pocket", "claim", "muggins", "place", "layout")
STAGE_WORDS = {"cut": "waiting for the turn-up", "pegging": "in the matching phase (plays)",
               "show": "in the show", "pocket": "waiting for the pocket", "place": "placing cards on the grid",
               "done": "over"}


def dealer_name(state: MatchState) -> str:
    """Return the dealer's name (the house when it deals without a seat)."""
    return state.seats[state.dealer] if state.dealer >= 0 else HOUSE_NAME


def next_hand(state: MatchState) -> None:
    """Start the next hand of the game: the deal passes in the direction of play (H1: not from the house)."""
    if not state.rules.house_deals:
        state.dealer = state.next_seat(state.dealer)
    begin_hand(state)


def _card_sort(text: str) -> tuple:
    c = parse_card(text)
    return (c.rank, c.suit)


@dataclass(frozen=True, kw_only=True)
class EntryHand:
    """What every hand has: its place in the game, the cards seen, its position, pegs, claims, muggins."""

    kind: ClassVar[str] = "none"
    game_no: int
    hand_no: int
    dealer: int
    dealer_name: str
    stage: str = "cut"
    turnup: Card | None = None
    seen: FrozenMap = field(default_factory=FrozenMap)   # card -> where it is ("it is the turn-up", ...)
    entries: int = 0                            # position in the hand: card entries and single gos
    muggins_log: tuple = ()                     # muggins called in this hand, with their position
    pegs: tuple = ()                            # manual pegs of this hand, with their position
    done: tuple = ()                            # the earlier hands of this game, as record hands
    previous: dict | None = None                # what the page shows of the hand before
    pending: tuple[Pending, ...] = ()           # under-claims open to muggins (L8), carried into the next hand
    window: Window | None = None                # claim mode: the last card's or go's points, open to claims
    claims_log: tuple = ()                      # matching-phase or grid-line claims, with their position
    extra_n: int = 0                            # order of pegs, claims and muggins within the hand
    doubts: tuple = ()                          # fixes dismissed, kept with the hand (``doubt`` events, issue 36)

    @staticmethod
    def carried(state: MatchState) -> dict:
        """Return the fields a new hand takes from the match and from the hand before it in the game."""
        prev = state.hand
        same = isinstance(prev, EntryHand) and prev.game_no == state.game_no
        return {"game_no": state.game_no, "hand_no": state.hand_no, "dealer": state.dealer,
                "dealer_name": dealer_name(state),
                "done": (prev.done + (hand_record(prev, state),)) if same else (),
                "previous": prev.summary() if same else None,
                "pending": prev.pending if same else ()}

    # what each kind fills in
    def summary(self) -> dict:
        """Return what the page shows of this hand once the next one starts."""
        raise NotImplementedError

    def expect(self, state: MatchState) -> str:
        """Return the next card-entry command expected: turnup|play|show|pocket|place|claim|none."""
        raise NotImplementedError

    def expect_player(self, state: MatchState) -> str | None:
        """Return who the next card-entry command is for (a player's or side's name)."""
        raise NotImplementedError

    @property
    def phase(self) -> str:
        """The match's phase while this hand is in progress."""
        return self.stage

    def wrong_command(self, state: MatchState, kind: str) -> str:
        """Return why command ``kind`` does not belong to this kind of game."""
        return f"{state.rules.title} has no {kind!r} command"

    # cards out
    def where(self, card: Card) -> str:
        """Return a sentence saying where ``card`` was already seen."""
        return f"{card} is already out: {self.seen[card]}"

    def undo_point(self, card: Card) -> int | None:
        """Return the event to undo back to when ``card`` was entered for the wrong player, or None."""
        return None

    def check_unseen(self, cards) -> None:
        """Refuse any of ``cards`` that was already seen this hand.

        :raises IllegalAction: naming the first such card and where it is (``undo_to``: see :meth:`undo_point`).
        """
        for c in cards:
            if c in self.seen:
                raise IllegalAction(self.where(c), undo_to=self.undo_point(c))

    # the hand's record of what was said beside the cards
    def logged(self, field: str, entry: dict) -> "EntryHand":
        """Return the hand with ``entry`` added to ``field`` (pegs, claims_log, muggins_log) at its position."""
        entry = {"at": self.entries, **entry, "n": self.extra_n}
        return replace(self, **{field: getattr(self, field) + (entry,)}, extra_n=self.extra_n + 1)

    def with_peg(self, ev: dict) -> "EntryHand":
        """Return the hand with a manual peg noted (for the game record)."""
        return self.logged("pegs", {"side": ev["side"], "points": ev["points"]})

    def base_snapshot(self, state: MatchState) -> dict:
        return {"kind": self.kind, "stage": self.stage, "hand_no": self.hand_no,
                "dealer": self.dealer_name,
                "expect": self.expect(state) if not state.over else "none",
                "expect_player": self.expect_player(state) if not state.over else None,
                "turnup": str(self.turnup) if self.turnup else None,
                "seen": sorted((str(c) for c in self.seen), key=_card_sort),
                "muggins_calls": muggins_calls(self, state),
                "claim_open": claim_open(self, state),
                "doubts": [],           # the fixes kept in doubt that still apply: filled in by the table
                "previous": self._veiled_previous(state)}

    def _veiled_previous(self, state: MatchState) -> dict | None:
        """The hand before as phones see it: its claims still open to muggins without their breakdowns."""
        prev = self.previous
        if not prev or not self.pending:
            return prev
        no = prev.get("hand_no")
        out = {**prev, **{k: [veiled(self, state, x, no) for x in prev[k]] for k in ("shows", "lines") if k in prev}}
        if "pocket" in prev:
            out["pocket"] = veiled(self, state, prev["pocket"], no)
        return out

    def under_claim(self, state: MatchState) -> dict | None:
        """The under-claim muggins would take now (:func:`companion.claims.under_claim`; not for the page)."""
        return under_claim(self, state)


def current_hand(state: MatchState) -> EntryHand:
    """Return the hand card entry acts on.

    :raises IllegalAction: the game is over, or no hand is in progress.
    """
    if state.over:
        raise IllegalAction("the game is over: start a new game (or undo)")
    if not isinstance(state.hand, EntryHand):
        raise IllegalAction("no hand is in progress")
    return state.hand


def note_entry(hand: EntryHand, state: MatchState, ev: dict) -> EntryHand:
    """Return the hand as a card-entry event finds it: a muggins is logged with its position; a card or go
    moves the hand's position on (every card entry and every single go), closes the last one's claims and
    ages the under-claims open to muggins (L8, :func:`companion.claims.age_claims`)."""
    if ev["type"] == "muggins":
        return hand.logged("muggins_log", {"claimant": ev["claimant"], "caller": ev["caller"]})
    if ev["type"] != "claim":
        n = 1 + len(ev.get("gos", ()))
        return age_claims(replace(hand, entries=hand.entries + n), state, n)
    return hand
