"""Run a tournament: schedule, play what is not yet played, store each game, write the results.

Every finished game is committed to the results database as it ends, so an interrupted run keeps
all of them, and running the same tournament again plays only the games still missing. A
tournament also grows: more deals, or more bots, add only their games (the new deals, the new
bots' tables), and `--gauntlet BOT` plays only the tables of one bot. What must not change (the
rules, seed, deadlines, fault limit, sample, and each bot's fingerprint) is checked first, and a
change is refused with one line that names it and the way out. Every check is made before the
first write (`check_run`: the database is read, never written, for them), and the output folder
is made and held (`arena.tournament.folder`) only once they passed: a refused run leaves the
folder absent, or as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.server.lobby import Bot
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.executor import Venue, WorkersReport
from arena.tournament.fingerprint import bot_fingerprint, differences, shown_command
from arena.tournament.folder import hold_output, take_back
from arena.tournament.machine import ThisMachine
from arena.tournament.observer import Observer
from arena.tournament.outcome import Disqualification, GameOutcome, GameSpec
from arena.tournament.problems import Problems
from arena.tournament.schedule import keep_seatings, round_robin_size, sample_size, schedule
from arena.tournament.seed import choose_seed
from arena.tournament.standings import Standings, StandingsTally
from arena.tournament.store import (
    DATABASE,
    LEFT_OUT,
    PLANNED,
    RUN,
    Entry,
    ResultStore,
    TournamentMismatchError,
)
from arena.tournament.writer import write_results, write_standings

FIRST = asyncio.FIRST_COMPLETED
LIVE_SHARE = 0.02
"""The live standings take at most about this share of the run's time: after a write that took
d seconds, the next waits at least d / LIVE_SHARE, however many games ended meanwhile. A write
costs its intervals' resamples, about 0.1 s of CPU whatever the games (`_Live`): at a tenth,
fast bots' tournaments spent a tenth of the arena's CPU on standings rewritten every second;
at a fiftieth they are rewritten every five seconds or so, which a reader does not miss."""


@dataclass(frozen=True)
class RunSummary:
    """How a run ended."""

    standings: Standings
    """The standings over every game stored so far."""
    played: int
    """Games played by this run."""
    total: int
    """Games this run planned, stored ones included: with `--gauntlet`, the gauntlet's and the
    games stored before it; else the whole tournament's (`whole`)."""
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
    whole: int = 0
    """Games in the whole tournament (every seating of the round-robin or the sample, every
    deal), stored ones included: more than `total` when a gauntlet left some tables out."""


class Design(Protocol):
    """What a run plays, and what its results database must match besides the rules: the
    tournament's schedule (`TournamentDesign`), or another design played through the same path
    (`arena compare`'s paired deals: `compare.PairedDesign`)."""

    def identity(self) -> Mapping[str, Any]:
        """What joins the rules as what a resume must match (nothing, for a tournament)."""
        ...

    def read(self, outcome: GameOutcome) -> bool:
        """A stored game: each of the earlier runs' (in store order, before `plan`), then each
        of this run's as it is stored. True once the design needs no more games: the run then
        stops as it does when stopped."""
        ...

    def plan(self, config: TournamentConfig, store: ResultStore) -> list[GameSpec]:
        """The design's games, stored ones included (the run plays the others): told the config
        with its seed decided, and the store with its bots checked."""
        ...

    def nothing_left(self, config: TournamentConfig, planned: int, observer: Observer) -> None:
        """The run has no game to play: tell the organizer what that means, if anything."""
        ...

    def whole(self, config: TournamentConfig, store: ResultStore, planned: int) -> int | None:
        """Games in the whole design, stored ones included (the `planned` note the standings
        and the report show), told the games this run planned; None where no count is known
        in advance (a comparison plays until its test decides)."""
        ...


