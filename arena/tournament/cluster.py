"""Tournaments on a Dask cluster: `arena run --cluster ADDRESS` or `--workers N`.

The organizer's machine keeps the schedule, the one results database and the referees; the games
run on the cluster's workers, each an arena of its own. Dask does the rest: it places each game
on a worker with a free thread, streams results back as they finish, and plays again elsewhere
the games of a worker that is lost.

- **A game is a task, a worker's session is its batch.** Each game is one small Dask task; the
  worker plays it in its own arena session (its own servers on unix sockets, its own bot
  processes, sealed and in cgroups as on one machine: the same `open_session` and
  `LocalExecutor.play`), opened for the first game of the run and kept for the next ones, so the
  bots start once per worker, not once per game. A worker plays as many games at once as it has
  threads (`dask worker --nthreads`, by default its cores). Tasks of one game each stream
  results back as they finish (`as_completed`), and a lost worker costs only its unfinished games,
  which Dask reschedules: no batch to split, no queue to drain. The organizer keeps a window of
  about two games per thread submitted, so the scheduler never holds the whole tournament.
- **Only specs and outcomes travel**: a `GameSpec` (and the referees' state for its seats) in, a
  `GameOutcome` (with its bots' log lines) out. The bots' files reach the workers as
  content-addressed archives (`shipping.py`) in the run's worker plugin, which every worker, also
  one that joins later, receives; submissions are built on each worker, once per content hash.
- **One store, nothing counted twice.** Outcomes are stored as they arrive, keyed by game id (a
  game is yielded once, and the store keeps a game once); a resume plays what is missing, with
  whatever executor. Seeds come from the schedule, never from where or when a game ran.
- **The referees stay with the organizer**: each outcome's faults are charged to the organizer's
  referee of each bot, which disqualifies at `--max-faults` for the whole tournament; each game
  carries its seats' fault counts and disqualifications to the worker, so a bot put out on one
  worker is out on all of them from their next game.
- **Secure by default**: `tls://` uses Dask's TLS with the organizer's certificate, key and CA
  (`--cluster-cert`, `--cluster-key`, `--cluster-ca`); `tcp://` beyond loopback needs
  `--insecure`, as `--listen` does. `--workers N` runs a local cluster on loopback.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import math
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from distributed import Client, Future, LocalCluster, as_completed, get_worker
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.security import Security

from arena.players import Referee
from arena.server.isolation.cgroups import RunCgroups
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.sandbox import Sandbox, SandboxError, allocate_uids, find_sandbox
from arena.server.lobby import Bot, BotSpec
from arena.server.session import Session, open_session
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import ConfigError
from arena.tournament.executor import LocalExecutor, WorkersReport, WorkersUp
from arena.tournament.fingerprint import submission_fingerprint
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.shipping import (
    Bundle,
    Packer,
    Shelf,
    ShippedBot,
    ShippingError,
    submission_spec,
)
from arena.tournament.store import LOGS
from arena.tournament.submissions import (
    BUILD_FIRST_UID,
    BadSubmission,
    Builder,
    Rejection,
    find_submissions,
)

CONNECT_TIMEOUT = 30.0
"""Seconds to reach the scheduler before giving up with one line."""
POLL = 1.0
"""Seconds between looks at which workers are up."""
IDLE = 300.0
"""Seconds without a game after which a worker stops its bots (an organizer that vanished
leaves nothing running for long); the next game starts them again."""
CLOSE_TIMEOUT = 60.0
"""Seconds the end of a run waits for the workers to hand back their logs and stop their bots."""
LOG_TAIL = 256 << 10
"""Bytes of each bot's log on each worker brought back to the organizer at the end."""
WINDOW = 2
"""Games submitted per worker thread: one playing, one ready to start at once."""
_log = logging.getLogger(__name__)
T = TypeVar("T")


class WorkerGone(Exception):
    """The worker a task was bound to left the cluster before the task ended."""


class ClusterError(ConfigError):
    """A cluster that cannot be used (unreachable, no worker can play a bot), or a game that
    failed on it, with what to do; the games stored so far are kept."""


def security(config: TournamentConfig) -> Security | None:
    """Dask's TLS settings for a `tls://` cluster, from the organizer's files; None for `tcp://`."""
    if config.cluster is None or not config.cluster.startswith("tls://"):
        return None
    return Security(  # type: ignore[no-untyped-call]  # distributed leaves it untyped
        tls_ca_file=str(config.cluster_ca),
        tls_client_cert=str(config.cluster_cert),
        tls_client_key=str(config.cluster_key),
        require_encryption=True,
    )


