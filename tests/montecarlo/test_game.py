"""The bot as a real process: a short game over gRPC, flags read, deadline seen, no fault."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from arena.players import GameResult
from arena.rules import Settings
from arena.server.options import BotOptions
from arena.server.session import open_session
from tests.montecarlo.bot import PATH
from tests.server.helpers import program, sample

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

OPTIONS = BotOptions(deadline=5.0, first_deadline=10.0)
"""Generous deadlines, as in the other process tests: this game must not fault on a loaded
machine. The bot's own --think keeps it quick."""


def test_a_game_with_the_bot_process_has_no_fault_and_thinks_as_told(logs: Path) -> None:
    bots = [
        program("montecarlo", PATH, "--think", "0.02", "--seed", "3", "--timing"),
        sample("heuristic"),
        sample("random"),
        sample("lowest"),
    ]
    names = [bot.name for bot in bots]

    async def remote() -> GameResult:
        async with open_session(bots, logs, OPTIONS) as session:
            return await session.play("mc", Settings(4, max_rounds=2), names, seed=9)

    result = asyncio.run(remote())
    assert result.faults == ()
    lines = re.findall(
        r"decision=(\w+) turn=(\d+) budget=(\S+) used=\S+ deals=(\d+) left=(\S+)",
        (logs / "montecarlo.log").read_text(),
    )
    assert len(lines) >= 20  # every decision of two rounds, rows included
    for decision, turn, budget, deals, left in lines:
        assert float(budget) == 0.02  # --think, well inside the deadline
        assert int(deals) > 0 or (decision, turn) == ("card", "9")  # the last card: no choice
        # The request's deadline reached the bot: finite, at most the first deadline. That the
        # bot answered within it is what `faults == ()` says, as the arena saw it.
        assert float(left) <= OPTIONS.first_deadline
