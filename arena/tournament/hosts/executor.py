"""The organizer's side of the core hosts: one arena process a core, each started, handed games
one at a time, judged and stopped here (see the package's note)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from arena.errors import MachineError
from arena.server.botlog import LogLine
from arena.server.lobby import Bot
from arena.server.session import Session
from arena.tournament.config import TournamentConfig
from arena.tournament.executor import OnThisMachine
from arena.tournament.hosts.wire import (
    Close,
    Closed,
    Failed,
    Play,
    Played,
    Ready,
    Setup,
    WireError,
    receive,
    send,
)
from arena.tournament.judging import conducts, judge
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.store import LOGS, WORK

OPEN_TIMEOUT = 120.0
"""Seconds a host has to open its session (a sandbox probe, on a loaded machine) and say so."""
CLOSE_TIMEOUT = 30.0
"""Seconds a host has to stop its bots and exit once told to, before it is killed."""
STDERR_TAIL = 2000
"""Bytes of a host's stderr quoted when it dies unasked."""


class HostError(MachineError):
    """A core's arena process failed: it did not start, a game raised there, or it died; the
    games stored so far are kept."""


def wanted(session: Session, config: TournamentConfig) -> int:
    """How many core hosts the run's games are played on: one a core of fair mode's, as many as
    games are played at once; 0 (all in this process) where fewer than two games are played at
    once, in shared mode, where bots connect to this process's own server (one started by
    hand, or `--listen`: the session has an address), or where the organizer said
    `--no-core-processes`."""
    if not (config.core_processes and session.cpu.fair) or session.address:
        return 0
    count = min(config.concurrency, len(session.cpu.cores))
    return count if count >= 2 else 0


def pick(pending: Sequence[GameSpec], host: int, hosts: int) -> int:
    """Which pending game (an index) host number `host` of `hosts` plays next: the first of the
    seat rotations it keeps (those equal to it modulo `hosts`), so that a bot's process for a
    rotation is started on one host only; else the first, so that no host idles while games
    wait. Each host follows the schedule's order among its own."""
    for index, spec in enumerate(pending):
        if spec.rotation % hosts == host:
            return index
    return 0


