"""Cards as people write them: ``5H``, ``10h``, ``TH``, ``5♥``, ``K♠``.

Every card is an interned :class:`Card`; parsing returns the same object for
the same card, so cards compare by identity and hash fast.

>>> parse_cards("5H 10h TH K♠".split()[:1] + ["K♠"])
(Card('5H'), Card('KS'))
>>> str(parse_card("th")), parse_card("th").value
('10H', 10)
"""

from __future__ import annotations

from typing import Iterable

from .errors import InvalidCard

SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}
_SYMBOL_TO_SUIT.update({"♤": "S", "♡": "H", "♢": "D", "♧": "C"})
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_TOKENS = {"A": 1, "1": 1, "J": 11, "Q": 12, "K": 13, "T": 10, "10": 10}
_RANK_TOKENS.update({str(n): n for n in range(2, 10)})
RANK_WORDS = {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
              8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king"}


class Card:
    """One of the 52 cards: ``rank`` 1 (ace) .. 13 (king), ``suit`` one of ``SHDC``.

    ``value`` is the counting value (A=1, 2-10 face, J/Q/K=10); ``index`` is
    0..51, rank-major. Construct through :func:`parse_card` or :data:`DECK`.
    """

    __slots__ = ("rank", "suit", "value", "index", "_text")

    def __init__(self, rank: int, suit: str) -> None:
        self.rank = rank
        self.suit = suit
        self.value = min(rank, 10)
        self.index = (rank - 1) * 4 + SUITS.index(suit)
        self._text = RANK_NAMES.get(rank, str(rank)) + suit

    def __repr__(self) -> str:
        return f"Card({self._text!r})"

    def __str__(self) -> str:
        return self._text

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    def __reduce__(self):
        return (parse_card, (self._text,))

    @property
    def pretty(self) -> str:
        """The card with its suit symbol, e.g. ``10♥``."""
        return RANK_NAMES.get(self.rank, str(self.rank)) + SUIT_SYMBOLS[self.suit]


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(1, 14) for s in SUITS)
_BY_TEXT: dict[str, Card] = {}
for _c in DECK:
    for _rank_token, _r in _RANK_TOKENS.items():
        if _r == _c.rank:
            for _suit_token in (_c.suit, _c.suit.lower(), SUIT_SYMBOLS[_c.suit]):
                for _rt in {_rank_token, _rank_token.lower()}:
                    _BY_TEXT[_rt + _suit_token] = _c
    for _sym, _s in _SYMBOL_TO_SUIT.items():
        if _s == _c.suit:
            _BY_TEXT[RANK_NAMES.get(_c.rank, str(_c.rank)) + _sym] = _c


def parse_card(token: "str | Card") -> Card:
    """Return the :class:`Card` written as ``token`` (``5H``, ``10h``, ``TH``, ``5♥``).

    :raises InvalidCard: naming the token when it is not a card.
    """
    if isinstance(token, Card):
        return token
    if not isinstance(token, str):
        raise InvalidCard(f"not a card: {token!r}")
    card = _BY_TEXT.get(token.strip())
    if card is None:
        card = _BY_TEXT.get(token.strip().replace("\ufe0f", ""))
    if card is None:
        raise InvalidCard(f"not a card: {token!r} (write cards like 5H, 10h, TH, 5♥, K♠)")
    return card


def parse_cards(tokens: Iterable["str | Card"], *, what: str = "hand") -> tuple[Card, ...]:
    """Return the cards of ``tokens`` in order, refusing bad tokens and duplicates.

    :raises InvalidCard: naming the bad token, or the card that appears twice.
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    cards = tuple(parse_card(t) for t in tokens)
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for c in cards:
            if c in seen:
                raise InvalidCard(f"duplicate card in {what}: {c}")
            seen.add(c)
    return cards
