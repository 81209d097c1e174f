"""`arena ladder`: a contest that runs for weeks (docs/ladder.md).

The organizer's commands, each thin (parse, call `arena.ladder`, print): `init DIR` makes a
ladder's folder, settings and database; `author add|list|revoke` manage who may submit; `serve`
runs the API and the match loop in one process; `rerate` recomputes every rating from the
stored sets; `finals` plays the top versions' round-robin; anyone's `status URL` prints the
leaderboard in the terminal. What
loads the database or the HTTP stack is imported inside the command that needs it, so `arena
--help` stays quick. Every error a user can fix is one line, exit status 2 (`ladder_line`): the
ladder's own (a folder that is not a ladder, a name taken) and a database that cannot be used
(unreachable, refused, damaged), besides those `one_line` already shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.exits import EXIT_INTERRUPTED, InputProblem, one_line
from arena.cli.group import main
from arena.cli.options import AbsolutePath

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

LADDER_DIR = click.argument("folder", type=AbsolutePath(file_okay=False, path_type=Path))
DATABASE = click.option(
    "--database",
    metavar="URL",
    help="The ladder's database: postgresql://USER[:PASSWORD]@HOST[:PORT]/NAME or "
    "sqlite:///FILE.  [default: ladder.sqlite in the folder]",
)
STATUS_TIMEOUT = 30.0
"""Seconds `arena ladder status` waits for the server."""


@main.group()
def ladder() -> None:
    """A ladder: authors submit bots over the network, a rating settles their places."""


@contextlib.contextmanager
def ladder_line(folder: Path | None = None) -> Iterator[None]:
    """`one_line`, with the ladder's own bad input (LadderError) and a database that cannot be
    used (SQLAlchemy's errors) as one line too, exit status 2, never a traceback."""
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    from arena.ladder.errors import LadderError

    with one_line("choose a ladder folder you can write to") as place:
        place.folder = folder
        try:
            yield
        except LadderError as error:  # no usage: the command was right, the ladder is not
            raise InputProblem(str(error)) from None
        except SQLAlchemyError as error:
            cause = error.orig if isinstance(error, DBAPIError) else error
            first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
            raise InputProblem(
                f"the ladder's database cannot be used: {first}: check --database, and that "
                "its server runs"
            ) from None


@contextlib.contextmanager
def ladder_session(folder: Path, url: str | None) -> Iterator[Session]:
    """A command's one transaction on a ladder's database (in the folder unless `--database`
    names one), committed as the block ends: the folder checked to be a ladder, the database
    migrated first (init and serve migrate it too; this is for a database given afresh)."""
    from arena.ladder.db.engine import open_database, upgrade, writing
    from arena.ladder.folder import open_ladder

    open_ladder(folder)
    engine = open_database(url or folder)
    try:
        upgrade(engine)
        with writing(engine) as session:  # beside a serve: its turn as a writer, not a failure
            yield session
    finally:
        engine.dispose()


@ladder.command()
@LADDER_DIR
@DATABASE
def init(folder: Path, database: str | None) -> None:
    """Make a ladder in a new folder: its settings (ladder.toml) and its database."""
    import shutil

    from arena.ladder.db.engine import open_database, shown, upgrade
    from arena.ladder.folder import make_ladder
    from arena.ladder.settings import LadderSettings, write_settings

    with ladder_line(folder):
        made_ladder, made = make_ladder(folder)
        try:
            write_settings(made_ladder.settings, LadderSettings())
            engine = open_database(database or folder)
            try:
                upgrade(engine)
            finally:
                engine.dispose()
        except BaseException:  # take the folder back: a failed init leaves nothing behind
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)
            else:  # it was there, empty: so it stays
                for inside in folder.iterdir():
                    shutil.rmtree(inside) if inside.is_dir() else inside.unlink()
            raise
    click.echo(
        f"a ladder in {folder}: settings {made_ladder.settings}, database {shown(engine.url)}"
    )
    click.echo(f"next: arena ladder author add {folder} NAME")