class TournamentDesign:
    """The tournament's own design: every seating of the schedule, as many deals as asked."""

    def identity(self) -> Mapping[str, Any]:
        """The rules alone."""
        return {}

    def read(self, outcome: GameOutcome) -> bool:
        """A tournament plays every game it planned."""
        return False

    def plan(self, config: TournamentConfig, store: ResultStore) -> list[GameSpec]:
        """Every seating's deals (as many as asked, never fewer than are stored), with stored
        seatings keeping their numbers; only the gauntlet bot's, if one."""
        assert config.seed is not None, "the seed is chosen first (arena.tournament.seed)"
        specs = schedule(
            [bot.name for bot in config.bots],
            config.settings(),
            max(config.deals, store.deals()),
            config.seed,
            seatings=config.sample,
        )
        specs = keep_seatings(specs, store.seatings())
        if config.gauntlet is not None:
            specs = [spec for spec in specs if config.gauntlet in spec.seats]
        return specs

    def nothing_left(self, config: TournamentConfig, planned: int, observer: Observer) -> None:
        """Say that the tournament (or the gauntlet) is complete, and how to grow it."""
        if config.gauntlet is not None:  # what the rest lacks, the summary says
            observer.announce(
                f"the gauntlet of {config.gauntlet} is complete: every game of its tables is "
                f"stored in {config.output}"
            )
            return
        observer.announce(
            f"the tournament is complete: all {planned} games are stored in {config.output}: "
            "add deals with a larger --games, or bots with --bot"
        )

    def whole(self, config: TournamentConfig, store: ResultStore, planned: int) -> int:
        """What the run planned, but for a gauntlet, which plays the tables of one bot and
        leaves the others to a later run: every table of the schedule."""
        if config.gauntlet is None:
            return planned
        bots, seats = len(config.bots), config.table_size
        deals = max(config.deals, store.deals())
        if config.sample is not None:
            return max(planned, sample_size(bots, seats, config.sample, deals).games)
        return max(planned, round_robin_size(bots, seats, deals).games)


QUIET = Observer()
"""An observer told everything, showing nothing: the default."""
TOURNAMENT = TournamentDesign()
"""The tournament's design: the default."""


async def run_tournament(
    config: TournamentConfig,
    *,
    observer: Observer = QUIET,
    design: Design = TOURNAMENT,
    venue: Venue | None = None,
    stop: asyncio.Event | None = None,
) -> RunSummary:
    """Play the design's missing games (the tournament's, by default) and write its results.

    The run reads top to bottom: the seed, the store (refused if it holds other rules or other
    bots), the games stored by earlier runs (told to the design, their faults carried on), the
    design's plan, then the games missing, played where `venue` says (on this machine, or on
    the Dask cluster of `config.cluster` or `config.workers`, unless the caller holds one open:
    it entered submissions through it), each stored as it ends; then the results.

    Setting `stop` ends the run early: no new game starts, those in progress are abandoned (a
    resume plays them again), every bot is stopped, and the standings of what finished are
    written; a design that needs no more games ends it the same way. Cancelling the task does
    the same, then propagates. `observer` is told the progress, what the organizer must do or
    know, the live standings every `config.standings_every` games, the workers up, and every
    game as it is stored.
    """
    output = config.output
    chosen = config.seed is not None
    with contextlib.ExitStack() as held:
        hold = held.enter_context(hold_output(output))  # refused if another run holds it
        config, seed_line, entries = _checked(config, design)
        made = hold.make()  # every check passed: the first write
        held.push(lambda kind, *_: _taken_back(made, output, kind))
        observer.announce(seed_line)
        store = held.enter_context(_open_store(config, design))
        replaced = _check_entries(store, config, entries, observer)
        earlier = _read_earlier(store, design)
        specs = design.plan(config, store)
        finished = store.finished_ids()
        planned = len(finished | {spec.game_id for spec in specs})
        whole = design.whole(config, store, planned)
        run_note = {"seed": config.seed, "seed_chosen": chosen}
        left_out = [list(pair) for pair in config.left_out]
        store.enter(entries.values(), {PLANNED: whole, LEFT_OUT: left_out, RUN: run_note})
        todo = [spec for spec in specs if spec.game_id not in finished]
        live = _Live(store.path, output, list(entries), config.standings_every, observer.standings)
        games = _Games(store, observer, design, live, run_note, earlier, store.count(), planned)
        observer.progress(games.stored, planned)
        if not todo:
            design.nothing_left(config, planned, observer)
        try:
            completed = not todo or await _unless_stopped(
                games.play(venue or _venue(config), config, todo), stop, games.decided
            )
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
            games.played,
            planned,
            store.count(),
            not completed,
            problems,
            replaced,
            games.workers,
            store.notes().get(RUN, {}),
            planned if whole is None else whole,
        )


def _taken_back(made: Path | None, output: Path, kind: type[BaseException] | None) -> bool:
    """When the run fails (an error, not an interruption) before its first game is stored,
    take back the folder it made (`take_back`); never suppresses the error."""
    if kind is not None and issubclass(kind, Exception):
        take_back(made, output / DATABASE)
    return False


