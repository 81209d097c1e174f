"""The runner on its own, with no process: a venue whose executor plays each game in-process
stands in for the arena's sessions, so what the runner tells its observer and its design, and
what a resumed run carries on, is seen directly."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.players import Fault, FaultKind, Referee
from arena.rules import Decision
from arena.server.lobby import Bot
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.runner import RunSummary, TournamentDesign, run_tournament
from tests.tournament.helpers import played

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
NAMES = ("heuristic", "random", "lowest")


def config(output: Path, **changes: Any) -> TournamentConfig:
    bots = tuple(parse_bot(f"{name}={BOTS / f'{name}_bot.py'}") for name in NAMES)
    base = TournamentConfig(bots=bots, players=3, games=6, seed=11, output=output)
    return replace(base, **changes)


@dataclass
class InProcess:
    """A venue and its executor: each game played in-process, seat 0 faulting once a game if
    `faulty`; no bot process, no session."""

    faulty: bool = False
    bots: dict[str, Bot] = field(default_factory=dict)
    referees_at_start: dict[str, int] = field(default_factory=dict)

    @asynccontextmanager
    async def executor(self, config: TournamentConfig, observer: Observer) -> AsyncIterator[Any]:
        logs = config.output / "logs"
        self.bots = {
            spec.name: Bot(spec, logs / f"{spec.name}.log", Referee(spec.name, 100))
            for spec in config.bots
        }
        observer.announce("in-process")
        yield self

    async def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        self.referees_at_start = {name: bot.referee.faults for name, bot in self.bots.items()}
        for spec in jobs:
            await asyncio.sleep(0)  # as a real game would, the run's loop turns between games
            faults = [Fault(0, FaultKind.ILLEGAL, Decision.CARD, 0, 0, "no")] if self.faulty else []
            yield played(spec, faults)

    def report(self) -> None:
        return None

    def how_bots_run(self) -> dict[str, Any]:
        return {"sealed": False, "how": "in-process"}


@dataclass
class Told:
    """An observer's record of what it was told."""

    progress: list[tuple[int, int]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    saved: list[str] = field(default_factory=list)

    def observer(self) -> Observer:
        return Observer(
            progress=lambda done, total: self.progress.append((done, total)),
            announce=self.lines.append,
            saved=lambda outcome: self.saved.append(outcome.game_id),
        )


def run(cfg: TournamentConfig, venue: InProcess, told: Told, **more: Any) -> RunSummary:
    return asyncio.run(run_tournament(cfg, observer=told.observer(), venue=venue, **more))


def test_run_tournament_takes_at_most_five_parameters() -> None:
    parameters = inspect.signature(run_tournament).parameters
    assert list(parameters) == ["config", "observer", "design", "venue", "stop"]
    assert all(p.kind is p.KEYWORD_ONLY for name, p in parameters.items() if name != "config")


def test_the_observer_is_told_the_progress_each_game_and_the_organizers_lines(
    tmp_path: Path,
) -> None:
    told = Told()
    summary = run(config(tmp_path), InProcess(), told)
    assert summary.played == summary.total == summary.stored == 6 and not summary.interrupted
    assert told.progress == [(n, 6) for n in range(7)]
    assert sorted(told.saved) == sorted(set(told.saved)) and len(told.saved) == 6
    assert told.lines[1:] == ["in-process"] and "seed" in told.lines[0]
    assert summary.run["how"] == "in-process" and summary.run["seed"] == 11
    again = Told()
    rerun = run(config(tmp_path), InProcess(), again)
    assert rerun.played == 0 and again.progress == [(6, 6)] and again.saved == []
    assert again.lines[-1].startswith("the tournament is complete: all 6 games are stored")


def test_a_resumed_run_carries_each_bots_faults_on(tmp_path: Path) -> None:
    first = run(config(tmp_path), InProcess(faulty=True), Told())
    assert first.played == 6
    faults = {line.bot: line.faults for line in first.standings.bots}
    assert sum(faults.values()) == 6  # seat 0's, once a game
    venue = InProcess()
    grown = run(config(tmp_path, games=12), venue, Told())
    assert grown.played == 6
    assert venue.referees_at_start == faults


@dataclass
class Enough(TournamentDesign):
    """The tournament's games, but enough once `wanted` of this run's are stored."""

    wanted: int
    read_games: list[str] = field(default_factory=list)

    def read(self, outcome: GameOutcome) -> bool:
        self.read_games.append(outcome.game_id)
        return len(self.read_games) >= self.wanted


def test_a_design_that_needs_no_more_games_stops_the_run(tmp_path: Path) -> None:
    design = Enough(2)
    told = Told()
    summary = run(config(tmp_path), InProcess(), told, design=design)
    assert summary.interrupted and 2 <= summary.played < 6
    assert design.read_games == told.saved  # every game stored is read, in the order stored
    resumed = Enough(100)
    again = run(config(tmp_path), InProcess(), Told(), design=resumed)
    assert again.stored == 6 and again.played == 6 - summary.played
    # the stored games first, in schedule order, then this run's
    assert resumed.read_games[: summary.played] == sorted(design.read_games)
    assert len(resumed.read_games) == 6
