"""`simulate.play_deal` says when a pair's two games parted: never for equal strategies, at the
first turn for strategies that never agree on a full hand, and at the turn, counted over the
whole game, where one of them starts to play otherwise."""

from __future__ import annotations

from arena.players import Highest, Lowest, Strategy
from arena.rules import Settings, View
from arena.tournament.simulate import play_deal

ONE_ROUND = Settings(players=3, max_rounds=1)


class HighestFrom(Strategy):
    """The lowest card until round `round`'s turn `turn` (from 0), the highest from then on."""

    def __init__(self, round: int, turn: int) -> None:
        self.start = (round, turn)

    def choose_card(self, view: View) -> int:
        return view.hand[-1] if (view.round, view.turn) >= self.start else view.hand[0]


def lowest(seed: str) -> Strategy:
    return Lowest()


def highest_from(round: int, turn: int) -> Strategy:
    return HighestFrom(round, turn)


def test_equal_strategies_never_part() -> None:
    result = play_deal(ONE_ROUND, lowest, lowest, [lowest, lowest], deal=1, seed=5)
    assert result.parted == (None, None, None)
    assert result.new == result.old and result.difference == 0


def test_strategies_that_never_agree_part_at_the_first_turn() -> None:
    result = play_deal(ONE_ROUND, lowest, lambda seed: Highest(), [lowest, lowest], 2, seed=6)
    assert result.parted == (0, 0, 0)


def test_a_pair_parts_where_one_strategy_starts_to_differ() -> None:
    later = play_deal(ONE_ROUND, lowest, lambda seed: highest_from(0, 4), [lowest, lowest], 0, 7)
    assert later.parted == (4, 4, 4)
    two_rounds = Settings(players=3, max_rounds=2)  # the second round's turn 3 is the game's 13
    second = play_deal(two_rounds, lowest, lambda seed: highest_from(1, 3), [lowest, lowest], 0, 8)
    assert second.parted == (13, 13, 13)
