"""Bot processes: launch a command in its own process group, capture its output, stop it whole.

A bot is untrusted code: it gets a clean environment (only its address and token), its own
working folder, resource limits, and a log that cannot grow past its cap (opened without
following symlinks, so a bot cannot turn it into a way to write elsewhere). Where the machine
allows, it also runs sealed in a sandbox (`sandbox.py`) and in a cgroup of its own
(`cgroups.py`); stopping it then kills everything in its cgroup, so nothing it started outlives
it, whatever it did to its environment, session or process group. Without a cgroup, stopping it
signals its process group, and children that left it are found through the arena as their
subreaper, by the token in their environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import stat
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.isolation import rlimit
from arena.server.isolation.cgroups import BotCgroup, CgroupLimits, RunCgroups
from arena.server.isolation.orphans import adopt_orphans, kill_escaped, reap_adopted_soon
from arena.server.isolation.sandbox import Sandbox, Seal
from arena.server.options import PIDS

_KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT", "NODE_PATH")
"""What a bot inherits of the arena's environment: enough to find its interpreter, no secrets."""
_POLL = 0.05
"""Seconds between looks at whether a bot process has exited."""
OPEN_FILES = 1024
"""Files a bot process may hold open (RLIMIT_NOFILE): enough for any bot, and a bound on the
connections it can open to the arena."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits applied to a bot process before its command runs."""

    memory_bytes: int | None = None
    """Memory limit (RLIMIT_DATA: heap and private mappings); past it allocations fail. None for
    none. Not RLIMIT_AS: runtimes such as Node.js reserve far more address space than they use.
    In a cgroup, the same number also caps everything the bot and its children hold together."""
    cpu_seconds: int | None = None
    """CPU-time limit (RLIMIT_CPU); the kernel kills the bot past it. None for none."""
    open_files: int | None = OPEN_FILES
    """Open files per process (RLIMIT_NOFILE). None to keep the arena's."""
    pids: int | None = PIDS
    """Processes at once in the bot's cgroup, where it has one. None for no limit."""

    def wrap(self, argv: Sequence[str], cgroup: BotCgroup | None = None) -> list[str]:
        """`argv` behind the step that enters the bot's cgroup, sets these limits and then
        becomes the program."""
        settings = [
            f"{name}={value}"
            for name, value in (
                ("data", self.memory_bytes),
                ("cpu", self.cpu_seconds),
                ("nofile", self.open_files),
            )
            if value is not None
        ]
        if cgroup is not None:
            settings += [f"cgroup={directory}" for directory in cgroup.directories]
        if not settings:
            return list(argv)
        return rlimit.command(settings, argv)

    def cgroup_limits(self) -> CgroupLimits:
        """What the bot's cgroup holds it and its children to, together."""
        return CgroupLimits(self.memory_bytes, self.pids)


def raise_open_files_limit() -> int:
    """Raise this process's own soft limit on open files to its hard limit, so that the arena
    (one connection, one log and a pipe per bot process) runs out of descriptors last; the new
    soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


def open_log(path: Path) -> BinaryIO:
    """`path` opened to append, created private if missing; never through a symlink, and only
    if it is a regular file (OSError otherwise), so that whoever could write the logs folder
    cannot make the arena write anywhere else or block on a FIFO."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    descriptor = os.open(path, flags, 0o600)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(f"{path} is not a regular file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "ab")


def write_note(path: Path, text: str) -> bool:
    """Append `text` to a log (see `open_log`); False when it cannot be written."""
    try:
        with open_log(path) as log:
            log.write(text.encode())
    except OSError:
        return False
    return True


ARENA_BIN = os.path.dirname(sys.executable)
"""The folder of the arena's own Python (its virtualenv's `bin`), first on every bot's PATH."""


def bot_environment(address: str, token: str, extra: Mapping[str, str] = {}) -> dict[str, str]:
    """The whole environment of a bot: a few harmless variables, its address and its token.

    PATH is the arena's with the folder of the arena's own Python first, so that `python3`,
    `python` and `#!/usr/bin/env python3` in a bot's command run the Python that has the SDK.
    """
    env = {name: os.environ[name] for name in _KEPT_VARIABLES if name in os.environ}
    rest = [d for d in env.get("PATH", os.defpath).split(os.pathsep) if d and d != ARENA_BIN]
    env["PATH"] = os.pathsep.join([ARENA_BIN, *rest])
    env.update(extra)
    env[ADDRESS_VARIABLE] = address
    env[TOKEN_VARIABLE] = token
    return env