@ladder.group()
def author() -> None:
    """Who may submit bots: each author has a token, shown once."""


@author.command("add")
@LADDER_DIR
@click.argument("name")
@click.option("--organizer", is_flag=True, help="The organizer's own author.  [default: off]")
@DATABASE
def author_add(folder: Path, name: str, organizer: bool, database: str | None) -> None:
    """Add an author and print their token, once, alone on the last line."""
    from arena.ladder.authors import add_author

    with ladder_line(folder), ladder_session(folder, database) as session:
        _, token = add_author(session, name, organizer)
    role = " (organizer)" if organizer else ""
    click.echo(f"author {name} added{role}: their token, shown this once, signs in as {name};")
    click.echo("keep it secret (an author sends it as ARENA_TOKEN or with --token-file):")
    click.echo(token)


@author.command("list")
@LADDER_DIR
@DATABASE
def author_list(folder: Path, database: str | None) -> None:
    """List the authors: name, organizer, bots, added, revoked."""
    from tabulate import tabulate

    from arena.ladder.db.repository import all_authors

    with ladder_line(folder), ladder_session(folder, database) as session:
        rows = [
            [
                found.name,
                "yes" if found.organizer else "",
                ", ".join(bot.name for bot in found.bots),
                f"{found.created_at:%Y-%m-%d %H:%M}",
                f"{found.revoked_at:%Y-%m-%d %H:%M}" if found.revoked_at else "",
            ]
            for found in all_authors(session)
        ]
    if not rows:
        click.echo(f"no authors yet: arena ladder author add {folder} NAME")
        return
    headers = ["author", "organizer", "bots", "added (UTC)", "revoked (UTC)"]
    click.echo(tabulate(rows, headers=headers))


@author.command("revoke")
@LADDER_DIR
@click.argument("name")
@DATABASE
def author_revoke(folder: Path, name: str, database: str | None) -> None:
    """Refuse an author's token from now on and end their sessions; their bots and versions
    stay."""
    from arena.ladder.db.repository import revoke_author

    with ladder_line(folder), ladder_session(folder, database) as session:
        revoke_author(session, name)
    click.echo(
        f"the token of {name} is refused from now on and their signed-in pages are signed out; "
        "their bots and versions stay"
    )


