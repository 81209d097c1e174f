"""Every query and change the ladder makes to its database, each a small function on a
`Session`, so that the API, the match loop and the command line share one version of each.

None commits: the caller's transaction (`with Session(engine) as session, session.begin():`)
decides what goes together. Decisions:

- `record_set` is the one way a set's result gets in, and it is idempotent under any
  interleaving: its first statement turns the set from `running` to `done` only if it is still
  `running` (one conditional UPDATE, atomic on SQLite and PostgreSQL alike), so a set is rated
  once however often, or by however many processes, its result is offered. Its versions are then
  read `FOR UPDATE` (PostgreSQL; SQLite has one writer at a time anyway), so two sets sharing a
  version are rated one after the other, each from the other's result. It numbers the sets in
  the order they were rated (`sets.rated`): `stored_sets` replays them in that order, which is
  what `rerate` must equal (ids give the order sets were made in, not rated in, once several
  are played at once; a clock can go back). And it keeps SQLite's planner statistics fresh as
  the sets grow (`engine.keep_statistics`): without them the planner reads `sets.status`'s
  index, nearly every set, for any query on done sets.
- `begin_submission` writes the author's row before anything is counted, so that two uploads
  of one author take turns (a row lock on PostgreSQL, the write lock on SQLite) and the day's
  limit cannot be passed by sending two at once.
- Times are aware UTC (`now`); callers may pass their own for tests.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import case, delete, func, or_, select, update
from sqlalchemy.orm import Session, aliased, selectinload

from arena.ladder.db.engine import keep_statistics, write_first
from arena.ladder.db.models import (
    Author,
    Bot,
    LadderSet,
    LoginSession,
    OrganizerAction,
    SetSeat,
    Version,
)
from arena.ladder.errors import LadderError
from arena.ladder.rating import Rating, rate_set

QUEUED, RUNNING, DONE, ABANDONED = "queued", "running", "done", "abandoned"
"""A set's statuses: made and waiting, being played, rated (final), interrupted (to be played
again, `running` once more)."""
DAY = dt.timedelta(days=1)
"""The window of `submissions_today`: the last 24 hours, so no hour of the day is special."""


class BotTaken(LadderError):
    """A bot name another author submitted first: it is theirs (the API answers 403)."""


def now() -> dt.datetime:
    """The time as the database keeps it: aware, UTC."""
    return dt.datetime.now(dt.UTC)


# Authors


def add_author(
    session: Session,
    name: str,
    token_hash: str,
    organizer: bool = False,
    at: dt.datetime | None = None,
) -> Author:
    """A new author; LadderError if the name is taken."""
    if author_named(session, name) is not None:
        raise LadderError(f"there is an author {name!r} already: choose another name")
    author = Author(name=name, token_hash=token_hash, organizer=organizer, created_at=at or now())
    session.add(author)
    session.flush()
    return author


def author_named(session: Session, name: str) -> Author | None:
    return session.scalar(select(Author).where(Author.name == name))


def author_by_token_hash(session: Session, token_hash: str) -> Author | None:
    """The author whose token hashes to `token_hash`, revoked or not (`authors.signed_in`
    checks that, and compares in constant time)."""
    return session.scalar(select(Author).where(Author.token_hash == token_hash))


def all_authors(session: Session) -> list[Author]:
    """Every author, in the order they were added."""
    return list(session.scalars(select(Author).order_by(Author.id)))


def revoke_author(session: Session, name: str, at: dt.datetime | None = None) -> Author:
    """Refuse the author's token from now on (the first revocation's time is kept) and end
    every session of theirs; their bots and versions stay. LadderError if there is no such
    author."""
    author = author_named(session, name)
    if author is None:
        raise LadderError(f"there is no author {name!r}: `arena ladder author list` names them")
    at = at or now()
    if author.revoked_at is None:
        author.revoked_at = at
    session.execute(
        update(LoginSession)
        .where(LoginSession.author_id == author.id, LoginSession.ended_at.is_(None))
        .values(ended_at=at)
        .execution_options(synchronize_session="fetch")
    )
    return author


# Browsers signed in, and what organizers did


def start_session(
    session: Session,
    author: Author,
    id_hash: str,
    expires_at: dt.datetime,
    at: dt.datetime | None = None,
) -> LoginSession:
    """A browser signed in as `author` until `expires_at`, known by its id's sha256."""
    opened = LoginSession(
        id_hash=id_hash, author_id=author.id, created_at=at or now(), expires_at=expires_at
    )
    session.add(opened)
    session.flush()
    return opened


