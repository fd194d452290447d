"""Rulesets: one frozen value per game, presets as data, house rules as overrides.

Every difference between the seed games is a field of :class:`Ruleset`; no code
anywhere branches on a preset's name. A preset is a module-level constant built
with :func:`dataclasses.replace`; a table's house rules are keyword overrides
(the *(option)* rulings of ``RULINGS.md``) applied by :func:`get_ruleset`.

>>> r = get_ruleset("lands-end")
>>> (r.target, r.reach, r.heels, r.zero_bonus, r.pegging_credit)
(16, 'loses', 1, 5, 'next_opponent')
>>> get_ruleset("cribbage", book_rules=True).heels
1
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import UnknownGame

_CHOICES = {
    "reach": ("loses", "wins", "highest"),
    "house_reach": ("loses", "wins"),
    "pegging_count": ("restart", "single"),
    "pegging_credit": ("self", "next_opponent"),
    "hand_flush": ("hand", "five", "none"),
    "pocket_flush": ("hand", "five", "four", "none"),
    "line_flush": ("five", "four", "none"),
    "grid_nobs": ("center", "none"),
    "grid_placement": ("adjacent", "anywhere"),
    "pocket_owner": ("dealer", "player", "rotate", "house"),
    "show_order": ("clockwise", "teams"),
    "round_scoring": ("points", "difference"),
    "muggins": ("double", "caller", "none"),
    "direction": ("cw", "ccw"),
    "settlement": ("each", "house_collects"),
    "go_lead": ("last_player", "other_player"),
    "grid_rows": ("non_dealer", "fixed"),
    "skunk_lines": ("target", "fixed"),
}


#: The allowed values of every choice field of :class:`Ruleset` (forms list them).
CHOICES = _CHOICES


@dataclass(frozen=True, kw_only=True)
class Ruleset:
    """The complete rules of one game, as data.

    Scores and seats: ``players`` seats (2..4); with ``partnerships`` the
    players opposite each other share one side. ``house`` adds a house side
    (casino play): with ``house_plays`` it holds a seat and plays cards,
    otherwise its hand is the pocket.
    """

    name: str
    title: str
    description: str
    # seats and sides
    players: int = 2
    player_choices: tuple[int, ...] = ()          # other seat counts a table may pick
    partnerships: bool = False
    house: bool = False
    house_deals: bool = False
    house_plays: bool = True
    house_reach: str = "loses"                    # what reaching the target does to the house
    direction: str = "cw"                          # order of play (casino tables choose)
    # the deal
    held: int = 4                                  # cards each player keeps for the show
    discards: int = 2                              # cards each player throws to the pocket/crib
    pocket_dealt: int = 0                          # cards dealt straight into the pocket
    pocket_owner: str = "dealer"
    pocket_name: str = "crib"
    heels: int = 2                                 # points to the dealer for a jack turned up
    first_cut_bonus: int = 0                       # five-card: the high cutter pegs 3 "for last"
    # the matching phase
    pegging: bool = True
    pegging_count: str = "restart"                 # restart at 31/go, or one single count
    pegging_credit: str = "self"                   # who is credited pegging points
    go_lead: str = "other_player"                  # two-hand: who leads the count after a go (L9)
    last_card: int = 1
    # the show
    show_order: str = "clockwise"                  # from the dealer's left; or non-dealing team first
    hand_flush: str = "hand"                       # "hand": all held cards (+1 with starter)
    pocket_flush: str = "five"                     # "five": only all four and the starter; "four": 4 of the 5 (G7)
    nobs: bool = True
    zero_bonus: int = 0                            # a hand that scores 0 scores this instead
    zero_bonus_pocket: bool = False                # whether the pocket/crib is covered too
    # tabletop grid games (grid=True replaces deal, pegging and show)
    grid: bool = False
    grid_crib: int = 0                             # cards that go to the dealer's crib over a round (0 or 4)
    grid_placement: str = "adjacent"
    line_flush: str = "five"
    grid_nobs: str = "none"
    round_scoring: str = "points"                  # "difference": the round's winner gains the margin
    grid_rows: str = "non_dealer"                  # rows to each round's non-dealer (T1), or one side all game (G6)
    # winning, losing, money
    target: int = 121
    reach: str = "wins"                            # reaching target wins, loses, or ends the round (highest wins)
    multipliers: tuple[tuple[int, int], ...] = ((0, 1),)   # (lowest score, k) bands, best first
    skunks: bool = False                           # the bands are cribbage skunks (S1, S2): a x2 is named a skunk
    skunk_lines: str = "target"                    # skunk bands move with an overridden target (S3), or stay fixed
    settlement: str = "each"
    series_weighted: bool = True                   # a game won at xk counts k wins (L7)
    claim_mode: bool = False
    live_advice: bool = False                      # the page may advise discards while a hand is in progress
    muggins: str = "none"
    options: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise UnknownGame(f"{self.name}: {name} must be one of {', '.join(allowed)}, not {value!r}")
        if not 2 <= self.players <= 4:
            raise UnknownGame(f"{self.name}: players must be 2, 3 or 4, not {self.players}")
        if self.partnerships and self.players != 4:
            raise UnknownGame(f"{self.name}: partnerships need 4 players")
        if not self.grid:
            if self.held not in (3, 4):
                raise UnknownGame(f"{self.name}: held hand size must be 3 or 4, not {self.held}")
            pocket = self.pocket_dealt + self.discards * self.seats_dealt
            if pocket != 4:
                raise UnknownGame(f"{self.name}: the pocket must get 4 cards, not {pocket}")
            if self.dealt * self.seats_dealt + self.pocket_dealt + 1 > 52:
                raise UnknownGame(f"{self.name}: more cards dealt than the deck holds")
        else:
            if self.crib_total % self.players or (24 + self.crib_total) % self.players:
                raise UnknownGame(f"{self.name}: {24 + self.crib_total} cards do not split among {self.players} players")
        if self.target < 1:
            raise UnknownGame(f"{self.name}: target must be positive, not {self.target}")
        if self.zero_bonus < 0 or self.heels < 0 or self.last_card < 0:
            raise UnknownGame(f"{self.name}: bonus points cannot be negative")
        bands = self.multipliers
        if any(not isinstance(b, tuple) or len(b) != 2 or not all(_whole(v) for v in b) or b[0] < 0 or b[1] < 1
               for b in bands):
            raise UnknownGame(f"{self.name}: each multiplier band is (lowest score, k) with whole numbers, k at least 1")
        if not bands or bands[-1][0] != 0 or any(a[0] <= b[0] for a, b in zip(bands, bands[1:])):
            raise UnknownGame(f"{self.name}: multiplier bands must fall strictly to a band starting at 0")
        # combinations that would seat nobody, never end, or hand points to a side that does not exist
        if self.reach == "highest" and not self.grid:
            raise UnknownGame(f"{self.name}: reach 'highest' (decided after a round) needs a tabletop game")
        if self.pocket_owner == "house" and not (self.house and not self.house_plays):
            raise UnknownGame(f"{self.name}: pocket_owner 'house' needs a house that plays no cards")
        if self.house_deals and not self.house:
            raise UnknownGame(f"{self.name}: house_deals needs a house")
        if self.house and self.house_plays and self.partnerships:
            raise UnknownGame(f"{self.name}: a house that plays cannot sit in a partnership game")
        if self.grid_rows == "fixed" and not self.grid:
            raise UnknownGame(f"{self.name}: grid_rows 'fixed' needs a tabletop game")
        if self.go_lead == "last_player" and not self.go_lead_applies:
            raise UnknownGame(f"{self.name}: go_lead 'last_player' is a two-hand rule (L9); "
                              f"three- and four-hand games and a single count follow M2 and F3")
        if self.first_cut_bonus and self.first_cut_bonus >= self.target:
            raise UnknownGame(f"{self.name}: the first cut's {self.first_cut_bonus} points must stay below "
                              f"the target, not {self.target}")

    # derived values -----------------------------------------------------
    @property
    def dealt(self) -> int:
        """Cards dealt to each player (held + discards)."""
        return self.held + self.discards

    @property
    def seats_dealt(self) -> int:
        """How many seats are dealt cards (the non-playing house is not)."""
        return self.players

    @property
    def go_lead_applies(self) -> bool:
        """True when ``go_lead`` can choose between two rules: two seats, a count that restarts (L9).

        Elsewhere the first player who said go leads (M2), which with two players is the
        other player, ``other_player``."""
        return self.players == 2 and self.pegging and not self.grid and self.pegging_count == "restart"

    @property
    def sides(self) -> int:
        """Number of scoring sides: teams or players, plus a non-playing house."""
        n = 2 if self.partnerships else self.players
        return n + (1 if self.house and not self.house_plays else 0)

    @property
    def crib_total(self) -> int:
        """Tabletop: cards that go to the dealer's crib over a round (0 or 4)."""
        return self.grid_crib if self.grid else 0

    @property
    def grid_crib_each(self) -> int:
        """Tabletop: cards each player puts into the crib over a round."""
        return self.crib_total // self.players

    @property
    def grid_cards_each(self) -> int:
        """Tabletop: cards dealt face down to each player."""
        return (24 + self.crib_total) // self.players

    def multiplier(self, score: int) -> int:
        """Return the stake multiplier for a side left at ``score`` when the game ends (L6, S1).

        >>> [LANDS_END.multiplier(s) for s in (15, 11, 10, 6, 5, 1, 0)]
        [1, 1, 2, 2, 3, 3, 4]
        """
        for lowest, k in self.multipliers:
            if score >= lowest:
                return k
        return self.multipliers[-1][1]

    def with_options(self, **overrides: Any) -> "Ruleset":
        """Return this ruleset with house-rule ``overrides`` applied (see :func:`get_ruleset`)."""
        return _apply(self, overrides)

    def to_dict(self) -> dict[str, Any]:
        """Return every field as plain JSON-able data."""
        d = dataclasses.asdict(self)
        d["options"] = dict(self.options)
        d["multipliers"] = [list(b) for b in self.multipliers]
        d["player_choices"] = list(self.player_choices)
        return d


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --- presets -----------------------------------------------------------------

