"""A random legal player for whole games on a Table (seeded deals), used by the engine's tests.

It deals real cards from a seeded shuffled deck, keeps each player's hand,
and drives the table through card entry the way people at a table would:
turn-up, plays (naming a later player when the ones in between cannot play,
or saying go explicitly), shows (with or without the cards), the pocket;
for tabletop games, card-by-card placement or the whole layout at once.
"""

from __future__ import annotations

import random

from companion.cards import DECK
from companion.table import Table

SIZE = 5


def new_table(game: str, players: list[str], *, seed: int = 0, options: dict | None = None,
              stake: float = 1, first_dealer: str | None = None, teams=None, series=None,
              store=None, rows: str | None = None) -> Table:
    """Return a memory table with a new match of ``game`` (seeded cuts)."""
    t = Table(store, rng=random.Random(seed), default_match=None) if store is not None else \
        Table.memory(rng=random.Random(seed), default_match=None)
    cmd = {"type": "new_match", "game": game, "players": players, "stake": stake,
           "first_dealer": first_dealer, "options": options or {}}
    if teams:
        cmd["teams"] = teams
    if series:
        cmd["series"] = series
    if rows is not None:
        cmd["rows"] = rows
    t.submit(cmd)
    return t


class RandomPlayer:
    """Plays one table's current game to its end with random legal moves.

    ``submit`` is called for every command (default: ``table.submit``) so a
    test can check something around each one.
    """

    def __init__(self, table: Table, rng: random.Random, *, submit=None, claim_miss: float = 0.0,
                 claim_skip: float | None = None, muggins: bool = True) -> None:
        self.table = table
        self.rng = rng
        # claims and muggins draw from their own generator (seeded from the state of ``rng`` without
        # drawing from it): the plays of a claim-mode game are those of the same seed in counting mode
        self.claim_rng = random.Random(hash(rng.getstate()[1]))   # the ints only: hash(None) varies by run before 3.12
        self.submit = submit or table.submit
        self.claim_miss = claim_miss
        self.claim_skip = claim_miss / 3 if claim_skip is None else claim_skip
        self.muggins = muggins
        self.commands: list[dict] = []

    def send(self, cmd: dict) -> dict:
        self.commands.append(cmd)
        return self.submit(cmd)

    @property
    def st(self):
        return self.table.state

    def play_game(self, max_hands: int = 400) -> None:
        """Play hands until the current game is over."""
        for _ in range(max_hands):
            if self.st.over:
                return
            if self.st.rules.grid:
                self.grid_hand()
            else:
                self.deal_hand()
        raise AssertionError("the game did not end")

    # --- deal games ------------------------------------------------------------------------
    def deal_hand(self) -> None:
        st, rules, rng = self.st, self.st.rules, self.rng
        deck = list(DECK)
        rng.shuffle(deck)
        n = len(st.seats)
        hands = [deck[i * rules.dealt:(i + 1) * rules.dealt] for i in range(n)]
        pos = n * rules.dealt
        pocket = deck[pos:pos + rules.pocket_dealt]
        pos += rules.pocket_dealt
        kept = []
        for h in hands:
            rng.shuffle(h)
            pocket += h[:rules.discards]
            kept.append(h[rules.discards:])
        turnup = deck[pos]
        self.hands = {st.seats[i]: list(kept[i]) for i in range(n)}
        self.kept = {k: list(v) for k, v in self.hands.items()}
        self.send({"type": "turnup", "card": str(turnup)})
        while not self.st.over and self.st.hand.stage == "pegging":
            self.peg_step()
        while not self.st.over and self.st.hand.stage == "show":
            st = self.st
            name = st.hand.expect_player(st)
            cmd = {"type": "show"}
            if self.hands[name] or rng.random() < 0.5:
                cmd["cards"] = [str(c) for c in self.kept[name]]
            if rng.random() < 0.3:
                cmd["player"] = name
            doubt = self.table.snapshot()["hand"]["in_doubt"]
            if doubt and "cards" not in cmd:         # a yes cannot settle a card named near 31 (issue 36): whose it was
                cmd["named"] = {c: next(p for p, held in self.kept.items() if c in map(str, held)) for c in doubt}
            self.claim(cmd, self.kept[name], st.hand.turnup, crib=False)
            self.send(cmd)
            self.maybe_muggins()
        if not self.st.over and self.st.hand.stage == "pocket":
            cmd = {"type": "pocket", "cards": [str(c) for c in pocket]}
            self.claim(cmd, pocket, self.st.hand.turnup, crib=True)
            self.send(cmd)
            self.maybe_muggins()

    def claim(self, cmd: dict, cards, turnup, *, crib: bool) -> None:
        if not self.st.rules.claim_mode:
            return
        from companion.scoring import score_hand
        total = score_hand(tuple(cards), turnup, crib=crib, game=self.st.rules).total
        cmd["claimed"] = total
        if total and self.claim_rng.random() < self.claim_miss:
            cmd["claimed"] = self.claim_rng.randrange(total)

    def maybe_muggins(self) -> None:
        if not self.muggins or self.st.over or self.st.hand is None:
            return
        if self.st.hand.under_claim(self.st) and self.claim_rng.random() < 0.6:
            self.send({"type": "muggins"})

    def claim_points(self) -> None:
        """Claim mode: each side claims the points of the card or go just entered (L8).

        Exactly, or short (``claim_miss``), or not at all (``claim_skip``: the points lapse
        at the next card unless muggins is called on them first)."""
        st, rng = self.st, self.claim_rng
        hand = st.hand
        if not st.rules.claim_mode or st.over or getattr(hand, "window", None) is None:
            return
        for side in [s.side for s in hand.window.slots]:
            if self.st.over:
                continue
            slot = self.st.hand.window.slot(side)      # as it is now (a claim or muggins may have come since)
            if slot.called or slot.claimed is not None:
                continue
            if rng.random() < self.claim_skip:
                continue
            pts = slot.points
            if pts and rng.random() < self.claim_miss:
                pts = rng.randrange(pts)
            cmd = {"type": "claim", "points": pts}
            if rng.random() < 0.5:
                cmd["side"] = st.sides[slot.side].id
            self.send(cmd)
            self.maybe_muggins()
        now = self.st.hand          # the same hand still (a value: a new one after every command)
        if (self.muggins and not self.st.over and (now.game_no, now.hand_no) == (hand.game_no, hand.hand_no)
                and now.window is not None
                and any(s.claimed is None and not s.called and s.points for s in now.window.slots)
                and rng.random() < 0.5):
            self.send({"type": "muggins"})                # called on points nobody claimed

    def claim_lines(self) -> None:
        """Claim mode, tabletop: each line claimed by its owner in the counting order."""
        from companion.scoring import score_hand  # noqa: F401  (the line's total comes from the hand)
        while not self.st.over and getattr(self.st.hand, "to_claim", None):
            total = self.st.hand.to_claim[0].breakdown.total
            pts = total
            if total and self.claim_rng.random() < self.claim_miss:
                pts = self.claim_rng.randrange(total)
            self.send({"type": "claim", "points": pts})
            self.maybe_muggins()

    def peg_step(self) -> None:
        st, rng = self.st, self.rng
        hand = st.hand
        room = 31 - hand.count
        turn = hand.turn
        seats = len(st.seats)

        def playable(seat):
            return [c for c in self.hands[st.seats[seat]] if c.value <= room]

        mine = playable(turn)
        if mine:
            card = rng.choice(mine)
            cmd = {"type": "play", "card": str(card)}
            if rng.random() < 0.3:
                cmd["player"] = st.seats[turn]
            self.hands[st.seats[turn]].remove(card)
            self.send(cmd)
            self.claim_points()
            return
        # the turn player cannot play: say go, or name the next player who can (implicit gos)
        if rng.random() < 0.5:
            for k in range(1, seats):
                s = st.next_seat(turn, steps=k)
                if hand.left(s) == 0 or s in hand.gone:
                    continue
                cards = playable(s)
                if cards:
                    card = rng.choice(cards)
                    self.hands[st.seats[s]].remove(card)
                    self.send({"type": "play", "card": str(card), "player": st.seats[s]})
                    self.claim_points()
                    return
                break
        self.send({"type": "go"} if rng.random() < 0.5 else {"type": "go", "player": st.seats[turn]})
        self.claim_points()

    # --- tabletop ----------------------------------------------------------------------------
    def grid_hand(self) -> None:
        st, rules, rng = self.st, self.st.rules, self.rng
        deck = list(DECK)
        rng.shuffle(deck)
        n = len(st.seats)
        each = rules.grid_cards_each
        piles = {st.seats[i]: deck[i * each:(i + 1) * each] for i in range(n)}
        centre = deck[n * each]
        if rng.random() < 0.25:
            self.layout(piles, centre)
            return
        self.send({"type": "turnup", "card": str(centre)})
        while not self.st.over and self.st.hand.stage == "place":
            st = self.st
            hand = st.hand
            seat = hand.turn
            name = st.seats[seat]
            card = piles[name].pop()
            owed = hand.crib_each - hand.crib_by[seat]
            if hand.must_crib(seat) or (owed and rng.random() < 0.2):
                self.send({"type": "place", "card": str(card), "crib": True})
                continue
            free = [(r, c) for r in range(SIZE) for c in range(SIZE)
                    if hand.cells[r][c] is None and (rules.grid_placement == "anywhere" or hand.touches(r, c))]
            r, c = rng.choice(free)
            self.send({"type": "place", "card": str(card), "row": r, "col": c})
        self.claim_lines()

    def layout(self, piles: dict, centre) -> None:
        cards = [c for pile in piles.values() for c in pile]
        self.rng.shuffle(cards)
        crib_n = self.st.rules.crib_total
        crib, grid = cards[:crib_n], cards[crib_n:]
        grid.insert(12, centre)
        if self.rng.random() < 0.5:
            self.send({"type": "turnup", "card": str(centre)})
            if self.st.over:
                return
        self.send({"type": "layout", "cards": [str(c) for c in grid], "crib": [str(c) for c in crib]})
        self.claim_lines()


GAMES = [
    # (game, players, options, teams)
    ("lands-end", ["Ann", "Bob"], {}, None),
    ("lands-end-3", ["Ann", "Bob", "Cy"], {}, None),
    ("lands-end-4", ["Ann", "Bob", "Cy", "Di"], {}, [["Ann", "Cy"], ["Bob", "Di"]]),
    ("lands-end-casino-2", ["Ann"], {}, None),
    ("lands-end-casino-3", ["Ann", "Bob"], {"direction": "ccw"}, None),
    ("lands-end-casino-4", ["Ann", "Bob", "Cy", "Di"], {}, None),
    ("lands-end-tabletop", ["Ann", "Bob"], {}, None),
    ("cribbage", ["Ann", "Bob"], {}, None),
    ("reverse-cribbage", ["Ann", "Bob"], {}, None),
    ("table-top-cribbage", ["Ann", "Bob"], {}, None),
    ("table-top-cribbage", ["Ann", "Bob", "Cy", "Di"], {"players": 4}, None),
    ("table-top-cribbage-31", ["Ann", "Bob"], {}, None),
    ("five-card", ["Ann", "Bob"], {}, None),
]
