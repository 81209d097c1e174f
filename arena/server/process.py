"""Bot processes: launch a command in its own process group, capture its output, stop it whole.

A bot is untrusted code: it gets a clean environment (only its address and token), its own
working folder, optional resource limits, and a log that cannot grow past its cap. Stopping it
signals the whole process group, so children it started go too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.procfs import environment, processes

_KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT", "NODE_PATH")
"""What a bot inherits of the arena's environment: enough to find its interpreter, no secrets."""
_POLL = 0.05
"""Seconds between looks at whether a bot process has exited."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits applied to a bot process before its command runs."""

    memory_bytes: int | None = None
    """Memory limit (RLIMIT_DATA: heap and private mappings); past it allocations fail. None for
    none. Not RLIMIT_AS: runtimes such as Node.js reserve far more address space than they use."""
    cpu_seconds: int | None = None
    """CPU-time limit (RLIMIT_CPU); the kernel kills the bot past it. None for none."""

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """`argv` behind the step that sets these limits and then becomes the program."""
        limits = [
            f"{name}={value}"
            for name, value in (("data", self.memory_bytes), ("cpu", self.cpu_seconds))
            if value is not None
        ]
        if not limits:
            return list(argv)
        return [sys.executable, "-m", "arena.server.rlimit", *limits, "--", *argv]


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
        self, process: asyncio.subprocess.Process, pump: asyncio.Task[None], token: str
    ) -> None:
        self._process = process
        self._pump = pump
        self._token = token
        self._exited = asyncio.Event()
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
        on_output: Callable[[bytes], None] | None = None,
    ) -> BotProcess:
        """Launch `argv` in a new session (its own process group), output into `log_path`
        (and to `on_output`, piece by piece as the log keeps it).

        Raises OSError when the command cannot be started (not found, not executable).
        """
        _adopt_orphans()
        process = await asyncio.create_subprocess_exec(
            *limits.wrap(argv),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
        assert process.stdout is not None
        pump = asyncio.create_task(_copy_capped(process.stdout, log_path, log_cap, on_output))
        return cls(process, pump, env.get(TOKEN_VARIABLE, ""))

    @property
    def pid(self) -> int:
        """The process id, which is also its process group id."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """None while it runs; its exit status (negative: killed by that signal) after."""
        return self._process.returncode

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
        if self._process.returncode is None and patience > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._ended), patience)
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if self._process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, sig)
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
        self._exited.set()
        # At once: children that outlived the bot still sit in its group, and the group id is
        # certain to be the bot's only now, before the system may hand the number out again.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        kill_escaped(self._token)
        await asyncio.sleep(_POLL)  # a grandchild is orphaned only once its parent has died
        kill_escaped(self._token)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pump, 5.0)
            await asyncio.wait_for(self._process.wait(), 5.0)  # let asyncio finish with it


_PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> None:
    """Make this process the subreaper of its descendants (Linux): a bot's child that leaves
    the bot's process group (setsid) and is orphaned becomes our child, not init's, so
    `kill_escaped` can still find and stop it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def kill_escaped(token: str) -> None:
    """Kill and reap our children that carry this bot's token: processes the bot started that
    escaped its process group and were orphaned to us. The token in their environment (which a
    bot's children inherit) tells them from any other child of the arena."""
    if not token:
        return
    mark = f"{TOKEN_VARIABLE}={token}".encode()
    me = os.getpid()
    for child in processes():
        if child.ppid != me or mark not in environment(child.pid):
            continue
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to reap
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)


async def _copy_capped(
    stream: asyncio.StreamReader,
    path: Path,
    cap: int,
    on_output: Callable[[bytes], None] | None = None,
) -> None:
    """Copy a bot's output into its log until the log holds `cap` bytes, then keep draining it
    unwritten; `on_output` is told each piece the log keeps, as it is written. The cap is for
    the log, not for one run: a bot restarted after a crash appends to what its earlier runs
    wrote."""
    with path.open("ab") as log:
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
