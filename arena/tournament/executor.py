"""Executors run game jobs: a spec in, an outcome out, in whatever order they finish; venues
open them for a run.

A game is a self-contained job identified by its spec's stable id, so an executor is free to run
jobs anywhere and in any order. `LocalExecutor` plays them on this machine over one arena session;
`arena.tournament.cluster.DaskExecutor` on a Dask cluster's workers, each with a session of its
own (and `LocalExecutor.play` for each game there). A `Venue` is where a run's games are played:
`arena.tournament.machine.ThisMachine` (its session opened for the run, and in fair mode its core
hosts: `arena.tournament.hosts`, an arena process a core, whose executor shares `OnThisMachine`
with `LocalExecutor`), or a cluster (`arena.tournament.cluster.Cluster`, held open by a caller
that entered submissions through it, or `ClusterForRun`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.server.lobby import Bot
from arena.server.session import Session
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome, GameSpec


@dataclass(frozen=True)
class WorkersReport:
    """Where a run's games were played: by each worker, and which workers were lost."""

    games: dict[str, int] = field(default_factory=dict)
    """Games played (and stored) by each worker, by its name."""
    lost: tuple[str, ...] = ()
    """Workers that left during the run; their unfinished games were played on the others."""

    def lines(self) -> list[str]:
        """For the summary: a line of games per worker, and one for the workers lost."""
        played = ", ".join(f"{name}: {count}" for name, count in self.games.items()) or "none"
        lines = [f"games per worker: {played}"]
        if self.lost:
            lines.append(
                f"workers lost: {', '.join(self.lost)} (their unfinished games were played "
                "again on the others)"
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        """For `arena run --json`."""
        return {"games": dict(self.games), "lost": list(self.lost)}


class Executor(Protocol):
    """Something that plays game jobs and yields their outcomes as they finish."""

    @property
    def bots(self) -> Mapping[str, Bot]:
        """The bots of the run, by name: their referees count the tournament's faults."""
        ...

    def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        """Play every job; closing the iterator early stops the games still running."""
        ...

    def report(self) -> WorkersReport | None:
        """Where the games were played, for an executor of many workers; None for one."""
        ...

    def how_bots_run(self) -> dict[str, Any]:
        """How the bots run (sealing, cgroups, CPU), as the run's `RUN` note records it."""
        ...


class Venue(Protocol):
    """Where a run's games are played."""

    def executor(
        self, config: TournamentConfig, observer: Observer
    ) -> AbstractAsyncContextManager[Executor]:
        """The run's executor, ready to play (its bots' processes stopped on leaving); what the
        organizer must know or do about it is told to `observer.announce`."""
        ...


class OnThisMachine:
    """What the executors of this machine share: the run's arena session, whose bots' referees
    count the tournament's faults, and whose plan says how the bots run."""

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def bots(self) -> Mapping[str, Bot]:
        """The session's bots."""
        return self._session.lobby.bots

    def report(self) -> None:
        """One machine: nothing to report."""
        return None

    def how_bots_run(self) -> dict[str, Any]:
        """How the session runs the bots (`Sealing.to_dict`, and its CPU plan)."""
        return {**self._session.sealing.to_dict(), "cpu": self._session.cpu.to_dict()}


class LocalExecutor(OnThisMachine):
    """Plays up to `concurrency` games at once on this machine's arena session."""

    def __init__(self, session: Session, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        super().__init__(session)
        self._concurrency = concurrency

    async def play(self, spec: GameSpec) -> GameOutcome:
        """Play one job."""
        result = await self._session.play(
            spec.game_id, spec.settings, spec.seats, spec.seed, spec.rotation, spec.bot_seed
        )
        bots = self._session.lobby.bots
        disqualified = tuple(name for name in spec.seats if bots[name].referee.disqualified)
        logs = tuple(  # the game's lines, and what its bots wrote between games meanwhile
            line
            for name in spec.seats
            for line in (*bots[name].lines.take_loose(), *bots[name].lines.take(spec.game_id))
        )
        return GameOutcome(
            spec, result.record, result.faults, disqualified, logs, times=result.times
        )

    async def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        """Play the jobs in schedule order, `concurrency` at a time, yielding each as it ends."""
        pending = iter(jobs)
        running: set[asyncio.Task[GameOutcome]] = set()
        try:
            while True:
                for spec in pending:
                    running.add(asyncio.create_task(self.play(spec)))
                    if len(running) >= self._concurrency:
                        break
                if not running:
                    return
                done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    yield task.result()
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
