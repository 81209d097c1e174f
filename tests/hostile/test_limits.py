"""Resource limits reach the bot's own program, set before it runs."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from arena.server.isolation.process import BotProcess, Limits

pytestmark = pytest.mark.integration


def run(tmp_path: Path, code: str, limits: Limits) -> tuple[int, str]:
    """Run a Python snippet as a bot process under `limits`; its status and its log."""

    async def scenario() -> int:
        log = tmp_path / "bot.log"
        process = await BotProcess.start(
            [sys.executable, "-c", code], {}, tmp_path, log, 1 << 20, limits
        )
        try:
            return await asyncio.wait_for(process.wait(), 60)
        finally:
            await process.stop()

    status = asyncio.run(scenario())
    return status, (tmp_path / "bot.log").read_text()


def test_memory_beyond_the_limit_cannot_be_had(tmp_path: Path) -> None:
    status, log = run(tmp_path, "x = bytearray(300 << 20)", Limits(memory_bytes=128 << 20))
    assert status == 1 and "MemoryError" in log


def test_the_same_program_runs_without_the_limit(tmp_path: Path) -> None:
    assert run(tmp_path, "x = bytearray(300 << 20)", Limits()) == (0, "")


def test_cpu_time_beyond_the_limit_is_ended_by_the_kernel(tmp_path: Path) -> None:
    status, _ = run(tmp_path, "while True: pass", Limits(cpu_seconds=1))
    assert status in (-signal.SIGXCPU, -signal.SIGKILL)


def test_the_limits_are_the_program_s_own(tmp_path: Path) -> None:
    code = "import resource; print(resource.getrlimit(resource.RLIMIT_DATA))"
    _, log = run(tmp_path, code, Limits(memory_bytes=256 << 20))
    assert log.strip() == f"({256 << 20}, {256 << 20})"
