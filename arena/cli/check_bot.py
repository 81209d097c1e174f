"""`arena check-bot`: the command that puts a bot through the scripted situations of
`arena.cli.checks`, with a tournament's limits unless told otherwise."""

from __future__ import annotations

import asyncio
import shlex
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.group import LazyOptions, main
from arena.server.errors import BotError

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.cli.checks import Check, CheckOptions
    from arena.server.lobby import BotSpec


def _check_options() -> list[click.Parameter]:
    """`arena check-bot`'s limits, whose defaults are CheckOptions' (a tournament's)."""
    from arena.cli.checks import CheckOptions

    return [
        click.Option(
            ["--deadline"],
            type=click.FloatRange(min=0.001),
            default=CheckOptions.deadline,
            show_default=True,
            help="Seconds the bot has for each decision.",
        ),
        click.Option(
            ["--first-deadline"],
            type=click.FloatRange(min=0.001),
            default=CheckOptions.first_deadline,
            show_default=True,
            help="Seconds for the first decision of a game.",
        ),
        click.Option(
            ["--time-bank"],
            type=click.FloatRange(min=0.0),
            default=CheckOptions.time_bank,
            show_default=True,
            help="Seconds of time bank given over the time-bank check's requests.",
        ),
        click.Option(
            ["--startup-timeout"],
            type=click.FloatRange(min=0.1),
            default=CheckOptions.startup_timeout,
            show_default=True,
            help="Seconds the bot has to connect and say hello.",
        ),
    ]


@main.command("check-bot", cls=LazyOptions, build=_check_options, after="name")
@click.argument("command", nargs=-1, required=True, metavar="-- [stdio:]COMMAND...")
@click.option("--name", default="", help="The bot's name (default: its program's file name).")
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the bot's log in this folder (default: a temporary one).",
)
def check_bot_command(
    command: tuple[str, ...],
    name: str,
    deadline: float,
    first_deadline: float,
    time_bank: float,
    startup_timeout: float,
    logs: Path | None,
) -> None:
    """Put a bot through scripted situations before a contest; exit 0 only if it passes all."""
    from arena.cli.checks import CheckOptions
    from arena.server.specs import parse_command

    try:
        spec = parse_command(name, shlex.join(command))
    except BotError as error:
        raise click.UsageError(str(error)) from None
    if spec.argv is None:
        raise click.UsageError("check-bot starts the bot itself: give its command")
    click.echo(f"checking {spec.name}: {shlex.join(command)}")
    options = CheckOptions(
        deadline=deadline,
        first_deadline=max(first_deadline, deadline),
        startup_timeout=startup_timeout,
        time_bank=time_bank,
    )
    results = asyncio.run(_check(spec, logs, options))
    passed = sum(check.passed for check in results)
    click.echo(f"{passed} of {len(results)} checks passed")
    if logs is not None:
        click.echo(f"the bot's log: {logs / f'{spec.name}.log'}")
    sys.exit(0 if passed == len(results) else 1)


async def _check(spec: BotSpec, logs: Path | None, options: CheckOptions) -> list[Check]:
    from arena.cli.checks import check_bot, render

    with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
        folder = logs or Path(scratch)
        return await check_bot(spec, folder, options, lambda check: click.echo(render(check)))
