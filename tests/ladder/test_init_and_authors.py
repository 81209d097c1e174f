"""`arena ladder init` and `arena ladder author add|list|revoke`, through click's runner, on
SQLite in the folder and on a real PostgreSQL (`--database`): a token printed once, alone on the
last line, that signs its author in; every refusal one line, exit status 2, no traceback."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy.orm import Session

from arena.cli import main
from arena.ladder.authors import TokenRefused, signed_in
from arena.ladder.db.engine import open_database
from arena.ladder.settings import LadderSettings, read_settings


def arena(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def flags(database: str) -> list[str]:
    """`--database URL` for PostgreSQL; nothing for SQLite, which is in the folder."""
    return ["--database", database] if "://" in database else []


def one_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.fixture
def ladder(tmp_path: Path, database: str) -> Path:
    folder = tmp_path / "ladder"
    result = arena("ladder", "init", str(folder), *flags(database))
    assert result.exit_code == 0, result.output
    return folder


def test_init_writes_the_settings_and_the_database_in_a_private_folder(
    ladder: Path, database: str
) -> None:
    assert stat.S_IMODE(ladder.stat().st_mode) == 0o700
    assert read_settings(ladder / "ladder.toml") == LadderSettings()
    assert (ladder / "ladder.sqlite").is_file() == ("://" not in database)
    for name in ("versions", "built", "sets", "logs"):
        assert (ladder / name).is_dir()


def test_an_author_gets_a_token_once_alone_on_the_last_line(ladder: Path, database: str) -> None:
    added = arena("ladder", "author", "add", str(ladder), "ann", "--organizer", *flags(database))
    assert added.exit_code == 0, added.output
    token = added.output.splitlines()[-1]
    assert token.strip() == token and len(token) == 43
    engine = open_database(database if "://" in database else ladder)
    try:
        with Session(engine) as session:
            ann = signed_in(session, token)
            assert ann.name == "ann" and ann.organizer
        listed = arena("ladder", "author", "list", str(ladder), *flags(database))
        assert listed.exit_code == 0 and "ann" in listed.output and token not in listed.output
        revoked = arena("ladder", "author", "revoke", str(ladder), "ann", *flags(database))
        assert revoked.exit_code == 0 and "refused from now on" in revoked.output
        with Session(engine) as session, pytest.raises(TokenRefused, match="revoked"):
            signed_in(session, token)
    finally:
        engine.dispose()
    again = arena("ladder", "author", "add", str(ladder), "ann", *flags(database))
    assert "an author 'ann' already" in one_line(again)


def test_an_empty_ladder_lists_no_authors(ladder: Path, database: str) -> None:
    listed = arena("ladder", "author", "list", str(ladder), *flags(database))
    assert listed.exit_code == 0 and "no authors yet" in listed.output


def test_init_refuses_a_ladder_or_a_folder_that_holds_anything(tmp_path: Path) -> None:
    assert arena("ladder", "init", str(tmp_path / "l")).exit_code == 0
    assert "is a ladder already" in one_line(arena("ladder", "init", str(tmp_path / "l")))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("mine")
    assert "is not empty" in one_line(arena("ladder", "init", str(tmp_path / "full")))
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]


def test_a_folder_that_is_not_a_ladder_is_refused_in_one_line(tmp_path: Path) -> None:
    for command in (["author", "add", str(tmp_path), "ann"], ["author", "list", str(tmp_path)]):
        assert "is not a ladder (no ladder.toml)" in one_line(arena("ladder", *command))
    assert "there is no folder" in one_line(arena("ladder", "author", "list", str(tmp_path / "x")))
    assert list(tmp_path.iterdir()) == []


def test_a_bad_author_name_or_an_unknown_author_is_refused(tmp_path: Path) -> None:
    assert arena("ladder", "init", str(tmp_path / "l")).exit_code == 0
    bad = arena("ladder", "author", "add", str(tmp_path / "l"), "../x")
    assert "bad author name '../x'" in one_line(bad)
    unknown = arena("ladder", "author", "revoke", str(tmp_path / "l"), "eve")
    assert "no author 'eve'" in one_line(unknown)


def test_a_database_that_cannot_be_used_is_one_line_and_init_takes_the_folder_back(
    tmp_path: Path,
) -> None:
    unreachable = f"postgresql://nobody@/nothing?host={tmp_path}/no-socket"
    failed = arena("ladder", "init", str(tmp_path / "l"), "--database", unreachable)
    assert "the ladder's database cannot be used" in one_line(failed)
    assert not (tmp_path / "l").exists()
    (tmp_path / "empty").mkdir()
    failed = arena("ladder", "init", str(tmp_path / "empty"), "--database", "mysql://x@y/z")
    assert "does not run on 'mysql'" in one_line(failed)
    assert list((tmp_path / "empty").iterdir()) == []
    assert "--database" in one_line(
        arena("ladder", "init", str(tmp_path / "m"), "--database", "sqlite://")
    )
