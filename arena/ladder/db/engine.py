"""Opening the ladder's database (`open_database`) and bringing its schema to this arena's
(`upgrade`, Alembic's migrations packaged in `arena/ladder/migrations/`, no alembic.ini).

The database is SQLite in the ladder's folder (`ladder.sqlite`) unless `--database` gives a
SQLAlchemy URL; `postgresql://` means psycopg 3 (`postgresql+psycopg://`), the driver the arena
installs. Other backends are refused with one line: only these two are tested.

SQLite is opened so that it keeps a set whatever happens to the server:
- WAL, so the API's readers never wait for the match loop's writer nor it for them, and
  `synchronous=FULL`, so a set committed survives a power cut as well as a SIGKILL;
- foreign keys on (SQLite leaves them off by default);
- a busy timeout (`BUSY_TIMEOUT`), so a writer waits for another instead of failing at once;
- transactions begun by SQLAlchemy itself (`BEGIN` at the first statement), not by the sqlite3
  module's guess before the first write: a transaction's reads and writes are then one
  transaction, and the migrations' DDL is transactional (SQLAlchemy's documented recipe); one
  that must write after what a request read first begins as a writer (`write_first`);
- the query planner's statistics kept fresh as the sets grow (`keep_statistics`), and every
  pooled connection opened afresh now and then (`CONNECTION_LIFETIME`) to read them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, SessionTransactionOrigin

from arena.ladder.errors import LadderError

DATABASE_FILE = "ladder.sqlite"
"""The database's file in a ladder's folder, when no `--database` URL is given."""
MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"
"""Alembic's script folder, inside the package."""
BUSY_TIMEOUT = 30.0
"""Seconds a SQLite writer waits for another before it fails."""
WRITE_FIRST = "arena_write_first"
"""The execution option that makes SQLite begin a transaction as a writer (`write_first`)."""
CONNECT_TIMEOUT = 10
"""Seconds a PostgreSQL connection may take to be made."""
BACKENDS = {"sqlite": "sqlite", "postgresql": "postgresql+psycopg"}
"""The backends the ladder runs on, and the driver each is opened with."""
STATISTICS_GROWTH = 2
"""SQLite's statistics are taken again once the sets have grown this many times over since they
were last taken (`keep_statistics`): at 1, 2, 4, ... sets, so that they always describe at least
half of the sets, and taking them costs at most twice the last ANALYZE over a ladder's life."""
CONNECTION_LIFETIME = 600.0
"""Seconds a pooled SQLite connection is used before it is opened afresh. A connection reads the
statistics when it opens (or when the schema changes); another connection's ANALYZE does not
reach it, so the serve's pooled connections would otherwise plan for weeks with what they read
at the start. Opening one costs about a millisecond."""
_URL_HELP = "give a folder, sqlite:///FILE or postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"


def database_url(where: str | Path) -> URL:
    """The URL of the database `where` names: a ladder's folder (its `ladder.sqlite`) or a
    SQLAlchemy URL; LadderError naming `--database` for one the ladder cannot use."""
    if isinstance(where, Path) or "://" not in where:
        return URL.create("sqlite", database=str(Path(where).resolve() / DATABASE_FILE))
    try:
        url = make_url(where)
    except (ArgumentError, ValueError):  # a port that is not a number is a ValueError
        raise LadderError(f"--database {where!r} is not a database URL: {_URL_HELP}") from None
    backend = url.get_backend_name()
    if backend not in BACKENDS:
        raise LadderError(f"--database: the ladder does not run on {backend!r}: {_URL_HELP}")
    if backend == "sqlite" and url.database in (None, "", ":memory:"):
        raise LadderError(f"--database {where!r} names no file: {_URL_HELP}")
    if url.drivername == "postgresql":  # SQLAlchemy's default is psycopg2, not installed
        url = url.set(drivername=BACKENDS["postgresql"])
    return url


def shown(url: URL) -> str:
    """A URL as messages show it: without its password."""
    return url.render_as_string(hide_password=True)