def check_run(config: TournamentConfig, design: Design = TOURNAMENT) -> None:
    """Every check `run_tournament` makes before it writes anything: the config's, and whether
    the database in its output folder (read, never written) can take it. A caller with work to
    do before the run (`arena run --submissions`: the builds) makes them before that work,
    holding the folder (`hold_output`), as the run does."""
    _checked(config, design)


def _checked(
    config: TournamentConfig, design: Design
) -> tuple[TournamentConfig, str, dict[str, Entry]]:
    """Check the run (`check_run`); return its config with the seed decided, the organizer's
    line about the seed, and its bots as the store keeps them."""
    config.check()
    config, seed_line = choose_seed(config, config.output / DATABASE, held=True)
    entries = _entries(config)
    _check_stored(config, design, entries)
    return config, seed_line, entries


def _open_store(config: TournamentConfig, design: Design) -> ResultStore:
    """The run's results database, refused with one line if it holds a tournament of other
    rules (or another design's)."""
    try:
        return ResultStore(config.output / DATABASE, {**config.rules(), **design.identity()})
    except TournamentMismatchError as error:
        raise ConfigError(_other_rules(config, str(error))) from None


def _other_rules(config: TournamentConfig, differences: str) -> str:
    return (
        f"{config.output} holds a tournament of other rules ({differences}): choose a new "
        "--output folder for these, or give the same settings to add games to that one"
    )


def _check_stored(config: TournamentConfig, design: Design, entries: dict[str, Entry]) -> None:
    """Refuse, before anything is written, a run that the database in its output folder cannot
    take (other rules, other bots: `_refuse_entries`), reading it only; the writing open checks
    again what another run may have changed meanwhile."""
    database = config.output / DATABASE
    if not database.is_file():
        return
    with ResultStore.reader(database, held=True) as store:
        mismatch = store.mismatch({**config.rules(), **design.identity()})
        if mismatch is not None:
            raise ConfigError(_other_rules(config, mismatch))
        _refuse_entries(store, config, entries)


def _read_earlier(store: ResultStore, design: Design) -> Counter[str]:
    """The games stored by earlier runs, read once: each told to the design, in store order,
    and their faults counted by bot (a resumed run carries them on: `_restore`)."""
    faults: Counter[str] = Counter()
    for outcome in store.results():
        design.read(outcome)
        faults.update(outcome.spec.seats[fault.seat] for fault in outcome.faults)
    return faults


def _venue(config: TournamentConfig) -> Venue:
    """The one place that chooses where the games run when the caller did not: on a Dask
    cluster's workers (each with an arena session of its own), or on this machine's one
    session."""
    if not config.distributed:
        return ThisMachine()
    from arena.tournament.cluster import ClusterForRun  # loads Dask: only for a cluster

    return ClusterForRun()


