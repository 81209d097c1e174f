"""The database's schema: the models and the migrations agree (Alembic's autogenerate finds
nothing to change on a migrated database), migrating twice changes nothing, SQLite is opened
as `engine.py` says (WAL, foreign keys, a busy timeout), and `--database` is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text

from arena.ladder.db.engine import (
    DATABASE_FILE,
    current,
    database_url,
    head,
    open_database,
    shown,
    upgrade,
)
from arena.ladder.db.models import Base
from arena.ladder.errors import LadderError


def test_the_models_and_the_migrations_agree(engine: Engine) -> None:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_migrating_again_changes_nothing(engine: Engine) -> None:
    assert current(engine) == head()
    tables = sorted(inspect(engine).get_table_names())
    upgrade(engine)
    assert current(engine) == head()
    assert sorted(inspect(engine).get_table_names()) == tables
    assert set(tables) >= {"authors", "bots", "versions", "sets", "set_seats"}


def test_sqlite_is_in_the_folder_with_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    engine = open_database(tmp_path)
    try:
        upgrade(engine)
        with engine.connect() as connection:
            pragma = {
                name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
            }
            assert pragma == {
                "journal_mode": "wal",
                "foreign_keys": 1,
                "busy_timeout": 30000,
                "synchronous": 2,  # FULL
            }
    finally:
        engine.dispose()
    assert (tmp_path / DATABASE_FILE).is_file()


def test_a_transaction_reads_and_writes_as_one(engine: Engine) -> None:
    """A rolled back transaction leaves nothing, its reads included (SQLite's BEGIN is ours)."""
    with engine.connect() as connection:
        connection.execute(text("SELECT COUNT(*) FROM authors"))
        connection.execute(
            text(
                "INSERT INTO authors (name, token_hash, organizer, created_at) "
                "VALUES ('a', 'h', false, '2026-01-01 00:00:00')"
            )
        )
        connection.rollback()
        assert connection.execute(text("SELECT COUNT(*) FROM authors")).scalar() == 0


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("mysql://u@h/d", "does not run on 'mysql'"),
        ("sqlite://", "names no file"),
        ("sqlite:///:memory:", "names no file"),
        ("postgresql://u@h:notaport/d", "is not a database URL"),
    ],
)
def test_a_database_the_ladder_cannot_use_is_refused_in_one_line(given: str, says: str) -> None:
    with pytest.raises(LadderError, match=says) as refused:
        database_url(given)
    assert "\n" not in str(refused.value) and "--database" in str(refused.value)


def test_postgresql_means_psycopg_3_and_a_password_is_never_shown() -> None:
    url = database_url("postgresql://me:secret@db.example/ladder")
    assert url.drivername == "postgresql+psycopg"
    assert "secret" not in shown(url)
    assert database_url("postgresql+psycopg://me@/x?host=/tmp").drivername == "postgresql+psycopg"


def test_a_folder_means_its_sqlite_file(tmp_path: Path) -> None:
    assert database_url(tmp_path).database == str(tmp_path.resolve() / DATABASE_FILE)
    assert database_url(str(tmp_path)).database == str(tmp_path.resolve() / DATABASE_FILE)


def test_a_database_migrated_by_a_newer_arena_is_refused_in_one_line(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(LadderError, match="at migration '9999', which this arena does not know"):
        upgrade(engine)


def test_the_package_ships_every_file_of_the_migrations() -> None:
    """Alembic reads its folder by path, so each of its files must be package data (a wheel
    without them could not migrate)."""
    import tomllib

    root = Path(__file__).parents[2]
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    package = root / "arena"
    matched = {
        path for pattern in shipped["package-data"]["arena"] for path in package.glob(pattern)
    }
    folder = package / "ladder" / "migrations"
    files = {p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files and not (folder / "__init__.py").exists()  # Alembic's folder, not a package
    assert files <= matched, sorted(str(p) for p in files - matched)