@ladder.command()
@LADDER_DIR
@click.option("--host", default="127.0.0.1", show_default=True, help="Listen on this address.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8600,
    show_default=True,
    help="0: any free one.",
)
@DATABASE
@click.option("--cluster", metavar="ADDRESS", help="Play the sets on this Dask cluster.")
@click.option(
    "--workers",
    type=click.IntRange(1, 1024),
    help="Play the sets on a local Dask cluster of this many worker processes.",
)
@click.option(
    "--concurrency", type=click.IntRange(1), help="Games at once.  [default: the machine's cores]"
)
@click.option("--tls-cert", type=AbsolutePath(exists=True, dir_okay=False, path_type=Path))
@click.option("--tls-key", type=AbsolutePath(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--insecure", is_flag=True, help="Serve beyond loopback (or reach a cluster) without TLS."
)
@click.option(
    "--reuse-processes",
    is_flag=True,
    help="One process per bot per set, not per game (faster; a bot may then remember the deal "
    "between rotations: for tests).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    help="Seed matchmaking and the deals (tests).  [default: a secret random one]",
)
def serve(folder: Path, **options: object) -> None:
    """Serve the ladder's API and play its sets until Ctrl-C or SIGTERM."""
    from arena.ladder.serve import ServeOptions
    from arena.ladder.serve import serve as run_serve

    settings = ServeOptions(folder, **options)  # type: ignore[arg-type]  # click's values
    with ladder_line(folder):
        asyncio.run(run_serve(settings, lambda line: click.echo(line, err=False)))
    click.echo("stopped: the sets under way are abandoned and played again at the next serve")


@ladder.command()
@LADDER_DIR
@DATABASE
def rerate(folder: Path, database: str | None) -> None:
    """Recompute every rating from the stored sets in order; exit 1 if one differs."""
    from arena.ladder.db.engine import open_database, upgrade
    from arena.ladder.history import differences
    from arena.ladder.settings import SETTINGS_FILE, read_settings

    with ladder_line(folder):
        settings = read_settings(folder / SETTINGS_FILE)
        engine = open_database(database or folder)
        upgrade(engine)
        sets, found = differences(engine, settings.tau)
    if found:
        for difference in found:
            click.echo(f"differs: {difference}", err=True)
        click.echo(f"{len(found)} versions differ from their {sets} sets replayed", err=True)
        sys.exit(1)
    click.echo(f"every rating equals its {sets} sets replayed in order")


@ladder.command()
@LADDER_DIR
@click.option("--top", type=click.IntRange(2, 100), required=True, help="Versions in the finals.")
@click.option("--deals", type=click.IntRange(1, 1000), default=1, show_default=True)
@DATABASE
@click.option("--workers", type=click.IntRange(1, 1024), help="A local Dask cluster's workers.")
@click.option("--cluster", metavar="ADDRESS", help="Play on this Dask cluster.")
@click.option("--concurrency", type=click.IntRange(1), help="Games at once.")
@click.option("--reuse-processes", is_flag=True, help="One process per bot (tests).")
def finals(
    folder: Path,
    top: int,
    deals: int,
    database: str | None,
    workers: int | None,
    cluster: str | None,
    concurrency: int | None,
    reuse_processes: bool,
) -> None:
    """Close submissions and play the top versions' full duplicate round-robin."""
    from arena.ladder.db.engine import open_database, upgrade
    from arena.ladder.finals import FINALS, play_finals
    from arena.ladder.serve import ServeOptions, template
    from arena.ladder.settings import SETTINGS_FILE, read_settings
    from arena.tournament.standings import standings_table

    with ladder_line(folder):
        settings = read_settings(folder / SETTINGS_FILE)
        engine = open_database(database or folder)
        upgrade(engine)
        options = ServeOptions(
            folder,
            workers=workers,
            cluster=cluster,
            concurrency=concurrency,
            reuse_processes=reuse_processes,
        )
        summary = asyncio.run(
            play_finals(folder, engine, settings, top, deals, template=template(options, settings))
        )
    click.echo(standings_table(summary.standings))
    click.echo(f"\n{summary.stored} games in {folder / FINALS}/ (served at /api/finals)")
    if summary.interrupted:
        sys.exit(EXIT_INTERRUPTED)


@ladder.command()
@click.argument("url")
def status(url: str) -> None:
    """Print a ladder's leaderboard (URL: the server, e.g. http://127.0.0.1:8600)."""
    import httpx
    from tabulate import tabulate

    base = url.rstrip("/")
    try:
        with httpx.Client(timeout=STATUS_TIMEOUT) as client:
            board = client.get(f"{base}/api/leaderboard")
            state = client.get(f"{base}/api/status")
    except httpx.HTTPError as error:
        raise InputProblem(f"cannot reach the ladder at {url}: {error}: is it serving?") from None
    if board.status_code != 200 or state.status_code != 200:
        raise InputProblem(f"{url} answered {board.status_code}: is this a ladder's address?")
    rows = [
        [
            line["rank"],
            f"{line['bot']}.v{line['version']}",
            line["author"],
            f"{line['rating']:.2f}",
            f"{line['mu']:.2f}",
            f"{line['sigma']:.2f}",
            line["sets"],
            line["status"],
        ]
        for line in board.json()
    ]
    headers = ["rank", "version", "author", "rating", "mu", "sigma", "sets", "status"]
    click.echo(tabulate(rows, headers=headers))
    shown = state.json()
    click.echo(
        f"\n{shown['sets_played']} sets played, {shown['sets_per_hour']:.0f} an hour; "
        f"{shown['running']} running, {shown['queue']} versions waiting to be vetted"
    )
