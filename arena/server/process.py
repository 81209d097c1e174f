"""Bot processes: launch a command in its own process group, capture its output, stop it whole.

A bot is untrusted code: it gets a clean environment (only its address and token), its own
working folder, optional resource limits, and a log that cannot grow past its cap. Stopping it
signals the whole process group, so children it started go too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE

_KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT", "NODE_PATH")
"""What a bot inherits of the arena's environment: enough to find its interpreter, no secrets."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits applied to a bot process before its command runs."""

    memory_bytes: int | None = None
    """Address-space limit (RLIMIT_AS); None for none."""
    cpu_seconds: int | None = None
    """CPU-time limit (RLIMIT_CPU); the kernel kills the bot past it. None for none."""

    def apply(self) -> None:
        """Set the limits on the current process (runs in the child, before exec)."""
        if self.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (self.memory_bytes, self.memory_bytes))
        if self.cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds))


def bot_environment(address: str, token: str, extra: Mapping[str, str] = {}) -> dict[str, str]:
    """The whole environment of a bot: a few harmless variables, its address and its token."""
    env = {name: os.environ[name] for name in _KEPT_VARIABLES if name in os.environ}
    env.update(extra)
    env[ADDRESS_VARIABLE] = address
    env[TOKEN_VARIABLE] = token
    return env


class BotProcess:
    """One running bot program and its capped log."""

    def __init__(self, process: asyncio.subprocess.Process, pump: asyncio.Task[None]) -> None:
        self._process = process
        self._pump = pump

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        log_path: Path,
        log_cap: int,
        limits: Limits = Limits(),
    ) -> BotProcess:
        """Launch `argv` in a new session (its own process group), output into `log_path`.

        Raises OSError when the command cannot be started (not found, not executable).
        """
        preexec: Callable[[], None] | None = limits.apply if limits != Limits() else None
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            preexec_fn=preexec,
        )
        assert process.stdout is not None
        pump = asyncio.create_task(_copy_capped(process.stdout, log_path, log_cap))
        return cls(process, pump)

    @property
    def pid(self) -> int:
        """The process id, which is also its process group id."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """None while it runs; its exit status (negative: killed by that signal) after."""
        return self._process.returncode

    async def wait(self) -> int:
        """Wait for the program to exit."""
        return await self._process.wait()

    async def stop(self, grace: float = 2.0) -> None:
        """Stop the whole process group: SIGTERM, then SIGKILL after `grace` seconds."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, sig)
            try:
                await asyncio.wait_for(self._process.wait(), wait)
                break
            except TimeoutError:
                continue
        # Children that outlived the leader still sit in its group: make sure none survives.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pump, 5.0)


async def _copy_capped(stream: asyncio.StreamReader, path: Path, cap: int) -> None:
    """Copy a bot's output into its log up to `cap` bytes, then keep draining it unwritten."""
    written = 0
    with path.open("ab") as log:
        while chunk := await stream.read(65536):
            if written < cap:
                piece = chunk[: cap - written]
                log.write(piece)
                written += len(piece)
                if written >= cap:
                    log.write(f"\n[arena: log capped at {cap} bytes]\n".encode())
                log.flush()
