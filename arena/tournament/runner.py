"""Run a tournament: schedule, play what is not yet played, store each game, write the results.

Every finished game is committed to the results database as it ends, so an interrupted run keeps
all of them, and running the same tournament again plays only the games still missing. A
tournament also grows: more deals, or more bots, add only their games (the new deals, the new
bots' tables), and `--gauntlet BOT` plays only the tables of one bot. What must not change (the
rules, seed, deadlines, fault limit, sample, and each bot's fingerprint) is checked first, and a
change is refused with one line that names it and the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.server.isolation.fairness import CpuMode
from arena.server.lobby import Bot
from arena.server.session import Session, open_session
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.executor import Executor, LocalExecutor, WorkersReport, WorkersUp
from arena.tournament.fingerprint import bot_fingerprint, differences, shown_command
from arena.tournament.outcome import Disqualification, GameOutcome, GameSpec
from arena.tournament.problems import Problems
from arena.tournament.schedule import keep_tables, schedule
from arena.tournament.seed import choose_seed
from arena.tournament.standings import Standings
from arena.tournament.store import (
    DATABASE,
    LEFT_OUT,
    LOGS,
    PLANNED,
    RUN,
    WORK,
    Entry,
    ResultStore,
    TournamentMismatchError,
)
from arena.tournament.writer import write_results, write_standings

if TYPE_CHECKING:  # loads Dask: imported where a cluster is used
    from arena.tournament.cluster import Cluster

Progress = Callable[[int, int], None]
"""Told (games done, games in the tournament) after every game."""
Announce = Callable[[str], None]
"""Told a line for the organizer to act on during the run."""
Watch = Callable[[Standings], None]
"""Told the standings each time the live standings are written."""
Plan = Callable[[TournamentConfig, ResultStore], list[GameSpec]]
"""The games a run plans, from its config and its store (the tournament's: `_games`)."""
FIRST = asyncio.FIRST_COMPLETED
LIVE_SHARE = 0.1
"""The live standings take at most about this share of the run's time: after a write that took
d seconds, the next waits at least d / LIVE_SHARE, however many games ended meanwhile."""


@dataclass(frozen=True)
class RunSummary:
    """How a run ended."""

    standings: Standings
    """The standings over every game stored so far."""
    played: int
    """Games played by this run."""
    total: int
    """Games in the whole tournament, as this run planned it (stored ones included)."""
    stored: int
    """Games in the results database, this run's and earlier runs'."""
    interrupted: bool
    """True when the run stopped before every game was played."""
    problems: Problems = field(default_factory=Problems)
    """Bots disqualified, never connected, left out; faults by bot."""
    replaced: int = 0
    """Games dropped by `--replace`, to be played again."""
    workers: WorkersReport | None = None
    """On a cluster: the games each worker played, and the workers lost."""
    run: dict[str, Any] = field(default_factory=dict)
    """How the run played (the `RUN` note): its seed, and whether the bots ran sealed."""


async def run_tournament(
    config: TournamentConfig,
    progress: Progress | None = None,
    *,
    stop: asyncio.Event | None = None,
    announce: Announce | None = None,
    watch: Watch | None = None,
    games: Plan | None = None,
    identity: Mapping[str, Any] | None = None,
    saved: Callable[[GameOutcome], None] | None = None,
    cluster: Cluster | None = None,
    workers_up: WorkersUp | None = None,
) -> RunSummary:
    """Play the tournament's missing games and write its results.

    Setting `stop` ends the run early: no new game starts, those in progress are abandoned (a
    resume plays them again), every bot is stopped, and the standings of what finished are
    written. Cancelling the task does the same, then propagates. `announce` is told what the
    organizer must do or know during the run (start external bots; a tournament complete);
    `watch` is told the live standings every `config.standings_every` games.

    Another design than the tournament's plays through the same path: `games` plans its games
    instead of the schedule (told the config, its seed decided, and the store, its bots
    checked), `identity` joins the rules as what a resume must match, and `saved` is told every
    game as it is stored (`arena compare` reads its test from them, and sets `stop`).

    With `config.cluster` or `config.workers` the games run on a Dask cluster (`cluster`, when
    the caller holds one open already: it entered submissions through it), and `workers_up` is
    told how many workers are up as that changes.
    """
    config.check()
    say = announce or (lambda line: None)
    output = config.output
    output.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: results, logs, the seed
    chosen = config.seed is not None
    config, seed_line = choose_seed(config, output / DATABASE)
    say(seed_line)
    try:
        store = ResultStore(output / DATABASE, {**config.rules(), **(identity or {})})
    except TournamentMismatchError as error:
        raise ConfigError(
            f"{output} holds a tournament of other rules ({error}): choose a new --output "
            "folder for these, or give the same settings to add games to that one"
        ) from None
    with store:
        entries = _entries(config)
        replaced = _check_entries(store, config, entries)
        specs = (games or _games)(config, store)
        finished = store.finished_ids()
        planned = len(finished | {spec.game_id for spec in specs})
        left_out = [list(pair) for pair in config.left_out]
        run_note = {"seed": config.seed, "seed_chosen": chosen}
        store.enter(entries.values(), {PLANNED: planned, LEFT_OUT: left_out, RUN: run_note})
        todo = [spec for spec in specs if spec.game_id not in finished]
        stored = store.count()
        played = 0
        report: WorkersReport | None = None
        if progress:
            progress(stored, planned)
        if not todo and games is None:
            more = ": add deals with a larger --games, or bots with --bot"
            more = "" if config.gauntlet else more
            say(f"the tournament is complete: all {planned} games are stored in {output}{more}")
        live = _Live(store.path, output, list(entries), config.standings_every, watch)

        async def play() -> None:
            nonlocal played
            nonlocal report

            def sealed(sealing: Mapping[str, Any]) -> None:  # how this run's bots ran
                store.enter((), {RUN: {**run_note, **sealing}})

            async with _executor(config, say, announce, cluster, workers_up, sealed) as executor:
                bots = executor.bots
                out = _restore(store, bots)
                try:
                    async for outcome in executor.run(todo):
                        store.save(outcome, _newly_out(outcome, bots, out))
                        if saved is not None:
                            saved(outcome)
                        played += 1
                        if progress:
                            progress(stored + played, planned)
                        live.game_saved()
                finally:  # a bot put out with no game of its own to show it (rare) is kept too
                    _sweep(store, bots, out)
                    report = executor.report()
            # What the bots wrote after their last game (their exits, last words) is kept too.
            store.save_lines(line for bot in bots.values() for line in bot.lines.take_loose())

        try:
            completed = not todo or await _unless_stopped(play(), stop)
        except BaseException:
            # The results are written whatever ends the run, cancellation included; but when
            # they cannot be (the full disk that ended it), why the run ended is what is told.
            with contextlib.suppress(Exception):
                await live.settle()
                write_results(store, output, list(entries))
            raise
        await live.settle()
        standings, problems = write_results(store, output, list(entries))
        return RunSummary(
            standings,
            played,
            planned,
            store.count(),
            not completed,
            problems,
            replaced,
            report,
            store.notes().get(RUN, {}),
        )


def _entries(config: TournamentConfig) -> dict[str, Entry]:
    """Each bot of the run as the store keeps it, with its fingerprint."""
    given = dict(config.fingerprints)
    entries = {}
    for bot in config.bots:
        fingerprint = given.get(bot.name) or bot_fingerprint(bot)
        cwd = str(bot.cwd) if bot.cwd is not None else None
        entries[bot.name] = Entry(bot.name, fingerprint, shown_command(bot), bot.argv, cwd)
    return entries


def _check_entries(store: ResultStore, config: TournamentConfig, entries: dict[str, Entry]) -> int:
    """Refuse a run whose bots do not fit the stored tournament, with one line naming what and
    the way out; carry out `--replace`. Returns the games `--replace` dropped."""
    stored = store.entries()
    folder = config.output
    missing = sorted(set(stored) - set(entries))
    if missing and store.count():
        names = ", ".join(repr(name) for name in missing)
        raise ConfigError(
            f"{folder} holds games of {names}, not entered in this run: enter "
            f"{'them' if len(missing) > 1 else 'it'} again (the same command or submission), or "
            "choose a new --output folder"
        )
    if config.sample is not None and stored and set(stored) != set(entries) and store.count():
        raise ConfigError(
            f"{folder} holds a balanced sample drawn for bots {', '.join(sorted(stored))}: "
            "a sample cannot take other bots; choose a new --output folder"
        )
    for name, entry in entries.items():  # every bot checked before anything is dropped
        known = stored.get(name)
        if name != config.replace and known is not None and known.fingerprint != entry.fingerprint:
            raise ConfigError(
                f"bot {name!r} has changed since it played in {folder} "
                f"({differences(known.fingerprint, entry.fingerprint)}): choose a new --output "
                f"folder, or --replace {name} to drop its games and play them again"
            )
    if config.replace is None:
        return 0
    return store.replace(config.replace, entries[config.replace].fingerprint)


def _games(config: TournamentConfig, store: ResultStore) -> list[GameSpec]:
    """The games this run plans: every table's deals (as many as asked, never fewer than are
    stored), with stored tables keeping their numbers; only the gauntlet bot's, if one."""
    assert config.seed is not None, "the seed is chosen first (arena.tournament.seed)"
    specs = schedule(
        [bot.name for bot in config.bots],
        config.settings(),
        max(config.deals, store.deals()),
        config.seed,
        tables=config.sample,
    )
    specs = keep_tables(specs, store.tables())
    if config.gauntlet is not None:
        specs = [spec for spec in specs if config.gauntlet in spec.seats]
    return specs


class _Live:
    """The live standings: rewritten every `every` games from a reader of the store in a thread
    (so the games in progress never wait for them), one write at a time."""

    def __init__(
        self, database: Path, output: Path, entered: list[str], every: int, watch: Watch | None
    ) -> None:
        self._database = database
        self._output = output
        self._entered = entered
        self._every = every
        self._watch = watch
        self._since = 0
        self._not_before = 0.0
        self._task: asyncio.Task[None] | None = None

    def game_saved(self) -> None:
        self._since += 1
        if not self._every or self._since < self._every:
            return
        if self._task is not None and not self._task.done():
            return
        failed = self._task.exception() if self._task and not self._task.cancelled() else None
        if failed is not None:
            raise failed  # a bug of the standings: the run ends on it, as the final ones would
        if time.monotonic() < self._not_before:
            return
        self._since = 0
        self._task = asyncio.ensure_future(self._write())

    async def _write(self) -> None:
        began = time.monotonic()
        try:
            standings = await asyncio.to_thread(self._standings)
        except (OSError, sqlite3.Error):
            # Live standings that cannot be written (a full disk) do not end the run: the next
            # save, or the final standings, will, with one line saying why.
            self._not_before = time.monotonic() + 1.0
            return
        took = time.monotonic() - began
        self._not_before = time.monotonic() + took / LIVE_SHARE
        if self._watch is not None:
            self._watch(standings)

    def _standings(self) -> Standings:
        with ResultStore.reader(self._database) as reader:
            standings, _ = write_standings(reader, self._output, self._entered)
        return standings

    async def settle(self) -> None:
        """Wait for a write in progress (the final standings are written after it)."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


async def _unless_stopped(work: Coroutine[Any, Any, None], stop: asyncio.Event | None) -> bool:
    """Run `work` to its end, or until `stop` is set (then cancel it); True if it finished.

    A cancellation of the caller cancels `work` too, waits for it to clean up, and propagates.
    """
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait()) if stop is not None else None
    try:
        await asyncio.wait([t for t in (task, stopped) if t is not None], return_when=FIRST)
    finally:
        if stopped is not None:
            stopped.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait([task])
    if task.cancelled():
        return False
    task.result()  # an error of the run itself propagates
    return True


@asynccontextmanager
async def _executor(
    config: TournamentConfig,
    say: Announce,
    announce: Announce | None,
    cluster: Cluster | None,
    workers_up: WorkersUp | None,
    sealed: Callable[[Mapping[str, Any]], None] | None = None,
) -> AsyncIterator[Executor]:
    """The one place that chooses where the games run: on a Dask cluster's workers (each with
    an arena session of its own), or on this machine's one session. `sealed` is told how this
    machine's session runs its bots (`Sealing.to_dict`), or how the cluster's workers do."""
    if cluster is not None or config.distributed:
        from arena.tournament.cluster import open_cluster  # loads Dask: only for a cluster

        async with contextlib.AsyncExitStack() as stack:
            if cluster is None:
                cluster = await stack.enter_async_context(open_cluster(config))
            async with cluster.executor(config, say, workers_up, sealed) as executor:
                yield executor
        return
    async with open_session(
        list(config.bots),
        config.output / LOGS,
        config.bot_options(),
        public=config.public(),
        workdir=config.output / WORK,
    ) as session:
        if not (session.sealing.sealed and session.sealing.cgroups):
            say(session.sealing.describe())
        cpu = session.cpu
        if cpu.note and cpu.asked is not CpuMode.SHARED:  # fair CPU unavailable, or incomplete
            say(cpu.describe())
        elif cpu.fair and config.concurrency > len(cpu.cores):
            say(f"{cpu.describe()}: {len(cpu.cores)} games at once, not {config.concurrency}")
        if sealed is not None:
            sealed({**session.sealing.to_dict(), "cpu": cpu.to_dict()})
        _hand_out_tokens(session, announce)
        yield LocalExecutor(session, config.concurrency)


def _hand_out_tokens(session: Session, announce: Announce | None) -> None:
    """Tell the organizer how to start each external bot: where to connect, with which token."""
    address = session.public_address or session.address
    for bot in session.lobby.bots.values():
        if bot.spec.argv is None:
            token = session.lobby.external_token(bot.name)
            if announce is not None:
                announce(
                    f"start bot {bot.name!r} yourself, within the start-up timeout, with "
                    f"ARENA_ADDRESS={address} ARENA_TOKEN={token}"
                )


def _restore(store: ResultStore, bots: Mapping[str, Bot]) -> set[str]:
    """A resumed run carries on the fault counts and disqualifications of the earlier ones;
    returns the bots already out (whose disqualification is on record)."""
    faults = Counter(
        outcome.spec.seats[fault.seat] for outcome in store.results() for fault in outcome.faults
    )
    entries = store.entries()
    out = set()
    for name, bot in bots.items():
        entry = entries.get(name)
        on_record = entry.disqualified if entry is not None else None
        bot.referee.resume(faults[name], on_record.reason if on_record is not None else "")
        if on_record is not None:
            out.add(name)
    return out


def _newly_out(
    outcome: GameOutcome, bots: Mapping[str, Bot], out: set[str]
) -> list[Disqualification]:
    """The bots put out in this game: out by its end, not yet on record, and put out in it (as
    their referees say: `Referee.put_out_in`)."""
    news = []
    for name in outcome.disqualified:
        if name in out:
            continue
        if not bots[name].referee.put_out_in(outcome.faults, outcome.seat_of(name)):
            continue
        out.add(name)
        news.append(Disqualification(name, bots[name].referee.disqualified, outcome.game_id, 0))
    return news


def _sweep(store: ResultStore, bots: Mapping[str, Bot], out: set[str]) -> None:
    """Record the bots put out during the run that no game claimed, as out after every game."""
    for name, bot in bots.items():
        if bot.referee.disqualified and name not in out:
            out.add(name)
            store.disqualify(Disqualification(name, bot.referee.disqualified, "", 0))
