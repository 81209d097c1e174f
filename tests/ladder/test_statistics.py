"""SQLite's planner statistics, kept fresh as the sets grow (`engine.keep_statistics`): a ladder
of a few thousand sets stored in bulk (as `bench.pages` stores them), then one set recorded as
the match loop records it, plans its pages' queries from the indexes that fit, not from
`sets.status`'s, which without statistics SQLite takes for selective though nearly every set is
done. No timing: the plans, by EXPLAIN QUERY PLAN."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, insert, select
from sqlalchemy.orm import Session
from sqlalchemy.pool import base as pool_base

from arena.ladder.db import repository as repo
from arena.ladder.db.engine import (
    CONNECTION_LIFETIME,
    STATISTICS_GROWTH,
    keep_statistics,
    open_database,
    upgrade,
)
from arena.ladder.db.models import Bot, LadderSet, SetSeat
from tests.ladder.test_repository import T0, TAU, authors_and_versions

SETS = 2000
"""Enough sets that the status index is nearly all of them; stored in bulk in well under a
second."""
BOTS = 6
VERSIONS = list(range(1, BOTS + 1))
"""Each bot's one version, by id."""


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[Engine]:
    """A migrated SQLite ladder of `BOTS` bots and `SETS` done and rated sets of 3 seats,
    stored in bulk (no statistics taken: nothing went through `record_set`)."""
    engine = open_database(tmp_path)
    upgrade(engine)
    with Session(engine) as session, session.begin():
        assert authors_and_versions(session, BOTS) == VERSIONS
        store_sets(session, VERSIONS, SETS)
    try:
        yield engine
    finally:
        engine.dispose()


def store_sets(session: Session, versions: list[int], count: int) -> None:
    """`count` more done sets in bulk, each seating 3 of `versions` in turn, rated in order."""
    first = (session.scalar(select(func.max(LadderSet.id))) or 0) + 1
    numbers = range(first, first + count)
    at = T0 + dt.timedelta(hours=1)
    sets = [
        {"id": n, "status": repo.DONE, "seed": n, "created_at": at, "finished_at": at, "rated": n}
        for n in numbers
    ]
    seats = [
        {"set_id": n, "seat": seat, "version_id": versions[(n + seat) % len(versions)]}
        | {"bullheads": (n * (seat + 1)) % 30, "faults": 0}
        for n in numbers
        for seat in range(3)
    ]
    session.execute(insert(LadderSet), sets)
    session.execute(insert(SetSeat), seats)


def record_one(engine: Engine) -> None:
    """One set created and recorded as the match loop does it."""
    with Session(engine) as session, session.begin():
        played = repo.create_set(session, [1, 2, 3], seed=1, at=T0)
        repo.record_set(session, played.id, [3, 1, 2], [0, 0, 0], TAU, at=T0)


