"""What a bot process gets and gives beyond its stream: a PATH whose `python3` is the arena's
own, and its output told piece by piece, exactly as its log keeps it."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from arena.server.isolation.process import ARENA_BIN, BotProcess, bot_environment

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]


def test_the_arena_python_comes_first_on_a_bot_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"/usr/bin:{ARENA_BIN}:/bin")
    path = bot_environment("a", "t")["PATH"].split(os.pathsep)
    assert path == [ARENA_BIN, "/usr/bin", "/bin"]
    assert os.path.dirname(sys.executable) == ARENA_BIN


def test_python3_in_a_bot_command_is_the_arena_python_with_the_sdk(logs: Path) -> None:
    script = "import sys, arena.sdk; print(sys.prefix)"

    async def scenario() -> int:
        env = bot_environment("127.0.0.1:1", "token")
        process = await BotProcess.start(
            ("python3", "-c", script), env, logs, logs / "bot.log", 1 << 20
        )
        try:
            return await process.wait()
        finally:
            await process.stop()

    assert asyncio.run(scenario()) == 0, (logs / "bot.log").read_text()
    assert (logs / "bot.log").read_text().strip() == sys.prefix


def test_on_output_hears_exactly_what_the_log_keeps(logs: Path) -> None:
    cap = 3_000
    script = "import sys\nfor n in range(500): print(f'line {n}', flush=True)"
    heard: list[bytes] = []

    async def scenario() -> None:
        env = bot_environment("127.0.0.1:1", "token")
        process = await BotProcess.start(
            (sys.executable, "-c", script), env, logs, logs / "bot.log", cap, on_output=heard.append
        )
        try:
            await process.wait()
        finally:
            await process.stop()

    asyncio.run(scenario())
    kept = (logs / "bot.log").read_bytes()
    assert b"".join(heard) == kept
    assert kept.startswith(b"line 0\nline 1\n") and kept.endswith(
        b"[arena: log capped at 3000 bytes]\n"
    )
