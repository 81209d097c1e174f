"""Executors run game jobs: a spec in, an outcome out, in whatever order they finish.

A game is a self-contained job identified by its spec's stable id, so an executor is free to run
jobs anywhere and in any order. Today the only one is `LocalExecutor`: games on this machine over
one arena session. A distributed one (Dask, say) would implement the same `Executor` protocol,
with a session on each worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from arena.server.session import Session
from arena.tournament.outcome import GameOutcome, GameSpec


class Executor(Protocol):
    """Something that plays game jobs and yields their outcomes as they finish."""

    def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        """Play every job; closing the iterator early stops the games still running."""
        ...


class LocalExecutor:
    """Plays up to `concurrency` games at once on this machine's arena session."""

    def __init__(self, session: Session, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        self._session = session
        self._concurrency = concurrency

    async def play(self, spec: GameSpec) -> GameOutcome:
        """Play one job."""
        result = await self._session.play(
            spec.game_id, spec.settings, spec.seats, spec.seed, spec.rotation
        )
        bots = self._session.lobby.bots
        disqualified = tuple(name for name in spec.seats if bots[name].referee.disqualified)
        logs = tuple(  # the game's lines, and what its bots wrote between games meanwhile
            line
            for name in spec.seats
            for line in (*bots[name].lines.take_loose(), *bots[name].lines.take(spec.game_id))
        )
        return GameOutcome(spec, result.record, result.faults, disqualified, logs)

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
