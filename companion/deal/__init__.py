"""A hand of a deal game as a value: the turn-up, the matching phase, the shows, the pocket.

From the plays the hand infers the count, its resets (31, or everyone still holding
cards has said go), who leads next (M2), the go and last-card points, and it credits
every point as the ruleset says (L2, M3): :mod:`companion.deal.pegging`. The shows and
the pocket: :mod:`companion.deal.show`. Claim mode: :mod:`companion.claims`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import claims
from ..errors import IllegalAction
from ..hand import STAGE_WORDS, EntryHand
from ..names import seat_named
from ..match import MatchState, parse_command_card
from ..scoring import number_words
from ..steps import Outcome, Step
from . import pegging
from .show import show_doubt, show_order, verify_pocket, verify_show


@dataclass(frozen=True, kw_only=True)
class DealHand(EntryHand):
    """One hand of a deal game: cut, matching phase (plays), shows in order, the pocket."""

    kind = "cards"
    peg: pegging.Pegging                        # the matching phase: plays, count, gos, who each card was for
    leader: int                                 # who leads the first count
    cutter: int                                 # who cuts (the turn-up)
    show_order: tuple[int, ...]
    shows: tuple[dict, ...] = ()
    listed: int = 0                             # shows entered with their cards listed (not confirmed from the plays)
    named: frozenset = frozenset()              # the guessed cards a show's answer said who played (issue 36)
    asked: frozenset = frozenset()              # cards whose player was the answer to "whose card?" (``answered``),
                                                # a doubt until the show (issue 36)
    pocket: dict | None = None

    @classmethod
    def new(cls, state: MatchState) -> "DealHand":
        rules = state.rules
        leader = state.next_seat(state.dealer)
        return cls(**cls.carried(state), leader=leader, cutter=leader, show_order=show_order(state),
                   peg=pegging.start(state, held=rules.held, single=rules.pegging_count == "single", leader=None))

    # the matching phase, read through the hand
    plays = property(lambda self: self.peg.plays)
    count = property(lambda self: self.peg.count)
    count_cards = property(lambda self: self.peg.count_cards)
    gone = property(lambda self: self.peg.gone)
    turn = property(lambda self: self.peg.turn)

    def left(self, seat: int) -> int:
        """Return how many cards ``seat`` still holds in the matching phase."""
        return self.peg.left(seat)

    def may_play(self, state: MatchState) -> list[str]:
        """Return who may have played the next card, in order: the player to play, then each later player
        still in the count, as long as every player before them might have said go (M2; the page's "whose
        card?" answers, so the page restates no turn order)."""
        out: list[str] = []
        for k in range(len(state.seats)):
            s = state.next_seat(self.turn, steps=k)
            if self.left(s) == 0 or s in self.gone:
                continue
            out.append(state.seats[s])
            if self.go_wrong(state, s) is not None:
                break
        return out

    def go_wrong(self, state: MatchState, seat: int) -> str | None:
        """Return why ``seat`` cannot say go now (the engine can tell), or None."""
        return pegging.go_wrong(state, self.peg, self.seen, seat)

    # --- what comes next ---------------------------------------------------------------
    def expect(self, state: MatchState) -> str:
        return {"cut": "turnup", "pegging": "play", "show": "show", "pocket": "pocket"}.get(self.stage, "none")

    def expect_player(self, state: MatchState) -> str | None:
        if self.stage == "cut":
            return state.seats[self.cutter]
        if self.stage == "pegging":
            return state.seats[self.turn]
        if self.stage == "show":
            return state.seats[self.show_order[len(self.shows)]]
        if self.stage == "pocket":
            return state.sides[state.pocket_owner()].name
        return None

    def wrong_command(self, state: MatchState, kind: str) -> str:
        if kind in ("place", "layout"):
            return f"{state.rules.title} is not a tabletop game: there is no grid"
        return f"unknown card-entry command {kind!r}"

    def wrong_stage(self, state: MatchState, what: str) -> IllegalAction:
        want = self.expect(state)
        who = self.expect_player(state)
        return IllegalAction(f"cannot {what} now: the hand is {STAGE_WORDS[self.stage]}"
                             + (f" and expects {who}'s {want}" if who and want != "none" else ""))

    # --- wrong credits: the event to undo back to -----------------------------------------
    def where(self, card) -> str:
        return super().where(card) + self.credit_note(card)

    def undo_point(self, card) -> int | None:
        cr = self.peg.credit(card)
        return cr.seq if cr is not None else None

    def credit_note(self, card) -> str:
        """Return, for a played card, which event credited it to whom and that undoing back to it fixes it."""
        cr = self.peg.credit(card)
        if cr is None:
            return ""
        return (f"; {card} was entered as {cr.player}'s at event {cr.seq} (count {cr.count}): "
                f"if it was not {cr.player}'s card, undo back to event {cr.seq} and enter it for its player")

    def suspect_note(self, state: MatchState, seat: int) -> tuple[str, int | None]:
        """Return which credited play to undo back to when ``seat`` cannot have held all it was credited:
        the last card entered by default for the player to play near 31 (``seat``'s own first), else
        ``seat``'s last card; as ``(words, event seq)`` (``("", None)``: none)."""
        everyone = list(self.peg.credits)
        guesses = [x for x in everyone if x[1].guess]
        pick = ([x for x in guesses if x[1].seat == seat] or guesses
                or [x for x in everyone if x[1].seat == seat])
        if not pick:
            return "", None
        card, cr = pick[-1]
        why = f", where {cr.player} might have said go" if cr.guess else ""
        return (f"; if one of them was another player's card, undo back to event {cr.seq} ({card}, entered "
                f"for {cr.player} at a count of {cr.count - card.value}{why}) and enter it for its player",
                cr.seq)

    def guess_note(self, state: MatchState, seat: int, *, why: str = "") -> tuple[str, int | None]:
        """Return, when ``seat`` might have no cards left after all (or ``why``), the card entered by default
        to undo back to, as ``(words, event seq)`` (``("", None)``: none)."""
        guesses = [(c, cr) for c, cr in self.peg.credits if cr.guess]
        if not guesses:
            return "", None
        card, cr = guesses[-1]
        why = why or f"if {state.seats[seat]} has no card left"
        return (f"; {why}, a card went to the wrong player: undo back to "
                f"event {cr.seq} ({card}, entered for {cr.player} as the player to play at a count of "
                f"{cr.count - card.value}, where {cr.player} might have said go)", cr.seq)

    # --- the matching phase: companion.deal.pegging's values, scored or owed -----------------
    def pegged(self, scored, final: pegging.Pegging) -> tuple[list, "DealHand"]:
        """Return the steps a card or go made, each with the hand as it stood then (claim mode: owed
        to their sides and logged without points), and the hand after them."""
        out = []
        window = self.window
        for step, value in scored:
            if window is not None:
                window, step = claims.owe(window, step, value.count)
            out.append((step, replace(self, peg=value, window=window)))
        return out, replace(self, peg=final, window=window, stage="show" if final.done else self.stage)

    def check_gos(self, state: MatchState, seat: int, card) -> None:
        """Refuse ``card`` for ``seat`` when ``seat`` said go earlier in the hand while holding it and it
        fitted then: that go was false (a mistake, or said at the table), caught at this card before more
        entries are made on top of it. Every go of ``seat`` in the hand is judged, in this count or an
        earlier one, whatever gos the card implies for the others (they never include ``seat``'s own, and a
        count they close would otherwise hide the go: issue 36 item 6). The first such go is named, with its
        own count and the count now; the refusal's ``false_go`` is its event and player, and the only fix
        offered for it is that go's removal (:mod:`companion.fixes`).

        :raises IllegalAction: naming the go (``undo_to``: its event).
        """
        name = state.seats[seat]
        own = [g for g in self.peg.goes if g.seat == seat]
        for g in own:
            if card.value > 31 - g.count:
                continue
            if seat in self.gone and g == own[-1] and g.count == self.count:    # this count's, nothing since
                words = f"{name} said go at a count of {g.count} (event {g.seq}), but {card} fits"
            else:
                words = (f"{name} said go at a count of {g.count} (event {g.seq}; the count is {self.count} "
                         f"now) while holding {card}, which fitted ({g.count + card.value})")
            raise IllegalAction(f"{words}: if {name}'s go was a mistake, undo back to event {g.seq}",
                                undo_to=g.seq, false_go={"seq": g.seq, "player": name})

    def implied(self, state: MatchState, seat: int, what: str) -> tuple[list[int], pegging.Pegging]:
        """Return the gos implied before ``seat`` can ``what``, and the matching phase then.

        :raises IllegalAction: when one of those gos is one the engine can tell is wrong.
        """
        try:
            gos, p = pegging.implied_gos(state, self.peg, self.seen, seat)
        except pegging.WrongGo as wrong:
            g = wrong.seat
            note, back = self.guess_note(state, g)
            # the count it speaks of: the one on the screen, or the next one (the count would begin again)
            then = (f" at {self.count}, and again once the count began again" if wrong.again else "")
            raise IllegalAction(f"it is {state.seats[g]}'s turn; {state.seats[seat]} can {what} only if "
                                f"{state.seats[g]} said go{then}, but {wrong.why}{note}", undo_to=back) from None
        if p is None:
            raise IllegalAction(f"it is not {state.seats[seat]}'s turn")
        if p.done:
            raise IllegalAction(f"the matching phase would be over before {state.seats[seat]} could {what}")
        return gos, p

    def _gos(self, state: MatchState, names) -> tuple[list, "DealHand"]:
        """The steps and hand after each of ``names`` says go, in order."""
        hand, out = self, []
        for name in names:
            final, scored = pegging.go(state, hand.peg, state.seats.index(name), seq=state.seq)
            steps, hand = hand.pegged(scored, final)
            out += steps
        return out, hand

    # --- commands -------------------------------------------------------------------------
    def verify_turnup(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "cut":
            raise IllegalAction(f"the turn-up is already {self.turnup}" if self.turnup
                                else str(self.wrong_stage(state, "turn up")))
        card = parse_command_card(cmd.get("card"))
        return {"type": "turnup", "card": str(card)}

    def apply_turnup(self, state: MatchState, ev: dict) -> Outcome:
        card = parse_command_card(ev["card"])
        hand = replace(self, turnup=card, seen=self.seen.plus({card: "it is the turn-up"}))
        heels = state.rules.heels
        scored = ()
        if card.rank == 11 and heels:
            scored = ((Step(state.dealer_side(), heels, "heels", f"{number_words(heels)} for his heels", "cut",
                            player=self.dealer_name), hand),)
        if state.rules.pegging:
            after = replace(hand, stage="pegging", peg=replace(hand.peg, turn=self.leader))
        else:
            after = replace(hand, stage="show")
        return Outcome(after, scored)

    def _player(self, state: MatchState, cmd: dict) -> int:
        name = cmd.get("player")
        return self.turn if name is None else seat_named(state, name)

    def verify_play(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "pegging":
            raise self.wrong_stage(state, "play a card")
        card = parse_command_card(cmd.get("card"))
        seat = self._player(state, cmd)
        name = state.seats[seat]
        if card in self.seen:
            raise IllegalAction(EntryHand.where(self, card))
        if self.left(seat) == 0:
            note, back = self.suspect_note(state, seat)
            raise IllegalAction(f"{name} has played all {self.peg.held} cards "
                                f"({', '.join(str(c) for c in self.plays[seat])}){note}", undo_to=back)
        self.check_gos(state, seat, card)
        gos, sim = self.implied(state, seat, f"play {card}")
        if sim.count + card.value > 31:
            # the count may still be going on only because a card the table guessed went to the wrong player
            note, back = self.guess_note(state, seat, why="if the count should have begun again")
            raise IllegalAction(f"{name} cannot play {card}: the count would be {sim.count + card.value}, over 31"
                                f" (say go if nobody can play){note}", undo_to=back)
        ev = {"type": "play", "card": str(card), "player": name}
        if gos:
            ev["gos"] = [state.seats[g] for g in gos]
        if cmd.get("player") is None:
            ev["by_turn"] = True    # entered for whoever was to play: an amend re-derives the player
        elif cmd.get("by_seat") is True:
            ev["by_seat"] = True    # entered on the player's own phone: the card is theirs, never a guess
        return ev

    def apply_play(self, state: MatchState, ev: dict) -> Outcome:
        hand = replace(self, window=claims.open_window(state, ev["card"], ev["player"]))
        out, hand = hand._gos(state, ev.get("gos", []))
        seat, card = state.seats.index(ev["player"]), parse_command_card(ev["card"])
        # a card on its player's own phone is no guess; one whose gos were implied was named for its player
        final, scored = pegging.play(state, hand.peg, hand.seen, seat, card, seq=state.seq,
                                     sure=ev.get("by_seat", False), implied=bool(ev.get("gos")))
        hand = replace(hand, seen=hand.seen.plus({card: f"played by {ev['player']}"}))
        if ev.get("answered"):
            hand = replace(hand, asked=hand.asked | {str(card)})
        steps, hand = hand.pegged(scored, final)
        return Outcome(hand, tuple(out + steps))

    def verify_go(self, state: MatchState, cmd: dict) -> dict:
        if self.stage != "pegging":
            raise self.wrong_stage(state, "say go")
        seat = self._player(state, cmd)
        if self.left(seat) == 0:
            note, back = self.suspect_note(state, seat)
            raise IllegalAction(f"{state.seats[seat]} has no cards left: there is nothing to say go about{note}",
                                undo_to=back)
        gos, sim = self.implied(state, seat, "say go")
        why = pegging.go_wrong(state, sim, self.seen, seat)
        if why:
            note, back = self.guess_note(state, seat)
            then = " once the count began again" if gos and not sim.gone else ""    # not the count on the screen
            raise IllegalAction(f"{state.seats[seat]} cannot say go{then}: {why}{note}", undo_to=back)
        ev = {"type": "go", "player": state.seats[seat]}
        if gos:
            ev["gos"] = [state.seats[g] for g in gos]
        if cmd.get("player") is None:
            ev["by_turn"] = True
        return ev

    def apply_go(self, state: MatchState, ev: dict) -> Outcome:
        hand = replace(self, window=claims.open_window(state, "go", ev["player"]))
        out, hand = hand._gos(state, ev.get("gos", []) + [ev["player"]])
        return Outcome(hand, tuple(out))

    def verify_claim(self, state: MatchState, cmd: dict) -> dict:
        """``claim {points, ...}``: the last card's points while they are open (matching phase, claim mode),
        otherwise the next show or pocket with its claimed count."""
        if claims.window_open(self, state) and (self.stage == "pegging" or any(
                s.claimed is None and not s.called for s in self.window.slots)):
            return claims.verify_play_claim(self, state, cmd)
        if not state.rules.claim_mode:
            raise IllegalAction("this table is not in claim mode: the companion counts")
        fn = {"show": verify_show, "pocket": verify_pocket}.get(self.stage)
        if fn is None:
            raise IllegalAction(f"nothing to claim: the hand is {STAGE_WORDS.get(self.stage, self.stage)}")
        return fn(self, state, {**cmd, "claimed": cmd.get("points", cmd.get("claimed"))})

    # --- views ------------------------------------------------------------------------------
    def summary(self) -> dict:
        return {"hand_no": self.hand_no, "dealer": self.dealer_name,
                "turnup": str(self.turnup) if self.turnup else None,
                "plays": [p.to_dict() for p in self.peg.order], "gos": [g.to_dict() for g in self.peg.goes],
                "shows": list(self.shows), "pocket": self.pocket}

    def snapshot(self, state: MatchState) -> dict:
        """Return the hand part of the table snapshot (docs/architecture.md, "Card entry").

        The parts are shared with the state, never mutated after they are built; the
        table deep-copies snapshots at its boundary."""
        snap = self.base_snapshot(state)
        pegging_now = self.stage == "pegging" and not state.over
        snap.update({
            "plays": {name: [str(c) for c in self.plays[i]] for i, name in enumerate(state.seats)},
            "order": [p.to_dict() for p in self.peg.order],
            "gos": [g.to_dict() for g in self.peg.goes],
            # who each card was entered for, by which event, at which count; ``guess``: the player to play
            # might have said go instead, so the table had to guess (the show's question names it)
            "credits": [{"card": str(c), "player": cr.player, "seq": cr.seq, "at": cr.count - c.value,
                         "guess": cr.guess and not cr.implied} for c, cr in self.peg.credits],
            "cards_left": {name: self.left(i) for i, name in enumerate(state.seats)},
            "gone": [state.seats[s] for s in self.gone],
            "can_go": pegging_now and self.go_wrong(state, self.turn) is None,
            "may_play": self.may_play(state) if pegging_now else [],
            "playable_ranks": pegging.playable_ranks(self.peg) if pegging_now else [],
            "show_order": [state.seats[s] for s in self.show_order],
            # the cards the table guessed that the next show must settle: who played each, or its cards listed
            "in_doubt": [str(c) for c, _ in show_doubt(self)] if self.stage == "show" and not state.over else [],
            "shows": [claims.veiled(self, state, x) for x in self.shows],
            "pocket": claims.veiled(self, state, self.pocket),
            "pocket_owner": state.sides[state.pocket_owner()].id,
        })
        return snap
