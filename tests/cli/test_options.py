"""`arena check-bot` and `arena play` show the bot options as `BotOptions` declares them: the
same help, default and bound as a tournament's (check-bot's time bank aside, for its stated
reason)."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.options import DeclaredType
from arena.server.checkbot import TIME_BANK, check_options
from arena.server.declared import show_default
from arena.server.options import OPTIONS_BY_NAME, BotOptions

COMMANDS = {
    "check-bot": ("deadline", "first_deadline", "time_bank", "startup_timeout"),
    "play": ("deadline",),
}
"""The bot options each command offers."""
OWN_DEFAULTS = {("check-bot", "time_bank"): TIME_BANK}
"""Defaults a command has of its own, each with its reason where it is declared."""


def shown_help(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_shows_each_bot_option_as_declared(command: str) -> None:
    text = shown_help(command)
    for name in COMMANDS[command]:
        declared = OPTIONS_BY_NAME[name]
        default = OWN_DEFAULTS.get((command, name), declared.default)
        assert declared.bound is not None
        bound = declared.bound.shown  # type: ignore[union-attr]
        flag = "--" + name.replace("_", "-")
        line = f"{flag} FLOAT {declared.help} [default: {show_default(default)}; {bound}]"
        assert line in text, f"{command}: {line!r} not in {text!r}"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_bot_option_is_typed_and_bounded_as_declared(command: str) -> None:
    cli = main.commands[command]
    params = {param.name: param for param in cli.params if isinstance(param, click.Option)}
    offered = [name for name in params if name in OPTIONS_BY_NAME]
    assert offered == list(COMMANDS[command])  # and no other bot option, nor one by hand
    for name in offered:
        declared, option = OPTIONS_BY_NAME[name], params[name]
        assert option.help == declared.help
        assert option.default == OWN_DEFAULTS.get((command, name), declared.default)
        assert isinstance(option.type, DeclaredType)
        assert option.type.declared == declared


def test_check_bot_holds_a_bot_to_a_tournaments_options_but_the_time_bank() -> None:
    options = check_options(deadline=2.0)
    assert options == BotOptions.of({"deadline": 2.0, "time_bank": TIME_BANK})
    assert BotOptions().time_bank != TIME_BANK  # the one default check-bot has of its own


def test_a_deadline_out_of_its_bound_is_one_line_and_exit_2() -> None:
    result = CliRunner().invoke(main, ["play", "--deadline", "0"])
    assert result.exit_code == 2
    assert re.search(
        r"Invalid value for '--deadline': 0 is not a number of seconds above 0 and at most",
        result.output,
    )
