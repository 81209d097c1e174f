"""The `arena` command: thin click commands that parse, call the library, and print."""

from __future__ import annotations

import asyncio
import random

import click

from arena.display import render_game
from arena.players import BUILTIN, LocalPlayer, play_game
from arena.rules import MAX_PLAYERS, MIN_PLAYERS, Settings, Variant


@click.group()
@click.version_option(package_name="arena")
def main() -> None:
    """Run 6 nimmt! bot games and tournaments."""


@main.command()
@click.option(
    "--players",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=4,
    show_default=True,
    help="Seats at the table.",
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
def play(
    players: int,
    seed: int,
    variant: str,
    end_score: int,
    max_rounds: int | None,
    strategies: tuple[str, ...],
) -> None:
    """Play one seeded game and print it turn by turn."""
    cycle = strategies or ("random", "lowest", "highest")
    chosen = [cycle[seat % len(cycle)] for seat in range(players)]
    settings = Settings(players, Variant(variant), end_score, max_rounds)
    seats = [LocalPlayer(BUILTIN[name](f"{seed}:{seat}")) for seat, name in enumerate(chosen)]
    result = asyncio.run(play_game(settings, seats, random.Random(seed)))
    names = [f"{seat}:{name}" for seat, name in enumerate(chosen)]
    click.echo(f"seed {seed}, " + render_game(result.record, names))
