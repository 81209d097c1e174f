"""The deck and the table's fixed sizes: 104 numbered cards, each worth some bullheads."""

from collections.abc import Iterable

from arena.rules.errors import UnknownCardError

DECK_SIZE = 104
"""Cards are numbered 1 to 104."""
HAND_SIZE = 10
"""Cards dealt to each player, and so turns in a round."""
ROW_COUNT = 4
"""Rows on the table."""
ROW_LIMIT = 5
"""Cards a row may hold; the card that would be sixth takes the row (rule 3)."""


def _bullheads(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


BULLHEADS: tuple[int, ...] = (0, *(_bullheads(card) for card in range(1, DECK_SIZE + 1)))
"""Bullheads indexed by card number (index 0 is unused), so scoring is a tuple lookup."""


def bullheads(card: int) -> int:
    """The penalty points printed on one card."""
    if not 1 <= card <= DECK_SIZE:
        raise UnknownCardError(f"there is no card {card!r}: cards are 1 to {DECK_SIZE}")
    return BULLHEADS[card]


def penalty(cards: Iterable[int]) -> int:
    """The bullheads of a pile of taken cards."""
    return sum(BULLHEADS[card] for card in cards)