def plans(engine: Engine, query: Callable[[Session, Bot], object]) -> list[list[str]]:
    """The plan of each statement `query` makes (on a fresh connection, which reads the
    statistics as it opens), step by step."""
    engine.dispose()
    asked: list[tuple[str, Any]] = []

    def note(conn: object, cursor: object, statement: str, params: Any, *_: object) -> None:
        asked.append((statement, params))

    with Session(engine) as session:
        bot = repo.bot_named(session, "bot1")
        assert bot is not None
        event.listen(engine, "before_cursor_execute", note)
        try:
            query(session, bot)
        finally:
            event.remove(engine, "before_cursor_execute", note)
        connection = session.connection()
        return [
            [row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {s}", p)]
            for s, p in asked
        ]


def test_without_statistics_the_last_sets_are_read_through_the_status_index(
    ladder: Engine,
) -> None:
    """What the fix is for, shown on the bulk-stored ladder before any set is recorded: the
    last 50 sets read every done set through `sets.status`'s index, then sorted."""
    first, *_ = plans(ladder, lambda session, bot: repo.sets_of(session, None, 50))
    assert any("ix_sets_status" in step for step in first), first
    assert any("TEMP B-TREE FOR ORDER BY" in step for step in first), first


def test_a_recorded_set_takes_statistics_and_the_pages_plan_with_them(ladder: Engine) -> None:
    record_one(ladder)
    last, *_ = plans(ladder, lambda session, bot: repo.sets_of(session, None, 50))
    assert last == ["SCAN sets USING INDEX ix_sets_rated"], last  # the newest 50, no sort
    theirs, *_ = plans(ladder, lambda session, bot: repo.sets_of(session, bot, 20))
    assert not any("ix_sets_status" in step for step in theirs), theirs


def test_statistics_are_taken_again_once_the_sets_have_doubled(ladder: Engine) -> None:
    record_one(ladder)  # the first statistics: SETS + 1 sets
    with Session(ladder) as session, session.begin():
        connection = session.connection()
        assert not keep_statistics(connection)
        store_sets(session, VERSIONS, (STATISTICS_GROWTH - 1) * (SETS + 1) - 1)
        assert not keep_statistics(connection)  # one set short of twice as many
        store_sets(session, VERSIONS, 1)
        assert keep_statistics(connection) and not keep_statistics(connection)
        counted = connection.exec_driver_sql(
            "SELECT stat FROM sqlite_stat1 WHERE tbl = 'sets' LIMIT 1"
        ).scalar()
        assert str(counted).split()[0] == str(STATISTICS_GROWTH * (SETS + 1))


def test_upgrade_takes_statistics_of_a_ladder_filled_without_them(ladder: Engine) -> None:
    """A ladder an older arena filled has no statistics: the next `upgrade` (every serve's
    start) takes them, before any set is recorded."""
    upgrade(ladder)
    last, *_ = plans(ladder, lambda session, bot: repo.sets_of(session, None, 50))
    assert last == ["SCAN sets USING INDEX ix_sets_rated"], last


def test_an_empty_ladder_takes_no_statistics(tmp_path: Path) -> None:
    engine = open_database(tmp_path)
    try:
        upgrade(engine)
        with engine.begin() as connection:
            assert not keep_statistics(connection)
    finally:
        engine.dispose()


def test_a_pooled_connection_plans_with_new_statistics_once_it_is_reopened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection reads the statistics as it opens, and another's ANALYZE does not reach it:
    the serve's pooled connections are opened afresh after `CONNECTION_LIFETIME`. Here the
    serve's connection read statistics that describe no set (taken of the empty ladder);
    another process stores 2,000 sets and records one, which takes them again."""
    serve, other = open_database(tmp_path), open_database(tmp_path)
    try:
        upgrade(serve)
        with serve.begin() as connection:
            connection.exec_driver_sql("ANALYZE")
        with Session(other) as session, session.begin():
            assert authors_and_versions(session, BOTS) == VERSIONS
        last_sets = select(LadderSet.id).where(LadderSet.status == repo.DONE)
        last_sets = last_sets.order_by(LadderSet.rated.desc()).limit(50)
        plan = f"EXPLAIN QUERY PLAN {last_sets.compile(compile_kwargs={'literal_binds': True})}"
        with serve.connect() as connection:  # the pool's one connection: it ran that ANALYZE
            assert "ix_sets_status" in str(connection.exec_driver_sql(plan).all())
        with Session(other) as session, session.begin():
            store_sets(session, VERSIONS, SETS)
        record_one(other)  # statistics taken
        with serve.connect() as connection:  # the same one: still what it read then
            assert "ix_sets_status" in str(connection.exec_driver_sql(plan).all())
        later = time.time() + CONNECTION_LIFETIME + 1
        monkeypatch.setattr(pool_base, "time", SimpleNamespace(time=lambda: later))
        with serve.connect() as connection:  # too old: opened afresh
            steps = [row[-1] for row in connection.exec_driver_sql(plan)]
        assert steps == ["SCAN sets USING INDEX ix_sets_rated"], steps
    finally:
        serve.dispose()
        other.dispose()
