"""The bullhead table of docs/rules.md."""

import pytest

from arena.rules import BULLHEADS, DECK_SIZE, bullheads, penalty


def test_the_deck_holds_171_bullheads() -> None:
    assert penalty(range(1, DECK_SIZE + 1)) == 171
    assert sum(BULLHEADS) == 171


@pytest.mark.parametrize(
    ("card", "heads"),
    [
        (55, 7),
        (11, 5),
        (22, 5),
        (99, 5),
        (10, 3),
        (50, 3),
        (100, 3),
        (5, 2),
        (95, 2),
        (1, 1),
        (104, 1),
        (54, 1),
        (56, 1),
    ],
)
def test_bullheads_of_single_cards(card: int, heads: int) -> None:
    assert bullheads(card) == heads


def test_how_many_cards_carry_each_value() -> None:
    counts = {
        heads: sum(1 for c in range(1, 105) if bullheads(c) == heads) for heads in (1, 2, 3, 5, 7)
    }
    assert counts == {7: 1, 5: 8, 3: 10, 2: 9, 1: 76}


@pytest.mark.parametrize("card", [0, 105, -3])
def test_there_is_no_such_card(card: int) -> None:
    with pytest.raises(ValueError, match=f"no card {card}"):
        bullheads(card)