_LE_MULT = ((11, 1), (6, 2), (1, 3), (0, 4))

LANDS_END = Ruleset(
    name="lands-end", title="Land's End",
    description="Two-hand reverse cribbage to 16: the first to 16 loses and pays the stake, doubled to quadrupled by how low the winner is.",
    players=2, held=4, discards=2, pocket_name="pocket", heels=1,
    pegging_credit="next_opponent", go_lead="last_player", zero_bonus=5, target=16, reach="loses",
    multipliers=_LE_MULT, muggins="double",
)
LANDS_END_3 = dataclasses.replace(
    LANDS_END, name="lands-end-3", title="Land's End, three-hand",
    description="Three players, 5 cards each and 1 to the pocket; matching points go to the next player; first to 16 pays each other player.",
    players=3, discards=1, pocket_dealt=1, go_lead="other_player",
)
LANDS_END_4 = dataclasses.replace(
    LANDS_END, name="lands-end-4", title="Land's End, four-hand",
    description="Two partnerships sitting opposite, 5 cards each; partners share one score; the team that reaches 16 loses.",
    players=4, partnerships=True, discards=1, show_order="teams", go_lead="other_player",
)
LANDS_END_CASINO_2 = dataclasses.replace(
    LANDS_END, name="lands-end-casino-2", title="Land's End casino, two-hand",
    description="The house always deals against one player, who always owns the pocket.",
    house=True, house_deals=True, pocket_owner="player", settlement="each",
)
LANDS_END_CASINO_3 = dataclasses.replace(
    LANDS_END_3, name="lands-end-casino-3", title="Land's End casino, three-hand",
    description="Two players and the house (middle lane); the house always deals, the pocket rotates with the house last.",
    house=True, house_deals=True, pocket_owner="rotate",
)
LANDS_END_CASINO_4 = dataclasses.replace(
    LANDS_END_4, name="lands-end-casino-4", title="Land's End casino, four-hand",
    description="Two partnerships against the house, whose hand is the pocket; the house wins by reaching 16.",
    house=True, house_deals=True, house_plays=False, house_reach="wins",
    pocket_owner="house", settlement="house_collects",
)
LANDS_END_TABLETOP = dataclasses.replace(
    LANDS_END, name="lands-end-tabletop", title="Tabletop Land's End",
    description="No peeking: 12 cards each placed blind on a 5x5 grid; rows for the non-dealer, columns for the dealer; 16 loses.",
    grid=True, grid_crib=0, grid_placement="adjacent", pegging=False, heels=0, nobs=False,
    grid_nobs="none", line_flush="five", muggins="double", go_lead="other_player",
)
CRIBBAGE = Ruleset(
    name="cribbage", title="Cribbage",
    description="Standard six-card two-hand cribbage to 121 (ACC rules): skunk under 91 counts double, under 61 triple.",
    players=2, held=4, discards=2, heels=2, target=121, reach="wins",
    multipliers=((91, 1), (61, 2), (0, 3)), skunks=True, muggins="caller",
)
REVERSE_CRIBBAGE = dataclasses.replace(
    CRIBBAGE, name="reverse-cribbage", title="Reverse Cribbage",
    description="Cribbage played backwards: the first to reach 121 loses.",
    reach="loses",
)
TABLE_TOP_CRIBBAGE = Ruleset(
    name="table-top-cribbage", title="Table Top Cribbage",
    description="Cards placed blind on a 5x5 grid around the centre card, 2 each to the crib; rows against columns; highest over 121 after a round wins.",
    players=2, player_choices=(4,), grid=True, grid_crib=4, grid_placement="adjacent",
    pegging=False, heels=2, nobs=True, grid_nobs="center", line_flush="five", grid_rows="fixed",
    target=121, reach="highest", muggins="caller",
)
TABLE_TOP_CRIBBAGE_31 = dataclasses.replace(
    TABLE_TOP_CRIBBAGE, name="table-top-cribbage-31", title="Table Top Cribbage (variation)",
    description="Place anywhere in the 5x5, four-card flushes count; the round's winner gains the difference; first to 31 game points.",
    player_choices=(), grid_placement="anywhere", line_flush="four", pocket_flush="four",
    round_scoring="difference", target=31,
)
FIVE_CARD = Ruleset(
    name="five-card", title="Two Handed Five Card Cribbage",
    description="The old game to 61: 5 cards, 3 kept, one single count to 31, three for last to the high cutter.",
    players=2, held=3, discards=2, heels=2, first_cut_bonus=3, pegging_count="single",
    target=61, reach="wins", muggins="caller",
)

