"""One ladder match: a set, one table's duplicate set (one deal, every seat rotation), played
through the tournament runner in a folder of its own, and read back as one result.

A set is played exactly as `arena run` plays a tournament's games, by `run_tournament` with a
design of its own (`SetDesign`: the table's one deal in every rotation), so the bots are sealed,
paced and timed, their faults judged and their games and logs stored by the same code: the
set's folder (`DIR/sets/<id>/`) is a tournament's output folder, its `results.sqlite` holding
the games (the API reads their records, replays and per-turn logs from there: the ladder's own
database keeps only the set's summary, `set_seats`). Where it runs is the caller's venue: this
machine (a session per set, all in the server's process: a set is a handful of games, and fair
mode's core hosts, an arena process a core, would cost their start-up more than they save; 3,400
against 2,640 sets an hour in `bench.ladder`'s one-round sets) or a cluster held open for the
whole serve.

The result is the table's bullheads summed over the set per seat (each bot holds every hand of
the deal once, so luck of the deal cancels out), and each seat's faults: rating reads the first,
the bench rule the second. A set the runner did not finish (stopped, or a game that failed) is
`None`: the loop abandons it, removes its folder and plays it again from the start, so a result
is always a whole set.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.server.lobby import BotSpec
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.executor import Venue
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import bot_seed, game_id
from arena.tournament.store import DATABASE, ResultStore


class SetDesign:
    """A ladder set's design for the runner: one deal (the set's seed), played once in every
    seat rotation by the table's bots in their seat order."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def identity(self) -> Mapping[str, Any]:
        """A set's folder holds that set alone: its seed is part of what a resume must match."""
        return {"ladder_set": {"seed": self.seed}}

    def read(self, outcome: GameOutcome) -> bool:
        """A set plays every rotation."""
        return False

    def plan(self, config: TournamentConfig, store: ResultStore) -> list[GameSpec]:
        """The deal in every rotation, the seats in the order the table was drawn."""
        assert config.seed is not None, "the runner decides the seed before it plans"
        settings = config.settings()
        seats = tuple(bot.name for bot in config.bots)
        return [
            GameSpec(
                game_id(0, 0, rotation),
                0,
                0,
                rotation,
                seats,
                self.seed,
                settings,
                bot_seed(config.seed, self.seed, rotation),
            )
            for rotation in range(settings.players)
        ]

    def nothing_left(self, config: TournamentConfig, planned: int, observer: Observer) -> None:
        """A set whose games are all stored is read as it is: nothing to say."""

    def whole(self, config: TournamentConfig, store: ResultStore, planned: int) -> int:
        """A set is the games it plans."""
        return planned


@dataclass(frozen=True)
class SetResult:
    """A whole set's result, by seat in the table's order."""

    bullheads: tuple[int, ...]
    """Each seat's bullheads summed over the set's games (fewest is best)."""
    faults: tuple[int, ...]
    """Each seat's faults over the set."""
    games: int
    """Games played: one per seat rotation."""
    bot_cpu: float
    """Seconds of CPU the bots used deciding (where measured): the games' cost, against which
    the server's own CPU per set is compared (`make bench`)."""
    lost: tuple[str, ...] = ()
    """On a cluster: the workers lost while the set played (their games played again)."""


async def play_set(
    template: TournamentConfig,
    folder: Path,
    seats: Sequence[BotSpec],
    seed: int,
    *,
    venue: Venue | None = None,
    stop: asyncio.Event | None = None,
) -> SetResult | None:
    """Play one set of `seats` (uniquely named bots, in seat order) in `folder`, with the
    ladder's rules and limits from `template` (its bots, players, seed and output are the
    set's); None when it did not finish (stopped, or interrupted), and the caller plays it
    again in a fresh folder.

    ConfigError (one line) for a table the rules cannot seat: the caller's bug, or settings
    that changed under a running ladder."""
    names = [bot.name for bot in seats]
    if len(set(names)) != len(names):
        raise ConfigError(f"a set seats each bot once, not {names!r}")
    config = replace(
        template,
        bots=tuple(seats),
        players=len(seats),
        games=len(seats),
        seed=seed,
        output=folder,
        sample=None,
        gauntlet=None,
        replace=None,
        standings_every=0,
        concurrency=min(template.concurrency, len(seats)),
        core_processes=False,  # a handful of games: a core host's start would cost more
    )
    summary = await run_tournament(config, design=SetDesign(seed), venue=venue, stop=stop)
    if summary.interrupted or summary.stored < len(seats):
        return None
    lost = summary.workers.lost if summary.workers is not None else ()
    return replace(read_set(folder / DATABASE, names), lost=lost)


def read_set(database: Path, names: Sequence[str]) -> SetResult:
    """A finished set's result from its results database: bullheads and faults by seat."""
    bullheads: Counter[str] = Counter()
    faults: Counter[str] = Counter()
    cpu = 0.0
    games = 0
    with ResultStore.reader(database) as store:
        for outcome in store.results():
            games += 1
            for name, total in outcome.scores.items():
                bullheads[name] += total
            faults.update(outcome.spec.seats[fault.seat] for fault in outcome.faults)
            cpu += sum(time.cpu or 0.0 for time in outcome.times)
    return SetResult(
        tuple(bullheads[name] for name in names),
        tuple(faults[name] for name in names),
        games,
        cpu,
    )
