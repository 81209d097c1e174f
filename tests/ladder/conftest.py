"""The ladder's databases for its tests: every test that takes `database` (a URL or folder) or
`engine` (opened and migrated) runs on SQLite in its temporary folder and on a real PostgreSQL
(`tests/ladder/postgres.py`: one server per test process, a fresh database per test), the
latter marked `integration` (it starts a server) and skipped with the reason where PostgreSQL
is absent."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from arena.ladder.db.engine import open_database, upgrade
from tests.ladder.postgres import Server, absent, postgres_server

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]
_NAMES = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Server]:
    """One PostgreSQL server for this test process, skipped where it cannot run."""
    why = absent()
    if why is not None:
        pytest.skip(why)
    with postgres_server() as server:
        yield server


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a ladder's database is: a folder (SQLite in it) or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path)
        return
    server: Server = request.getfixturevalue("postgres")
    name = f"ladder_{os.getpid()}_{next(_NAMES)}"
    server.execute(f"CREATE DATABASE {name}")
    try:
        yield server.url(name)
    finally:
        server.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def engine(database: str) -> Iterator[Engine]:
    """The ladder's database, opened and migrated to the newest schema."""
    opened = open_database(database)
    try:
        upgrade(opened)
        yield opened
    finally:
        opened.dispose()
