"""`arena compare`: is NEW better than OLD? Paired games until a sequential test decides."""

from __future__ import annotations

import asyncio
import json
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


def _one_bot(ctx: click.Context, param: click.Parameter, value: str) -> BotSpec:
    (spec,) = bot_specs(ctx, param, (value,))
    return spec


@main.command(cls=LazyOptions, build=_compare_options, after="field", epilog=COMPARE_EPILOG)
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
    sequential test (fishtest's GSPRT) decides: H1, NEW takes at least --margin fewer bullheads
    per game; or H0, it is no better. Run it again to resume.

    NEW and OLD are given as `arena run --bot` takes a bot: [NAME=]COMMAND.
    """
    from arena.tournament.compare import (
        CompareConfig,
        CompareSettings,
        default_field,
        stored_line,
        verdict_lines,
    )
    from arena.tournament.config import TournamentConfig

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
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo("\n".join(verdict_lines(result)))
        click.echo(stored_line(result))
    for line in result.problems.lines():
        click.echo(line, err=True)
    if result.interrupted:
        click.echo(
            f"interrupted: {result.stored} games kept; run the same command again to go on",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)


async def _compare(config: CompareConfig, quiet: bool) -> CompareResult:
    """Run the comparison with a progress line, stopping cleanly on Ctrl-C or SIGTERM."""
    from arena.tournament.compare import run_compare
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
        games = state.deals * config.games_per_deal
        line = (
            f"deal {state.deals:>4}, {games:>5} games  mean {state.mean:+6.2f}  "
            f"LLR {state.llr:+6.2f}  {progress_bar(state)}"
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
