"""The organizer's executor on a cluster: the games submitted to the workers a window at a time,
each outcome judged by the organizer's referees as it arrives (see the package's note)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from distributed import Future, as_completed

from arena.players import Conduct, Referee
from arena.server.lobby import Bot
from arena.tournament.cluster.organizer import POLL, Cluster, ClusterError, WorkerGone
from arena.tournament.cluster.worker import Played, Unfit, _play, _ready
from arena.tournament.config import TournamentConfig
from arena.tournament.executor import WorkersReport
from arena.tournament.judging import conducts, judge
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.store import LOGS

WINDOW = 2
"""Games submitted per worker thread: one playing, one ready to start at once."""
_log = logging.getLogger(__name__)


@dataclass
class _Game:
    """A game submitted: its spec and how many times it was."""

    spec: GameSpec
    attempts: int = 1
    sent: dict[str, Conduct] = field(default_factory=dict)
    """The organizer's record of its seats' bots, as it went out with its last submission."""


class DaskExecutor:
    """Plays game jobs on a cluster's workers, yielding each outcome as it arrives.

    `bots` are the organizer's: their referees count every fault of the tournament and decide
    disqualifications for all workers (see the module's note).
    """

    def __init__(
        self,
        cluster: Cluster,
        plugin: str,
        config: TournamentConfig,
        observer: Observer,
    ) -> None:
        self._cluster = cluster
        self._client = cluster.client
        self._plugin = plugin
        self._say = observer.announce
        self._workers_up = observer.workers
        logs = config.output / LOGS
        max_faults = config.bot_options().max_faults
        self.bots: dict[str, Bot] = {
            spec.name: Bot(spec, logs / f"{spec.name}.log", Referee(spec.name, max_faults))
            for spec in config.bots
        }
        self._threads: dict[str, int] = {}
        """Threads of each worker up, by address."""
        self.labels: dict[str, str] = {}
        """Each worker's name for people, by address (its --name, else its address)."""
        self._games: dict[str, int] = {}
        self._lost: list[str] = []
        self._unfit: dict[str, str] = {}
        """Workers that cannot play some bot, by address, and why."""
        self._fit: set[str] = set()
        """Workers that made every bot ready."""
        self._checking: dict[str, asyncio.Task[None]] = {}
        self._sealing: set[str] = set()
        self._runs: dict[str, dict[str, Any]] = {}
        """How each worker's session runs the bots, by address."""
        self._poller: asyncio.Task[None] | None = None

    # -- workers --

    async def start(self) -> None:
        """Wait for a worker, make the bots ready on every worker up (their builds, their
        first bots), then follow the workers as they come and go."""
        workers = await self._cluster.wait_for_workers(self._say)
        self._seen(workers)
        await asyncio.gather(*self._checking.values())
        if not self._fit:
            why = "; ".join(f"{self.labels[a]}: {why}" for a, why in self._unfit.items())
            raise ClusterError(
                f"no worker can play every bot: {why}"
                if why
                else "every worker left the cluster before it was ready: start more"
            )
        self._poller = asyncio.ensure_future(self._follow())

    async def stop(self) -> None:
        """Stop following the workers, after a last look (a worker lost just before the last
        game ended is reported too)."""
        await self._look()
        tasks = [t for t in (self._poller, *self._checking.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def how_bots_run(self) -> dict[str, Any]:
        """How the workers run the bots: one worker's record if they all agree, else each's."""
        runs = list(self._runs.values())
        if runs and all(run == runs[0] for run in runs):
            return dict(runs[0])
        return {"workers": {self.labels[a]: run for a, run in sorted(self._runs.items())}}

    def report(self) -> WorkersReport:
        """Games played by each worker, and the workers lost, for the summary."""
        games = dict(sorted((self.labels.get(a, a), n) for a, n in self._games.items()))
        return WorkersReport(games, tuple(self.labels.get(a, a) for a in self._lost))

    async def _look(self) -> None:
        """One look at the workers up now (skipped if the scheduler does not answer soon)."""
        with contextlib.suppress(Exception):
            self._seen(await asyncio.wait_for(self._cluster.workers(), POLL * 5))

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(POLL)
            try:
                workers = await self._cluster.workers()
            except (OSError, TimeoutError) as error:
                _log.warning("cannot reach the scheduler: %s", error)
                continue
            self._seen(workers)

    def _seen(self, workers: Mapping[str, Mapping[str, Any]]) -> None:
        """Take in the workers up now: check the new ones, note the lost ones."""
        before = len(self._threads)
        for address, identity in workers.items():
            if address not in self._threads:
                name = str(identity.get("name", address))
                self.labels[address] = name if name != address else address
                self._threads[address] = int(identity.get("nthreads") or 1)
                self._checking[address] = asyncio.ensure_future(self._check(address))
        for address in [a for a in self._threads if a not in workers]:
            del self._threads[address]
            self._fit.discard(address)
            check = self._checking.pop(address, None)
            if check is not None:
                check.cancel()
            self._lost.append(address)
            self._say(
                f"worker {self.labels[address]} lost: its unfinished games are played again "
                "on the others"
            )
        if len(self._threads) != before:
            self._workers_up(len(self._threads))

    async def _check(self, address: str) -> None:
        """Make the bots ready on one worker; note whether it can play them all, and how it
        seals them."""
        try:
            ready = await self._cluster._on(address, _ready, self._plugin)
        except asyncio.CancelledError:
            raise
        except WorkerGone:  # lost before it was ready: noted as lost where it is seen gone
            return
        except Exception as error:
            self._unfit[address] = f"its arena did not start: {error}"
            self._say(f"worker {self.labels[address]} cannot play: {error}")
            return
        if ready.errors:
            why = "; ".join(f"{name}: {reason}" for name, (reason, _) in ready.errors.items())
            self._unfit[address] = why
            self._say(f"worker {self.labels[address]} cannot play every bot, so plays none: {why}")
            return
        self._fit.add(address)
        self._runs[address] = ready.run
        if ready.sealing and ready.sealing not in self._sealing:
            self._sealing.add(ready.sealing)
            self._say(f"worker {self.labels[address]}: {ready.sealing}")

    def _window(self) -> int:
        threads = sum(n for a, n in self._threads.items() if a not in self._unfit)
        return max(WINDOW, WINDOW * threads)

    # -- games --

    async def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        """Play every job on the cluster, a window at a time, yielding each game once as it
        ends; closing early cancels the games still submitted."""
        pending = deque(jobs)
        running: dict[Future[Played], _Game] = {}
        finished: set[str] = set()
        arriving: as_completed = as_completed()  # type: ignore[no-untyped-call]  # distributed leaves it untyped

        def submit(game: _Game) -> None:
            future = self._submit(game)
            running[future] = game
            arriving.add(future)  # type: ignore[no-untyped-call]  # distributed leaves it untyped

        try:
            while pending and len(running) < self._window():
                submit(_Game(pending.popleft()))
            async for future in arriving:
                game = running.pop(future)
                try:
                    played: Played = await future
                except Unfit as unfit:
                    self._unfit_worker(unfit)
                    game.attempts += 1
                    submit(game)
                    continue
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    raise ClusterError(
                        f"game {game.spec.game_id} failed on the cluster ({error}): the games "
                        "stored are kept; run the same command again to carry on"
                    ) from None
                while pending and len(running) < self._window():
                    submit(_Game(pending.popleft()))
                if played.outcome.game_id in finished:
                    continue
                finished.add(played.outcome.game_id)
                self._games[played.address] = self._games.get(played.address, 0) + 1
                self.labels.setdefault(played.address, played.label)
                yield judge(self.bots, played.outcome, played.conduct, game.sent)
            await self._look()  # a worker lost in the last moments is reported too
        finally:
            if running:
                with contextlib.suppress(Exception):
                    await self._client.cancel(list(running))  # type: ignore[no-untyped-call]  # distributed leaves it untyped

    def _submit(self, game: _Game) -> Future[Played]:
        spec = game.spec
        state = game.sent = conducts(self.bots, spec.seats)
        restrict: list[str] | None = None
        if self._unfit:
            restrict = sorted(self._fit)
            if not restrict:
                raise ClusterError(
                    "no worker up can play every bot: "
                    + "; ".join(f"{self.labels[a]}: {why}" for a, why in self._unfit.items())
                )
        future: Future[Played] = self._client.submit(
            _play,
            self._plugin,
            spec,
            state,
            key=f"{self._plugin}-{spec.game_id}-{game.attempts}",
            pure=False,
            workers=restrict,
            allow_other_workers=False,
        )
        return future

    def _unfit_worker(self, unfit: Unfit) -> None:
        if unfit.address not in self._unfit:
            self._fit.discard(unfit.address)
            self._unfit[unfit.address] = unfit.why
            self.labels.setdefault(unfit.address, unfit.label)
            self._say(f"worker {unfit.label} cannot play every bot, so plays none: {unfit.why}")
