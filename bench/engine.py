"""The engine against the straightforward baseline: whole games to 66, in process.

Both play the same games (seeds 0, 1, 2, ...): the engine with a random card and the cheapest
row at every seat, through `play_local` (the in-process driver) and through `play_game` (the
async driver the arena uses for every game, here with in-process players); the baseline
(`bench.baseline`) with the same choices in a plain loop. Trials of each are interleaved and the
best kept: on a shared machine other load only ever slows a trial down.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from arena.players import LocalPlayer, Strategy, play_game, play_local
from arena.rules import Settings, View
from bench.baseline import play_baseline


class RandomCard(Strategy):
    """A random card from its own generator; the cheapest row (the default) when too low."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def choose_card(self, view: View) -> int:
        return self.rng.choice(view.hand)


def _strategies(players: int, seed: int) -> list[Strategy]:
    return [RandomCard(f"{seed}:{seat}") for seat in range(players)]


def engine_games(players: int, seeds: range) -> list[tuple[int, ...]]:
    """Each game's totals, played by the engine with the in-process driver."""
    settings = Settings(players=players)
    return [
        play_local(settings, _strategies(players, seed), random.Random(seed)).record.totals
        for seed in seeds
    ]


def async_games(players: int, seeds: range) -> list[tuple[int, ...]]:
    """Each game's totals, played by the engine with the async driver, in one event loop."""
    settings = Settings(players=players)

    async def play() -> list[tuple[int, ...]]:
        totals = []
        for seed in seeds:
            seats = [LocalPlayer(strategy) for strategy in _strategies(players, seed)]
            result = await play_game(settings, seats, random.Random(seed))
            totals.append(result.record.totals)
        return totals

    return asyncio.run(play())


def baseline_games(players: int, seeds: range) -> list[tuple[int, ...]]:
    """Each game's totals, played by the baseline."""
    return [tuple(play_baseline(players, seed)) for seed in seeds]


PLAYERS = {
    "engine": engine_games,
    "engine_async": async_games,
    "baseline": baseline_games,
}
"""What plays a batch of games, by the name its figure goes under."""


def check_same_games(players: int, games: int = 20) -> None:
    """Fail loudly unless the baseline and both drivers play exactly the same games."""
    seeds = range(games)
    expected = baseline_games(players, seeds)
    for name, play in PLAYERS.items():
        if play(players, seeds) != expected:
            raise AssertionError(f"{name} and the baseline play different {players}-player games")


def _rate(play: Callable[[int, range], object], players: int, games: int) -> float:
    """Games per second of this process's CPU time: on a shared machine, time spent waiting
    for a core is not the engine's, and the wall clock would count it."""
    start = time.process_time()
    play(players, range(games))
    return games / (time.process_time() - start)


def measure(players: int, seconds: float, trials: int) -> dict[str, Any]:
    """Games per second of each player of games, best of `trials` interleaved trials."""
    check_same_games(players)
    # Size the batches so that the slowest takes about `seconds` a trial.
    probe = min(_rate(play, players, 10) for play in PLAYERS.values())
    games = max(10, round(probe * seconds))
    best = dict.fromkeys(PLAYERS, 0.0)
    for _ in range(trials):
        for name, play in PLAYERS.items():
            best[name] = max(best[name], _rate(play, players, games))
    return {"players": players, "games": games, **{f"{k}_games_per_s": v for k, v in best.items()}}
