"""The organizer's side of a cluster run: the connection to the Dask scheduler (or a local
cluster), the submissions entered by building them on the workers, and the run's bundle and
executor (see the package's note)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from distributed import Client, LocalCluster
from distributed.security import Security

from arena.errors import MachineError
from arena.tournament.cluster.shipping import (
    Bundle,
    Packer,
    ShippedBot,
    ShippingError,
    submission_spec,
)
from arena.tournament.cluster.worker import CLOSE_TIMEOUT, Ready, RunPlugin, _logs, _prepare
from arena.tournament.config import TournamentConfig
from arena.tournament.fingerprint import submission_fingerprint
from arena.tournament.observer import Observer
from arena.tournament.store import LOGS
from arena.tournament.submissions import Rejection, find_submissions

if TYPE_CHECKING:
    from arena.tournament.cluster.executor import DaskExecutor

CONNECT_TIMEOUT = 30.0
"""Seconds to reach the scheduler before giving up with one line."""
POLL = 1.0
"""Seconds between looks at which workers are up."""
T = TypeVar("T")


class WorkerGone(Exception):
    """The worker a task was bound to left the cluster before the task ended."""


class ClusterError(MachineError):
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


class ClusterForRun:
    """The `Venue` of `--cluster` and `--workers` when no caller holds a cluster open: one
    opened for the run (`open_cluster`) and closed after it."""

    @asynccontextmanager
    async def executor(
        self, config: TournamentConfig, observer: Observer
    ) -> AsyncIterator[DaskExecutor]:
        """The run's executor on a cluster of its own."""
        async with open_cluster(config) as cluster, cluster.executor(config, observer) as games:
            yield games


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
        self, config: TournamentConfig, observer: Observer
    ) -> AsyncIterator[DaskExecutor]:
        """The run's executor (a `Venue`'s): its bundle given to every worker (a worker plugin,
        so a worker that joins later gets it too), then the games; on leaving, each worker's bot
        logs are brought back and its bots stopped (the plugin removed)."""
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
        from arena.tournament.cluster.executor import DaskExecutor  # it imports this module

        executor = DaskExecutor(self, run.name, config, observer)
        try:
            await executor.start()
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