class _Host:
    """One core's arena process, and the socket to it."""

    def __init__(self, core: int, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.core = core
        self.process = process
        self.stderr = stderr
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lines: tuple[LogLine, ...] = ()
        """What its bots wrote as it stopped them (their exits), once it has."""

    @classmethod
    async def start(cls, core: int, setup: Setup, folder: Path) -> _Host:
        """Start the host of `core` and wait until its session is open."""
        mine, theirs = socket.socketpair()
        stderr = folder / f"_host-{core}.log"  # no bot's name starts with "_": not a bot's folder
        try:
            with stderr.open("wb") as errors:
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "arena.tournament.hosts.host",
                    str(theirs.fileno()),
                    str(core),
                    str(os.getpid()),
                    pass_fds=(theirs.fileno(),),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=errors,
                    start_new_session=True,  # the terminal's Ctrl-C is the organizer's to handle
                )
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()
        host = cls(core, process, stderr)
        try:
            host.reader, host.writer = await asyncio.open_connection(sock=mine)
            await send(host.writer, setup)
            ready = await asyncio.wait_for(host._answer(), OPEN_TIMEOUT)
        except TimeoutError:
            await host.close()
            raise HostError(
                f"the arena process of core {core} did not open its session within "
                f"{OPEN_TIMEOUT:.0f} s: is the machine overloaded?"
            ) from None
        except BaseException:
            await host.close()
            raise
        if not isinstance(ready, Ready):
            await host.close()
            raise HostError(f"the arena process of core {core} did not start: {host._why(ready)}")
        return host

    async def play(self, spec: GameSpec, bots: Mapping[str, Bot]) -> Played:
        """Play one game there, under the organizer's record of its bots."""
        assert self.writer is not None
        with contextlib.suppress(OSError):  # it died: said by the answer that does not come
            await send(self.writer, Play(spec, conducts(bots, spec.seats)))
        answer = await self._answer()
        if isinstance(answer, Played):
            return answer
        if answer is None:  # it died: how, once it is reaped
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), CLOSE_TIMEOUT)
        raise HostError(
            f"game {spec.game_id} failed in the arena process of core {self.core}: "
            f"{self._why(answer)}; the games stored are kept: run the same command again to "
            "carry on"
        )

    async def _answer(self) -> object | None:
        assert self.reader is not None
        try:
            return await receive(self.reader)
        except (WireError, OSError) as error:
            return Failed(f"its answer could not be read ({error})")

    def _why(self, answer: object | None) -> str:
        if isinstance(answer, Failed):
            return answer.why
        if answer is None:
            code = self.process.returncode
            status = "" if code is None else f" ({_status(code)})"
            return f"it ended unasked{status}{_tail(self.stderr)}"
        return f"it sent a {type(answer).__name__}"

    async def close(self) -> None:
        """Tell it to stop its bots (`Close`), keep what they wrote as they stopped (`lines`),
        and wait for it to exit; kill it if it has not within `CLOSE_TIMEOUT`."""
        if self.writer is not None:
            with contextlib.suppress(OSError, TimeoutError):
                await send(self.writer, Close())
                await asyncio.wait_for(self._closed(), CLOSE_TIMEOUT)
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        try:
            await asyncio.wait_for(asyncio.shield(self.process.wait()), CLOSE_TIMEOUT)
        except TimeoutError:
            self._kill()
            await self.process.wait()
        except asyncio.CancelledError:
            self._kill()
            await self.process.wait()
            raise

    async def _closed(self) -> None:
        """Wait for `Closed` (past the answer to a game the run stopped waiting for)."""
        while (answer := await self._answer()) is not None and not isinstance(answer, Failed):
            if isinstance(answer, Closed):
                self.lines = answer.lines
                return

    def _kill(self) -> None:
        """SIGKILL it, by its pid (its bots die with it: `--die-with-parent`, and what is left
        frozen in its cgroups the next run's arena kills: `cgroups._remove_stale`)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()


def _status(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


def _tail(path: Path) -> str:
    try:
        text = path.read_bytes()[-STDERR_TAIL:].decode(errors="replace")
    except OSError:
        return ""
    lines = [line for line in text.splitlines() if line.strip()]
    return f"; its last words: {lines[-1].strip()}" if lines else ""


class HostsExecutor(OnThisMachine):
    """Plays game jobs on the core hosts, one game a host at a time, yielding each outcome as it
    ends, judged by the organizer's referees (this process's session's bots); the run's bots are
    recorded as that session runs them, on all of the run's cores."""

    def __init__(self, session: Session, hosts: Sequence[_Host]) -> None:
        super().__init__(session)
        self._hosts = tuple(hosts)

    async def run(self, jobs: Sequence[GameSpec]) -> AsyncIterator[GameOutcome]:
        """Play every job, each host taking its next as it finishes one (`pick`); closing the
        iterator early leaves the games running there to `open_hosts`, which stops them."""
        pending = list(jobs)
        running: dict[asyncio.Task[Played], int] = {}
        idle = list(range(len(self._hosts)))
        count = len(self._hosts)
        try:
            while True:
                while idle and pending:
                    index = idle.pop(0)
                    spec = pending.pop(pick(pending, index, count))
                    task = asyncio.ensure_future(self._hosts[index].play(spec, self.bots))
                    running[task] = index
                if not running:
                    return
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=running.__getitem__):
                    idle.append(running.pop(task))
                    played = task.result()
                    outcome, there, sent = played.outcome, played.conduct, played.sent
                    yield judge(self.bots, outcome, there, sent, shared_logs=True)
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)


@asynccontextmanager
async def open_hosts(
    session: Session, config: TournamentConfig, count: int
) -> AsyncIterator[HostsExecutor]:
    """Start a host on each of the first `count` cores of the session's plan, all at once; stop
    them all on leaving (each its bots first), whatever happens."""
    folder = config.output / WORK
    folder.mkdir(parents=True, exist_ok=True)
    bots, options, logs = tuple(config.bots), config.bot_options(), config.output / LOGS
    async with AsyncExitStack() as stack:
        starting = [
            asyncio.ensure_future(
                _Host.start(core, Setup(core, bots, options, logs, folder), folder)
            )
            for core in session.cpu.cores[:count]
        ]
        try:
            hosts = list(await asyncio.gather(*starting))
        except BaseException:
            for task in starting:
                task.cancel()
            started = await asyncio.gather(*starting, return_exceptions=True)
            for host in started:
                if isinstance(host, _Host):
                    with contextlib.suppress(Exception):
                        await host.close()
            raise
        stack.push_async_callback(_close, hosts, session)
        yield HostsExecutor(session, hosts)


async def _close(hosts: Sequence[_Host], session: Session) -> None:
    """Stop the hosts, all at once (each stops its bots, with their grace); what their bots wrote
    as they stopped joins this session's bots' lines, which the run stores after its last game."""
    try:
        await asyncio.gather(*(host.close() for host in hosts))
    finally:
        for host in hosts:
            for line in host.lines:
                bot = session.lobby.bots.get(line.bot)
                if bot is not None:
                    bot.lines.keep_loose([line])
