"""Bot processes on their own: a clean environment, a capped log, and a stop that takes the whole
process group, children that ignore SIGTERM included."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.isolation.cgroups import KEEPER, CgroupError, RunCgroups
from arena.server.isolation.process import BotProcess, bot_environment
from arena.server.isolation.procfs import process
from tests.server.helpers import assert_stopped, live_members

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]


async def started(script: str, logs: Path, cap: int = 1 << 20) -> BotProcess:
    env = bot_environment("127.0.0.1:1", "secret-token")
    return await BotProcess.start((sys.executable, "-c", script), env, logs, logs / "bot.log", cap)


def test_a_bot_sees_only_its_address_its_token_and_a_few_harmless_variables(
    logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "do not leak")
    script = "import os, json; print(json.dumps(dict(os.environ)))"

    async def scenario() -> int:
        process = await started(script, logs)
        try:
            return await process.wait()
        finally:
            await process.stop()

    assert asyncio.run(scenario()) == 0
    seen = (logs / "bot.log").read_text()
    assert "do not leak" not in seen
    assert f'"{ADDRESS_VARIABLE}": "127.0.0.1:1"' in seen
    assert f'"{TOKEN_VARIABLE}": "secret-token"' in seen


def test_the_log_is_capped_across_every_run_of_the_bot(logs: Path) -> None:
    """A bot restarted after each crash must not get a fresh allowance each time."""
    cap = 5_000
    script = "import sys; sys.stdout.write('x' * 20_000)"

    async def scenario() -> None:
        for _ in range(3):
            process = await started(script, logs, cap)
            try:
                await process.wait()
            finally:
                await process.stop()

    asyncio.run(scenario())
    log = (logs / "bot.log").read_bytes()
    marker = f"\n[arena: log capped at {cap} bytes]\n".encode()
    assert log == b"x" * cap + marker


def test_stop_takes_the_whole_group_even_a_child_that_ignores_sigterm(logs: Path) -> None:
    child = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('child ready', flush=True); time.sleep(120)"
    )
    script = (
        "import subprocess, sys, time; "
        f"subprocess.Popen([sys.executable, '-c', {child!r}]); time.sleep(120)"
    )

    async def scenario() -> tuple[int, list[int], int | None]:
        process = await started(script, logs)
        try:
            log = logs / "bot.log"  # the pump creates it, soon after the start
            while not log.exists() or "child ready" not in log.read_text():
                await asyncio.sleep(0.02)
            members = live_members(process.pid)
        finally:
            await process.stop(grace=0.2)
        return process.pid, members, process.returncode

    pgid, members, status = asyncio.run(scenario())
    assert len(members) == 2
    assert status is not None and status < 0  # stopped by a signal
    assert_stopped([pgid])


def test_stopping_twice_is_harmless(logs: Path) -> None:
    async def scenario() -> int | None:
        process = await started("import time; time.sleep(120)", logs)
        await process.stop()
        await process.stop()
        return process.returncode

    assert asyncio.run(scenario()) is not None


HOLDER = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1] + ".tmp", "w") as ready:  # both run, and the child holds our output
    ready.write(f"{os.getpid()} {child.pid}")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""
"""A bot whose child holds its output pipe, as a sealed bot's sandbox does (bwrap's first
process and the bot, beside bwrap's outer half, the process the arena starts)."""
LAUNCH_PATIENCE = 60.0
"""Seconds a cancelled launch may take to stop what it started, on a loaded machine (a bound:
it takes well under one; before the fix it never ended while the child lived)."""


def _wait_for(path: Path) -> str:
    """The contents of `path` once it exists, waited for synchronously (the event loop blocked,
    as a busy arena's is while a bot starts)."""
    give_up = time.monotonic() + LAUNCH_PATIENCE
    while not path.exists():
        assert time.monotonic() < give_up, f"{path} never appeared"
        time.sleep(0.01)
    return path.read_text()


def _bot_cgroups(cgroups: RunCgroups | None) -> list[Path]:
    """The bots' cgroups left in the run's parents (not its keeper, `cgroups.KEEPER`)."""
    parents = cgroups.parents if cgroups is not None else ()
    return [d for p in parents for d in p.iterdir() if d.is_dir() and d.name != KEEPER]


@pytest.mark.parametrize("in_cgroup", [False, True], ids=["group", "cgroup"])
def test_a_launch_cancelled_while_asyncio_connects_its_pipe_ends_and_leaves_nothing(
    logs: Path, monkeypatch: pytest.MonkeyPatch, in_cgroup: bool
) -> None:
    """The hang of a tournament stopped while its bots started: cancelled there, Python 3.11's
    `create_subprocess_exec` killed the direct child alone and waited for its output pipe to
    close, which the child's own child held open for as long as it lived."""
    cgroups = None
    if in_cgroup:
        try:
            cgroups = RunCgroups.create()
        except CgroupError as why:
            pytest.skip(f"no writable cgroups here: {why}")
    ready = logs / "ready"

    async def scenario() -> tuple[bool, list[int], list[Path]]:
        env = bot_environment("127.0.0.1:1", "secret-token")
        argv = (sys.executable, "-c", HOLDER, str(ready))
        start = BotProcess.start(argv, env, logs, logs / "bot.log", 1 << 20, cgroups=cgroups)
        launching = asyncio.create_task(start)
        loop = asyncio.get_running_loop()
        connect = loop.connect_read_pipe

        async def cancelled_first(*args: Any, **kwargs: Any) -> Any:
            _wait_for(ready)  # the process and its child run: asyncio connects their pipe
            launching.cancel()
            return await connect(*args, **kwargs)

        monkeypatch.setattr(loop, "connect_read_pipe", cancelled_first)
        try:
            await asyncio.wait({launching}, timeout=LAUNCH_PATIENCE)
            ended = launching.done() and launching.cancelled()
            pids = [int(pid) for pid in _wait_for(ready).split()]
            return ended, pids, _bot_cgroups(cgroups)
        finally:
            launching.cancel()  # before the fix: let asyncio give up its wait, then clean up
            await asyncio.wait({launching})
            if cgroups is not None:
                await cgroups.close()

    ended, pids, left = asyncio.run(scenario())
    assert ended, "the cancelled launch still waited for its pipe"
    assert [pid for pid in pids if process(pid) is not None] == []  # not even a zombie
    assert left == []  # its cgroup is gone too