@dataclass
class _Games:
    """This run's games as they are played: each stored as it ends and told to the observer and
    the design; what the summary needs of them is kept here, a run stopped midway included."""

    store: ResultStore
    observer: Observer
    design: Design
    live: _Live
    run_note: dict[str, Any]
    """The run's `RUN` note so far (its seed), to which how the bots run is added."""
    earlier: Counter[str]
    """The faults of each bot stored by earlier runs."""
    stored: int
    """Games stored before this run."""
    planned: int
    played: int = 0
    workers: WorkersReport | None = None
    decided: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the design needs no more games."""

    async def play(self, venue: Venue, config: TournamentConfig, todo: list[GameSpec]) -> None:
        """Play `todo` on the venue's executor, the bots' earlier record carried on."""
        async with venue.executor(config, self.observer) as executor:
            self.store.enter((), {RUN: {**self.run_note, **executor.how_bots_run()}})
            bots = executor.bots
            out = _restore(self.store, bots, self.earlier)
            try:
                async for outcome in executor.run(todo):
                    self._save(outcome, bots, out)
            finally:  # a bot put out with no game of its own to show it (rare) is kept too
                _sweep(self.store, bots, out)
                self.workers = executor.report()
        # What the bots wrote after their last game (their exits, last words) is kept too.
        self.store.save_lines(line for bot in bots.values() for line in bot.lines.take_loose())

    def _save(self, outcome: GameOutcome, bots: Mapping[str, Bot], out: set[str]) -> None:
        self.store.save(outcome, _newly_out(outcome, bots, out))
        self.observer.saved(outcome)
        if self.design.read(outcome):
            self.decided.set()
        self.played += 1
        self.observer.progress(self.stored + self.played, self.planned)
        self.live.game_saved()


def _entries(config: TournamentConfig) -> dict[str, Entry]:
    """Each bot of the run as the store keeps it, with its fingerprint."""
    given = dict(config.fingerprints)
    entries = {}
    for bot in config.bots:
        fingerprint = given.get(bot.name) or bot_fingerprint(bot)
        cwd = str(bot.cwd) if bot.cwd is not None else None
        entries[bot.name] = Entry(bot.name, fingerprint, shown_command(bot), bot.argv, cwd)
    return entries


def _check_entries(
    store: ResultStore, config: TournamentConfig, entries: dict[str, Entry], observer: Observer
) -> int:
    """Refuse a run whose bots do not fit the stored tournament (`_refuse_entries`); carry out
    `--replace`, telling the organizer what it drops. Returns the games `--replace` dropped.

    A bot named by `--replace` is replayed even when its fingerprint has not changed: the
    fingerprint covers its command and the files the command names, not a module it imports
    nor an external bot's program, so "unchanged" may be a change it cannot see; the organizer
    asked, and is told."""
    _refuse_entries(store, config, entries)
    name = config.replace
    if name is None:
        return 0
    known = store.entries().get(name)
    dropped = store.replace(name, entries[name].fingerprint)
    if not dropped:
        observer.announce(f"--replace {name}: it has no stored games; nothing is dropped")
        return 0
    line = f"--replace {name}: its {dropped} stored games are dropped and played again"
    if known is not None and known.fingerprint == entries[name].fingerprint:
        line += (
            f"; {name} has the fingerprint they were played with (its command and the files "
            "it names): only what that does not cover (a module it imports, an external bot's "
            "program) or chance can make them differ"
        )
    observer.announce(line)
    return dropped


def _refuse_entries(
    store: ResultStore, config: TournamentConfig, entries: dict[str, Entry]
) -> None:
    """Refuse a run whose bots do not fit the stored tournament, with one line naming what and
    the way out: a bot that played and is not entered, other bots for a sample, a changed bot
    not named by `--replace`."""
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


class _Live:
    """The live standings: rewritten every `every` games from a reader of the store in a thread
    (so the games in progress never wait for them), one write at a time. Each write reads only
    the games saved since the last into a tally it keeps (`StandingsTally`), so that a game is
    read and counted once in a run, not once a write: what a write costs is then the intervals'
    resamples alone, and no longer grows with the games played."""

    def __init__(
        self,
        database: Path,
        output: Path,
        entered: list[str],
        every: int,
        watch: Callable[[Standings], None],
    ) -> None:
        self._database = database
        self._output = output
        self._entered = entered
        self._every = every
        self._watch = watch
        self._since = 0
        self._not_before = 0.0
        self._task: asyncio.Task[None] | None = None
        self._tally = StandingsTally()
        """Every game saved up to `_counted`, counted: touched by one write at a time."""
        self._counted = 0

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
        self._watch(standings)

    def _standings(self) -> Standings:
        with ResultStore.reader(self._database) as reader:
            for saved, outcome in reader.results_since(self._counted):
                self._tally.add(outcome)
                self._counted = saved
            standings, _ = write_standings(reader, self._output, self._entered, self._tally)
        return standings

    async def settle(self) -> None:
        """Wait for a write in progress (the final standings are written after it)."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


async def _unless_stopped(work: Coroutine[Any, Any, None], *stops: asyncio.Event | None) -> bool:
    """Run `work` to its end, or until one of `stops` is set (then cancel it); True if it
    finished.

    A cancellation of the caller cancels `work` too, waits for it to clean up, and propagates.
    """
    task = asyncio.ensure_future(work)
    stopped = [asyncio.ensure_future(stop.wait()) for stop in stops if stop is not None]
    try:
        await asyncio.wait([task, *stopped], return_when=FIRST)
    finally:
        for waiting in stopped:
            waiting.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait([task])
    if task.cancelled():
        return False
    task.result()  # an error of the run itself propagates
    return True


def _restore(store: ResultStore, bots: Mapping[str, Bot], faults: Counter[str]) -> set[str]:
    """A resumed run carries on the fault counts (`faults`, by bot) and disqualifications of the
    earlier ones; returns the bots already out (whose disqualification is on record)."""
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
