"""The `arena` command: thin click commands that parse, call the library, and print."""

from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path

import click

from arena.display import render_game
from arena.players import BUILTIN, GameResult, LocalPlayer, play_game
from arena.rules import MAX_PLAYERS, MIN_PLAYERS, Settings, Variant
from arena.server.lobby import BotOptions, BotSpec
from arena.server.session import open_session
from arena.specs import BadBotSpec, parse_bot


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