# -- the organizer's side ----------------------------------------------------------------------


@asynccontextmanager
async def open_cluster(config: TournamentConfig) -> AsyncIterator[Cluster]:
    """Connect to `config.cluster`, or start a local cluster of `config.workers` processes on
    loopback (the same path: a scheduler, worker processes, a client); closed on leaving."""
    config.check_cluster()
    async with AsyncExitStack() as stack:
        if config.workers is not None:
            threads = max(1, math.ceil(config.concurrency / config.workers))
            local = await stack.enter_async_context(
                LocalCluster(  # type: ignore[no-untyped-call]  # distributed leaves it untyped
                    n_workers=config.workers,
                    threads_per_worker=threads,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    asynchronous=True,
                    silence_logs=logging.ERROR,
                )
            )
            target: Any = local
            shown = f"a local cluster of {config.workers} worker processes"
        else:
            target = config.cluster
            shown = str(config.cluster)
        try:
            client = await Client(  # type: ignore[no-untyped-call]  # distributed leaves it untyped
                target,
                asynchronous=True,
                security=security(config),
                timeout=CONNECT_TIMEOUT,
            )
        except (OSError, TimeoutError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {shown}: {error}; is `dask scheduler` "
                "running there (and, for tls://, are these the cluster's certificates)?"
            ) from None
        stack.push_async_callback(client.close)
        cluster = Cluster(client, Packer(config.bots_dir), shown)
        if config.workers is not None:  # one machine: each worker its own cores (fair CPU)
            workers = sorted(await cluster.workers())
            await client.run(_pin, split_cores(sorted(os.sched_getaffinity(0)), workers))
        yield cluster


