"""The ladder's tables, as SQLAlchemy 2's typed ORM declares them.

One declaration serves the code, the migrations and the test that they agree
(`tests/ladder/test_migrations.py`: Alembic's autogenerate finds nothing to change). Decisions:

- Every time is stored as UTC without a zone (`UTC`): SQLite has no zone type and PostgreSQL's
  `timestamp` would take the server's, so the column type drops the zone on the way in and puts
  UTC back on the way out; the code only ever sees aware datetimes.
- Constraints and indexes are named by `NAMING`, so that a later migration can drop one by the
  same name on SQLite (batch mode) and PostgreSQL.
- A set's table is known before it is played: `create_set` writes its seats with their
  versions, and `record_set` fills in the bullheads, faults and rating changes once it is done,
  so an interrupted set is played again with the same table and seed.
- A version keeps its current rating (`mu`, `sigma`), its number of sets and when it last
  played, so that matchmaking and the leaderboard read one row per version; each seat keeps
  the rating before and after its set, so a bot's history can be drawn and `rerate` can check
  every stored rating.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Names for every constraint and index, the same on every database (see the module's doc)."""

NAME_LENGTH = 64
"""The longest author or bot name the database holds; the edges that take names check it."""
DIGEST_LENGTH = 64
"""A sha256 in hex: an archive's digest, a token's hash."""
STATUS_LENGTH = 16
"""The longest status word (a version's, a set's)."""


class UTC(TypeDecorator[dt.datetime]):
    """A UTC time, stored without its zone (see the module's doc); a naive time is refused, so
    that no local time is ever stored as if it were UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive time {value!r}: the ladder stores aware UTC times only")
        return value.astimezone(dt.UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        assert isinstance(value, dt.datetime)
        return value.replace(tzinfo=dt.UTC)


class Base(DeclarativeBase):
    """The ladder's tables; their metadata names every constraint by `NAMING`."""

    metadata = MetaData(naming_convention=NAMING)


class Author(Base):
    """Someone who may submit bots: a token's sha256 (`arena.ladder.authors`), never the token."""

    __tablename__ = "authors"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    token_hash: Mapped[str] = mapped_column(String(DIGEST_LENGTH), unique=True)
    organizer: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[dt.datetime] = mapped_column(UTC)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)
    submitted_at: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)
    """When the author last began a submission: `begin_submission` writes it first, so that two
    uploads of one author are counted against the day's limit one after the other."""

    bots: Mapped[list[Bot]] = relationship(back_populates="author", order_by="Bot.id")


class Bot(Base):
    """A bot's name, owned by the author who first submitted it."""

    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTC)

    author: Mapped[Author] = relationship(back_populates="bots")
    versions: Mapped[list[Version]] = relationship(back_populates="bot", order_by="Version.number")


class Version(Base):
    """One upload of a bot: its archive (`DIR/versions/<digest>.tar.gz`), its status, its
    vetting's logs and its current rating."""

    __tablename__ = "versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "number"),  # also the index of a bot's versions
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    number: Mapped[int]
    """1, 2, ... per bot, in the order they were received."""
    digest: Mapped[str] = mapped_column(String(DIGEST_LENGTH))
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), index=True)
    """A `arena.ladder.versions.VersionStatus` value (indexed: the playable, the benched)."""
    reason: Mapped[str | None] = mapped_column(Text, default=None)
    """Why it is `error` or `benched`, shown to its author."""
    created_at: Mapped[dt.datetime] = mapped_column(UTC, index=True)  # the day's submissions
    mu: Mapped[float]
    sigma: Mapped[float]
    sets: Mapped[int] = mapped_column(default=0)
    last_played: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)
    build_log: Mapped[str] = mapped_column(Text, default="", deferred=True)
    check_bot: Mapped[str] = mapped_column(Text, default="", deferred=True)
    """check-bot's lines, JSON Lines. Both logs are read only when used (`deferred`): a build's
    output may be a megabyte, and the leaderboard, which reads every version it shows, read
    them all (9 of its 22 ms at 100 bots with 20 kB logs: `bench.pages`)."""

    bot: Mapped[Bot] = relationship(back_populates="versions")


class LadderSet(Base):
    """One table's duplicate set: queued with its seats, running, done (rated) or abandoned
    (interrupted; played again)."""

    __tablename__ = "sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), index=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[dt.datetime] = mapped_column(UTC)
    started_at: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)
    rated: Mapped[int | None] = mapped_column(default=None, index=True)
    """1, 2, ... in the order the sets were rated (`record_set`): the order `rerate` replays."""

    seats: Mapped[list[SetSeat]] = relationship(back_populates="set", order_by="SetSeat.seat")


class SetSeat(Base):
    """A seat of a set: its version, and once the set is done its bullheads summed over the set,
    its faults and its rating before and after."""

    __tablename__ = "set_seats"
    __table_args__ = (
        UniqueConstraint("set_id", "version_id"),  # a version sits once at a table
        Index("ix_set_seats_version_id_set_id", "version_id", "set_id"),  # a version's history
    )

    set_id: Mapped[int] = mapped_column(ForeignKey("sets.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("versions.id"))
    bullheads: Mapped[int | None] = mapped_column(default=None)
    faults: Mapped[int | None] = mapped_column(default=None)
    mu_before: Mapped[float | None] = mapped_column(default=None)
    sigma_before: Mapped[float | None] = mapped_column(default=None)
    mu_after: Mapped[float | None] = mapped_column(default=None)
    sigma_after: Mapped[float | None] = mapped_column(default=None)

    set: Mapped[LadderSet] = relationship(back_populates="seats")
    version: Mapped[Version] = relationship()


class LoginSession(Base):
    """A browser signed in at `/login` (`arena.ladder.sessions`): its id's sha256, never the id
    (which only its cookie holds), its author, and when it expires or was ended (signed out, or
    its author revoked)."""

    __tablename__ = "login_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    id_hash: Mapped[str] = mapped_column(String(DIGEST_LENGTH), unique=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTC)
    expires_at: Mapped[dt.datetime] = mapped_column(UTC)
    ended_at: Mapped[dt.datetime | None] = mapped_column(UTC, default=None)

    author: Mapped[Author] = relationship()


class OrganizerAction(Base):
    """A version benched or restored by an organizer at `/status`: who, why and when, kept for
    every later reader (the version's own row keeps only its latest reason)."""

    __tablename__ = "organizer_actions"

    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("versions.id"), index=True)
    organizer_id: Mapped[int] = mapped_column(ForeignKey("authors.id"))
    action: Mapped[str] = mapped_column(String(STATUS_LENGTH))
    """`benched` or `restored`: the `arena.ladder.versions.Event` it was."""
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[dt.datetime] = mapped_column(UTC)

    version: Mapped[Version] = relationship()
    organizer: Mapped[Author] = relationship()
