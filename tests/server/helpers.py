"""Where the bots are, how to play them in-process, and checks that none outlived its test."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from arena.players import GameResult, LocalPlayer, Strategy, play_game
from arena.rules import Settings, View
from arena.sdk import Bot
from arena.server.isolation.procfs import processes
from arena.server.lobby import BotSpec, Lobby

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots" / "python"
"""The sample bots shipped with the arena."""
TEST_BOTS = ROOT / "tests" / "bots"
"""The purpose-built misbehaving bots."""


def program(name: str, path: Path, *args: str) -> BotSpec:
    """A bot program run by this test run's Python, as the CLI starts a `.py` bot."""
    return BotSpec(name, (sys.executable, str(path), *args))


def sample(name: str) -> BotSpec:
    """A sample bot by its short name (`random`, `heuristic`, `lowest`, `highest`)."""
    return program(name, SAMPLE_BOTS / f"{name}_bot.py")


def misbehaving(name: str, *args: str) -> BotSpec:
    """A bot from tests/bots/<name>.py."""
    return program(name, TEST_BOTS / f"{name}.py", *args)


class InProcess(Strategy):
    """An SDK bot with plain (not async) methods, played in-process as a strategy."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose_card(self, view: View) -> int:
        return _plain(self.bot.choose_card(view))

    def choose_row(self, view: View) -> int:
        return _plain(self.bot.choose_row(view))

    def choose_draft(self, view: View) -> int:
        return _plain(self.bot.choose_draft(view))


def _plain(choice: int | Awaitable[int]) -> int:
    assert isinstance(choice, int), "an async bot cannot be played as a strategy"
    return choice


def load_strategy(path: Path, class_name: str) -> Strategy:
    """The bot class a bot program defines, loaded from its file, to play it in-process."""
    spec = importlib.util.spec_from_file_location(f"_bot_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bot = getattr(module, class_name)()
    assert isinstance(bot, Bot)
    return InProcess(bot)


class Scripted(Strategy):
    """An in-process stand-in for a misbehaving bot: what the record shows it (or its fallback)
    playing, as a function of the view."""

    def __init__(self, card: Callable[[View], int]) -> None:
        self._card = card

    def choose_card(self, view: View) -> int:
        return self._card(view)


def play_locally(
    settings: Settings, strategies: Sequence[Strategy], seed: int, rotation: int = 0
) -> GameResult:
    """The same game in-process: the same deal from the same seed, the strategies as players."""
    players = [LocalPlayer(strategy) for strategy in strategies]
    return asyncio.run(play_game(settings, players, random.Random(seed), rotation))


def started_groups(lobby: Lobby) -> list[int]:
    """The process group of every bot process the lobby started, live or not."""
    return [process.pid for process in lobby.processes]


def live_members(pgid: int) -> list[int]:
    """The processes of group `pgid` that still run (zombies are dead already)."""
    return [p.pid for p in processes() if p.pgrp == pgid and p.alive]


WAITS = 500


def assert_stopped(pgids: Sequence[int]) -> None:
    """Every process group the arena started is gone: no bot, and no child of one, runs on.

    A process the arena killed may take a moment to finish dying (SIGKILL is delivered, not
    awaited): wait for that outcome, up to 10 s, rather than for any fixed time.
    """
    assert pgids, "no bot process was started"
    assert os.getpgrp() not in pgids
    for _ in range(WAITS):
        left = {pgid: members for pgid in pgids if (members := live_members(pgid))}
        if not left:
            return
        time.sleep(0.02)
    raise AssertionError(f"process groups still run: {left}")
