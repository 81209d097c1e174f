"""The `arena` command: thin click commands that parse, call the library, and print."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Never

import click
from tqdm import tqdm

from arena.display import render_game
from arena.players import BUILTIN, GameResult, LocalPlayer, play_game
from arena.rules import MAX_PLAYERS, MIN_PLAYERS, Settings, Variant
from arena.server.lobby import BotOptions, BotSpec
from arena.server.session import open_session
from arena.specs import BadBotSpec, parse_bot
from arena.tournament.config import ConfigError, TournamentConfig, load, variant
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.standings import pairwise_table, standings_table


def _bot_spec(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[BotSpec]:
    try:
        return [parse_bot(value) for value in values]
    except BadBotSpec as error:
        raise click.BadParameter(str(error), ctx, param) from None


@click.group()
@click.version_option(package_name="arena")
def main() -> None:
    """Run 6 nimmt! bot games and tournaments."""


@main.command()
@click.option(
    "--players",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=None,
    help="Seats at the table (default: one per --bot, else 4).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deal.")
@click.option(
    "--variant",
    type=click.Choice([v.value for v in Variant]),
    default=Variant.STANDARD.value,
    show_default=True,
)
@click.option("--end-score", type=click.IntRange(min=1), default=66, show_default=True)
@click.option("--max-rounds", type=click.IntRange(min=1), default=None, help="Cap on rounds.")
@click.option(
    "--strategy",
    "strategies",
    type=click.Choice(sorted(BUILTIN)),
    multiple=True,
    help="Built-in strategy for the next seat (repeatable); default: random, lowest, highest.",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=_bot_spec,
    metavar="[NAME=]COMMAND",
    help="A bot program for the next seat, played over gRPC (repeatable).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.001),
    default=1.0,
    show_default=True,
    help="Seconds a bot has for each decision.",
)
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the bots' logs (default: a temporary one).",
)
def play(
    players: int | None,
    seed: int,
    variant: str,
    end_score: int,
    max_rounds: int | None,
    strategies: tuple[str, ...],
    bots: list[BotSpec],
    deadline: float,
    logs: Path | None,
) -> None:
    """Play one seeded game and print it turn by turn."""
    if bots and strategies:
        raise click.UsageError("use either --bot or --strategy, not both")
    seats = players or len(bots) or 4
    if bots and len(bots) != seats:
        raise click.UsageError(f"--players {seats} needs {seats} --bot options, not {len(bots)}")
    settings = Settings(seats, Variant(variant), end_score, max_rounds)
    if bots:
        names = [bot.name for bot in bots]
        if len(set(names)) != len(names):
            raise click.UsageError("two bots have the same name: name them with NAME=COMMAND")
        result = asyncio.run(_play_bots(settings, bots, seed, deadline, logs))
    else:
        cycle = strategies or ("random", "lowest", "highest")
        chosen = [cycle[seat % len(cycle)] for seat in range(seats)]
        names = [f"{seat}:{name}" for seat, name in enumerate(chosen)]
        local = [LocalPlayer(BUILTIN[name](f"{seed}:{seat}")) for seat, name in enumerate(chosen)]
        result = asyncio.run(play_game(settings, local, random.Random(seed)))
    click.echo(f"seed {seed}, " + render_game(result.record, names))
    for fault in result.faults:
        click.echo(
            f"fault: {names[fault.seat]} {fault.kind} in round {fault.round + 1}: {fault.message}"
        )


async def _play_bots(
    settings: Settings, bots: list[BotSpec], seed: int, deadline: float, logs: Path | None
) -> GameResult:
    with tempfile.TemporaryDirectory(prefix="arena-") as scratch:
        folder = logs or Path(scratch)
        options = BotOptions(deadline=deadline)
        async with open_session(bots, folder, options) as session:
            return await session.play(f"play-{seed}", settings, [b.name for b in bots], seed)


@main.command()
@click.argument("tournament_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=_bot_spec,
    metavar="[NAME=]COMMAND",
    help="Enter a bot (repeatable); a .py file runs with the arena's Python.",
)
@click.option("--players", type=int, help="Seats per table (default: all bots, up to 10).")
@click.option("--games", type=int, help="Games per table: a multiple of the seats.")
@click.option("--variant", help="standard, professional or professional-draft.")
@click.option("--end-score", type=int, help="Bullheads that end a game (default 66).")
@click.option("--max-rounds", type=int, help="Cap on rounds per game.")
@click.option("--seed", type=int, help="Tournament seed (default 0).")
@click.option("--deadline", type=float, help="Seconds per decision (default 1).")
@click.option("--concurrency", type=int, help="Games at once (default: the machine's cores).")
@click.option("--sample", type=int, help="Play a balanced sample of this many tables.")
@click.option("--max-faults", type=int, help="Faults that disqualify a bot (default 20; 0 never).")
@click.option("--restart/--no-restart", default=None, help="Restart crashed bots (default on).")
@click.option("--startup-timeout", type=float, help="Seconds a bot has to connect (default 10).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="Results folder.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
def run(
    tournament_file: Path | None,
    bots: list[BotSpec],
    quiet: bool,
    as_json: bool,
    **overrides: Any,
) -> None:
    """Run a round-robin tournament; run it again to resume an interrupted one."""
    try:
        config = load(tournament_file) if tournament_file else TournamentConfig()
        given = {key: value for key, value in overrides.items() if value is not None}
        if "variant" in given:
            given["variant"] = variant(given["variant"])
        if bots:
            given["bots"] = tuple(bots)
        config = replace(config, **given)
        summary = asyncio.run(_run(config, quiet or as_json))
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    if as_json:
        click.echo(json.dumps(summary.standings.to_dict(), indent=2))
    else:
        click.echo(standings_table(summary.standings))
        click.echo()
        click.echo(pairwise_table(summary.standings))
        click.echo(f"\n{summary.stored} of {summary.total} games in {config.output}/")
    if summary.interrupted:
        click.echo(
            f"interrupted: {summary.stored} of {summary.total} games kept; run the same "
            "command again to play the rest",
            err=True,
        )
        sys.exit(130)


async def _run(config: TournamentConfig, quiet: bool) -> RunSummary:
    """Run the tournament with a progress bar, stopping cleanly on Ctrl-C or SIGTERM."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    bar: tqdm[Never] | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if quiet:
            return
        if bar is None:  # the first call says how many games a resumed run already has
            bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr, dynamic_ncols=True)
        else:
            bar.update(done - bar.n)

    try:
        return await run_tournament(config, progress)
    finally:
        if bar is not None:
            bar.close()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


if __name__ == "__main__":
    main()
