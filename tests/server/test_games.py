"""Whole games over gRPC between real bot processes: exactly the games played in-process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import GameResult
from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.rules import Settings, Variant
from arena.server.isolation.fairness import CpuMode
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.session import open_session
from tests.server.helpers import (
    SAMPLE_BOTS,
    assert_stopped,
    load_strategy,
    play_locally,
    sample,
    started_groups,
)

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

CLASSES = {
    "random": "RandomBot",
    "heuristic": "HeuristicBot",
    "lowest": "LowestBot",
    "highest": "HighestBot",
}
OPTIONS = BotOptions(deadline=5.0, first_deadline=10.0)
"""Generous deadlines: these games must not fault even on a loaded machine."""


def local(names: list[str], settings: Settings, seed: int, rotation: int = 0) -> GameResult:
    """The game the sample bots `names` play in-process."""
    strategies = [load_strategy(SAMPLE_BOTS / f"{name}_bot.py", CLASSES[name]) for name in names]
    return play_locally(settings, strategies, seed, rotation)


def test_a_game_over_grpc_is_exactly_the_game_in_process(logs: Path) -> None:
    names = ["random", "heuristic", "lowest", "highest"]
    settings = Settings(players=4)

    async def remote() -> tuple[GameResult, list[int]]:
        async with open_session([sample(name) for name in names], logs, OPTIONS) as session:
            result = await session.play("g7", settings, names, seed=7, rotation=1)
            groups = started_groups(session.lobby)
            assert all(not session.lobby.bots[name].referee.disqualified for name in names)
        return result, groups

    result, groups = asyncio.run(remote())
    expected = local(names, settings, seed=7, rotation=1)
    assert result.faults == ()
    assert result.record == expected.record
    assert result.record.to_json() == expected.record.to_json()
    assert len(result.record.rounds) > 1  # a whole game, not a single round
    assert len(groups) == 4
    assert_stopped(groups)
    for name in names:
        assert (logs / f"{name}.log").is_file()


def test_the_draft_variant_plays_over_grpc_as_in_process(logs: Path) -> None:
    names = ["random", "heuristic", "lowest"]
    settings = Settings(players=3, variant=Variant.PROFESSIONAL_DRAFT, max_rounds=2)

    async def remote() -> GameResult:
        async with open_session([sample(name) for name in names], logs, OPTIONS) as session:
            return await session.play("draft", settings, names, seed=3)

    result = asyncio.run(remote())
    assert result.faults == ()
    assert result.record == local(names, settings, seed=3).record


def test_games_at_several_tables_at_once_each_match_the_game_in_process(logs: Path) -> None:
    names = ["random", "highest"]
    settings = Settings(players=2, max_rounds=2)
    seeds = [11, 12, 13]
    shared = replace(OPTIONS, cpu=CpuMode.SHARED)  # fair CPU plays one game a core at a time

    async def remote() -> tuple[list[GameResult], int]:
        async with open_session([sample(name) for name in names], logs, shared) as session:
            results = await asyncio.gather(
                *(session.play(f"table-{seed}", settings, names, seed) for seed in seeds)
            )
            return list(results), len(session.lobby.processes)

    results, started = asyncio.run(remote())
    for seed, result in zip(seeds, results, strict=True):
        assert result.faults == ()
        assert result.record == local(names, settings, seed).record
    # One copy of a bot plays one game at a time: three tables need three copies of each.
    assert started == 3 * len(names)


def test_a_game_over_a_unix_socket(logs: Path) -> None:
    names = ["lowest", "highest"]
    settings = Settings(players=2, max_rounds=3)
    # A short path: a unix socket's path is limited to about 100 bytes.
    with tempfile.TemporaryDirectory(prefix="arena-", dir="/tmp") as folder:
        address = f"unix:{folder}/arena.sock"

        async def remote() -> tuple[GameResult, str]:
            specs = [sample(name) for name in names]
            async with open_session(specs, logs, OPTIONS, address=address) as session:
                return await session.play("unix", settings, names, seed=5), session.address

        result, bound = asyncio.run(remote())
    assert bound == address
    assert result.faults == ()
    assert result.record == local(names, settings, seed=5).record


@contextmanager
def by_hand(
    address: str, token: str, bot: str = "lowest", extra: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A sample bot started as its author would, with only the address and token it was given
    (and `extra` environment); killed (its whole group) if still running when the block ends."""
    env = {"PATH": os.environ.get("PATH", ""), ADDRESS_VARIABLE: address, TOKEN_VARIABLE: token}
    env.update(extra or {})
    process = subprocess.Popen(
        [sys.executable, str(SAMPLE_BOTS / f"{bot}_bot.py")],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        assert process.stderr is not None
        process.stderr.close()


def test_an_external_bot_started_by_hand_plays_with_the_token_it_was_given(
    logs: Path,
) -> None:
    settings = Settings(players=2, max_rounds=2)
    specs = [BotSpec("by-hand", None), sample("highest")]

    async def remote() -> tuple[GameResult, int, bytes]:
        with ExitStack() as stack:
            async with open_session(specs, logs, OPTIONS) as session:
                token = session.lobby.external_token("by-hand")
                bot = stack.enter_context(by_hand(session.address, token))
                result = await session.play("by-hand", settings, ["by-hand", "highest"], seed=9)
            # The session closed the stream: an SDK bot then exits cleanly by itself.
            status = await asyncio.to_thread(bot.wait, 30)
            assert bot.stderr is not None
            return result, status, bot.stderr.read()

    result, status, errors = asyncio.run(remote())
    assert (status, errors) == (0, b"")
    assert result.faults == ()
    assert result.record == local(["lowest", "highest"], settings, seed=9).record


def test_an_external_bot_restarted_by_its_author_plays_on_with_the_same_token(
    logs: Path,
) -> None:
    settings = Settings(players=2, max_rounds=1)
    specs = [BotSpec("by-hand", None), sample("highest")]
    seats = ["by-hand", "highest"]

    async def remote() -> list[GameResult]:
        async with open_session(specs, logs, OPTIONS) as session:
            token = session.lobby.external_token("by-hand")
            instance = session.lobby.bots["by-hand"].instances[0]
            with by_hand(session.address, token) as first:
                before = await session.play("before", settings, seats, seed=1)
                os.killpg(first.pid, signal.SIGKILL)
            while instance.alive:  # the arena sees the stream break
                await asyncio.sleep(0.02)
            with by_hand(session.address, token, bot="highest"):
                after = await session.play("after", settings, seats, seed=2)
        return [before, after]

    before, after = asyncio.run(remote())
    assert before.faults == () and after.faults == ()
    assert after.record == local(["highest", "highest"], settings, seed=2).record
