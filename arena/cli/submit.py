"""`arena submit`: an author's bot folder uploaded to a ladder as a new version
(`arena.ladder.client` does the work: pack, check, upload, follow)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli.exits import EXIT_PROBLEMS, InputProblem
from arena.cli.group import main
from arena.cli.options import AbsolutePath

SUBMIT_EPILOG = (
    "The token is read from --token-file or the ARENA_TOKEN environment variable, never from "
    "the command line (where every user of the machine sees it in `ps`). Exit status: 0 once "
    "uploaded (with --wait: once the version plays); 3 with --wait when the version ends in "
    "error (its reason is printed); 2 when the upload cannot be made (one line says why)."
)


def _refuse_token(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        raise click.BadParameter(
            "a token on the command line shows in `ps` to every user of this machine: put it "
            "in a file (--token-file FILE) or in ARENA_TOKEN",
            ctx,
            param,
        )


@main.command(epilog=SUBMIT_EPILOG)
@click.argument(
    "folder", type=AbsolutePath(exists=True, file_okay=False, path_type=Path), metavar="FOLDER"
)
@click.option("--to", "url", required=True, metavar="URL", help="The ladder's address.")
@click.option("--bot", required=True, metavar="NAME", help="The bot this is a new version of.")
@click.option(
    "--token-file",
    type=AbsolutePath(exists=True, dir_okay=False, path_type=Path),
    help="A file holding your token (default: the ARENA_TOKEN environment variable).",
)
@click.option(
    "--wait", is_flag=True, help="Follow the version until it plays (or fails, saying why)."
)
@click.option(
    "--insecure",
    is_flag=True,
    help="Allow plain http beyond this machine (the token crosses the network readable).",
)
@click.option("--token", hidden=True, expose_value=False, callback=_refuse_token)
def submit(
    folder: Path, url: str, bot: str, token_file: Path | None, wait: bool, insecure: bool
) -> None:
    """Upload the bot in FOLDER (with its bot.toml) to a ladder as a new version of --bot."""
    from arena.ladder.client import SubmitError, VersionFailed, read_token
    from arena.ladder.client import submit as upload

    try:
        token = read_token(token_file)
        upload(folder, url, bot, token, wait, report=click.echo, insecure=insecure)
    except VersionFailed as failed:
        click.echo(str(failed))
        sys.exit(EXIT_PROBLEMS)
    except SubmitError as error:
        raise InputProblem(str(error)) from None
