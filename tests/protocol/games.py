"""Real games played in-process, with every view a seat was shown and what it was asked."""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.players import Random
from arena.rules import Decision, Game, GameRecord, Phase, Settings, View


@dataclass(frozen=True)
class PlayedGame:
    """A finished game and every (decision, view) pair asked during it, in order."""

    record: GameRecord
    asked: tuple[tuple[Decision, View], ...]


def play(settings: Settings, seed: int) -> PlayedGame:
    """Play a whole game dealt from `seed`, every seat at random, keeping each view asked.

    The players are named after the seed and their seat, so that views carry names of their own,
    and every view carries its decision's seed (the game's bot seed is `seed` too).
    """
    names = [f"bot-{seed}-{seat}" for seat in range(settings.players)]
    game = Game(settings, random.Random(seed), names=names, bot_seed=seed)
    seats = [Random(f"{seed}:{seat}") for seat in range(settings.players)]
    asked: list[tuple[Decision, View]] = []
    while (phase := game.phase) is not Phase.OVER:
        if phase is Phase.CARDS:
            views = [game.view(seat) for seat in game.deciders]
            asked.extend((Decision.CARD, view) for view in views)
            game.play([seats[view.seat].choose_card(view) for view in views])
            continue
        view = game.view(game.deciders[0])
        if phase is Phase.ROW:
            asked.append((Decision.ROW, view))
            game.choose_row(seats[view.seat].choose_row(view))
        else:
            asked.append((Decision.DRAFT, view))
            game.draft(seats[view.seat].choose_draft(view))
    return PlayedGame(game.record(), tuple(asked))
