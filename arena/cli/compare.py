"""`arena compare`: is NEW better than OLD? Paired games until a sequential test decides."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.exits import EXIT_INTERRUPTED, one_line
from arena.cli.group import LazyOptions, bot_specs, main
from arena.cli.options import declared_parameter, setting_option

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.server.lobby import BotSpec
    from arena.tournament.compare import CompareConfig, CompareResult
    from arena.tournament.stats.sprt import SprtState


COMPARE_EPILOG = (
    "Exit status: 0 for any verdict (H0, H1 or undecided: the output says which); 2 when the "
    "comparison cannot start or go on as asked (one line says why); 130 when interrupted (the "
    "same command resumes); 1 for a bug."
)


def _compare_options() -> list[click.Parameter]:
    """`arena compare`'s options beyond its bots: its own settings (the hypotheses, the cap on
    games), as `CompareSettings` declares them, and the tournament settings it shares with
    `arena run`, as `TournamentConfig` declares them."""
    from arena.tournament.compare import COMPARE_SETTINGS, NOT_SHARED
    from arena.tournament.config import SETTINGS

    own = [declared_parameter(declared, declared.default) for declared in COMPARE_SETTINGS]
    shared = [s for s in SETTINGS if s.name not in NOT_SHARED]
    shown = {"output": "arena-compare/NEW-vs-OLD, by the bots' names"}
    return [*own, *(setting_option(replace(s, shown=shown.get(s.name, s.shown))) for s in shared)]


class _KeepsArguments(LazyOptions):
    """Keeps the arguments as they were typed: the command that goes on after an interruption,
    or past the cap, is made from them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_ARGUMENTS] = list(args)
        return super().parse_args(ctx, args)


_ARGUMENTS = "arena.compare.arguments"


def going_on(ctx: click.Context, max_games: int | None = None) -> str:
    """The command that carries this comparison on: the one typed, as it was typed (with
    `max_games`, the cap replaced by it)."""
    arguments: list[str] = ctx.meta.get(_ARGUMENTS, [])
    if max_games is not None:
        arguments = _with_max_games(arguments, max_games)
    root = ctx.find_root().info_name or "arena"
    program = sys.argv[0] if os.path.basename(sys.argv[0]) == root else root
    return shlex.join([program, *ctx.command_path.split()[1:], *arguments])


def _with_max_games(arguments: list[str], max_games: int) -> list[str]:
    """The arguments with every --max-games given its new value, or one added."""
    changed, found, skip = [], False, False
    for argument in arguments:
        if skip:
            changed.append(str(max_games))
            skip = False
        elif argument == "--max-games":
            changed.append(argument)
            found = skip = True
        elif argument.startswith("--max-games="):
            changed.append(f"--max-games={max_games}")
            found = True
        else:
            changed.append(argument)
    return changed if found else [*changed, "--max-games", str(max_games)]


def _one_bot(ctx: click.Context, param: click.Parameter, value: str) -> BotSpec:
    (spec,) = bot_specs(ctx, param, (value,))
    return spec


@main.command(cls=_KeepsArguments, build=_compare_options, after="field", epilog=COMPARE_EPILOG)
@click.argument("new", metavar="NEW", callback=_one_bot)
@click.argument("old", metavar="OLD", callback=_one_bot)
@click.option(
    "--field",
    "field",
    multiple=True,
    callback=bot_specs,
    metavar="[NAME=]COMMAND",
    help="A bot of the field, the other seats of every table (repeatable).  [default: the "
    "sample bots heuristic, lowest and random]",
)
@click.option("--quiet", is_flag=True, help="No progress line.  [default: off]")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.  [default: off]")
def compare(
    new: BotSpec,
    old: BotSpec,
    field: list[BotSpec],
    margin: float,
    alpha: float,
    beta: float,
    max_games: int,
    quiet: bool,
    as_json: bool,
    **overrides: Any,
) -> None:
    """Is NEW better than OLD? Play every deal in every seat rotation twice, once with NEW and
    once with OLD in the same seat, against the same field with the same seeds, until a
    sequential test decides (fishtest's GSPRT for close calls, an always-valid interval for
    clear ones): H1, NEW takes at least --margin fewer bullheads per game; or H0, it is no
    better. Run it again to resume.

    NEW and OLD are given as `arena run --bot` takes a bot: [NAME=]COMMAND.
    """
    from arena.tournament.compare import (
        CompareConfig,
        CompareSettings,
        default_field,
        stored_line,
        verdict_lines,
    )
    from arena.tournament.config import MAX_PLANNED_GAMES, TournamentConfig

    with one_line("choose a folder you can write to with --output"):
        given = {key: value for key, value in overrides.items() if value is not None}
        if "output" not in given:
            given["output"] = Path("arena-compare") / f"{new.name}-vs-{old.name}"
        config = CompareConfig(
            new,
            old,
            tuple(field) or default_field(),
            TournamentConfig().with_settings(given),
            CompareSettings(margin, alpha, beta, max_games).hypotheses(),
            max_games,
        )
        result = asyncio.run(_compare(config, quiet or as_json))
    ctx = click.get_current_context()
    command = None  # what carries the comparison on, if it is not decided
    if result.interrupted:
        command = going_on(ctx)
    elif result.verdict == "undecided" and max_games < MAX_PLANNED_GAMES:
        command = going_on(ctx, min(2 * max_games, MAX_PLANNED_GAMES))
    if as_json:
        click.echo(json.dumps({**result.to_dict(), "continue_with": command}, indent=2))
    else:
        click.echo("\n".join(verdict_lines(result)))
        click.echo(stored_line(result))
    for line in result.problems.lines():
        click.echo(line, err=True)
    if command is not None:
        why = "interrupted" if result.interrupted else "no verdict within --max-games"
        click.echo(f"{why}: {result.stored} games stored; to go on, run: {command}", err=True)
    if result.interrupted:
        sys.exit(EXIT_INTERRUPTED)


async def _compare(config: CompareConfig, quiet: bool) -> CompareResult:
    """Run the comparison with a progress line, stopping cleanly on Ctrl-C or SIGTERM."""
    from arena.tournament.compare import always_valid_ends, counted, run_compare
    from arena.tournament.stats.sprt import progress_bar

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    terminal = sys.stderr.isatty()
    shown = False

    def progress(state: SprtState, stored: int) -> None:
        nonlocal shown
        if quiet or not (terminal or state.deals % 10 == 0 or state.verdict):
            return
        line = (
            f"{counted(state.deals, config.games_per_deal)}  mean {state.mean:+6.2f}  "
            f"LLR {state.llr:+6.2f}  {progress_bar(state)}  "
            f"always-valid {always_valid_ends(state, 1)}"
        )
        click.echo(f"\r{line}" if terminal else line, err=True, nl=not terminal)
        shown = True

    try:
        return await run_compare(
            config, progress, stop=stop, announce=lambda line: click.echo(line, err=True)
        )
    finally:
        if shown and terminal:
            click.echo(err=True)
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
