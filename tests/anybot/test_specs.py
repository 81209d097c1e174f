"""Bot entries in every form: `stdio:` behind the bridge, `external`, and paths made absolute."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from arena.server.specs import BRIDGE, BadBotSpec, bot_spec, parse_bot
from arena.tournament.tournament_file import load
from tests.anybot.conftest import ROOT

LINE_BOT = ROOT / "tests" / "bots" / "stubborn_line_bot.py"


def test_a_stdio_entry_runs_its_program_behind_the_bridge() -> None:
    spec = parse_bot(f"mine=stdio:{LINE_BOT} --fast")
    assert spec.name == "mine"
    assert spec.argv == (*BRIDGE, sys.executable, str(LINE_BOT), "--fast")
    assert (sys.executable, "-m", "arena.sdk.stdio", "--") == BRIDGE
    assert parse_bot(f"stdio:{LINE_BOT}").name == "stubborn_line_bot"


def test_an_external_entry_has_no_command_and_needs_a_name() -> None:
    spec = parse_bot("mine=external")
    assert (spec.name, spec.argv) == ("mine", None)
    with pytest.raises(BadBotSpec, match="an external bot needs a name: write NAME=external"):
        parse_bot("external")


def test_paths_in_arguments_are_made_absolute_from_the_base(tmp_path: Path) -> None:
    (tmp_path / "bot.js").write_text("")
    spec = parse_bot("n=node bot.js --level 3", base=tmp_path)
    assert spec.argv is not None
    assert spec.argv[1:] == (str(tmp_path / "bot.js"), "--level", "3")


def test_a_program_that_cannot_run_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    with pytest.raises(BadBotSpec, match="is not executable: chmod \\+x it"):
        parse_bot("b=./bot", base=tmp_path)
    with pytest.raises(BadBotSpec, match="unknown protocol"):
        bot_spec("b", "./bot", "http", tmp_path)


def test_a_tournament_file_takes_stdio_commands_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "line.py").write_text("")
    (tmp_path / "t.toml").write_text(
        '[[bot]]\nname = "line"\ncommand = "stdio:bots/line.py"\n'
        '[[bot]]\nname = "me"\ncommand = "external"\n'
    )
    line, me = load(tmp_path / "t.toml").bots
    assert line.argv == (*BRIDGE, sys.executable, str(tmp_path / "bots" / "line.py"))
    assert me.argv is None


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("node bot.js", "bot"),
        ("stdio:perl bot.pl", "bot"),
        ("python3 -u bot.py --level 3", "bot"),
        ("java -jar bot.jar", "bot"),
        ("python3 -m bots.mine", "mine"),
        ("./bot --config cfg.json", "bot"),
        ("bot.py", "bot"),
        ("node", "node"),
    ],
)
def test_a_default_name_comes_from_the_program_file_not_the_interpreter(
    tmp_path: Path, command: str, name: str
) -> None:
    for file in ("bot.js", "bot.pl", "bot.py", "bot.jar", "cfg.json", "bot"):
        (tmp_path / file).write_text("")
    (tmp_path / "bot").chmod(0o755)
    if "perl" in command and shutil.which("perl") is None:
        pytest.skip("no perl")
    assert parse_bot(command, base=tmp_path).name == name


def test_two_interpreted_bots_get_names_of_their_own(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    (tmp_path / "a" / "alpha.js").write_text("")
    (tmp_path / "b" / "beta.js").write_text("")
    names = {parse_bot(f"node {f}", base=tmp_path).name for f in ("a/alpha.js", "b/beta.js")}
    assert names == {"alpha", "beta"}