RULESETS: dict[str, Ruleset] = {r.name: r for r in (
    LANDS_END, LANDS_END_3, LANDS_END_4, LANDS_END_CASINO_2, LANDS_END_CASINO_3,
    LANDS_END_CASINO_4, LANDS_END_TABLETOP, CRIBBAGE, REVERSE_CRIBBAGE,
    TABLE_TOP_CRIBBAGE, TABLE_TOP_CRIBBAGE_31, FIVE_CARD,
)}
ALIASES = {
    "landsend": "lands-end", "le": "lands-end", "crib": "cribbage", "reverse": "reverse-cribbage",
    "tabletop": "lands-end-tabletop", "ttc": "table-top-cribbage", "5card": "five-card",
}

# Named house rules that set several fields at once (RULINGS S1: "book rules").
BUNDLES: dict[str, dict[str, Any]] = {
    "book_rules": {"heels": 1, "multipliers": ((61, 1), (0, 2)), "go_lead": "last_player"},
}

# The *(option)* rulings a table may switch, with a one-line explanation each.
OPTIONS: dict[str, str] = {
    "pegging_credit": "who is credited matching-phase points: self or next_opponent (L2, M3)",
    "zero_bonus": "points a zero-scoring hand scores instead (L3, T2)",
    "zero_bonus_pocket": "whether a zero pocket/crib gets the zero-hand bonus too (L3)",
    "target": "the score that ends the game (G4)",
    "book_rules": "the seed's own cribbage: heels 1, double game under 61, the last player leads after a go (S1, L9)",
    "go_lead": "two-hand games: after a go the next count is led by the last player to play (last_player, the seed) "
               "or by the other player (other_player, standard cribbage) (L9)",
    "direction": "casino play: cw or ccw (H1)",
    "players": "table-top cribbage: 2 players or 4 in partnerships (G1)",
    "claim_mode": "players announce their counts and the companion checks them; muggins applies (L8)",
    "live_advice": "phones may ask for discard advice while a hand is in progress (table talk: off by default)",
    "stake_multipliers": "off: every game pays the plain stake",
}


