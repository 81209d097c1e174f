"""Driving the engine synchronously in tests, with a hook to check the state at every step."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from arena.players import Random, Strategy
from arena.rules import Game, GameRecord, Phase, Settings

Check = Callable[[Game], None]


def _no_check(game: Game) -> None:
    pass


def drive(game: Game, strategies: Sequence[Strategy], check: Check = _no_check) -> GameRecord:
    """Play `game` to its end with in-process strategies, calling `check` before every decision."""
    while game.phase is not Phase.OVER:
        check(game)
        if game.phase is Phase.CARDS:
            game.play([strategies[s].choose_card(game.view(s)) for s in game.deciders])
            continue
        seat = game.deciders[0]
        if game.phase is Phase.ROW:
            game.choose_row(strategies[seat].choose_row(game.view(seat)))
        else:
            game.draft(strategies[seat].choose_draft(game.view(seat)))
    check(game)
    return game.record()


def random_game(settings: Settings, seed: int, check: Check = _no_check) -> GameRecord:
    """A whole game dealt from `seed`, every seat playing at random from its own generator."""
    strategies = [Random(f"{seed}:{seat}") for seat in range(settings.players)]
    return drive(Game(settings, random.Random(seed)), strategies, check)