def prune_sessions(session: Session, before: dt.datetime) -> int:
    """Forget the sessions that expired or were ended before `before`: they sign no one in
    and would only grow the table. Returns how many."""
    pruned = session.execute(
        delete(LoginSession)
        .where(
            or_(
                LoginSession.expires_at < before,
                LoginSession.ended_at < before,
            )
        )
        .execution_options(synchronize_session=False)
    )
    return int(pruned.rowcount)  # type: ignore[attr-defined]  # a CursorResult's


def session_by_hash(session: Session, id_hash: str) -> LoginSession | None:
    """The session whose id hashes to `id_hash`, ended or not, with its author."""
    return session.scalar(
        select(LoginSession)
        .where(LoginSession.id_hash == id_hash)
        .options(selectinload(LoginSession.author))
    )


def record_action(
    session: Session,
    version: Version,
    organizer: Author,
    action: str,
    reason: str,
    at: dt.datetime | None = None,
) -> OrganizerAction:
    """What an organizer did to a version (benched, restored), and why."""
    done = OrganizerAction(
        version_id=version.id,
        organizer_id=organizer.id,
        action=action,
        reason=reason,
        at=at or now(),
    )
    session.add(done)
    session.flush()
    return done


def organizer_actions(session: Session, limit: int = 50) -> list[OrganizerAction]:
    """The organizers' latest actions, newest first, with their versions and organizers."""
    return list(
        session.scalars(
            select(OrganizerAction)
            .options(
                selectinload(OrganizerAction.version).selectinload(Version.bot),
                selectinload(OrganizerAction.organizer),
            )
            .order_by(OrganizerAction.id.desc())
            .limit(limit)
        )
    )


# Bots and versions


def bot_named(session: Session, name: str) -> Bot | None:
    """The bot named `name`, or None. A name holding a NUL names none, and the database is not
    asked: a URL's `%00` would reach PostgreSQL as a NUL, which its text cannot hold (a 500,
    not a 404). Any other name is looked up as it is, even one an upload would refuse: the
    pages' tests store such names to show they are escaped wherever they are shown."""
    if "\x00" in name:
        return None
    return session.scalar(select(Bot).where(Bot.name == name))


def begin_submission(session: Session, author: Author, at: dt.datetime | None = None) -> int:
    """Start an upload of `author`'s (see the module's note: it writes first, so uploads of one
    author take turns) and return how many versions they submitted in the last day. It begins
    a transaction of its own (`engine.write_first`): the request read its author before its
    body came, and on SQLite a write after another writer's commit would fail at once."""
    write_first(session)
    at = at or now()
    author.submitted_at = at
    session.flush()  # the UPDATE, now: this author's row is held until the caller commits
    return submissions_today(session, author, at)


def submissions_today(session: Session, author: Author, at: dt.datetime | None = None) -> int:
    """The versions `author` submitted in the 24 hours before `at`, whatever became of them."""
    since = (at or now()) - DAY
    count = session.scalar(
        select(func.count())
        .select_from(Version)
        .join(Bot)
        .where(Bot.author_id == author.id, Version.created_at > since)
    )
    return int(count or 0)


