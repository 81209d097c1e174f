"""The match loop: keeps `sets_at_once` sets playing, each recorded and rated in one transaction.

One turn of the loop: matchmaking picks a table of playable versions (`choose_table`), the set's
row is written `running` with its seats and seed BEFORE any game starts, the set is played
(`match.play_set`, in `DIR/sets/<id>/`), then its result, every seat's rating change, the
versions' new ratings and the set's `done` go in one transaction (`record_set`), and the bench
rule looks at the seats' recent faults.

Why it never loses a set nor rates one twice, whatever kills it:

- A set is `running` in the database before it plays, and `done` only in the transaction that
  rates it; that transaction first checks that the set is still `running`, so a set is rated at
  most once even if it were recorded twice.
- At start (`recover`) every `running` set is one that a killed server was playing: it becomes
  `abandoned` and its folder is removed. Abandoned sets (these, and those SIGTERM stopped) are
  played again first, with the same seats and seed, in a fresh folder, under the same id; one
  whose versions can no longer play (benched, retired) stays abandoned.
- SIGTERM (`stop`) starts no new set and stops the running ones through the runner's own stop
  (no new game, the games under way abandoned, every bot stopped): they become `abandoned`.

A bad version never ends the serve, as the contest must go on for everyone else: a set that
fails for a version's fault (its built folder gone or unreadable: `VersionFault`) is abandoned,
that version is benched with the reason shown to its author, and the loop carries on (the set
stays abandoned, as one of its versions can no longer play). A machine's fault (a full disk, a
database that cannot be reached: `machine_fault`) still ends the serve with one line, as no
other set could be played either.

The order sets are rated in is the order they were recorded (`finished_at`, then id), which is
what `rerate` replays. Matchmaking's randomness and the sets' seeds come from the loop's `rng`
(secret unless the organizer seeds it, as the tests do), one draw per set picked.
"""

from __future__ import annotations

import asyncio
import errno
import random
import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.errors import ArenaError, MachineError
from arena.ladder.alarm import Alarm
from arena.ladder.benching import bench
from arena.ladder.db import repository
from arena.ladder.db.engine import writing
from arena.ladder.db.models import LadderSet, SetSeat, Version
from arena.ladder.folder import LadderFolder
from arena.ladder.match import SetResult, play_set
from arena.ladder.matchmaking import Candidate, choose_table
from arena.ladder.rating import Rating
from arena.ladder.settings import LadderSettings
from arena.ladder.versions import (
    PLAYABLE,
    TRANSITIONS,
    Event,
    SetFaults,
    VersionStatus,
    bench_reason,
    is_placed,
    next_status,
    superseded,
)
from arena.server.declared import MAX_SEED
from arena.server.lobby import BotSpec
from arena.tournament.config import TournamentConfig
from arena.tournament.executor import Venue
from arena.tournament.store import BUILDS
from arena.tournament.submissions import bot_of, read_manifest

POLL = 1.0
"""Seconds the loop waits for news (a version vetted, a set ended) before it looks again."""
WORKERS_TIMEOUT = 10.0
"""Seconds the loop waits for a cluster's scheduler to say how many workers are up."""
MACHINE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.ENOMEM, errno.EMFILE, errno.ENFILE}
)
"""The OSErrors that are the machine's (a full disk, a read-only or failing one, no memory or
file handles left), whatever file they were met on: they end the serve."""


class VersionFault(Exception):
    """A version the loop cannot seat (its built folder gone or unreadable): it is benched for
    `reason` and the set abandoned, and the serve goes on."""

    def __init__(self, version: int, reason: str) -> None:
        super().__init__(reason)
        self.version = version
        self.reason = reason


def machine_fault(error: BaseException) -> bool:
    """Whether `error` is the machine's and not a version's: it ends the serve (one line)."""
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(error, MachineError | SQLAlchemyError):
        return True
    return isinstance(error, OSError) and error.errno in MACHINE_ERRNOS