def split_cores(cores: Sequence[int], workers: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """The cores of this machine dealt out to local workers, each its own where there are
    enough (fair CPU pins each game to a core of its worker's; two workers that each took every
    core would pin two games to one), else one each, in turn."""
    if len(workers) >= len(cores):
        return {worker: (cores[i % len(cores)],) for i, worker in enumerate(workers)}
    return {worker: tuple(cores[i :: len(workers)]) for i, worker in enumerate(workers)}


def _pin(plan: Mapping[str, tuple[int, ...]], dask_worker: Any) -> None:
    """Run on each local worker: every thread of its process (and so its arena, and the bots it
    starts) on its own cores."""
    cores = plan.get(dask_worker.address)
    if not cores:
        return
    for thread in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(int(thread), cores)


class Cluster:
    """A connection to a Dask cluster, and the bots shipped to it for one tournament."""

    def __init__(self, client: Client, packer: Packer, shown: str) -> None:
        self.client = client
        self.packer = packer
        self.shown = shown
        self.submissions: dict[str, ShippedBot] = {}
        """The submissions entered through the cluster (built on its workers), by name."""

    async def workers(self) -> dict[str, dict[str, Any]]:
        """The workers up now: each one's identity (name, threads, ...) by address."""
        scheduler = self.client.scheduler
        assert scheduler is not None, "connected"
        identity = await scheduler.identity(n_workers=-1)
        workers: dict[str, dict[str, Any]] = identity["workers"]
        return workers

    async def wait_for_workers(self, announce: Callable[[str], None]) -> dict[str, dict[str, Any]]:
        """The workers up, once there is at least one (saying so when there is none yet)."""
        workers = await self.workers()
        if not workers:
            announce(f"waiting for a Dask worker to join {self.shown} (`dask worker ADDRESS`)")
        while not workers:
            await asyncio.sleep(POLL)
            workers = await self.workers()
        return workers

    async def enter_submissions(
        self,
        root: Path,
        config: TournamentConfig,
        report: Callable[[Rejection], None] | None = None,
        announce: Callable[[str], None] | None = None,
    ) -> TournamentConfig:
        """`config` with every playable submission under `root` entered, each shipped to every
        worker and built there (once per content hash); a submission whose manifest is wrong,
        or whose build fails on any worker, is left out and told to `report`, by name and
        worker. The organizer builds nothing: its machine may not even have the compilers."""
        say = announce or (lambda line: None)
        manifests, rejections = find_submissions(root)
        left_out = list(rejections)
        shipped = {}
        for manifest in manifests:
            try:
                shipped[manifest.name] = (manifest, self.packer.submission(manifest))
            except ShippingError as error:
                left_out.append(Rejection(manifest.folder.name, str(error)))
        bundle = self.packer.bundle(
            [bot for _, bot in shipped.values()], config.bot_options(), config.build_timeout
        )
        workers = await self.wait_for_workers(say)
        answers = await asyncio.gather(
            *(self._on(address, _prepare, bundle) for address in workers),
            return_exceptions=True,
        )
        for answer in answers:  # a worker that left meanwhile builds when it plays, if it does
            if isinstance(answer, BaseException) and not isinstance(answer, WorkerGone):
                raise answer
        failed: dict[str, list[str]] = {}
        for done in (answer for answer in answers if isinstance(answer, Ready)):
            for name, (reason, tail) in sorted(done.errors.items()):
                failed.setdefault(name, []).append(f"on worker {done.label}: {reason}")
                _append_log(config.output / LOGS / f"{name}.log", done.label, "build", tail)
        bots, fingerprints = list(config.bots), list(config.fingerprints)
        for name, (manifest, bot) in sorted(shipped.items()):
            if name in failed:
                reason = "its build failed " + "; ".join(failed[name])
                left_out.append(Rejection(manifest.folder.name, reason))
                continue
            bots.append(submission_spec(manifest))
            fingerprints.append((name, submission_fingerprint(manifest.folder, manifest.command)))
            self.submissions[name] = bot
        left_out.sort(key=lambda rejection: rejection.folder)
        if report is not None:
            for rejection in left_out:
                report(rejection)
        return replace(
            config,
            bots=tuple(bots),
            fingerprints=tuple(fingerprints),
            left_out=config.left_out + tuple((r.folder, r.reason) for r in left_out),
        )

    def bundle(self, config: TournamentConfig) -> Bundle:
        """The run's bundle: every entered bot, as a submission built on the workers (if it was
        entered so) or as a program, with its archives."""
        bots = [
            self.submissions.get(spec.name) or self.packer.program(spec) for spec in config.bots
        ]
        return self.packer.bundle(bots, config.bot_options(), config.build_timeout)

    @asynccontextmanager
    async def executor(
        self,
        config: TournamentConfig,
        announce: Callable[[str], None] | None = None,
        workers_up: WorkersUp | None = None,
        sealed: Callable[[Mapping[str, Any]], None] | None = None,
    ) -> AsyncIterator[DaskExecutor]:
        """The run's executor: its bundle given to every worker (a worker plugin, so a worker
        that joins later gets it too), then the games; on leaving, each worker's bot logs are
        brought back and its bots stopped (the plugin removed). `sealed` is told how the
        workers up at the start run their bots: as a local run's session says it when they all
        say the same, else each worker's by its name."""
        say = announce or (lambda line: None)
        run = RunPlugin(secrets.token_hex(8), self.bundle(config))
        try:
            await self.client.register_plugin(run, name=run.name)
        except Exception as error:  # a worker without the arena cannot even unpickle it
            with contextlib.suppress(Exception):
                await self.client.unregister_worker_plugin(run.name)  # type: ignore[no-untyped-call]  # distributed leaves it untyped
            raise ClusterError(
                f"a worker of {self.shown} cannot take the run ({type(error).__name__}: {error}): "
                "is the arena installed there, the same version as here?"
            ) from None
        executor = DaskExecutor(self, run.name, config, say, workers_up)
        try:
            await executor.start()
            if sealed is not None:
                sealed(executor.how_bots_run())
            yield executor
        finally:
            await executor.stop()
            with contextlib.suppress(Exception):  # the games are stored; this is tidying up
                logs = await asyncio.wait_for(
                    self.client.run(_logs, run.name, on_error="return"), CLOSE_TIMEOUT
                )
                _write_logs(config.output / LOGS, logs, executor.labels)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    self.client.unregister_worker_plugin(run.name),  # type: ignore[no-untyped-call]  # distributed leaves it untyped
                    CLOSE_TIMEOUT,
                )

    async def _on(self, address: str, function: Callable[..., T], *args: Any) -> T:
        """Run `function(*args)` on the worker at `address`, and nowhere else; WorkerGone if
        that worker leaves first (a task bound to it would wait for it forever)."""
        future = self.client.submit(
            function, *args, workers=[address], allow_other_workers=False, pure=False
        )

        async def result() -> T:
            done: T = await future
            return done

        waiting = asyncio.ensure_future(result())
        try:
            while True:
                finished, _ = await asyncio.wait([waiting], timeout=POLL)
                if finished:
                    return waiting.result()
                if address not in await self.workers():
                    raise WorkerGone(address)
        finally:
            if not waiting.done():
                waiting.cancel()
                with contextlib.suppress(Exception):
                    await self.client.cancel([future])  # type: ignore[no-untyped-call]  # distributed leaves it untyped


