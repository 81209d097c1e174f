"""The command an undecided `arena compare` prints to go on: the one typed, as it was typed (its
quoting kept), with --max-games raised when the cap was what stopped it."""

from __future__ import annotations

import shlex
import sys

import click
import pytest

from arena.cli import main
from arena.cli.compare import _ARGUMENTS, _with_max_games, compare, going_on


def context(arguments: list[str]) -> click.Context:
    root = click.Context(main, info_name="arena")
    ctx = click.Context(compare, info_name="compare", parent=root)
    ctx.meta[_ARGUMENTS] = arguments
    return ctx


def test_the_command_is_the_one_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = ["new=bots/a.py", "old=bots/b.py --share 0.3", "--max-rounds", "1"]
    monkeypatch.setattr(sys, "argv", [".venv/bin/arena", "compare", *typed])
    command = going_on(context(typed))
    assert command == (
        ".venv/bin/arena compare new=bots/a.py 'old=bots/b.py --share 0.3' --max-rounds 1"
    )
    assert shlex.split(command)[2:] == typed


def test_the_program_is_named_as_click_knows_it_when_not_run_as_arena(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", ["pytest"])
    assert going_on(context(["a=x", "b=y"])) == "arena compare a=x b=y"


@pytest.mark.parametrize(
    ("typed", "raised"),
    [
        (["a=x", "b=y"], ["a=x", "b=y", "--max-games", "200"]),
        (["a=x", "--max-games", "100", "b=y"], ["a=x", "--max-games", "200", "b=y"]),
        (["--max-games=100", "a=x"], ["--max-games=200", "a=x"]),
        (["--max-games", "50", "--max-games", "100"], ["--max-games", "200"] * 2),
    ],
)
def test_past_the_cap_the_command_raises_it(typed: list[str], raised: list[str]) -> None:
    assert _with_max_games(typed, 200) == raised
    assert going_on(context(typed), 200).endswith(shlex.join(raised))
