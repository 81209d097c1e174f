"""`arena check-bot`: the command that puts a bot through the scripted situations of
`arena.server.checkbot.checks`, held to a tournament's options (as `BotOptions` declares them)
unless told otherwise, but for the time bank (`arena.server.checkbot.TIME_BANK`)."""

from __future__ import annotations

import asyncio
import shlex
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.exits import one_line
from arena.cli.group import main
from arena.cli.options import AbsolutePath, bot_options
from arena.server.checkbot import TIME_BANK, check_options
from arena.server.errors import BotError

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.server.checkbot.checks import Check
    from arena.server.lobby import BotSpec
    from arena.server.options import BotOptions


@main.command("check-bot")
@click.argument("command", nargs=-1, required=True, metavar="-- [stdio:]COMMAND...")
@click.option("--name", default="", help="The bot's name (default: its program's file name).")
@bot_options("deadline", "first_deadline", "time_bank", "startup_timeout", time_bank=TIME_BANK)
@click.option(
    "--logs",
    type=AbsolutePath(file_okay=False, path_type=Path),
    help="Keep the bot's log in this folder (default: a temporary one).",
)
def check_bot_command(command: tuple[str, ...], name: str, logs: Path | None, **given: Any) -> None:
    """Put a bot through scripted situations before a contest; exit 0 only if it passes all."""
    from arena.server.specs import check_name, parse_command

    try:
        if name:
            check_name(name)
    except BotError as error:
        raise click.BadParameter(str(error), param_hint="'--name'") from None
    try:
        spec = parse_command(name, shlex.join(command))
    except BotError as error:
        raise click.BadParameter(str(error), param_hint="'COMMAND'") from None
    if spec.argv is None:
        raise click.UsageError("check-bot starts the bot itself: give its command")
    click.echo(f"checking {spec.name}: {shlex.join(command)}")
    options = check_options(**given)
    with one_line("give --logs a folder you can write to"):
        results = asyncio.run(_check(spec, logs, options))
    passed = sum(check.passed for check in results)
    click.echo(f"{passed} of {len(results)} checks passed")
    if logs is not None:
        click.echo(f"the bot's log: {logs / f'{spec.name}.log'}")
    sys.exit(0 if passed == len(results) else 1)


async def _check(spec: BotSpec, logs: Path | None, options: BotOptions) -> list[Check]:
    from arena.server.checkbot.checks import check_bot, render

    with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
        folder = logs or Path(scratch)
        return await check_bot(spec, folder, options, lambda check: click.echo(render(check)))