#: Rules that changed after matches were already stored, with the value every match had before.
#: A stored match (its ``new_match`` event) and an exported record name such a field only when
#: their rules would play differently with the old value; one that does not name it is folded or
#: replayed with the old value, so an old database or record gives exactly what it gave then
#: (docs/engine.md, "The rules a stored match was played under").
STORED_DEFAULTS: dict[str, str] = {
    "go_lead": "other_player",      # L9: two-hand Land's End and casino now lead with the last player
    "grid_rows": "non_dealer",      # G6: Table Top Cribbage's rows now stay with one side all game
    "pocket_flush": "five",         # G7: the variation's crib now counts a flush of four
    "skunk_lines": "fixed",         # S3: cribbage's skunk lines now move with an overridden target
}


def stored_ruleset(game: "str | Ruleset", options: Mapping[str, Any], stored: Mapping[str, Any], *,
                   absent_is_old: bool = True) -> Ruleset:
    """Return the rules of ``game`` with house rules ``options`` and the fields of
    :data:`STORED_DEFAULTS` as ``stored`` (a ``new_match`` event, a record) names them.

    A field the options set stays as they set it; one ``stored`` does not name takes the old
    value (``absent_is_old``) or the preset's. The stored fields are not listed among the
    rules' ``options`` (they are not house rules the table chose).

    :raises UnknownGame: a value out of range, or one the game cannot take.
    """
    extra: dict[str, Any] = {}
    for key, old in STORED_DEFAULTS.items():
        if key in options:
            continue
        if key in stored:
            extra[key] = stored[key]
        elif absent_is_old:
            extra[key] = old
    rules = get_ruleset(game, **options, **extra)
    if extra:
        rules = dataclasses.replace(rules, options={k: v for k, v in rules.options.items() if k not in extra})
    return rules