@dataclass
class _Game:
    """A game submitted: its spec and how many times it was."""

    spec: GameSpec
    attempts: int = 1


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
        announce: Callable[[str], None],
        workers_up: WorkersUp | None,
    ) -> None:
        self._cluster = cluster
        self._client = cluster.client
        self._plugin = plugin
        self._say = announce
        self._workers_up = workers_up
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
        if self._workers_up is not None and len(self._threads) != before:
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
                yield self._judge(played)
            await self._look()  # a worker lost in the last moments is reported too
        finally:
            if running:
                with contextlib.suppress(Exception):
                    await self._client.cancel(list(running))  # type: ignore[no-untyped-call]  # distributed leaves it untyped

    def _submit(self, game: _Game) -> Future[Played]:
        spec = game.spec
        state = {
            name: (self.bots[name].referee.faults, self.bots[name].referee.disqualified)
            for name in spec.seats
        }
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

    def _judge(self, played: Played) -> GameOutcome:
        """The outcome as the tournament counts it: its faults charged to the organizer's
        referees, the bots disqualified by its end as they say."""
        outcome = played.outcome
        seats = outcome.spec.seats
        for fault in outcome.faults:
            bot = self.bots[seats[fault.seat]]
            if bot.referee.charge(fault) is not None:
                bot.note(bot.referee.disqualified)
        for name, why in played.out.items():
            self.bots[name].disqualify(why)
        disqualified = tuple(name for name in seats if self.bots[name].referee.disqualified)
        return replace(outcome, disqualified=disqualified)


def _append_log(path: Path, worker: str, what: str, text: bytes) -> None:
    """Add a worker's part of a bot's log (its build, or its games) to the organizer's copy."""
    if not text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    header = f"[arena: {path.stem}'s {what} on worker {worker}]\n".encode()
    with path.open("ab") as log:
        log.write(header + text + (b"" if text.endswith(b"\n") else b"\n"))


def _write_logs(folder: Path, logs: Mapping[str, object], labels: Mapping[str, str]) -> None:
    """Each worker's bot logs (their tails), appended to the organizer's log of each bot."""
    for address, found in sorted(logs.items()):
        if not isinstance(found, dict):  # that worker failed to answer: its logs stay there
            continue
        for name, text in sorted(found.items()):
            _append_log(folder / f"{name}.log", labels.get(address, address), "games", text)


# -- a worker's side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """A game played on a worker: where, its outcome, and its seats' disqualifications there."""

    address: str
    label: str
    outcome: GameOutcome
    out: dict[str, str] = field(default_factory=dict)
    """The seats' bots out on that worker by the game's end, and why."""


@dataclass(frozen=True)
class Ready:
    """A worker's answer to "make the bots ready": how it seals them, and what failed."""

    address: str
    label: str
    sealing: str = ""
    """How its bots run, when not sealed in full or not given fair CPU (the organizer is told)."""
    errors: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    """The bots it cannot play, by name: why, and the end of the build's log."""
    run: dict[str, Any] = field(default_factory=dict)
    """How its session runs the bots, as a local run records it (sealing, cgroups, CPU)."""


class Unfit(Exception):
    """A worker cannot play a game: a bot of it could not be made ready there."""

    def __init__(self, address: str, label: str, why: str) -> None:
        super().__init__(f"worker {label} cannot play: {why}")
        self.address = address
        self.label = label
        self.why = why

    def __reduce__(self) -> tuple[Any, ...]:  # travels back to the organizer
        return (Unfit, (self.address, self.label, self.why))


