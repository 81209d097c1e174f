"""docs/writing-a-bot.md works as written: its minimal bots pass check-bot, and its commands do
what it says they do."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.checkbot import check_options
from arena.server.checkbot.checks import check_bot
from arena.server.specs import parse_command
from tests.anybot.conftest import ROOT

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

GUIDE = (ROOT / "docs" / "writing-a-bot.md").read_text()
FILES = dict(re.findall(r"<!-- file: (\S+) -->\n```\w+\n(.*?)```", GUIDE, re.DOTALL))
"""The guide's minimal bots, by the file name it gives each."""


def passes(command: str, logs: Path) -> None:
    """`arena check-bot -- COMMAND` passes every check."""
    options = check_options(deadline=5.0, startup_timeout=30.0)  # not timed: a busy machine passes
    results = asyncio.run(check_bot(parse_command("", command), logs, options))
    assert all(result.passed for result in results), [r for r in results if not r.passed]


def written(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(FILES[name])
    return path


def test_the_guide_has_a_minimal_bot_in_each_way() -> None:
    assert set(FILES) == {
        "minimal_bot.py",
        "minimal.js",
        "minimal_line_bot.py",
        "bot.cc",
        "main.go",
    }


@pytest.mark.integration
def test_the_minimal_python_bot_passes_check_bot(tmp_path: Path, logs: Path) -> None:
    passes(str(written(tmp_path, "minimal_bot.py")), logs)


@pytest.mark.integration
def test_the_minimal_line_bot_passes_check_bot(tmp_path: Path, logs: Path) -> None:
    passes(f"stdio:python3 {written(tmp_path, 'minimal_line_bot.py')}", logs)


@pytest.mark.integration
def test_the_minimal_javascript_bot_passes_check_bot(
    tmp_path: Path, logs: Path, node_bot: Path
) -> None:
    # As the guide says: a copy of the .proto beside it, and the two packages installed there,
    # in a folder of its own: a sealed bot sees its folder, and nothing beyond it (so a link to
    # the sample bot's packages would lead nowhere), unless the folder holds the arena's logs.
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(ROOT / "proto" / "sixnimmt" / "v1" / "arena.proto", folder)
    shutil.copytree(node_bot.parent / "node_modules", folder / "node_modules", symlinks=True)
    passes(f"node {written(folder, 'minimal.js')}", logs)


@pytest.mark.integration
def test_the_hand_fed_line_bot_answers_as_shown(line_bot: Path) -> None:
    found = re.search(r"\n(echo .*\| build/line_bot)\n# (.*)\n", GUIDE)
    assert found, "the guide feeds build/line_bot a request by hand"
    command, shown = found.groups()
    out = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == shown


@pytest.mark.integration
def test_an_external_bot_started_by_hand_plays_its_game(tmp_path: Path) -> None:
    """The guide's debugging recipe: `arena play --bot mine=external ...`, then the bot by hand,
    here a line-protocol bot behind the bridge."""
    command = "play --seed 3 --bot mine=external --bot sample_bots/python/random_bot.py"
    play = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *command.split(), "--deadline", "600"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert play.stderr is not None
        told = play.stderr.readline()
        found = re.search(r"with (\w+)=(\S+) (\w+)=(\S+)$", told)
        assert found, told
        env = dict(os.environ)
        env.update({found[1]: found[2], found[3]: found[4]})
        assert {found[1], found[3]} == {ADDRESS_VARIABLE, TOKEN_VARIABLE}
        bot = written(tmp_path, "minimal_line_bot.py")
        by_hand = subprocess.run(
            [sys.executable, "-m", "arena.sdk.stdio", "--", "python3", str(bot)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert by_hand.returncode == 0, by_hand.stderr
        out, _ = play.communicate(timeout=120)
    finally:
        play.kill()
        play.wait()
    assert play.returncode == 0
    assert "Final: mine " in out
    assert "fault:" not in out
