"""The ladder's queries and changes (`arena.ladder.db.repository`), on SQLite and on a real
PostgreSQL: authors, bots owned by their first author, numbered versions, the day's submissions,
and sets recorded once, whatever is offered twice, with every rating change stored so that the
stored sets replayed give the stored ratings (a Hypothesis invariant)."""

from __future__ import annotations

import datetime as dt
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, event, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from arena.ladder.db import repository as repo
from arena.ladder.db.engine import open_database, turn, upgrade, writing
from arena.ladder.db.models import Author, LadderSet, SetSeat, Version
from arena.ladder.errors import LadderError
from arena.ladder.rating import Rating, initial, rerate

TAU = 25.0 / 300.0
T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def authors_and_versions(session: Session, count: int) -> list[int]:
    """`count` authors with one version each, in placement; their version ids."""
    ids = []
    for index in range(count):
        author = repo.add_author(session, f"author{index}", f"hash{index}", at=T0)
        ids.append(
            repo.add_version(session, author, f"bot{index}", "d" * 64, "placement", initial()).id
        )
    return ids


def test_an_author_is_found_by_name_and_token_hash_and_revoked(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        repo.add_author(session, "ann", "h1", organizer=True, at=T0)
        repo.add_author(session, "bob", "h2", at=T0)
        with pytest.raises(LadderError, match="an author 'ann' already"):
            repo.add_author(session, "ann", "h3")
    with Session(engine) as session, session.begin():
        ann = repo.author_by_token_hash(session, "h1")
        assert ann is not None and ann.name == "ann" and ann.organizer
        assert ann.created_at == T0  # aware UTC, back as it went in
        assert [a.name for a in repo.all_authors(session)] == ["ann", "bob"]
        revoked = repo.revoke_author(session, "bob", at=T0)
        assert repo.revoke_author(session, "bob").revoked_at == revoked.revoked_at == T0
        with pytest.raises(LadderError, match="no author 'eve'"):
            repo.revoke_author(session, "eve")
        assert repo.author_by_token_hash(session, "nope") is None


def test_a_bot_is_its_first_authors_and_its_versions_are_numbered(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ann = repo.add_author(session, "ann", "h1")
        bob = repo.add_author(session, "bob", "h2")
        first = repo.add_version(session, ann, "mybot", "a" * 64, "received", initial())
        second = repo.add_version(session, ann, "mybot", "b" * 64, "received", initial())
        assert (first.number, second.number) == (1, 2)
        assert first.bot is second.bot and first.bot.author is ann
        assert (first.mu, first.sigma) == (initial().mu, initial().sigma) and first.sets == 0
        with pytest.raises(repo.BotTaken, match="'mybot' is another author's"):
            repo.add_version(session, bob, "mybot", "c" * 64, "received", initial())
        assert repo.bot_named(session, "mybot") is first.bot


def test_the_days_submissions_are_those_of_the_last_24_hours(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ann = repo.add_author(session, "ann", "h1")
        bob = repo.add_author(session, "bob", "h2")
        for hours in (30, 23, 1):
            at = T0 - dt.timedelta(hours=hours)
            repo.add_version(session, ann, "a", "a" * 64, "error", initial(), at=at)
        repo.add_version(session, bob, "b", "b" * 64, "received", initial(), at=T0)
        assert repo.submissions_today(session, ann, T0) == 2
        assert repo.begin_submission(session, ann, T0) == 2
        assert ann.submitted_at == T0
        assert repo.submissions_today(session, bob, T0) == 1


def test_a_submission_begun_after_another_writers_commit_is_not_refused(engine: Engine) -> None:
    """An upload's request reads its author, then waits for its body while the match loop
    commits a set: on SQLite its first write then failed at once ("database is locked", a 500),
    whatever the busy timeout, since a reader's snapshot cannot be moved forward. The submission
    begins a writer's transaction of its own (`engine.write_first`)."""
    with Session(engine) as setup, setup.begin():
        repo.add_author(setup, "ann", "h1")
        bob = repo.add_author(setup, "bob", "h2").id
    with Session(engine) as request:
        ann = repo.author_by_token_hash(request, "h1")  # the read that opens its transaction
        assert ann is not None
        with Session(engine) as loop, loop.begin():  # another writer, committed meanwhile
            found = loop.get(Author, bob)
            assert found is not None
            found.submitted_at = T0
        assert repo.begin_submission(request, ann, T0) == 0
        request.commit()
    with Session(engine) as after:
        assert after.scalars(select(Author.submitted_at).order_by(Author.id)).all() == [T0, T0]


def test_a_writer_reads_and_writes_in_its_own_turn_beside_another(engine: Engine) -> None:
    """`writing` (how the match loop, the vetting task and the organizer's commands write)
    reads and writes in one writer's turn. Seen: `arena ladder author revoke` read its author,
    a serve's match loop committed a set meanwhile, and the revoke's write failed at once on
    SQLite ("database is locked"): its transaction had begun as a reader. Another writer now
    waits for the turn to end (on SQLite) or writes rows of its own (on PostgreSQL); either
    way both writes land."""
    with Session(engine) as setup, setup.begin():
        repo.add_author(setup, "ann", "h1")
        bob = repo.add_author(setup, "bob", "h2").id

    def another_writer() -> None:  # the match loop, which writes the same way
        with writing(engine) as loop:
            found = loop.get(Author, bob)
            assert found is not None
            found.submitted_at = T0

    other = threading.Thread(target=another_writer)
    with writing(engine) as command:
        ann = repo.author_by_token_hash(command, "h1")  # the read that begins its turn
        assert ann is not None
        other.start()
        other.join(timeout=1.0)  # without the writer's turn, its commit comes here
        ann.submitted_at = T0
    other.join()
    with Session(engine) as after:
        assert after.scalars(select(Author.submitted_at).order_by(Author.id)).all() == [T0, T0]


def test_a_name_holding_a_nul_names_none_without_asking(engine: Engine) -> None:
    """A NUL names no bot (every bot's name was checked on upload), and the database is not
    asked: a URL's `%00` reached PostgreSQL as a NUL, which its text cannot hold: a DataError,
    and a 500 for `/api/bots/%00` (SQLite answered nothing)."""
    with Session(engine) as setup, setup.begin():
        ann = repo.add_author(setup, "ann", "h1")
        repo.add_version(setup, ann, "a.b-1", "a" * 64, "active", initial())
    with Session(engine) as db:
        for name in ("\x00", "a\x00b", "a.b-1\x00", "../x", ""):
            assert repo.bot_named(db, name) is None
        found = repo.bot_named(db, "a.b-1")
        assert found is not None and found.name == "a.b-1"


def test_a_requests_turn_ends_with_its_block_whether_it_raises_or_not(engine: Engine) -> None:
    """A request writes in a `turn`, which ends with its block: refused (a wrong token raises
    inside it) or not. A turn left open past it held SQLite's write lock while the response was
    sent, and the match loop, waiting for the lock on the same event loop, stood still for the
    busy timeout and ended the serve ("database is locked", seen after the login throttle's
    wrong tokens). Here another writer takes its turn after each block without waiting."""
    with Session(engine) as setup, setup.begin():
        ann = repo.add_author(setup, "ann", "h1").id
    with Session(engine) as request:
        with pytest.raises(LookupError), turn(request):
            repo.author_by_token_hash(request, "h1")
            raise LookupError("a wrong token")
        with writing(engine) as loop:  # the lock is free: no wait, no busy timeout
            found = loop.get(Author, ann)
            assert found is not None
            found.submitted_at = T0
        with turn(request):
            again = request.get(Author, ann)
            assert again is not None and again.submitted_at == T0
            again.revoked_at = T0
        with writing(engine) as loop:
            assert loop.get_one(Author, ann).revoked_at == T0


def test_versions_by_status_and_an_authors_newest_first(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ann = repo.add_author(session, "ann", "h1")
        old = repo.add_version(session, ann, "a", "a" * 64, "active", initial(), at=T0)
        new = repo.add_version(session, ann, "b", "b" * 64, "placement", initial(), at=T0)
        repo.add_version(session, ann, "c", "c" * 64, "error", initial(), at=T0)
        playable = repo.versions_with_status(session, {"placement", "active"})
        assert [v.id for v in playable] == [old.id, new.id]
        assert playable[0].bot.author.name == "ann"
        mine = repo.versions_of_author(session, ann, {"placement", "active"})
        assert [v.id for v in mine] == [new.id, old.id]


def test_a_set_is_recorded_once_with_its_rating_changes(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ids = authors_and_versions(session, 3)
        played = repo.create_set(session, ids, seed=2**62, at=T0)
        set_id = played.id
    with Session(engine) as session, session.begin():
        recorded = repo.record_set(session, set_id, [10, 30, 20], [0, 2, 0], TAU, at=T0)
        assert recorded is not None
    with Session(engine) as session, session.begin():
        assert repo.record_set(session, set_id, [30, 10, 20], [0, 0, 0], TAU) is None
    with Session(engine) as session:
        done = session.get(LadderSet, set_id)
        assert done is not None and done.status == repo.DONE and done.rated == 1
        assert done.seed == 2**62 and done.finished_at == T0
        seats = done.seats
        assert [seat.bullheads for seat in seats] == [10, 30, 20]
        assert [seat.faults for seat in seats] == [0, 2, 0]
        for seat, old, new in zip(seats, recorded.before, recorded.after, strict=True):
            assert Rating(seat.mu_before or 0, seat.sigma_before or 0) == old == initial()
            assert Rating(seat.mu_after or 0, seat.sigma_after or 0) == new
            assert (seat.version.mu, seat.version.sigma) == (new.mu, new.sigma)
            assert seat.version.sets == 1 and seat.version.last_played == T0
        winner, loser = recorded.after[0], recorded.after[1]
        assert winner.ordinal > recorded.after[2].ordinal > loser.ordinal


def test_a_result_that_does_not_fit_the_set_changes_nothing(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        set_id = repo.create_set(session, authors_and_versions(session, 3), seed=1).id
    with (
        Session(engine) as session,
        pytest.raises(LadderError, match="has 3 seats, not 2 bullhead"),
        session.begin(),
    ):
        repo.record_set(session, set_id, [1, 2], [0, 0], TAU)
    with Session(engine) as session:
        assert session.get(LadderSet, set_id).status == repo.RUNNING  # type: ignore[union-attr]
        assert session.scalar(select(Version.sets).where(Version.id == 1)) == 0


def test_a_result_offered_from_a_stale_view_is_not_recorded_twice(engine: Engine) -> None:
    """A second process that read the set as running before the first recorded it: its offer
    changes nothing (None on PostgreSQL; SQLite refuses its write as the database moved on)."""
    with Session(engine) as session, session.begin():
        set_id = repo.create_set(session, authors_and_versions(session, 2), seed=1).id
    late = Session(engine)
    try:
        late.begin()
        assert late.get(LadderSet, set_id).status == repo.RUNNING  # type: ignore[union-attr]
        with Session(engine) as first, first.begin():
            assert repo.record_set(first, set_id, [1, 2], [0, 0], TAU) is not None
        try:
            assert repo.record_set(late, set_id, [2, 1], [0, 0], TAU) is None
            late.commit()
        except OperationalError as error:
            assert "locked" in str(error)
            late.rollback()
    finally:
        late.close()
    with Session(engine) as session:
        assert [v.sets for v in session.scalars(select(Version))] == [1, 1]
        assert repo.stored_sets(session) == [([1, 2], [1, 2])]


def test_sets_are_abandoned_started_again_and_only_running_ones_recorded(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ids = authors_and_versions(session, 2)
        running = repo.create_set(session, ids, seed=1).id
        queued = repo.create_set(session, ids, seed=2, status=repo.QUEUED).id
        assert repo.abandon_running(session) == [running]
        assert repo.record_set(session, running, [1, 2], [0, 0], TAU) is None  # abandoned
        assert repo.record_set(session, queued, [1, 2], [0, 0], TAU) is None  # not started
        assert [s.id for s in repo.sets_with_status(session, repo.ABANDONED)] == [running]
        assert repo.start_set(session, running, at=T0) and not repo.start_set(session, running)
        assert repo.start_set(session, queued)
        assert repo.abandon_set(session, queued) and not repo.abandon_set(session, queued)
        assert repo.record_set(session, running, [1, 2], [0, 0], TAU) is not None
        assert session.get(LadderSet, running).started_at == T0  # type: ignore[union-attr]
        with pytest.raises(LadderError, match="each once"):
            repo.create_set(session, [ids[0], ids[0]], seed=3)


def test_sets_replay_in_the_order_they_were_rated_not_made(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ids = authors_and_versions(session, 3)
        first = repo.create_set(session, ids, seed=1).id
        second = repo.create_set(session, ids[:2], seed=2).id
        repo.record_set(session, second, [5, 9], [0, 0], TAU)
        repo.record_set(session, first, [9, 5, 7], [0, 0, 0], TAU)
        assert repo.stored_sets(session) == [(ids[:2], [5, 9]), (ids, [9, 5, 7])]
        assert_stored_equals_replayed(session)


def assert_stored_equals_replayed(session: Session) -> None:
    replayed = rerate(repo.stored_sets(session), TAU)
    for version in session.scalars(select(Version)):
        assert Rating(version.mu, version.sigma) == replayed.get(version.id, initial())
        done = session.scalars(
            select(SetSeat)
            .join(LadderSet)
            .where(SetSeat.version_id == version.id, LadderSet.status == repo.DONE)
        ).all()
        assert version.sets == len(done)


TABLES = st.lists(
    st.tuples(
        st.lists(st.integers(0, 5), min_size=2, max_size=4, unique=True),
        st.lists(st.integers(0, 60), min_size=4, max_size=4),
        st.booleans(),  # offered twice
        st.booleans(),  # abandoned first, then played again
    ),
    max_size=8,
)


@settings(max_examples=20, deadline=None)
@given(TABLES)
def test_whatever_is_offered_the_stored_ratings_are_the_stored_sets_replayed(
    tables: list[tuple[list[int], list[int], bool, bool]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        engine = open_database(Path(folder))
        try:
            upgrade(engine)
            with Session(engine) as session, session.begin():
                ids = authors_and_versions(session, 6)
                made = [
                    (repo.create_set(session, [ids[i] for i in seats], seed=n).id, len(seats))
                    for n, (seats, _, _, _) in enumerate(tables)
                ]
            for (set_id, size), (_, heads, twice, abandoned) in zip(made, tables, strict=True):
                with Session(engine) as session, session.begin():
                    if abandoned:
                        repo.abandon_set(session, set_id)
                        repo.start_set(session, set_id)
                    for _ in range(2 if twice else 1):
                        repo.record_set(session, set_id, heads[:size], [0] * size, TAU)
            with Session(engine) as session:
                assert len(repo.stored_sets(session)) == len(tables)
                assert_stored_equals_replayed(session)
                assert session.scalar(select(Author.id).where(Author.name == "author0")) == 1
        finally:
            engine.dispose()


def test_what_the_api_shows_leaderboard_history_sets_and_counts(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        ids = authors_and_versions(session, 3)
        first = repo.create_set(session, ids, seed=1).id
        second = repo.create_set(session, ids[:2], seed=2).id
        repo.create_set(session, ids[1:], seed=3)  # still running
        repo.record_set(session, second, [9, 5], [0, 0], TAU, at=T0)
        repo.record_set(session, first, [1, 5, 9], [0, 0, 0], TAU, at=T0)
        session.get(Version, ids[2]).status = "benched"  # type: ignore[union-attr]
    with Session(engine) as session:
        board = repo.leaderboard(session, {"placement", "active", "benched"})
        ordinals = [Rating(v.mu, v.sigma).ordinal for v in board]
        assert ordinals == sorted(ordinals, reverse=True) and len(board) == 3
        assert [v.bot.name for v in repo.leaderboard(session, {"placement"})] == [
            v.bot.name for v in board if v.status == "placement"
        ]
        bot0 = repo.bot_named(session, "bot0")
        assert bot0 is not None
        history = repo.rating_history(session, bot0)
        assert [played.id for played, _ in history] == [second, first]  # as rated
        assert all(seat.version_id == ids[0] for _, seat in history)
        assert [s.id for s in repo.sets_of(session)] == [first, second]
        bot2 = repo.bot_named(session, "bot2")
        assert bot2 is not None
        assert [s.id for s in repo.sets_of(session, bot2)] == [first]
        assert [s.id for s in repo.sets_of(session, limit=1)] == [first]
        assert repo.count_sets(session, repo.DONE) == 2
        assert repo.count_sets(session, repo.RUNNING) == 1
        assert repo.count_sets(session, repo.DONE, since=T0) == 0
        assert repo.count_sets(session, repo.DONE, since=T0 - dt.timedelta(hours=1)) == 2
        assert repo.count_versions(session, {"benched"}) == 1


def test_two_offers_at_once_record_a_set_once(engine: Engine) -> None:
    """Two threads, each with its own connection, offer one set's result at the same moment:
    whichever goes first, it is rated once (the other gets None, or on SQLite may be refused
    as locked: either way it changes nothing)."""
    with Session(engine) as session, session.begin():
        set_id = repo.create_set(session, authors_and_versions(session, 2), seed=1).id
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def offer(bullheads: list[int]) -> None:
        start.wait()
        try:
            with Session(engine) as session, session.begin():
                outcomes.append(repo.record_set(session, set_id, bullheads, [0, 0], TAU))
        except OperationalError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=offer, args=(heads,)) for heads in ([1, 2], [2, 1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorded = [outcome for outcome in outcomes if isinstance(outcome, repo.Recorded)]
    assert len(outcomes) == 2 and len(recorded) == 1
    with Session(engine) as session:
        assert [v.sets for v in session.scalars(select(Version))] == [1, 1]
        assert_stored_equals_replayed(session)


def test_a_bots_history_is_read_from_its_versions_not_from_every_set(tmp_path: Path) -> None:
    """SQLite, without statistics, plans a bot's rating history from the bot's versions through
    the seats' version index, not by walking every done set (`repository.rating_history`).
    `record_set` took statistics (of one set): they are dropped, so that the query's own shape
    is what is checked (a pooled connection may plan without them, or with stale ones)."""
    engine = open_database(tmp_path)
    upgrade(engine)
    with Session(engine) as session, session.begin():
        ids = authors_and_versions(session, 3)
        repo.record_set(session, repo.create_set(session, ids, seed=1).id, [1, 2, 3], [0] * 3, TAU)
        session.connection().exec_driver_sql("DELETE FROM sqlite_stat1")
    engine.dispose()  # connections read the statistics as they open
    asked: list[tuple[str, Any]] = []

    def note(conn: object, cursor: object, statement: str, params: Any, *_: object) -> None:
        asked.append((statement, params))

    event.listen(engine, "before_cursor_execute", note)
    try:
        with Session(engine) as session:
            bot = repo.bot_named(session, "bot1")
            assert bot is not None
            asked.clear()
            assert len(repo.rating_history(session, bot)) == 1
        (statement, params), *_ = [(s, p) for s, p in asked if "set_seats" in s]
        with engine.connect() as connection:
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params).all()
        steps = [row[-1] for row in plan]
        assert "versions" in steps[0] and "bot_id" in steps[0], steps  # from the bot's versions
        assert any("ix_set_seats_version_id_set_id" in step for step in steps), steps
        assert not any("ix_sets_status" in step for step in steps), steps
    finally:
        event.remove(engine, "before_cursor_execute", note)
        engine.dispose()
