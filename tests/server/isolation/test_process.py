"""Bot processes on their own: a clean environment, a capped log, and a stop that takes the whole
process group, children that ignore SIGTERM included."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.isolation.process import BotProcess, bot_environment
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