class RunPlugin(WorkerPlugin):
    """One tournament run on every worker: its bundle, and the arena that plays its games there
    (`WorkerArena`, made on each worker as it takes the plugin, closed when the plugin is
    removed or the worker closes)."""

    def __init__(self, run_id: str, bundle: Bundle) -> None:
        self.run_id = run_id
        self.bundle = bundle
        self.arena: WorkerArena | None = None

    @property
    def name(self) -> str:
        return f"arena-run-{self.run_id}"

    def __getstate__(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "bundle": self.bundle, "arena": None}

    def setup(self, worker: Any) -> None:
        root = Path(worker.local_directory) / "arena"
        label = _label(worker)
        self.arena = WorkerArena(self.bundle, root, self.run_id, worker.address, label)

    async def teardown(self, worker: Any) -> None:
        if self.arena is not None:
            await asyncio.to_thread(self.arena.close)


def _label(worker: Any) -> str:
    name = str(worker.name)
    return name if name != worker.address else str(worker.address)


def _arena(plugin: str) -> WorkerArena:
    found = get_worker().plugins.get(plugin)
    if not isinstance(found, RunPlugin) or found.arena is None:
        raise RuntimeError(f"this worker has no arena for {plugin}: is the run over?")
    return found.arena


def _play(plugin: str, spec: GameSpec, state: dict[str, tuple[int, str]]) -> Played:
    """A task: play one game on this worker's arena (blocking this thread, one game slot)."""
    return _arena(plugin).play(spec, state)


def _ready(plugin: str) -> Ready:
    """A task: make the run's bots ready on this worker, and say how it went."""
    return _arena(plugin).ready()


def _prepare(bundle: Bundle) -> Ready:
    """A task: unpack and build the bundle's bots on this worker (once per content hash), with
    no arena: the entry of submissions, before the tournament is known."""
    worker = get_worker()
    shelf = Shelf(Path(worker.local_directory) / "arena")
    logs = shelf.root / "logs" / secrets.token_hex(4)
    _, errors = asyncio.run(_make_ready(shelf, bundle, logs))
    return Ready(worker.address, _label(worker), errors=errors)


def _logs(plugin: str, dask_worker: Any) -> dict[str, bytes]:
    """Run on each worker at the end: the tail of each bot's log there."""
    found = dask_worker.plugins.get(plugin)
    if not isinstance(found, RunPlugin) or found.arena is None:
        return {}
    return found.arena.logs()


async def _make_ready(
    shelf: Shelf, bundle: Bundle, logs: Path
) -> tuple[list[BotSpec], dict[str, tuple[str, bytes]]]:
    """Every bot of the bundle made ready on this worker: the specs of those that are, and why
    the others are not (with the end of each one's build log)."""
    logs.mkdir(parents=True, exist_ok=True)
    gate = asyncio.Semaphore(os.cpu_count() or 1)
    builds = any(bot.kind == "submission" for bot in bundle.bots)
    try:  # builds sealed as a local run's are (submissions.enter_submissions)
        found = await find_sandbox(bundle.options.sandbox) if builds else None
    except SandboxError as error:  # --sandbox on, and this worker cannot seal
        failed = {bot.name: (f"cannot build sealed here: {error}", b"") for bot in bundle.bots}
        return [], failed
    cgroups = RunCgroups.create() if builds else None
    builder = Builder(
        found if isinstance(found, Sandbox) else None,
        cgroups if isinstance(cgroups, RunCgroups) else None,
        tuple(allocate_uids(len(bundle.bots), BUILD_FIRST_UID)),
    )

    async def one(index: int, bot: ShippedBot) -> BotSpec | tuple[str, bytes]:
        log = logs / f"{bot.name}.log"
        async with gate:
            try:
                return await shelf.ready(bot, bundle, log, builder, index)
            except (BadSubmission, ShippingError, OSError) as error:
                return str(error), _tail(log, 8 << 10)

    try:
        made = await asyncio.gather(*(one(i, bot) for i, bot in enumerate(bundle.bots)))
    finally:
        if isinstance(cgroups, RunCgroups):
            await cgroups.close()
    specs = [spec for spec in made if isinstance(spec, BotSpec)]
    errors = {
        bot.name: result
        for bot, result in zip(bundle.bots, made, strict=True)
        if not isinstance(result, BotSpec)
    }
    return specs, errors


def _tail(path: Path, limit: int) -> bytes:
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(0, file.tell() - limit))
            return file.read()
    except OSError:
        return b""


