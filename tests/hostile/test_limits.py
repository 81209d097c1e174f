"""Resource limits reach the bot's own program, set before it runs."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.isolation.cgroups import BotCgroup
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
    code = (
        "import resource as r; "
        "print([r.getrlimit(k) for k in (r.RLIMIT_DATA, r.RLIMIT_CPU, r.RLIMIT_NOFILE)])"
    )
    _, log = run(tmp_path, code, Limits(memory_bytes=256 << 20, cpu_seconds=50, open_files=99))
    assert log.strip() == str([(256 << 20, 256 << 20), (50, 50), (99, 99)])


def test_a_cgroup_the_launch_step_cannot_join_ends_it_before_the_program_runs(
    tmp_path: Path,
) -> None:
    """The step fails closed: a bot never runs outside its cgroup."""
    missing = BotCgroup((tmp_path / "no-such-cgroup",), version=2)
    argv = Limits().wrap([sys.executable, "-c", "print('it ran')"], missing)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert f"arena: cannot enter the cgroup {tmp_path / 'no-such-cgroup'}" in done.stderr
