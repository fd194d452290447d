"""The table against an independent referee: whole hands of every deal preset, scored twice.

The referee below knows every hand (it deals them from a seeded deck), plays
like people do (a player who can play must play), and keeps the score from
the rulings alone: its own pegging count (15, 31, pairs, runs, go, last card,
single count), its own seating (direction of play, who leads, who is credited,
show order, who owns the pocket). It shares nothing with the engine but
``score_hand`` for the shows, whose totals are pinned by the exhaustive
distributions in test_stats. The table is told only what a table is told
(turn-up, each card with its player, every go, the shows, the pocket), and
after every command its scores must equal the referee's, to the point. In
claim mode (L8) the referee holds each card's and go's points until it claims
them, side by side in the counting order, and claims every show exactly.
"""

from __future__ import annotations

import random

import pytest

from companion.cards import DECK
from companion.rulesets import get_ruleset
from companion.scoring import score_hand
from engine_play import new_table
from reference import reference_peg_points

PRESETS = [
    # (game, players, options, teams)
    ("lands-end", ["Ann", "Bob"], {}, None),
    ("lands-end-3", ["Ann", "Bob", "Cy"], {}, None),
    ("lands-end-3", ["Ann", "Bob", "Cy"], {"direction": "ccw"}, None),
    ("lands-end-4", ["Ann", "Bob", "Cy", "Di"], {}, [["Ann", "Cy"], ["Bob", "Di"]]),
    ("lands-end-casino-2", ["Ann"], {}, None),
    ("lands-end-casino-3", ["Ann", "Bob"], {}, None),
    ("lands-end-casino-3", ["Ann", "Bob"], {"direction": "ccw"}, None),
    ("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], {}, [["Ann", "Cy"], ["Bob", "Di"]]),
    ("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], {"direction": "ccw"}, [["Ann", "Cy"], ["Bob", "Di"]]),
    ("cribbage", ["Ann", "Bob"], {}, None),
    ("reverse-cribbage", ["Ann", "Bob"], {}, None),
    ("five-card", ["Ann", "Bob"], {}, None),
    ("lands-end", ["Ann", "Bob"], {"pegging_credit": "self", "zero_bonus_pocket": True}, None),
    # L9 both ways in every two-hand preset with a restarting count (the defaults are above)
    ("lands-end", ["Ann", "Bob"], {"go_lead": "other_player"}, None),
    ("lands-end-casino-2", ["Ann"], {"go_lead": "other_player"}, None),
    ("cribbage", ["Ann", "Bob"], {"go_lead": "last_player"}, None),
    ("cribbage", ["Ann", "Bob"], {"book_rules": True}, None),
    ("reverse-cribbage", ["Ann", "Bob"], {"go_lead": "last_player"}, None),
    # claim mode (L8): the referee claims exactly what each card, go and show made, for whoever is credited
    ("lands-end", ["Ann", "Bob"], {"claim_mode": True}, None),
    ("lands-end-3", ["Ann", "Bob", "Cy"], {"claim_mode": True}, None),
    ("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], {"claim_mode": True}, [["Ann", "Cy"], ["Bob", "Di"]]),
    ("cribbage", ["Ann", "Bob"], {"claim_mode": True}, None),
    ("five-card", ["Ann", "Bob"], {"claim_mode": True}, None),
]


class Referee:
    """Seats, credits and the pegging count, worked out from the rulings (not from the engine)."""

    def __init__(self, snap: dict, rules, go_lead: str) -> None:
        self.rules = rules
        self.seats = snap["players"]                      # clockwise; a playing house is a seat
        self.side_of = {}
        for i, side in enumerate(snap["sides"]):
            for p in side["players"]:
                self.side_of[p] = i
        self.house = next((i for i, s in enumerate(snap["sides"]) if s["house"]), None)
        self.step = -1 if rules.direction == "ccw" else 1
        self.scores = [s["score"] for s in snap["sides"]]
        self.ids = [s["id"] for s in snap["sides"]]
        self.over = False
        self.owed: list[tuple[int, int]] = []         # claim mode: the points of the last entry, in order
        self.go_lead = go_lead

    def go_leader(self, last: str, gone: list[str], hands: dict) -> int:
        """The seat that leads the count after a go: the first to say go (M2; two-hand, the other
        player), or in two-hand play under L9's last_player the one who played the last card, unless
        that player has no card left."""
        if self.go_lead == "last_player" and hands[last]:
            return self.seats.index(last)
        return self.seats.index(gone[0])

    def after(self, seat: int, k: int = 1) -> int:
        return (seat + self.step * k) % len(self.seats)

    def left_of_dealer(self, dealer: str) -> int:
        if dealer in self.seats:
            return self.after(self.seats.index(dealer))
        return 0 if self.step == 1 else len(self.seats) - 1      # a house without a seat deals "before" seat 0

    def credit(self, player: str) -> int:
        own = self.side_of[player]
        if self.rules.pegging_credit == "self":
            return own
        seat = self.seats.index(player)
        for k in range(1, len(self.seats)):
            other = self.side_of[self.seats[self.after(seat, k)]]
            if other != own:
                return other
        raise AssertionError("no opponent")

    def peg(self, side: int, points: int) -> None:
        """A matching-phase point: scored now, or (claim mode) owed until its side claims it."""
        if self.rules.claim_mode:
            self.owed.append((side, points))
        else:
            self.add(side, points)

    def add(self, side: int, points: int) -> None:
        if self.over or not points:
            return
        self.scores[side] += points
        if self.scores[side] >= self.rules.target:
            self.over = True


def play_hand(t, ref: Referee, rng: random.Random, hand_no: int) -> None:
    """Deal, then tell the table the hand while the referee scores it; compare after every command."""
    snap = t.snapshot()
    rules = ref.rules
    dealer = snap["dealer"]
    deck = list(DECK)
    rng.shuffle(deck)
    n = len(ref.seats)
    dealt = {p: deck[i * rules.dealt:(i + 1) * rules.dealt] for i, p in enumerate(ref.seats)}
    pos = n * rules.dealt
    pocket = deck[pos:pos + rules.pocket_dealt]
    turnup = deck[pos + rules.pocket_dealt]
    held = {}
    for p, cards in dealt.items():
        rng.shuffle(cards)
        held[p] = cards[:rules.held]
        pocket += cards[rules.held:]

    def send(cmd: dict) -> None:
        t.submit(cmd)
        got = [s["score"] for s in t.snapshot()["sides"]]
        assert got == ref.scores, (hand_no, cmd, got, ref.scores)
        assert t.state.over == ref.over, (hand_no, cmd)

    def entry(cmd: dict) -> None:
        """Send a card or go; in claim mode, then each credited side's claim, in counting order (C4)."""
        send(cmd)
        owed, ref.owed = ref.owed, []
        for side in dict.fromkeys(s for s, _ in owed):
            if ref.over:
                return
            for s, pts in owed:
                if s == side:
                    ref.add(s, pts)
            send({"type": "claim", "side": ref.ids[side], "points": sum(p for s, p in owed if s == side)})

    def shown(cmd: dict, points: int) -> dict:
        if rules.claim_mode:
            cmd["claimed"] = points
        return cmd

    # the cut: heels to the dealer's side
    if turnup.rank == 11:
        ref.add(ref.side_of[dealer] if dealer in ref.side_of else ref.house, rules.heels)
    send({"type": "turnup", "card": str(turnup)})
    if ref.over:
        return

    # the matching phase, played by people who must play when they can
    hands = {p: list(c) for p, c in held.items()}
    turn = ref.left_of_dealer(dealer)
    count: list = []
    last = None
    gone: list[str] = []
    single = rules.pegging_count == "single"

    def holders():
        return [p for p in ref.seats if hands[p]]

    def next_active(seat: int) -> int:
        return next(ref.after(seat, k) for k in range(1, n + 1)
                    if hands[ref.seats[ref.after(seat, k)]] and ref.seats[ref.after(seat, k)] not in gone)

    done = False
    while not done:
        p = ref.seats[turn]
        assert hands[p] and p not in gone
        fits = [c for c in hands[p] if sum(x.value for x in count) + c.value <= 31]
        if fits:
            card = rng.choice(fits)
            hands[p].remove(card)
            count.append(card)
            last = p
            ref.peg(ref.credit(p), reference_peg_points(count))            # the card's own points first (C4)
            cmd = {"type": "play", "card": str(card), "player": p}
            if sum(c.value for c in count) == 31:                    # 31 for two, never a last point on top
                done = single or not holders()
                if not done:
                    turn = next(ref.after(turn, k) for k in range(1, n + 1) if hands[ref.seats[ref.after(turn, k)]])
                    count, gone = [], []
            elif not holders():                                      # the last card of the phase
                ref.peg(ref.credit(p), rules.last_card)
                done = True
            elif all(q in gone for q in holders()):                  # everyone else said go: go to p
                ref.peg(ref.credit(p), rules.last_card)
                done = single
                if not done:
                    turn = ref.go_leader(p, gone, hands)
                    count, gone = [], []
            else:
                turn = next_active(turn)
        else:
            gone.append(p)
            cmd = {"type": "go", "player": p}
            if all(q in gone for q in holders()):
                ref.peg(ref.credit(last), rules.last_card)          # go (single count: last) to the last to play
                done = single
                if not done:
                    turn = ref.go_leader(last, gone, hands)
                    count, gone = [], []
            else:
                turn = next_active(turn)
        entry(cmd)
        if ref.over:
            return

    assert t.snapshot()["hand"]["stage"] == "show", (hand_no, t.snapshot()["hand"]["stage"])

    # the show: M4 / L5 / F5 order, then the pocket to its owner (L1, H2, H3, H4)
    first = ref.left_of_dealer(dealer)
    order = [ref.seats[ref.after(first, k)] for k in range(n)]
    if rules.show_order == "teams" and dealer in ref.side_of:
        order.sort(key=lambda p: ref.side_of[p] == ref.side_of[dealer])
    assert t.snapshot()["hand"]["show_order"] == order
    for p in order:
        pts = score_hand(held[p], turnup, game=rules).total
        ref.add(ref.side_of[p], pts)
        send(shown({"type": "show", "player": p, "cards": [str(c) for c in held[p]]}, pts))
        if ref.over:
            return
    if rules.pocket_owner == "dealer":
        owner = ref.side_of[dealer]
    elif rules.pocket_owner == "player":
        owner = next(i for i in range(len(ref.scores)) if i != ref.house)
    elif rules.pocket_owner == "house":
        owner = ref.house
    else:   # H3: rotates round the table from the dealer's left, the house last
        ring = [ref.side_of[ref.seats[ref.after(first, k)]] for k in range(n)]
        ring = [s for s in ring if s != ref.house] + [ref.house]
        owner = ring[(hand_no - 1) % len(ring)]
    pts = score_hand(pocket, turnup, crib=True, game=rules).total
    ref.add(owner, pts)
    send(shown({"type": "pocket", "cards": [str(c) for c in pocket]}, pts))


@pytest.mark.parametrize("game, players, options, teams", PRESETS,
                         ids=[f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for g, _, o, _ in PRESETS])
def test_the_table_scores_every_hand_as_the_referee_does(game, players, options, teams):
    ended = 0
    games = 30 if options.get("claim_mode") else 60        # claim mode: a claim after every card
    for seed in range(games):
        rng = random.Random(seed)
        t = new_table(game, players, seed=seed, options=options, teams=teams, stake=3)
        rules = get_ruleset(game, **options)
        ref = Referee(t.snapshot(), rules, ruled_go_lead(game, options))
        dealer = t.snapshot()["dealer"]
        for hand_no in range(1, 200):
            assert t.snapshot()["dealer"] == dealer, hand_no        # H1: the house deals; else the deal passes
            play_hand(t, ref, rng, hand_no)
            if ref.over:
                break
            if dealer in ref.seats and not rules.house_deals:
                dealer = ref.seats[ref.after(ref.seats.index(dealer))]
        assert t.state.over and ref.over
        ended += 1
        res = t.snapshot()["result"]
        reached = [i for i, s in enumerate(ref.scores) if s >= rules.target]
        assert len(reached) == 1
        sides = t.snapshot()["sides"]
        side = sides[reached[0]]
        wins = (rules.house_reach if side["house"] else rules.reach) == "wins"
        assert (res["winner"] if wins else res["loser"]) == side["id"]
        bands = BOOK_BANDS if options.get("book_rules") else BANDS[game.split("-")[0]]
        assert res["settlement"] == settlement(bands, sides, reached[0], wins=wins, stake=3)
    assert ended == games


def ruled_go_lead(game: str, options: dict) -> str:
    """Who leads after a go, from L9 alone: the last player in two-hand Land's End and two-hand
    casino and in cribbage's book rules; the other player (M2's first to say go) everywhere else;
    a table's go_lead option decides."""
    if "go_lead" in options:
        return options["go_lead"]
    if game in ("lands-end", "lands-end-casino-2") or (game in ("cribbage", "reverse-cribbage")
                                                       and options.get("book_rules")):
        return "last_player"
    return "other_player"


def band(score: int, bands) -> int:
    return next(k for lowest, k in bands if score >= lowest)


LANDS_END_BANDS = ((11, 1), (6, 2), (1, 3), (0, 4))     # L6: the receiver's score fixes its multiplier
SKUNK_BANDS = ((91, 1), (61, 2), (0, 3))                 # S1: the loser's score fixes the game's worth
BOOK_BANDS = ((61, 1), (0, 2))                           # S1 book rules: a double game under 61
BANDS = {"lands": LANDS_END_BANDS, "cribbage": SKUNK_BANDS, "reverse": SKUNK_BANDS, "five": ((0, 1),)}


def settlement(bands, sides, out: int, *, wins: bool, stake: int) -> dict:
    """The money of a finished game, from L6, M5, H4, H5 and S1 alone (five-card has no skunk ruling)."""
    pay = {s["id"]: 0 for s in sides}
    for i, s in enumerate(sides):
        if i == out:
            continue
        if not wins:            # the side that reached the target pays every other side at that side's multiplier
            k = band(s["score"], bands)
            pay[s["id"]] += stake * k
            pay[sides[out]["id"]] -= stake * k
        else:                   # a winner collects from each other side: the house once (H5), else by skunk (S1)
            k = 1 if sides[out]["house"] else band(s["score"], bands)
            pay[sides[out]["id"]] += stake * k
            pay[s["id"]] -= stake * k
    return pay