class WorkerArena:
    """One run's arena on one worker: an event loop of its own in a thread of its own, with the
    arena session in it, opened for the first game and kept (closed after `IDLE` seconds
    without a game). Dask's task threads hand it games and wait for them: a worker plays as many
    at once as it has threads."""

    def __init__(self, bundle: Bundle, root: Path, run_id: str, address: str, label: str) -> None:
        self.bundle = bundle
        self.shelf = Shelf(root)
        self.folder = root / "runs" / run_id
        self.address = address
        self.label = label
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._opening: asyncio.Lock | None = None
        self._stack: AsyncExitStack | None = None
        self._executor: LocalExecutor | None = None
        self._session: Session | None = None
        self._errors: dict[str, tuple[str, bytes]] = {}
        self._playing: set[asyncio.Task[Any]] = set()
        self._last = time.monotonic()
        self._closed = False
        self._idle: concurrent.futures.Future[None] | None = None

    # -- called from Dask's threads --

    def play(self, spec: GameSpec, state: dict[str, tuple[int, str]]) -> Played:
        """Play one game and wait for it (from a task's thread)."""
        return self._call(self._play(spec, state))

    def ready(self) -> Ready:
        """Open the arena (bots unpacked and built) and say how it went."""
        return self._call(self._ready())

    def logs(self) -> dict[str, bytes]:
        """The tail of each bot's log on this worker."""
        folder = self.folder / "logs"
        if not folder.is_dir():
            return {}
        return {path.stem: _tail(path, LOG_TAIL) for path in sorted(folder.glob("*.log"))}

    def close(self) -> None:
        """Stop the games in progress and every bot, then the loop and its thread."""
        with self._lock:
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._close(), loop).result(CLOSE_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CLOSE_TIMEOUT)

    def _call(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._start()).result()

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise RuntimeError("this worker's arena is closed: the run is over")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()
                    loop.close()

                self._thread = threading.Thread(target=serve, name="arena", daemon=True)
                self._thread.start()
                started.wait()
                self._loop = loop
                self._idle = asyncio.run_coroutine_threadsafe(self._watch_idle(), loop)
            return self._loop

    # -- in the arena's own loop --

    async def _open(self) -> LocalExecutor:
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._executor is None:
                specs, self._errors = await _make_ready(
                    self.shelf, self.bundle, self.folder / "builds"
                )
                stack = AsyncExitStack()
                self._session = await stack.enter_async_context(
                    open_session(
                        specs,
                        self.folder / "logs",
                        self.bundle.options,
                        workdir=self.folder / "work",
                    )
                )
                self._stack = stack
                self._executor = LocalExecutor(self._session, 1)
            return self._executor

    async def _ready(self) -> Ready:
        await self._open()
        assert self._session is not None
        sealing, cpu = self._session.sealing, self._session.cpu
        lines = [] if sealing.sealed and sealing.cgroups else [sealing.describe()]
        if cpu.note and cpu.asked is not CpuMode.SHARED:  # fair CPU unavailable, or incomplete
            lines.append(cpu.describe())
        run = {**sealing.to_dict(), "cpu": cpu.to_dict()}
        return Ready(self.address, self.label, "; ".join(lines), dict(self._errors), run)

    async def _play(self, spec: GameSpec, state: dict[str, tuple[int, str]]) -> Played:
        executor = await self._open()
        missing = [name for name in spec.seats if name in self._errors]
        if missing:
            why = "; ".join(f"{name}: {self._errors[name][0]}" for name in missing)
            raise Unfit(self.address, self.label, why)
        assert self._session is not None
        bots = self._session.lobby.bots
        for name, (faults, why) in state.items():
            bot = bots[name]
            bot.referee.faults = max(bot.referee.faults, faults)
            if why:
                bot.disqualify(why)
        task = asyncio.current_task()
        assert task is not None
        self._playing.add(task)
        try:
            outcome = await executor.play(spec)
        finally:
            self._playing.discard(task)
            self._last = time.monotonic()
        out = {n: bots[n].referee.disqualified for n in spec.seats if bots[n].referee.disqualified}
        return Played(self.address, self.label, outcome, out)

    async def _close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        for task in list(self._playing):
            task.cancel()
        await asyncio.gather(*self._playing, return_exceptions=True)
        await self._shut()

    async def _shut(self) -> None:
        stack, self._stack, self._executor, self._session = self._stack, None, None, None
        if stack is not None:
            await stack.aclose()

    async def _watch_idle(self) -> None:
        while True:
            await asyncio.sleep(IDLE / 10)
            idle = time.monotonic() - self._last
            if self._executor is not None and not self._playing and idle > IDLE:
                assert self._opening is not None
                async with self._opening:
                    await self._shut()