def add_version(
    session: Session,
    author: Author,
    bot_name: str,
    digest: str,
    status: str,
    rating: Rating,
    at: dt.datetime | None = None,
) -> Version:
    """The next version of bot `bot_name` (made, and owned by `author`, at its first version);
    BotTaken if another author owns the name. Its archive must be stored already."""
    at = at or now()
    bot = bot_named(session, bot_name)
    if bot is None:
        bot = Bot(name=bot_name, author_id=author.id, created_at=at)
        session.add(bot)
        session.flush()
    elif bot.author_id != author.id:
        raise BotTaken(
            f"the bot {bot_name!r} is another author's (the name belongs to whoever first "
            "submitted it): choose another name"
        )
    last = session.scalar(select(func.max(Version.number)).where(Version.bot_id == bot.id))
    version = Version(
        bot_id=bot.id,
        number=(last or 0) + 1,
        digest=digest,
        status=status,
        created_at=at,
        mu=rating.mu,
        sigma=rating.sigma,
    )
    session.add(version)
    session.flush()
    return version


def versions_with_status(session: Session, statuses: Iterable[str]) -> list[Version]:
    """The versions in any of `statuses`, oldest first, with their bots and authors loaded."""
    return list(
        session.scalars(
            select(Version)
            .where(Version.status.in_(sorted(statuses)))
            .options(selectinload(Version.bot).selectinload(Bot.author))
            .order_by(Version.id)
        )
    )


def versions_of_author(session: Session, author: Author, statuses: Iterable[str]) -> list[Version]:
    """`author`'s versions in any of `statuses` (e.g. the playable: the active per author
    limit), newest first."""
    return list(
        session.scalars(
            select(Version)
            .join(Bot)
            .where(Bot.author_id == author.id, Version.status.in_(sorted(statuses)))
            .order_by(Version.created_at.desc(), Version.id.desc())
        )
    )


# Sets


def create_set(
    session: Session,
    versions: Sequence[int],
    seed: int,
    status: str = RUNNING,
    at: dt.datetime | None = None,
) -> LadderSet:
    """A set of these versions, seat by seat, with its seed: `running` (started now) unless
    `status` says `queued`. LadderError for a table that seats a version twice."""
    if len(set(versions)) != len(versions) or len(versions) < 2:
        raise LadderError(f"a set seats two versions or more, each once, not {list(versions)}")
    at = at or now()
    started = at if status == RUNNING else None
    played = LadderSet(status=status, seed=seed, created_at=at, started_at=started)
    played.seats = [SetSeat(seat=seat, version_id=id_) for seat, id_ in enumerate(versions)]
    session.add(played)
    session.flush()
    return played


def start_set(session: Session, set_id: int, at: dt.datetime | None = None) -> bool:
    """A queued or abandoned set, `running` from now; False if it was neither."""
    return _move(session, set_id, (QUEUED, ABANDONED), RUNNING, started_at=at or now())


def abandon_set(session: Session, set_id: int) -> bool:
    """A running set that did not finish: `abandoned`, to be played again; False if it was not
    running (recorded meanwhile)."""
    return _move(session, set_id, (RUNNING,), ABANDONED)


def abandon_running(session: Session) -> list[int]:
    """Every set left `running` (by a server that was killed): `abandoned`, to be played
    again. What a serve does before it starts a set."""
    ids = list(session.scalars(select(LadderSet.id).where(LadderSet.status == RUNNING)))
    for set_id in ids:
        abandon_set(session, set_id)
    return ids


def sets_with_status(session: Session, status: str) -> list[LadderSet]:
    """The sets of one status, oldest first, with their seats."""
    return list(
        session.scalars(
            select(LadderSet)
            .where(LadderSet.status == status)
            .options(selectinload(LadderSet.seats))
            .order_by(LadderSet.id)
        )
    )


def _move(
    session: Session, set_id: int, sources: tuple[str, ...], target: str, **values: object
) -> bool:
    """Set `set_id`'s status to `target` if it is one of `sources`, in one statement."""
    moved = session.execute(
        update(LadderSet)
        .where(LadderSet.id == set_id, LadderSet.status.in_(sources))
        .values(status=target, **values)
        .execution_options(synchronize_session="fetch")
    )
    return bool(moved.rowcount)  # type: ignore[attr-defined]  # a CursorResult's


@dataclass(frozen=True)
class Recorded:
    """A set's rating changes, seat by seat."""

    before: tuple[Rating, ...]
    after: tuple[Rating, ...]


