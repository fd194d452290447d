"""Land's End table companion: the rules core, the games, and the table's memory.

Pure Python; imports neither ``web`` nor ``firmware``.

>>> from companion import score_hand
>>> score_hand(["5H", "5S", "5D", "JC"], "5C").total
29
"""

from .cards import DECK, Card, parse_card, parse_cards
from .errors import ConflictError, IllegalAction, InvalidCard, RulesError, StoreError, UnknownGame
from .rulesets import RULESETS, Ruleset, get_ruleset
from .scoring import Breakdown, Item, PegScore, score_grid, score_hand, score_line, score_peg

__all__ = [
    "DECK", "Card", "parse_card", "parse_cards",
    "RulesError", "InvalidCard", "IllegalAction", "UnknownGame", "ConflictError", "StoreError",
    "RULESETS", "Ruleset", "get_ruleset",
    "Breakdown", "Item", "PegScore", "score_hand", "score_peg", "score_line", "score_grid",
]