def set_folder(ladder: Path, set_id: int) -> Path:
    """Where set `set_id`'s games are stored."""
    return LadderFolder(ladder).set_folder(set_id)


def seat_name(bot: str, number: int) -> str:
    """A version's name at a table: its bot's name and number (`heuristic.v2`): two versions
    never share one, as the name ends in `.v` and the number, which no bot's name can add."""
    return f"{bot}.v{number}"


@dataclass(frozen=True)
class Table:
    """A set about to be played: its id, seed and versions in seat order."""

    set_id: int
    seed: int
    versions: tuple[int, ...]
    names: tuple[str, ...]


@dataclass
class LoopReport:
    """What the loop has done since it started, for `/api/status` and the bench."""

    played: int = 0
    """Sets recorded by this serve."""
    abandoned: int = 0
    """Sets this serve abandoned (stopped or failed), to be played again."""
    bot_cpu: float = 0.0
    """Seconds of CPU the bots used in the sets recorded (where measured)."""
    running: set[int] = field(default_factory=set)
    """The sets playing now."""
    workers_up: int = 1
    """Where the games run: 1 on this machine; on a cluster, its workers up at the loop's last
    look (0 when the scheduler did not answer)."""
    workers_lost: list[str] = field(default_factory=list)
    """The cluster's workers lost while they played a set (their games played again)."""