def record_set(
    session: Session,
    set_id: int,
    bullheads: Sequence[int],
    faults: Sequence[int],
    tau: float,
    at: dt.datetime | None = None,
) -> Recorded | None:
    """Rate a running set and store it: each seat's bullheads, faults and rating before and
    after, each version's new rating, set count and last play, the set `done` and numbered in
    the order of rating; None, changing nothing, if the set is not running (recorded already,
    abandoned). One transaction: the caller's (see the module's note on why it is idempotent).
    LadderError, with the caller's transaction to roll back, for a result that does not fit
    the set's seats."""
    at = at or now()
    if not _move(session, set_id, (RUNNING,), DONE, finished_at=at):
        return None
    seats = list(
        session.scalars(select(SetSeat).where(SetSeat.set_id == set_id).order_by(SetSeat.seat))
    )
    if not len(seats) == len(bullheads) == len(faults):
        raise LadderError(
            f"set {set_id} has {len(seats)} seats, not {len(bullheads)} bullhead and "
            f"{len(faults)} fault counts"
        )
    ids = [seat.version_id for seat in seats]
    locked = session.scalars(
        select(Version)
        .where(Version.id.in_(ids))
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    by_id = {version.id: version for version in locked}
    versions = [by_id[id_] for id_ in ids]
    before = [Rating(version.mu, version.sigma) for version in versions]
    after = rate_set(before, bullheads, tau)
    for seat, version, old, new, heads, faulted in zip(
        seats, versions, before, after, bullheads, faults, strict=True
    ):
        seat.bullheads, seat.faults = heads, faulted
        seat.mu_before, seat.sigma_before = old.mu, old.sigma
        seat.mu_after, seat.sigma_after = new.mu, new.sigma
        version.mu, version.sigma = new.mu, new.sigma
        version.sets += 1
        version.last_played = at
    rated = session.scalar(select(func.max(LadderSet.rated))) or 0
    session.execute(
        update(LadderSet)
        .where(LadderSet.id == set_id)
        .values(rated=rated + 1)
        .execution_options(synchronize_session="fetch")
    )
    session.flush()
    keep_statistics(session.connection())
    return Recorded(tuple(before), tuple(after))


def stored_sets(session: Session) -> list[tuple[list[int], list[int]]]:
    """Every done set in the order it was rated: (version ids, bullheads) seat by seat, what
    `rating.rerate` takes."""
    found: dict[int, tuple[list[int], list[int]]] = {}
    rows = session.execute(
        select(SetSeat.set_id, SetSeat.version_id, SetSeat.bullheads)
        .join(LadderSet)
        .where(LadderSet.status == DONE)
        .order_by(LadderSet.rated, LadderSet.id, SetSeat.seat)
    )
    for set_id, version_id, heads in rows:
        versions, bullheads = found.setdefault(set_id, ([], []))
        versions.append(version_id)
        bullheads.append(heads if heads is not None else 0)
    return list(found.values())


# What the API and the status command show


def leaderboard(session: Session, statuses: Iterable[str]) -> list[Version]:
    """The versions in `statuses` (the playable and the benched, say), best first: by rating
    (`Rating.ordinal`, mu - 3 sigma; one formula, the rating module's), then the older first."""
    shown = versions_with_status(session, statuses)
    return sorted(
        shown, key=lambda version: (-Rating(version.mu, version.sigma).ordinal, version.id)
    )


def rating_history(session: Session, bot: Bot) -> list[tuple[LadderSet, SetSeat]]:
    """Every seat any version of `bot` took in a done set, with its set, in the order the sets
    were rated: the points of its rating's graph.

    A done set is a rated one (`record_set` makes it both at once), and the query says rated:
    asked for `status = 'done'`, SQLite's planner, which has no statistics unless ANALYZE is
    run, takes the status index for selective and walks every done set to find the bot's (16 ms
    at 10,000 sets); from the bot's versions through the seats' version index it reads the
    bot's alone (0.5 ms; `bench.pages`, tests/ladder/test_repository.py checks the plan)."""
    rows = session.execute(
        select(LadderSet, SetSeat)
        .join(SetSeat, SetSeat.set_id == LadderSet.id)
        .join(Version, SetSeat.version_id == Version.id)
        .where(Version.bot_id == bot.id, LadderSet.rated.is_not(None))
        .order_by(LadderSet.rated, LadderSet.id)
    )
    return [(played, seat) for played, seat in rows]


def sets_of(session: Session, bot: Bot | None = None, limit: int = 50) -> list[LadderSet]:
    """The done sets, the last rated first, with their seats, each seat's version and its bot
    loaded (three queries in all, not one a seat); only `bot`'s with a bot."""
    query = select(LadderSet).where(LadderSet.status == DONE)
    if bot is not None:
        theirs = select(SetSeat.set_id).join(Version).where(Version.bot_id == bot.id)
        query = query.where(LadderSet.id.in_(theirs))
    seats = selectinload(LadderSet.seats)
    query = query.options(seats.selectinload(SetSeat.version).selectinload(Version.bot)).order_by(
        LadderSet.rated.desc(), LadderSet.id.desc()
    )
    return list(session.scalars(query.limit(limit)))


@dataclass(frozen=True)
class Meeting:
    """A bot's record against another, over every done set the two played at one table."""

    opponent: str
    sets: int
    mean_difference: float
    """The bot's bullheads minus the opponent's, per set, averaged (negative: the bot did
    better)."""
    better: int
    """Sets in which the bot took fewer bullheads than the opponent."""


def head_to_head(session: Session, bot: Bot) -> list[Meeting]:
    """`bot` against every bot it met (any of their versions), most sets first: one query,
    summed in the database, however many sets there are. A set is counted once done, when
    `record_set` wrote its seats' bullheads: the query asks for those rather than the set's
    status, so that it starts from the bot's own seats (its versions' index) and never reads
    every done set (SQLite, without statistics, would start from `sets.status`'s index)."""
    mine, theirs = aliased(SetSeat), aliased(SetSeat)
    own, other = aliased(Version), aliased(Version)
    difference = mine.bullheads - theirs.bullheads
    rows = session.execute(
        select(
            Bot.name,
            func.count(),
            func.avg(difference),
            func.sum(case((difference < 0, 1), else_=0)),
        )
        .select_from(mine)
        .join(own, own.id == mine.version_id)
        .join(theirs, theirs.set_id == mine.set_id)
        .join(other, other.id == theirs.version_id)
        .join(Bot, Bot.id == other.bot_id)
        .where(
            own.bot_id == bot.id,
            other.bot_id != bot.id,
            mine.bullheads.is_not(None),
            theirs.bullheads.is_not(None),
        )
        .group_by(Bot.name)
        .order_by(func.count().desc(), Bot.name)
    )
    return [
        Meeting(name, int(sets), float(mean or 0.0), int(better or 0))
        for name, sets, mean, better in rows
    ]


def leaderboard_stamp(session: Session) -> str:
    """What changes whenever the leaderboard may: the last set rated, and each status's count
    and sum of version ids (a version moving between statuses changes both sums). Two small
    queries, for the live leaderboard to ask often and the page to be rendered only when it
    changed."""
    rated = session.scalar(select(func.max(LadderSet.rated))) or 0
    counts = session.execute(
        select(Version.status, func.count(), func.sum(Version.id))
        .group_by(Version.status)
        .order_by(Version.status)
    )
    return f"{rated}:" + ",".join(f"{status}={count}/{ids}" for status, count, ids in counts)


def count_sets(session: Session, status: str, since: dt.datetime | None = None) -> int:
    """How many sets have `status` (finished after `since`, with one: sets per hour)."""
    query = select(func.count()).select_from(LadderSet).where(LadderSet.status == status)
    if since is not None:
        query = query.where(LadderSet.finished_at > since)
    return int(session.scalar(query) or 0)


def count_versions(session: Session, statuses: Iterable[str]) -> int:
    """How many versions are in any of `statuses` (the vetting queue, the benched)."""
    query = select(func.count()).select_from(Version).where(Version.status.in_(sorted(statuses)))
    return int(session.scalar(query) or 0)