#: Stored fields that act only while a ruleset is built (S3 moves the skunk bands): named only when
#: the bands they built differ from the old ones.
_BUILD_ONLY = {"skunk_lines"}


def stored_rules(rules: Ruleset, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Return the fields of :data:`STORED_DEFAULTS` a ``new_match`` event or a record must name
    for ``rules`` (chosen with house rules ``options``, default its own): those whose old value
    would play differently. A field the options set is named there already.

    >>> stored_rules(LANDS_END), stored_rules(CRIBBAGE), stored_rules(TABLE_TOP_CRIBBAGE_31)
    ({'go_lead': 'last_player'}, {}, {'grid_rows': 'fixed', 'pocket_flush': 'four'})
    >>> stored_rules(get_ruleset("cribbage", target=61), {"target": 61})
    {'skunk_lines': 'target'}
    """
    options = dict(rules.options if options is None else options)
    mine = {k: getattr(rules, k) for k in STORED_DEFAULTS if k not in options}
    out = {}
    for key, value in mine.items():
        old = STORED_DEFAULTS[key]
        if value == old:
            continue
        if key in _BUILD_ONLY:
            alt = get_ruleset(rules.name, **options, **{**mine, key: old})
            if dataclasses.replace(alt, **{key: value}) == rules:
                continue
        out[key] = value
    return out


def find_ruleset(name: str) -> Ruleset:
    """Return the preset called ``name`` (or one of its aliases).

    :raises UnknownGame: listing the preset names.
    """
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    try:
        return RULESETS[key]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; choose one of: {', '.join(RULESETS)}") from None


def get_ruleset(name: "str | Ruleset", **overrides: Any) -> Ruleset:
    """Return the preset ``name`` with house-rule ``overrides`` applied.

    Overrides are field names of :class:`Ruleset` or names in :data:`BUNDLES`
    (a bundle applies when its value is true). ``players=4`` on a grid game
    switches to partnerships.

    :raises UnknownGame: for an unknown preset, field, or a value out of range.
    """
    base = name if isinstance(name, Ruleset) else find_ruleset(name)
    return _apply(base, overrides) if overrides else base


_FIXED = {"name", "title", "description", "options", "player_choices"}


def _apply(base: Ruleset, overrides: Mapping[str, Any]) -> Ruleset:
    fields = {f.name: f for f in dataclasses.fields(Ruleset)}
    changes: dict[str, Any] = {}
    recorded: dict[str, Any] = dict(base.options)
    # bundles first, so a field named beside one wins ("book_rules" with go_lead=other_player)
    for key, value in sorted(overrides.items(), key=lambda kv: kv[0] not in BUNDLES):
        if key in BUNDLES:
            if not isinstance(value, bool):
                raise UnknownGame(f"option {key} is on or off (true/false), not {value!r}")
            if value:
                changes.update((k, v) for k, v in BUNDLES[key].items()
                               if k != "go_lead" or base.go_lead_applies)
            recorded[key] = value
            continue
        if key == "stake_multipliers":
            if not isinstance(value, bool):
                raise UnknownGame(f"option {key} is on or off (true/false), not {value!r}")
            if not value:
                changes["multipliers"] = ((0, 1),)
            recorded[key] = value
            continue
        if key not in fields or key in _FIXED:
            raise UnknownGame(f"unknown option {key!r} for {base.name}; options: {', '.join(OPTIONS)}")
        if key == "players":
            allowed = (base.players,) + base.player_choices
            if value not in allowed:
                raise UnknownGame(f"{base.name} is played by {' or '.join(map(str, allowed))} players, not {value!r}")
            if value == 4 and base.grid:
                changes["partnerships"] = True
        want = type(getattr(base, key))
        if want is tuple and isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        if want is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise UnknownGame(f"option {key} must be a whole number, not {value!r}")
        if want is bool and not isinstance(value, bool):
            raise UnknownGame(f"option {key} is on or off (true/false), not {value!r}")
        if want is str and not isinstance(value, str):
            raise UnknownGame(f"option {key} must be text, not {value!r}")
        changes[key] = value
        recorded[key] = value
    if ("target" in overrides and "multipliers" not in overrides and base.skunks
            and changes.get("skunk_lines", base.skunk_lines) == "target"):
        changes["multipliers"] = skunk_bands(changes.get("multipliers", base.multipliers),
                                             changes.get("target", base.target) - base.target)
    return dataclasses.replace(base, options=recorded, **changes)


def skunk_bands(bands: tuple, shift: int) -> tuple:
    """Return cribbage's skunk ``bands`` moved by ``shift`` points, as the target moves (S3).

    A line that falls at or below 0 no longer applies; the last band always starts at 0.

    >>> skunk_bands(((91, 1), (61, 2), (0, 3)), 61 - 121)     # lines at 31 and 1: a 0 is a triple game
    ((31, 1), (1, 2), (0, 3))
    >>> skunk_bands(((91, 1), (61, 2), (0, 3)), 60 - 121)     # the second line would be at 0
    ((30, 1), (0, 2))
    >>> skunk_bands(((91, 1), (61, 2), (0, 3)), 131 - 121)
    ((101, 1), (71, 2), (0, 3))
    """
    moved = [(lowest + shift, k) for lowest, k in bands[:-1] if lowest + shift > 0]
    last_k = bands[len(moved)][1]
    return tuple(moved) + ((0, last_k),)