class MatchLoop:
    """The ladder's match loop over its database (see the module's note)."""

    def __init__(
        self,
        ladder: Path,
        engine: Engine,
        settings: LadderSettings,
        template: TournamentConfig,
        *,
        venue: Venue | None = None,
        workers: Callable[[], Awaitable[int]] | None = None,
        rng: random.Random | None = None,
        say: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.ladder = ladder
        self.engine = engine
        self.settings = settings
        self.template = template
        self.venue = venue
        self.workers = workers
        """How many workers are up, on a cluster: asked once a turn of the loop."""
        self.rng = rng or random.Random(random.SystemRandom().getrandbits(64))
        self.say = say
        self.wake = Alarm()
        """Set when there may be a new table to make (a version became playable); armed anew
        by each run, on its own event loop (`alarm.Alarm`: an Event made here bound to the
        first loop, and under a second one the loop spun)."""
        self.report = LoopReport()

    def recover(self) -> list[int]:
        """Every `running` set (a killed server's) becomes `abandoned`, and every abandoned
        set's folder is removed: they are played again from scratch. Returns their ids."""
        with writing(self.engine) as session:
            repository.abandon_running(session)
            found = [s.id for s in repository.sets_with_status(session, repository.ABANDONED)]
        for set_id in found:
            shutil.rmtree(set_folder(self.ladder, set_id), ignore_errors=True)
        return found

    async def run(self, stop: asyncio.Event) -> None:
        """Play sets until `stop`: then start none, stop those playing (abandoned) and return."""
        self.wake.arm()
        self.recover()
        playing: dict[asyncio.Task[None], asyncio.Event] = {}
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                await self.count_workers()
                while len(playing) < self.settings.sets_at_once:
                    table = self.next_table()
                    if table is None:
                        break
                    halt = asyncio.Event()
                    playing[asyncio.create_task(self.play(table, halt))] = halt
                self.wake.clear()
                waking = asyncio.ensure_future(self.wake.wait())
                done, _ = await asyncio.wait(
                    [*playing, stopping, waking], timeout=POLL, return_when=asyncio.FIRST_COMPLETED
                )
                waking.cancel()
                for task in [task for task in playing if task in done]:
                    del playing[task]
                    task.result()  # a machine's error ends the serve (the set is abandoned)
        finally:
            stopping.cancel()
            for halt in playing.values():
                halt.set()
            await asyncio.gather(*playing, return_exceptions=True)

    async def count_workers(self) -> None:
        """The workers up, for the status page (a cluster's; this machine is one)."""
        if self.workers is None:
            return
        try:
            self.report.workers_up = await asyncio.wait_for(self.workers(), WORKERS_TIMEOUT)
        except (OSError, TimeoutError):  # the scheduler's silence is shown, not fatal here:
            self.report.workers_up = 0  # a set it fails to play says why

    def next_table(self) -> Table | None:
        """The next set, written `running` before it plays: an abandoned one whose versions
        can all play still (oldest first), else a new table from matchmaking; None if none."""
        with writing(self.engine) as session:
            table = self._again(session) or self._new(session)
            if table is not None:
                self.report.running.add(table.set_id)
            return table

    def _again(self, session: Session) -> Table | None:
        """The oldest abandoned set whose versions can all still play, now `running`."""
        for ladder_set in repository.sets_with_status(session, repository.ABANDONED):
            versions = [seat.version for seat in ladder_set.seats]
            if ladder_set.id in self.report.running or not all(map(_playable, versions)):
                continue
            if repository.start_set(session, ladder_set.id):
                return _table(ladder_set, versions)
        return None

    def _new(self, session: Session) -> Table | None:
        """A new table from matchmaking among the playable versions, its row `running`."""
        playable = repository.versions_with_status(session, PLAYABLE)
        candidates = [
            Candidate(
                version.id,
                version.bot.name,
                version.bot.author.name,
                Rating(version.mu, version.sigma),
                version.sets,
                version.last_played.timestamp() if version.last_played else None,
            )
            for version in playable
        ]
        chosen = choose_table(candidates, self.settings.players, self.rng, self.settings)
        if chosen is None:
            return None
        ladder_set = repository.create_set(session, chosen, self.rng.randint(0, MAX_SEED))
        by_id = {version.id: version for version in playable}
        return _table(ladder_set, [by_id[version] for version in chosen])

    async def play(self, table: Table, halt: asyncio.Event) -> None:
        """Play one set and record it; abandoned if it does not finish (or fails)."""
        folder = set_folder(self.ladder, table.set_id)
        shutil.rmtree(folder, ignore_errors=True)  # an abandoned set starts afresh
        try:
            seats = self.seats(table)
            result = await play_set(
                self.template, folder, seats, table.seed, venue=self.venue, stop=halt
            )
        except VersionFault as fault:
            self.abandon(table)
            self.bench(fault.version, fault.reason)
            return
        except Exception as error:
            self.abandon(table)
            if machine_fault(error):
                raise
            try:  # a version whose folder went away while it played: its fault, not ours
                self.seats(table)
            except VersionFault as fault:
                self.bench(fault.version, fault.reason)
                return
            raise
        except BaseException:
            self.abandon(table)
            raise
        self.report.workers_lost.extend(result.lost if result is not None else ())
        if result is None:
            self.abandon(table)
            return
        self.record(table, result)

    def seats(self, table: Table) -> list[BotSpec]:
        """The table's bots: each version's built folder, named for the table; VersionFault
        for the first version whose folder cannot be read (not for a machine's error)."""
        bots = []
        for version, name in zip(table.versions, table.names, strict=True):
            try:
                bots.append(version_bot(self.ladder, version, name))
            except (OSError, ArenaError, IndexError) as error:
                if machine_fault(error):
                    raise
                raise VersionFault(
                    version,
                    f"its built copy cannot be run ({_line(error)}): submit a new version",
                ) from None
        return bots

    def bench(self, version_id: int, reason: str) -> None:
        """Take a version out of play for `reason` (shown to its author): versions.py's
        `benched` event, for a version that can still play (one benched or retired already
        is left as it is)."""
        with writing(self.engine) as session:
            version = session.get(Version, version_id)
            if version is None or not bench(version, reason):
                return
            name = seat_name(version.bot.name, version.number)
        self.say(f"benched {name} (version {version_id}): {reason}")
        self.wake.set()

    def abandon(self, table: Table) -> None:
        """A set that did not finish: `abandoned`, its folder removed, to be played again."""
        self.report.running.discard(table.set_id)
        self.report.abandoned += 1
        with writing(self.engine) as session:
            repository.abandon_set(session, table.set_id)
        shutil.rmtree(set_folder(self.ladder, table.set_id), ignore_errors=True)

    def record(self, table: Table, result: SetResult) -> None:
        """The set's result and rating changes in one transaction (`record_set`), then the
        bench rule; the loop is told there may be a new table."""
        self.report.running.discard(table.set_id)
        with writing(self.engine) as session:
            if record_set(session, table.set_id, result, self.settings):
                self.report.played += 1
                self.report.bot_cpu += result.bot_cpu
        self.wake.set()


def record_set(session: Session, set_id: int, result: SetResult, settings: LadderSettings) -> bool:
    """Rate a `running` set and mark it `done` (`repository.record_set`), then move its
    versions on (placed, benched), all in the caller's transaction; False, changing nothing,
    if the set is not `running` (recorded already, or abandoned)."""
    recorded = repository.record_set(session, set_id, result.bullheads, result.faults, settings.tau)
    if recorded is None:
        return False
    ladder_set = session.get(LadderSet, set_id)
    assert ladder_set is not None
    for seat in sorted(ladder_set.seats, key=lambda seat: seat.seat):
        _after_set(session, seat.version, settings)
    return True


def _after_set(session: Session, version: Version, settings: LadderSettings) -> None:
    """A version that has played a set: placed once it played enough (its bot's older
    versions then retired: it takes their place), benched when it faulted in too many of its
    recent sets."""
    status = VersionStatus(version.status)
    if status is VersionStatus.PLACEMENT and is_placed(version.sets, settings):
        version.status = next_status(status, Event.PLACED)
        supersede(session, version, settings)
    recent = session.execute(
        select(LadderSet.id, SetSeat.faults)
        .join(LadderSet)
        .where(SetSeat.version_id == version.id, LadderSet.status == repository.DONE)
        .order_by(LadderSet.rated.desc())
        .limit(settings.bench_window)
    ).all()
    window = [SetFaults(set_id, faults or 0) for set_id, faults in reversed(recent)]
    reason = bench_reason(window, settings)
    if reason is not None:
        bench(version, reason)


def supersede(session: Session, version: Version, settings: LadderSettings) -> None:
    """A version gone active takes its bot's place: the versions `versions.superseded` names
    are retired (each keeps its history)."""
    same_bot = session.scalars(select(Version).where(Version.bot_id == version.bot_id)).all()
    playing = repository.versions_of_author(session, version.bot.author, PLAYABLE)
    retired = superseded(
        version.id,
        [other.id for other in same_bot],
        [each.id for each in playing],
        settings.active_per_author,
    )
    for other in [*same_bot, *playing]:
        if other.id in retired:
            _retire(other)


def _retire(version: Version) -> None:
    status = VersionStatus(version.status)
    if (status, Event.SUPERSEDED) in TRANSITIONS:
        version.status = next_status(status, Event.SUPERSEDED)


def version_bot(ladder: Path, version_id: int, name: str) -> BotSpec:
    """A vetted version as a bot to seat: its built copy's command (the one folder vetting
    left in `DIR/built/<id>/builds/`), under `name`."""
    copies = sorted((LadderFolder(ladder).built_version(version_id) / BUILDS).iterdir())
    return replace(bot_of(read_manifest(copies[0])), name=name)


def _line(error: BaseException) -> str:
    """An error as the one line its author reads: its message's first line, or its kind."""
    if isinstance(error, OSError) and error.strerror:  # not its path: the server's own
        return error.strerror
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _playable(version: Version) -> bool:
    return VersionStatus(version.status) in PLAYABLE


def _table(ladder_set: LadderSet, versions: Sequence[Version]) -> Table:
    return Table(
        ladder_set.id,
        ladder_set.seed,
        tuple(version.id for version in versions),
        tuple(seat_name(version.bot.name, version.number) for version in versions),
    )