def open_database(where: str | Path) -> Engine:
    """An engine on the ladder's database: `where` is the ladder's folder (SQLite in it) or a
    SQLAlchemy URL. Nothing is connected yet: a database that cannot be reached fails at its
    first use (`upgrade`)."""
    url = database_url(where)
    if url.get_backend_name() != "sqlite":
        # A server that does not answer fails in seconds, not the system's TCP minutes (unless
        # the URL sets its own connect_timeout).
        waits = {} if "connect_timeout" in url.query else {"connect_timeout": CONNECT_TIMEOUT}
        return create_engine(url, pool_pre_ping=True, connect_args=waits)
    engine = create_engine(
        url, connect_args={"timeout": BUSY_TIMEOUT}, pool_recycle=CONNECTION_LIFETIME
    )
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connected(connection: Any, record: Any) -> None:
    connection.isolation_level = None  # SQLAlchemy begins, not the sqlite3 module
    cursor = connection.cursor()
    try:
        for pragma in (
            "journal_mode=WAL",
            "synchronous=FULL",
            "foreign_keys=ON",
            f"busy_timeout={int(BUSY_TIMEOUT * 1000)}",
        ):
            cursor.execute(f"PRAGMA {pragma}")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    immediate = connection.get_execution_options().get(WRITE_FIRST, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def write_first(session: Session) -> None:
    """End `session`'s transaction (what it read) and begin the next as a writer's: on SQLite
    with BEGIN IMMEDIATE, which takes the write lock at once, waiting up to the busy timeout for
    another writer. A transaction that reads first and writes later fails at once instead
    ("database is locked") whenever another writer committed in between: SQLite cannot move a
    reader's snapshot forward, so its busy timeout does not apply. Seen: an upload that read its
    author, waited for its body, and meanwhile the match loop recorded a set. PostgreSQL begins
    as before (its rows lock as they are written). Pending changes are dropped: call it first.
    A transaction the caller began itself (`session.begin()`) is left as the caller began it."""
    transaction = session.get_transaction()
    if transaction is not None and transaction.origin is not SessionTransactionOrigin.AUTOBEGIN:
        return
    session.rollback()
    session.connection(execution_options={WRITE_FIRST: True})


@contextlib.contextmanager
def writing(engine: Engine) -> Iterator[Session]:
    """A session in one writer's transaction, committed as the block ends (rolled back if it
    raises): the one way the match loop, the vetting task and the organizer's commands write.
    On SQLite it begins with BEGIN IMMEDIATE, so its reads and its writes see one snapshot and
    it waits its turn behind another writer instead of failing at its first write (see the
    module's note); on PostgreSQL it begins as any other. A request's writes take the same
    `turn` in the request's own session."""
    with Session(engine) as session, turn(session):
        yield session


def keep_statistics(connection: Connection) -> bool:
    """Take SQLite's planner statistics again (ANALYZE) if there are none for the sets or the
    sets have grown `STATISTICS_GROWTH` times over since they were taken; whether it did.
    `upgrade` calls it (a database an older arena filled) and `repository.record_set` (the one
    way the sets grow), in their transactions.

    Without statistics SQLite takes every index equality for selective: `sets.status = 'done'`
    through its index, which is nearly every set, then sorted, on every page that lists or
    joins done sets (the last 50 sets: 3.6 ms of SQL at 10,000 sets, 19 ms at 50,000, against
    0.04 ms through `sets.rated`'s index once analyzed). SQLite's own `PRAGMA optimize` does
    not do here what it does from 3.46: before, it analyzes only the tables the same
    connection's queries used, and again only at 25 times the rows. A full ANALYZE costs 11 ms
    of CPU at 10,000 sets and some 45 ms at 50,000 (`analysis_limit` sampling is cheaper but
    took the status index's one value for ten, and kept the bad plan). Other connections read
    the new statistics when they are opened again (`CONNECTION_LIFETIME`). PostgreSQL's
    autovacuum analyzes by itself."""
    if connection.dialect.name != "sqlite" or not _statistics_stale(connection):
        return False
    connection.exec_driver_sql("ANALYZE")
    return True


def _statistics_stale(connection: Connection) -> bool:
    """Whether the sets (counted by their last id: one index step, not a count) have grown
    `STATISTICS_GROWTH` times over since ANALYZE counted them, or were never counted."""
    sets = connection.exec_driver_sql("SELECT max(id) FROM sets").scalar()
    if not sets:
        return False  # nothing to describe
    kept = connection.exec_driver_sql(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'"
    ).scalar()
    if not kept:
        return True
    stat = connection.exec_driver_sql(
        "SELECT stat FROM sqlite_stat1 WHERE tbl = 'sets' AND idx IS NOT NULL LIMIT 1"
    ).scalar()
    counted = int(str(stat).split()[0]) if stat else 0
    return int(sets) >= STATISTICS_GROWTH * counted


@contextlib.contextmanager
def turn(session: Session) -> Iterator[Session]:
    """A request's writes as one writer's turn: what the request read so far is ended
    (`write_first`), and the turn is committed as the block ends, or rolled back if it raises,
    so the write lock is never held past the block. A request's turn left open past its last
    statement (a refusal raised, a response then sent) held the lock across awaits, while the
    match loop, on the same event loop, waited for it in BEGIN IMMEDIATE: the loop stood still
    until the busy timeout, and the serve ended ("database is locked"; seen on a quiet fresh
    clone, the login throttle's wrong tokens)."""
    write_first(session)
    try:
        yield session
    except BaseException:
        session.rollback()
        raise
    session.commit()


def migration_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the packaged migrations, on `connection` (the one `env.py`
    uses): what `upgrade` runs, and what a developer hands `alembic.command.revision` with
    `autogenerate=True` to write the next migration."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest migration this arena has."""
    revision = ScriptDirectory.from_config(migration_config()).get_current_head()
    assert revision is not None
    return revision


def current(engine: Engine) -> str | None:
    """The migration the database is at (None: never migrated, or no ladder's database)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Migrate the database to this arena's newest schema (nothing when it is there) and take
    SQLite's statistics if they are stale (`keep_statistics`); a database migrated by a newer
    arena is refused with one line."""
    with engine.begin() as connection:
        try:
            command.upgrade(migration_config(connection), "head")
            keep_statistics(connection)
        except CommandError as error:
            at = MigrationContext.configure(connection).get_current_revision()
            raise LadderError(
                f"the ladder's database {shown(engine.url)} is at migration {at!r}, which this "
                f"arena does not know ({error}): use the arena that made it, or a newer one"
            ) from None
