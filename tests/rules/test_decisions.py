"""Every illegal decision raises the engine's one error type, naming the card or row, and
leaves the game as it was."""

import random

import pytest

from arena.rules import (
    Decision,
    Game,
    IllegalDecisionError,
    InvalidSettingsError,
    Phase,
    Round,
    RulesError,
    Settings,
    Variant,
)


def new_game(variant: Variant = Variant.STANDARD) -> Game:
    return Game(Settings(3, variant), random.Random(1))


def test_a_card_not_in_hand() -> None:
    game = new_game()
    hands = [game.view(seat).hand for seat in range(3)]
    stranger = next(c for c in range(1, 105) if c not in hands[1])
    with pytest.raises(
        IllegalDecisionError, match=f"seat 1: illegal card {stranger}: not in the hand"
    ) as caught:
        game.play([hands[0][0], stranger, hands[2][0]])
    assert caught.value.seat == 1
    assert caught.value.decision is Decision.CARD
    assert caught.value.value == stranger
    # Nothing was taken from any hand.
    assert [game.view(seat).hand for seat in range(3)] == hands


@pytest.mark.parametrize("bad", ["7", 7.0, None, True])
def test_a_card_that_is_not_a_number(bad: object) -> None:
    game = new_game()
    hand = game.view(0).hand
    with pytest.raises(IllegalDecisionError, match="illegal card"):
        game.play([bad, hand[1], hand[2]])


def test_the_same_card_twice_in_a_round() -> None:
    game = Round(Settings(2), 0, [0, 0], [[1], [2], [3], [4]], [[10, 20], [11, 21]])
    game.play([10, 11])
    with pytest.raises(
        IllegalDecisionError, match=r"seat 0: illegal card 10: not in the hand \(20,\)"
    ):
        game.play([10, 21])


@pytest.mark.parametrize("row", [-1, 4, 7, "1", None])
def test_a_row_that_does_not_exist(row: object) -> None:
    game = Round(Settings(2), 0, [0, 0], [[50], [60], [70], [80]], [[1], [2]])
    game.play([1, 2])
    assert game.phase is Phase.ROW
    with pytest.raises(
        IllegalDecisionError, match=f"illegal row {row!r}: the protocol numbers rows 0 to 3"
    ):
        game.choose_row(row)
    assert game.phase is Phase.ROW
    game.choose_row(2)
    assert game.phase is Phase.OVER


def test_a_draft_card_not_on_the_table() -> None:
    game = new_game(Variant.PROFESSIONAL_DRAFT)
    assert game.phase is Phase.DRAFT
    game.draft(5)
    with pytest.raises(IllegalDecisionError, match="illegal draft 5: not on the table"):
        game.draft(5)
    with pytest.raises(IllegalDecisionError, match="illegal draft 35: not on the table"):
        game.draft(35)  # 3 players play with cards 1..34


def test_asking_for_the_wrong_decision_is_a_driver_bug() -> None:
    game = new_game()
    with pytest.raises(RuntimeError, match="waits for CARDS, not ROW"):
        game.choose_row(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players must be 2 to 10, not 1"),
        ({"players": 11}, "players must be 2 to 10, not 11"),
        ({"players": 4, "end_score": 0}, "end score must be at least 1"),
        ({"players": 4, "max_rounds": 0}, "max rounds must be at least 1"),
        ({"players": 4, "variant": "chinese"}, "unknown variant 'chinese'"),
    ],
)
def test_settings_the_rules_cannot_play(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidSettingsError, match=message):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_one_error_family() -> None:
    assert issubclass(IllegalDecisionError, RulesError)
    assert issubclass(InvalidSettingsError, RulesError)
    assert issubclass(RulesError, ValueError)
