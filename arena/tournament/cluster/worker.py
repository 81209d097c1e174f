"""Each worker's side of a cluster run: the run's plugin, and the arena in it that makes the bots
ready (unpacked, built) and plays the games it is handed, in one session kept between games (see
the package's note)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import secrets
import threading
import time
from collections.abc import Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from arena.players import Conduct
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.isolate import isolate
from arena.server.isolation.sandbox import SandboxError
from arena.server.lobby import BotSpec
from arena.server.session import Session, open_session
from arena.tournament.cluster.shipping import Bundle, Shelf, ShippedBot, ShippingError
from arena.tournament.executor import LocalExecutor
from arena.tournament.judging import conducts, take
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.submissions import BadSubmission, Builder

IDLE = 300.0
"""Seconds without a game after which a worker stops its bots (an organizer that vanished
leaves nothing running for long); the next game starts them again."""
CLOSE_TIMEOUT = 60.0
"""Seconds the end of a run waits for the workers to hand back their logs and stop their bots."""
LOG_TAIL = 256 << 10
"""Bytes of each bot's log on each worker brought back to the organizer at the end."""
T = TypeVar("T")


@dataclass(frozen=True)
class Played:
    """A game played on a worker: where, its outcome, and its seats' conduct there."""

    address: str
    label: str
    outcome: GameOutcome
    conduct: dict[str, Conduct] = field(default_factory=dict)
    """The record of each seat's bot on that worker by the game's end, by name."""


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


def _play(plugin: str, spec: GameSpec, state: Mapping[str, Conduct]) -> Played:
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
    async with AsyncExitStack() as stack:
        try:  # builds sealed as a local run's are (submissions.enter_submissions)
            isolation = await stack.enter_async_context(
                isolate(bundle.options.sandbox, needed=builds)
            )
        except SandboxError as error:  # --sandbox on, and this worker cannot seal
            failed = {bot.name: (f"cannot build sealed here: {error}", b"") for bot in bundle.bots}
            return [], failed
        builder = Builder.of(isolation, len(bundle.bots))

        async def one(index: int, bot: ShippedBot) -> BotSpec | tuple[str, bytes]:
            log = logs / f"{bot.name}.log"
            async with gate:
                try:
                    return await shelf.ready(bot, bundle, log, builder, index)
                except (BadSubmission, ShippingError, OSError) as error:
                    return str(error), _tail(log, 8 << 10)

        made = await asyncio.gather(*(one(i, bot) for i, bot in enumerate(bundle.bots)))
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

    def play(self, spec: GameSpec, state: Mapping[str, Conduct]) -> Played:
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
        executor = await self._open()
        assert self._session is not None
        sealing, cpu = self._session.sealing, self._session.cpu
        lines = [] if sealing.sealed and sealing.cgroups else [sealing.describe()]
        if cpu.note and cpu.asked is not CpuMode.SHARED:  # fair CPU unavailable, or incomplete
            lines.append(cpu.describe())
        run = executor.how_bots_run()
        return Ready(self.address, self.label, "; ".join(lines), dict(self._errors), run)

    async def _play(self, spec: GameSpec, state: Mapping[str, Conduct]) -> Played:
        executor = await self._open()
        missing = [name for name in spec.seats if name in self._errors]
        if missing:
            why = "; ".join(f"{name}: {self._errors[name][0]}" for name in missing)
            raise Unfit(self.address, self.label, why)
        assert self._session is not None
        bots = self._session.lobby.bots
        take(bots, state)
        task = asyncio.current_task()
        assert task is not None
        self._playing.add(task)
        try:
            outcome = await executor.play(spec)
        finally:
            self._playing.discard(task)
            self._last = time.monotonic()
        return Played(self.address, self.label, outcome, conducts(bots, spec.seats))

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
