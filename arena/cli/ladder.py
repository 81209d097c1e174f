"""`arena ladder`: a contest that runs for weeks (docs/ladder.md).

The organizer's commands, each thin (parse, call `arena.ladder`, print): `init DIR` makes a
ladder's folder, settings and database; `author add|list|revoke` manage who may submit. What
loads the database or the HTTP stack is imported inside the command that needs it, so `arena
--help` stays quick. Every error a user can fix is one line, exit status 2 (`ladder_line`): the
ladder's own (a folder that is not a ladder, a name taken) and a database that cannot be used
(unreachable, refused, damaged), besides those `one_line` already shows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.exits import InputProblem, one_line
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
    from sqlalchemy.orm import Session

    from arena.ladder.db.engine import open_database, upgrade
    from arena.ladder.folder import open_ladder

    open_ladder(folder)
    engine = open_database(url or folder)
    try:
        upgrade(engine)
        with Session(engine) as session, session.begin():
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
    """Refuse an author's token from now on; their bots and versions stay."""
    from arena.ladder.db.repository import revoke_author

    with ladder_line(folder), ladder_session(folder, database) as session:
        revoke_author(session, name)
    click.echo(f"the token of {name} is refused from now on; their bots and versions stay")