class BotProcess:
    """One running bot program and its capped log."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        pump: asyncio.Task[None],
        token: str,
        cgroup: BotCgroup | None = None,
        cgroups: RunCgroups | None = None,
    ) -> None:
        self._process = process
        self._pump = pump
        self._mark = f"{TOKEN_VARIABLE}={token}" if token else ""
        """The environment entry every process of the bot inherits (`kill_escaped`)."""
        self._cgroup = cgroup
        self._cgroups = cgroups
        self._exited = asyncio.Event()
        self.out_of_memory = False
        """Whether it was killed at its cgroup's memory limit (known once it has exited)."""
        self._ended = asyncio.create_task(self._end())

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        log_path: Path,
        log_cap: int,
        limits: Limits = Limits(),
        *,
        sandbox: Sandbox | None = None,
        seal: Seal | None = None,
        cgroups: RunCgroups | None = None,
        on_output: Callable[[bytes], None] | None = None,
        cpus: str | None = None,
    ) -> BotProcess:
        """Launch `argv` in a new session (its own process group), output into `log_path`
        (and to `on_output`, piece by piece as the log keeps it).

        With a `sandbox`, the program runs sealed as `seal` says (`cwd` is then ignored: the
        seal names its folder). With `cgroups`, it runs in a new cgroup of its own, entered
        before its first instruction, and pinned to the cores `cpus` (a cpuset list) if given.
        Raises OSError when the command cannot be started (not found, not executable, no cgroup
        to be had). Cancelled, it stops whatever it started before it propagates (`_abandon`).
        """
        adopt_orphans()
        cgroup = cgroups.child(limits.cgroup_limits()) if cgroups is not None else None
        if cgroup is not None and cpus is not None:
            with contextlib.suppress(OSError):  # unpinned, it only loses its fairness
                cgroup.pin(cpus)
        command = list(argv)
        if sandbox is not None:
            assert seal is not None, "a sealed process needs its seal"
            command = sandbox.wrap(command, seal)
            env = sandbox.environment(dict(env))
            cwd = Path("/")  # the sandbox's own folder is set inside it
        spawning = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *limits.wrap(command, cgroup),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
            )
        )
        token = env.get(TOKEN_VARIABLE, "")
        try:
            process = await asyncio.shield(spawning)  # see `_abandon`
        except asyncio.CancelledError:
            abandon = cls._abandon(spawning, log_path, log_cap, token, cgroup, cgroups)
            await _to_its_end(abandon)
            raise
        except BaseException:
            _drop(cgroup, cgroups)
            raise
        return cls._adopt(process, log_path, log_cap, on_output, token, cgroup, cgroups)

    @classmethod
    def _adopt(
        cls,
        process: asyncio.subprocess.Process,
        log_path: Path,
        log_cap: int,
        on_output: Callable[[bytes], None] | None,
        token: str,
        cgroup: BotCgroup | None,
        cgroups: RunCgroups | None,
    ) -> BotProcess:
        """The started `process`, its output pumped into its log."""
        assert process.stdout is not None
        pump = asyncio.create_task(_copy_capped(process.stdout, log_path, log_cap, on_output))
        return cls(process, pump, token, cgroup, cgroups)

    @classmethod
    async def _abandon(
        cls,
        spawning: asyncio.Future[asyncio.subprocess.Process],
        log_path: Path,
        log_cap: int,
        token: str,
        cgroup: BotCgroup | None,
        cgroups: RunCgroups | None,
    ) -> None:
        """A launch cancelled midway: let asyncio finish starting the process (it has forked
        already; connecting its pipe takes a turn or two of the loop), then stop it whole, at
        once.

        Never asyncio's own clean-up: cancelled while it connects the pipe, Python 3.11's
        `create_subprocess_exec` kills the direct child alone, then waits until the pipe is
        closed as well. A sealed bot's direct child is bwrap's outer half, and the sandbox's
        first process and the bot can outlive it (a kill before bwrap has armed
        --die-with-parent): they held the pipe open, and the launch, and the tournament being
        stopped with it, waited forever; cancelled again, it left them running, their cgroup
        forgotten, and the first process a zombie once they died. Here the process is stopped
        as any bot is: thawed, its group and cgroup killed, what it orphaned reaped, its output
        drained."""
        try:
            process = await spawning
        except Exception:  # it never started (OSError): nothing to stop
            _drop(cgroup, cgroups)
            return
        await cls._adopt(process, log_path, log_cap, None, token, cgroup, cgroups).stop(grace=0)

    @property
    def cgroup(self) -> BotCgroup | None:
        """Its cgroup, where it has one (`fairness.Pacer` pins, freezes and meters it)."""
        return self._cgroup

    @property
    def pid(self) -> int:
        """The process id, which is also its process group id."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """None while it runs; its exit status (negative: killed by that signal) after."""
        return self._process.returncode

    def exit_line(self, status: int) -> str:
        """How it ended, for its log and its faults: `exited with status 137`, and why when
        the kernel killed it at its memory limit (a bare 137 says nothing of memory)."""
        line = f"exited with status {status}"
        if self.out_of_memory:
            line += " (killed at its memory limit: it needs more than --memory-mb gives)"
        return line

    async def wait(self) -> int:
        """Wait for the program itself to exit (not for children it left); its exit status."""
        await self._exited.wait()
        status = self._process.returncode
        assert status is not None
        return status

    async def stop(self, patience: float = 0.0, grace: float = 2.0) -> None:
        """Stop the whole process group and wait until its output is drained.

        The program may first exit by itself for `patience` seconds (its stream is closed and
        it should be on its way out); then SIGTERM, and SIGKILL after `grace` seconds. Whatever
        is left in its group is killed as soon as the program exits, whether stopped or not.
        """
        if self._cgroup is not None:  # a bot frozen between decisions could not even exit
            with contextlib.suppress(OSError):
                self._cgroup.thaw()
        if self._process.returncode is None and patience > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._ended), patience)
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if self._process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, sig)
            if self._cgroup is not None:  # the bot itself, wherever its sandbox put it
                if sig == signal.SIGKILL:
                    await self._cgroup.kill()
                else:
                    self._cgroup.signal(sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._ended), wait)
        if self._process.returncode is not None:  # else it is stuck beyond even SIGKILL
            await asyncio.shield(self._ended)

    async def _end(self) -> None:
        """When the program exits, kill what is left of its group and drain its output."""
        # Polled: asyncio's `Process.wait` (Python 3.11) also waits until the output pipe is
        # closed, and a child the bot left behind may hold it open for as long as it lives.
        while self._process.returncode is None:
            await asyncio.sleep(_POLL)
        if self._cgroup is not None:  # before the cgroup and its counts are gone
            self.out_of_memory = self._cgroup.out_of_memory()
        self._exited.set()
        # At once: children that outlived the bot still sit in its group, and the group id is
        # certain to be the bot's only now, before the system may hand the number out again.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        left: set[int] = set()
        if self._cgroup is not None:  # everything it started, whatever it did
            left = self._cgroup.members()
            await self._cgroup.kill()
            self._cgroup.remove()
            if self._cgroups is not None:
                self._cgroups.forget(self._cgroup)
        else:
            kill_escaped(self._mark)
            await asyncio.sleep(_POLL)  # a grandchild is orphaned only once its parent has died
            kill_escaped(self._mark)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pump, 5.0)
            await asyncio.wait_for(self._process.wait(), 5.0)  # let asyncio finish with it
        await reap_adopted_soon(self._process.pid, left)


def _drop(cgroup: BotCgroup | None, cgroups: RunCgroups | None) -> None:
    """Remove the cgroup of a process that never started."""
    if cgroup is not None and cgroups is not None:
        cgroup.remove()
        cgroups.forget(cgroup)


async def _to_its_end(work: Coroutine[Any, Any, None]) -> None:
    """Run `work` to its end, however often the caller is cancelled meanwhile: the clean-up of
    a cancelled launch, which must not be cut short in turn (the caller raises the
    cancellation once it is done). Bounded by `work` (`BotProcess.stop`: seconds)."""
    task = asyncio.ensure_future(work)
    while not task.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)
    task.result()


async def _copy_capped(
    stream: asyncio.StreamReader,
    path: Path,
    cap: int,
    on_output: Callable[[bytes], None] | None = None,
) -> None:
    """Copy a bot's output into its log until the log holds `cap` bytes, then keep draining it
    unwritten; `on_output` is told each piece the log keeps, as it is written. The cap is for
    the log, not for one run: a bot restarted after a crash appends to what its earlier runs
    wrote. A log that cannot be opened (see `open_log`) is drained
    unwritten from the start."""
    try:
        log = open_log(path)
    except OSError:
        while await stream.read(65536):
            pass
        return
    with log:
        while chunk := await stream.read(65536):
            # The size on disk, not a count of our own: several instances of a bot share its
            # log. No await between measuring and writing, so no other writer slips in.
            written = os.fstat(log.fileno()).st_size
            if written < cap:
                piece = chunk[: cap - written]
                if written + len(piece) >= cap:
                    piece += f"\n[arena: log capped at {cap} bytes]\n".encode()
                log.write(piece)
                log.flush()
                if on_output is not None:
                    on_output(piece)
