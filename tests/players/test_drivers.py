"""The two drivers play the same games: `play_local` (strategies, no event loop) and `play_game`
(any player, async), faults and fallbacks included."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings

from arena.players import (
    Fault,
    FaultKind,
    LocalPlayer,
    PlayerFault,
    Random,
    Strategy,
    play_game,
    play_local,
)
from arena.rules import Settings, Variant, View
from tests import strategies


class Unruly(Strategy):
    """Plays at random, but now and then a card it does not hold, a row that does not exist,
    a draft card not on the table, or no answer at all."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def _misbehave(self) -> int | None:
        roll = self.rng.random()
        if roll < 0.1:
            raise PlayerFault(FaultKind.TIMEOUT, "no answer")
        if roll < 0.2:
            return 105
        return None

    def choose_card(self, view: View) -> int:
        bad = self._misbehave()
        return self.rng.choice(view.hand) if bad is None else bad

    def choose_row(self, view: View) -> int:
        bad = self._misbehave()
        return self.rng.randrange(4) if bad is None else bad

    def choose_draft(self, view: View) -> int:
        bad = self._misbehave()
        return self.rng.choice(view.table) if bad is None else bad


class Listening(LocalPlayer):
    """A local player that notes the faults it is told of."""

    def __init__(self, strategy: Strategy) -> None:
        super().__init__(strategy)
        self.told: list[Fault] = []

    def faulted(self, fault: Fault) -> None:
        self.told.append(fault)


def seats(game: Settings, seed: int) -> list[Strategy]:
    return [
        Unruly(f"{seed}:{seat}") if seat % 2 else Random(f"{seed}:{seat}")
        for seat in range(game.players)
    ]


@settings(max_examples=60, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_both_drivers_play_the_same_game(game: Settings, seed: int) -> None:
    local = play_local(game, seats(game, seed), random.Random(seed), rotation=seed % 3)
    players = [Listening(strategy) for strategy in seats(game, seed)]
    remote = asyncio.run(play_game(game, players, random.Random(seed), rotation=seed % 3))
    assert local == remote
    for seat, player in enumerate(players):
        assert player.told == [fault for fault in remote.faults if fault.seat == seat]


def test_faults_are_recorded_and_the_fallback_plays() -> None:
    game = Settings(players=4, variant=Variant.PROFESSIONAL_DRAFT, max_rounds=2)
    result = play_local(game, seats(game, 5), random.Random(5))
    kinds = {fault.kind for fault in result.faults}
    assert kinds == {FaultKind.TIMEOUT, FaultKind.ILLEGAL}
    assert all(fault.seat % 2 for fault in result.faults)


def test_a_table_needs_a_player_per_seat() -> None:
    with pytest.raises(ValueError, match="4 seats but 3 players"):
        play_local(Settings(players=4), seats(Settings(players=3), 0), random.Random(0))
