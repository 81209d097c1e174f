"""An SDK bot runs as written: `python3 bot.py`, `python bot.py`, `bot.py` and `./bot.py` (with
`#!/usr/bin/env python3`) all run the arena's own Python, the one that has `arena.sdk`, since a
bot's PATH puts that Python's folder first."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.server.checkbot import check_options
from arena.server.checkbot.checks import check_bot
from arena.server.specs import parse_command

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

BOT = """#!/usr/bin/env python3
from arena.sdk import Bot, View, run


class Lowest(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[0]


if __name__ == "__main__":
    run(Lowest(), name="lowest")
"""


@pytest.mark.parametrize("command", ["python3 bot.py", "python bot.py", "bot.py", "./bot.py"])
def test_an_sdk_bot_passes_check_bot_however_it_is_started(
    tmp_path: Path, logs: Path, command: str
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    bot.chmod(0o755)
    spec = parse_command("", command, base=tmp_path)
    assert spec.name == "bot"
    options = check_options(deadline=5.0, startup_timeout=30.0)
    results = asyncio.run(check_bot(spec, logs, options))
    assert all(result.passed for result in results), [r for r in results if not r.passed]
