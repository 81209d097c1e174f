"""The `arena` command: thin click commands that parse, call the library, and print.

Importing this module loads no gRPC: `arena --help`, `arena replay`, `arena report` and `arena
play` with built-in strategies never need it. What does (the server, the bot processes, the
tournament runner and its configuration) is imported inside the commands that use it, and the
options built from it (`arena run`'s, from the tournament's declared settings; `arena
check-bot`'s defaults) are built when their command first parses or shows its help.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import random
import shlex
import signal
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Never

import click

from arena.players import BUILTIN, Fault, GameResult, LocalPlayer, play_game
from arena.rules import (
    DEFAULT_END_SCORE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    GameRecord,
    Settings,
    Variant,
)
from arena.server.errors import BotError
from arena.spectate import (
    DEFAULT_MAX_GAMES,
    GameSource,
    SpectateError,
    game_list,
    open_games,
    show_game,
    step_through,
    terminal_paint,
    write_report,
)
from arena.spectate.botlogs import BotLines, listing
from arena.spectate.display import fault_line, render_game
from arena.tournament import GameOutcome
from arena.tournament.errors import ConfigError, StoreError
from arena.tournament.standings import Standings, pairwise_table, standings_table
from arena.tournament.store import LOGS
from arena.tournament.timing import times_table

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from tqdm import tqdm

    from arena.server.checkbot import Check, CheckOptions
    from arena.server.lobby import BotOptions, BotSpec
    from arena.tournament.cluster import Cluster
    from arena.tournament.compare import CompareConfig, CompareResult
    from arena.tournament.config import Setting, TournamentConfig
    from arena.tournament.runner import RunSummary
    from arena.tournament.stats.sprt import SprtState

BAD_INPUT = (ConfigError, BotError, StoreError)
"""The errors of bad input (a tournament, a bot, an output folder), each reported as one line;
anything else that escapes a command is a bug, and shows its traceback."""


def _bot_spec(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[BotSpec]:
    if not values:
        return []
    from arena.server.specs import parse_bot

    try:
        return [parse_bot(value) for value in values]
    except BotError as error:
        raise click.BadParameter(str(error), ctx, param) from None


class _LazyOptions(click.Command):
    """A command some of whose options are built when it first parses or shows its help, since
    building them imports modules that load gRPC; they go after the parameter named `after`."""

    def __init__(
        self, *args: Any, build: Callable[[], list[click.Parameter]], after: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._build: Callable[[], list[click.Parameter]] | None = build
        self._after = after

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if self._build is not None:
            built, self._build = self._build(), None
            names = [param.name for param in self.params]
            at = names.index(self._after) + 1
            self.params[at:at] = built
        return super().get_params(ctx)


@click.group()
@click.version_option(package_name="arena")
def main() -> None:
    """Run 6 nimmt! bot games and tournaments."""


@main.command()
@click.option(
    "--players",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=None,
    help="Seats at the table (default: one per --bot, else 4).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deal.")
@click.option(
    "--variant",
    type=click.Choice([v.value for v in Variant]),
    default=Variant.STANDARD.value,
    show_default=True,
)
@click.option(
    "--end-score", type=click.IntRange(min=1), default=DEFAULT_END_SCORE, show_default=True
)
@click.option("--max-rounds", type=click.IntRange(min=1), default=None, help="Cap on rounds.")
@click.option(
    "--strategy",
    "strategies",
    type=click.Choice(sorted(BUILTIN)),
    multiple=True,
    help="Built-in strategy for the next seat (repeatable); default: random, lowest, highest.",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=_bot_spec,
    metavar="[NAME=]COMMAND",
    help="A bot for the next seat (repeatable): a gRPC program, NAME=stdio:COMMAND for a "
    "line-protocol one, or NAME=external for one you start yourself.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.001),
    default=1.0,
    show_default=True,
    help="Seconds a bot has for each decision.",
)
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the bots' logs (default: a temporary one).",
)
@click.option(
    "--rotation",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seat rotation of the deal: seat s holds the hand dealt to seat s + ROTATION.",
)
@click.option(
    "--game",
    metavar="ID|NUMBER",
    help="Play this game of OUTPUT_FOLDER's tournament again, with its bots, seed, seats and "
    "rotation, and say whether it came out the same (exit 0 if so, 4 if not).",
)
@click.argument(
    "results",
    required=False,
    metavar="[OUTPUT_FOLDER]",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
def play(
    players: int | None,
    seed: int,
    variant: str,
    end_score: int,
    max_rounds: int | None,
    strategies: tuple[str, ...],
    bots: list[BotSpec],
    deadline: float,
    logs: Path | None,
    rotation: int,
    game: str | None,
    results: Path | None,
) -> None:
    """Play one seeded game and print it turn by turn; or, with --game ID OUTPUT_FOLDER, play a
    game of a tournament again."""
    if (game is None) != (results is None):
        raise click.UsageError(
            "--game ID and an OUTPUT_FOLDER go together: arena play --game ID OUT"
        )
    if game is not None and results is not None:
        if bots or strategies:
            raise click.UsageError("--game plays the tournament's own bots: no --bot or --strategy")
        with _one_line("give --logs a folder you can write to"):
            same = asyncio.run(_play_again(results, game, logs))
        sys.exit(EXIT_OK if same else EXIT_DIFFERENT)
    if bots and strategies:
        raise click.UsageError("use either --bot or --strategy, not both")
    seats = players or len(bots) or 4
    if bots and len(bots) != seats:
        raise click.UsageError(f"--players {seats} needs {seats} --bot options, not {len(bots)}")
    if seats < MIN_PLAYERS:
        raise click.UsageError(
            f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players: give another --bot (or "
            "--players and no --bot, for the built-in strategies)"
        )
    if rotation >= seats:
        raise click.UsageError(f"--rotation must be below the {seats} players, not {rotation}")
    settings = Settings(seats, Variant(variant), end_score, max_rounds)
    if bots:
        names = [bot.name for bot in bots]
        if len(set(names)) != len(names):
            raise click.UsageError("two bots have the same name: name them with NAME=COMMAND")
        with _one_line("give --logs a folder you can write to"):
            result = asyncio.run(_play_bots(settings, bots, seed, deadline, logs, rotation))
    else:
        cycle = strategies or ("random", "lowest", "highest")
        chosen = [cycle[seat % len(cycle)] for seat in range(seats)]
        names = [f"{seat}:{name}" for seat, name in enumerate(chosen)]
        local = [LocalPlayer(BUILTIN[name](f"{seed}:{seat}")) for seat, name in enumerate(chosen)]
        rng = random.Random(seed)
        result = asyncio.run(play_game(settings, local, rng, rotation, names=names))
    click.echo(f"seed {seed}, " + render_game(result.record, names))
    for fault in result.faults:
        click.echo(fault_line(fault, names))


async def _play_bots(
    settings: Settings,
    bots: list[BotSpec],
    seed: int,
    deadline: float | BotOptions,
    logs: Path | None,
    rotation: int = 0,
    game_id: str = "",
) -> GameResult:
    from arena.server.lobby import BotOptions
    from arena.server.session import open_session

    with tempfile.TemporaryDirectory(prefix="arena-") as scratch:
        folder = logs or Path(scratch)
        external = [bot.name for bot in bots if bot.argv is None]
        options = deadline if isinstance(deadline, BotOptions) else BotOptions(deadline=deadline)
        if external:  # a person starts these: give them time to
            options = replace(options, startup_timeout=EXTERNAL_WAIT)
        async with open_session(bots, folder, options) as session:
            for name in external:
                token = session.lobby.external_token(name)
                click.echo(
                    f"start bot {name!r} yourself within {EXTERNAL_WAIT:g} s, with "
                    f"ARENA_ADDRESS={session.address} ARENA_TOKEN={token}",
                    err=True,
                )
            seats = [b.name for b in bots]
            return await session.play(game_id or f"play-{seed}", settings, seats, seed, rotation)


async def _play_again(results: Path, key: str, logs: Path | None) -> bool:
    """Play a stored game again as `arena run` played it, print it, and say whether its record
    came out the same; True if it did."""
    from arena.server.lobby import BotOptions, BotSpec
    from arena.tournament.fingerprint import bot_fingerprint

    with open_games(results) as games:
        outcome = games.outcome(key)
        entries = games.bots()
        rules = games.settings() or {}
    spec = outcome.spec
    missing = [name for name in spec.seats if name not in entries]
    if missing:
        raise SpectateError(
            f"{results} does not say how bot {missing[0]!r} was started (made by an older "
            "arena?): play the game by hand with arena play --bot ... --seed "
            f"{spec.seed} --rotation {spec.rotation}"
        )
    bots = []
    for name in spec.seats:
        entry = entries[name]
        cwd = Path(entry.cwd) if entry.cwd is not None else None
        bot = BotSpec(name, entry.argv, cwd)
        if entry.argv is not None and cwd is None and bot_fingerprint(bot) != entry.fingerprint:
            click.echo(f"note: bot {name!r} has changed since it played this game", err=True)
        bots.append(bot)
    default = BotOptions()
    options = replace(
        default,
        deadline=rules.get("deadline", default.deadline),
        first_deadline=rules.get("first_deadline", default.first_deadline),
        max_faults=rules.get("max_faults", default.max_faults),
        time_bank=rules.get("time_bank", default.time_bank),
    )
    click.echo(
        f"playing {spec.game_id} of {results} again: {', '.join(spec.seats)}, seed {spec.seed}, "
        f"seat rotation {spec.rotation}",
        err=True,
    )
    result = await _play_bots(
        spec.settings, bots, spec.seed, options, logs, spec.rotation, spec.game_id
    )
    names = list(spec.seats)
    click.echo(f"seed {spec.seed}, " + render_game(result.record, names))
    for fault in result.faults:
        click.echo(fault_line(fault, names))
    difference = first_difference(outcome.record, result.record) or fault_difference(
        outcome.faults, result.faults, names
    )
    if difference is None:
        click.echo(f"\nthe same game: {spec.game_id}'s record is identical to the stored one")
        return True
    click.echo(f"\nnot the same game: {spec.game_id} differs from the stored record {difference}")
    return False


def fault_difference(
    stored: Sequence[Fault], played: Sequence[Fault], names: Sequence[str]
) -> str | None:
    """How the faults of a game played again differ from the stored ones (where and what, not
    the messages, which may name times); None if they do not. The same cards with other faults
    is another game: the fallback may have played what the bot would have."""

    def where(faults: Sequence[Fault]) -> list[tuple[int, str, str, int, int]]:
        return [(f.seat, f.kind.value, f.decision.value, f.round, f.turn) for f in faults]

    if where(stored) == where(played):
        return None
    shown = [
        ", ".join(f"{names[f.seat]} {f.kind} in round {f.round + 1}, turn {f.turn + 1}" for f in x)
        or "none"
        for x in (stored, played)
    ]
    return f"in its faults ({shown[0]} then; {shown[1]} now)"


def first_difference(stored: GameRecord, played: GameRecord) -> str | None:
    """Where a game played again first differs from its stored record; None if it does not."""
    if stored == played:
        return None
    for index, (old, new) in enumerate(zip(stored.rounds, played.rounds, strict=False)):
        for number, (was, now) in enumerate(zip(old.turns, new.turns, strict=False), start=1):
            if was != now:
                cards = f"cards {was.cards} then, {now.cards} now"
                return f"from round {index + 1}, turn {number} ({cards})"
        if old != new:
            return f"in round {index + 1}"
    if len(stored.rounds) != len(played.rounds):
        return f"in its length ({len(stored.rounds)} rounds then, {len(played.rounds)} now)"
    return f"in its totals ({stored.totals} then, {played.totals} now)"


EXTERNAL_WAIT = 300.0
"""Seconds `arena play` waits for an external bot (one a person starts by hand) to connect."""


def _setting_options() -> list[click.Parameter]:
    """One `arena run` option per tournament setting, as `TournamentConfig` declares it."""
    from arena.tournament.config import SETTINGS

    return [_setting_option(setting) for setting in SETTINGS]


class _SettingOption(click.Option):
    """A tournament setting's option: None unless given, so that it overrides a tournament file
    only then, with the setting's own default shown in its help."""

    def __init__(self, *args: Any, shown: str, **kwargs: Any) -> None:
        super().__init__(*args, default=None, **kwargs)
        self.shown = shown

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = self.shown
        return extra


def _setting_option(setting: Setting) -> click.Option:
    """The option of one setting, named, typed and explained by its declaration."""
    common: dict[str, Any] = {"help": setting.help, "shown": setting.shown}
    if setting.kind is bool:  # a setting that is on by default is turned off with --no-NAME
        flag = setting.option
        declared = f"{flag}/--no-{flag[2:]}" if setting.default else flag
        return _SettingOption([declared], is_flag=True, **common)
    kind: click.ParamType[Any, Any] = click.STRING
    metavar = None
    if setting.choices:  # checked by the config, which names the choices when it refuses one
        metavar = "[" + "|".join(setting.choices) + "]"
    elif setting.kind is Path:
        kind = click.Path(file_okay=not setting.folder, dir_okay=setting.folder, path_type=Path)
    elif setting.kind is int:
        kind = click.INT
    elif setting.kind is float:
        kind = click.FLOAT
    return _SettingOption([setting.option], type=kind, metavar=metavar, **common)


EXIT_OK = 0
"""Everything ran as asked (`arena play --game`: the game came out the same)."""
EXIT_BUG = 1
"""An error of the arena itself: its traceback is shown, for a bug report."""
EXIT_INPUT = 2
"""The command could not run as asked (an option, a tournament file, a bot, an output folder, a
full disk): one line says what and how to fix it."""
EXIT_PROBLEMS = 3
"""`arena run`: an entered bot was disqualified, never connected, or was left out (see the
summary); `--allow-faults` makes it 0."""
EXIT_DIFFERENT = 4
"""`arena play --game`: the game played again differs from its stored record."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C or SIGTERM: what finished is kept, the same command carries on."""

RUN_EPILOG = (
    "Exit status: 0 when every bot played; 3 when a bot was disqualified, never connected or "
    "was left out (0 with --allow-faults); 2 when the run cannot start or go on as asked (one "
    "line says why); 130 when interrupted (the same command resumes); 1 for a bug."
)


class InputProblem(click.ClickException):
    """Bad input or an environment the user must fix, reported as one line, exit status 2."""

    exit_code = EXIT_INPUT


class _Place:
    """Where a command writes, once it knows (`arena run`: its output folder): SQLite's errors
    name no file, so the line says which folder, and whether it is read-only."""

    folder: Path | None = None


@contextlib.contextmanager
def _one_line(write_fix: str) -> Iterator[_Place]:
    """Report what the user can fix as one line and exit status 2, never a traceback: bad input
    (the arena's own errors) and every OSError or SQLite error (a folder it cannot write, a full
    disk, a damaged database). `write_fix` says what to do about a place that cannot be written.
    The one place `arena run` (and the spectators' commands) turn such errors into a line."""
    place = _Place()
    try:
        yield place
    except BAD_INPUT as error:
        raise click.UsageError(str(error)) from None
    except SpectateError as error:
        raise InputProblem(str(error)) from None
    except (OSError, sqlite3.Error) as error:
        raise InputProblem(environment_problem(error, write_fix, place.folder)) from None


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def environment_problem(
    error: OSError | sqlite3.Error, write_fix: str, folder: Path | None = None
) -> str:
    """One line for an OSError or SQLite error: what could not be done, where, and the fix;
    `folder` is where the command writes, when it knows."""
    kept = "the games stored are kept, and the same command carries on from them"
    free = f"free some space; {kept}"
    if (
        isinstance(error, sqlite3.OperationalError)
        and folder is not None
        and folder.is_dir()
        and not os.access(folder, os.W_OK)
    ):
        return f"cannot write {folder}: it is read-only ({error}): {write_fix}"
    if isinstance(error, OSError):
        where = f" {error.filename}" if error.filename else " the results"
        why = error.strerror or str(error)
        if error.errno in _FULL:
            return f"cannot write{where}: the disk is full ({why}): {free}"
        if error.errno in _READ_ONLY:
            return f"cannot write{where}: {why}: {write_fix}"
        return f"cannot use{where}: {why}"
    message = str(error)
    if "readonly" in message or "read-only" in message:
        return f"cannot write the results database: {message}: {write_fix}"
    if "full" in message:
        return f"cannot write the results database: the disk is full ({message}): {free}"
    if "disk I/O" in message:
        return f"cannot write the results database: {message} (is the disk full?): {free}"
    if "unable to open" in message:
        return f"cannot open the results database: {message}: {write_fix}"
    if "locked" in message:
        return (
            f"the results database is busy ({message}): is another `arena run` using the same "
            "--output folder? Wait for it, or choose another"
        )
    return f"the results database cannot be used: {message}: choose another --output folder"


@main.command(cls=_LazyOptions, build=_setting_options, after="bots", epilog=RUN_EPILOG)
@click.argument("tournament_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=_bot_spec,
    metavar="[NAME=]COMMAND",
    help="Enter a bot (repeatable); a .py file runs with the arena's Python.  [default: none]",
)
@click.option(
    "--submissions",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Enter every subfolder of this folder that holds a bot.toml.  [default: none]",
)
@click.option("--quiet", is_flag=True, help="No progress bar.  [default: off]")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the standings as JSON.  [default: off]"
)
def run(
    tournament_file: Path | None,
    bots: list[BotSpec],
    submissions: Path | None,
    quiet: bool,
    as_json: bool,
    **overrides: Any,
) -> None:
    """Run a round-robin tournament; run it again to resume an interrupted one, or to grow it
    (more games, more bots, a gauntlet).

    A tournament file's settings are overridden by the options given.
    """
    from arena.tournament.config import TournamentConfig, load

    write_fix = "choose a folder you can write to with --output"
    with _one_line(write_fix) as place:
        config = load(tournament_file) if tournament_file else TournamentConfig()
        given = {key: value for key, value in overrides.items() if value is not None}
        config = config.with_settings(given)
        place.folder = config.output
        if bots:
            config = replace(config, bots=tuple(bots))
        summary = asyncio.run(_run(config, submissions, quiet or as_json))
    if summary is None:
        click.echo(
            "interrupted during the builds: nothing was played; run the same command again",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    problems = summary.problems
    if as_json:
        document = {
            **summary.standings.to_dict(),
            "problems": problems.to_dict(),
            "games": {"stored": summary.stored, "planned": summary.total},
        }
        if summary.run:
            document["run"] = summary.run
        if summary.workers is not None:
            document["workers"] = summary.workers.to_dict()
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo(standings_table(summary.standings))
        click.echo()
        click.echo(pairwise_table(summary.standings))
        if summary.standings.times:
            click.echo("\nanswer times:\n" + times_table(summary.standings.times))
        click.echo(f"\n{summary.stored} of {summary.total} games in {config.output}/")
        if problems.lines():
            click.echo("\n" + "\n".join(problems.lines()))
        if summary.workers is not None:
            click.echo("\n" + "\n".join(summary.workers.lines()))
    if summary.interrupted:
        click.echo(
            f"interrupted: {summary.stored} of {summary.total} games kept; run the same "
            "command again to play the rest",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    if problems.serious and not config.allow_faults:
        click.echo(
            f"exit status {EXIT_PROBLEMS}: not every entered bot played (see above); "
            "--allow-faults to exit 0 all the same",
            err=True,
        )
        sys.exit(EXIT_PROBLEMS)


async def _enter(
    folder: Path, config: TournamentConfig, cluster: Cluster | None = None
) -> TournamentConfig:
    """Build and enter a folder of submissions, saying which are left out and why; on a
    cluster, each is built on every worker instead (and the organizer builds nothing)."""
    from arena.tournament.store import BUILDS
    from arena.tournament.submissions import enter_submissions

    if cluster is not None:
        return await cluster.enter_submissions(
            folder,
            config,
            lambda rejection: click.echo(str(rejection), err=True),
            lambda line: click.echo(line, err=True),
        )
    entered = await enter_submissions(
        folder,
        config.output / LOGS,
        config.concurrency,
        lambda rejection: click.echo(str(rejection), err=True),
        builds=config.output / BUILDS,
        timeout=config.build_timeout,
        sandbox=config.sandbox,
    )
    return replace(
        config,
        bots=config.bots + tuple(entered.bots),
        fingerprints=config.fingerprints + tuple(entered.fingerprints.items()),
        left_out=config.left_out + tuple((r.folder, r.reason) for r in entered.left_out),
    )


async def _run(
    config: TournamentConfig, submissions: Path | None, quiet: bool
) -> RunSummary | None:
    """Enter the submissions (if any), then run the tournament with a progress bar, stopping
    cleanly on Ctrl-C or SIGTERM, during the builds too (then None: nothing was played)."""
    from tqdm import tqdm

    from arena.tournament.runner import run_tournament

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    bar: tqdm[Never] | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if quiet:
            return
        if bar is None:  # the first call says how many games a resumed run already has
            bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr, dynamic_ncols=True)
        else:
            bar.update(done - bar.n)

    shown: dict[str, str] = {}  # what the bar shows after the count: workers up, the leader

    def show(what: str, text: str) -> None:
        shown[what] = text
        if bar is not None:
            bar.set_postfix_str(", ".join(shown.values()), refresh=False)

    def watch(standings: Standings) -> None:
        leader = next((line for line in standings.bots if line.games), None)
        if leader is not None and not leader.disqualified:
            show("leader", f"leader {leader.bot} {leader.mean:.1f}/game")

    def workers_up(count: int) -> None:
        show("workers", f"{count} worker{'s' if count != 1 else ''} up")

    try:
        async with contextlib.AsyncExitStack() as stack:
            cluster = None
            if config.distributed:  # one connection to the cluster, for the builds and the games
                from arena.tournament.cluster import open_cluster

                cluster = await stack.enter_async_context(open_cluster(config))
            if submissions is not None:
                building = asyncio.ensure_future(_enter(submissions, config, cluster))
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait([building, stopping], return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not building.done():  # stopped: the builds are stopped, process groups too
                    building.cancel()
                    await asyncio.wait([building])
                    return None
                config = building.result()
            return await run_tournament(
                config,
                progress,
                stop=stop,
                announce=lambda line: click.echo(line, err=True),
                watch=watch,
                cluster=cluster,
                workers_up=workers_up,
            )
    finally:
        if bar is not None:
            bar.close()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


_RESULTS = click.Path(exists=True, path_type=Path)
"""An output folder of `arena run`, or its results.sqlite or replays.jsonl."""


@main.command()
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option("--game", metavar="ID|NUMBER", help="The game to show, by id or listing number.")
@click.option("--turn", metavar="R[.T]", help="Show only round R, or only its turn T (e.g. 2.7).")
@click.option("--step", is_flag=True, help="Step through the turns with the keys (a terminal).")
@click.option("--bot", metavar="NAME", help="Show what this bot wrote (its log) under each turn.")
@click.option("--color/--no-color", default=None, help="Colour the cards (default: on a terminal).")
def replay(
    results: Path,
    game: str | None,
    turn: str | None,
    step: bool,
    bot: str | None,
    color: bool | None,
) -> None:
    """Show a game of a tournament turn by turn; without --game, list the games.

    Works while the tournament still runs: the results are read, never written.
    """
    if game is None and (turn is not None or step or bot is not None):
        raise click.UsageError("--turn, --step and --bot need --game")
    if step and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("--step needs a terminal: without it the game prints whole")
    with _one_line("the results are only read: check the folder"):
        with open_games(results) as games:
            if game is None:
                click.echo(game_list(games.entries()))
                click.echo(f"\nShow one: arena replay {results} --game NUMBER (or ID)")
                return
            outcome = games.outcome(game)
            log = _bot_lines(games, outcome, bot) if bot is not None else None
            out_in = {
                name: entry.disqualified.game_id
                for name, entry in games.bots().items()
                if entry.disqualified is not None
            }
        if step:

            def screen(text: str) -> None:
                click.clear()
                click.echo(text, color=color)

            step_through(outcome, click.getchar, screen, turn, terminal_paint, out_in, log)
            return
        text = show_game(outcome, turn, terminal_paint, out_in, log)
    click.echo(text, color=color)


def _bot_lines(games: GameSource, outcome: GameOutcome, bot: str) -> BotLines:
    """What `bot` wrote in a game, for `arena replay --bot`; SpectateError if it did not play."""
    if bot not in outcome.spec.seats:
        raise SpectateError(
            f"{bot!r} did not play game {outcome.game_id}: its seats are "
            f"{', '.join(outcome.spec.seats)}"
        )
    return BotLines(bot, tuple(games.bot_lines(bot, [outcome.game_id])))


@main.command()
@click.argument("name")
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option("--game", metavar="ID|NUMBER", help="Only this game's lines, by id or number.")
def logs(name: str, results: Path, game: str | None) -> None:
    """Print what bot NAME wrote, line by line, each with its game and ROUND.TURN (from 1).

    The arena's own lines about the bot (started, connected, faults, exits) are marked [arena];
    lines written between games have no game. Works while the tournament still runs.
    """
    with _one_line("the results are only read: check the folder"), open_games(results) as games:
        known = sorted(games.bots())
        if known and name not in known:
            raise SpectateError(f"no bot {name!r} in {results}: its bots are {', '.join(known)}")
        ids = [games.outcome(game).game_id] if game is not None else None
        text = listing(games.bot_lines(name, ids))
    click.echo(text or f"no lines of {name!r} in {results}" + (f" for game {game}" if game else ""))


@main.command()
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The page to write (default: report.html in OUTPUT_FOLDER).",
)
@click.option(
    "--max-games",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_GAMES,
    show_default=True,
    help="Replays embedded at most (all when the tournament has fewer).",
)
@click.option("--include", multiple=True, metavar="ID", help="Embed this game too (repeatable).")
def report(results: Path, output: Path | None, max_games: int, include: tuple[str, ...]) -> None:
    """Write a tournament's standings, charts and replays as one self-contained HTML page."""
    with _one_line("write the page elsewhere with -o FILE"):
        summary = write_report(results, output, max_games, include)
    click.echo(summary.describe())


def _check_options() -> list[click.Parameter]:
    """`arena check-bot`'s limits, whose defaults are CheckOptions' (a tournament's)."""
    from arena.server.checkbot import CheckOptions

    return [
        click.Option(
            ["--deadline"],
            type=click.FloatRange(min=0.001),
            default=CheckOptions.deadline,
            show_default=True,
            help="Seconds the bot has for each decision.",
        ),
        click.Option(
            ["--first-deadline"],
            type=click.FloatRange(min=0.001),
            default=CheckOptions.first_deadline,
            show_default=True,
            help="Seconds for the first decision of a game.",
        ),
        click.Option(
            ["--time-bank"],
            type=click.FloatRange(min=0.0),
            default=CheckOptions.time_bank,
            show_default=True,
            help="Seconds of time bank given over the time-bank check's requests.",
        ),
        click.Option(
            ["--startup-timeout"],
            type=click.FloatRange(min=0.1),
            default=CheckOptions.startup_timeout,
            show_default=True,
            help="Seconds the bot has to connect and say hello.",
        ),
    ]


@main.command("check-bot", cls=_LazyOptions, build=_check_options, after="name")
@click.argument("command", nargs=-1, required=True, metavar="-- [stdio:]COMMAND...")
@click.option("--name", default="", help="The bot's name (default: its program's file name).")
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the bot's log in this folder (default: a temporary one).",
)
def check_bot_command(
    command: tuple[str, ...],
    name: str,
    deadline: float,
    first_deadline: float,
    time_bank: float,
    startup_timeout: float,
    logs: Path | None,
) -> None:
    """Put a bot through scripted situations before a contest; exit 0 only if it passes all."""
    from arena.server.checkbot import CheckOptions
    from arena.server.specs import parse_command

    try:
        spec = parse_command(name, shlex.join(command))
    except BotError as error:
        raise click.UsageError(str(error)) from None
    if spec.argv is None:
        raise click.UsageError("check-bot starts the bot itself: give its command")
    click.echo(f"checking {spec.name}: {shlex.join(command)}")
    options = CheckOptions(
        deadline=deadline,
        first_deadline=max(first_deadline, deadline),
        startup_timeout=startup_timeout,
        time_bank=time_bank,
    )
    results = asyncio.run(_check(spec, logs, options))
    passed = sum(check.passed for check in results)
    click.echo(f"{passed} of {len(results)} checks passed")
    if logs is not None:
        click.echo(f"the bot's log: {logs / f'{spec.name}.log'}")
    sys.exit(0 if passed == len(results) else 1)


async def _check(spec: BotSpec, logs: Path | None, options: CheckOptions) -> list[Check]:
    from arena.server.checkbot import check_bot, render

    with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
        folder = logs or Path(scratch)
        return await check_bot(spec, folder, options, lambda check: click.echo(render(check)))


# -- arena compare --------------------------------------------------------------------------------

COMPARE_EPILOG = (
    "Exit status: 0 for any verdict (H0, H1 or undecided: the output says which); 2 when the "
    "comparison cannot start or go on as asked (one line says why); 130 when interrupted (the "
    "same command resumes); 1 for a bug."
)


def _compare_options() -> list[click.Parameter]:
    """`arena compare`'s options beyond its own: the tournament settings it shares with `arena
    run`, as `TournamentConfig` declares them, and its cap on games."""
    from arena.tournament.compare import DEFAULT_MAX_GAMES, NOT_SHARED
    from arena.tournament.config import SETTINGS

    cap = click.Option(
        ["--max-games"],
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_GAMES,
        show_default=True,
        help="Stop undecided after this many games (NEW's and OLD's together).",
    )
    shared = [s for s in SETTINGS if s.name not in NOT_SHARED]
    shown = {"output": "arena-compare/NEW-vs-OLD, by the bots' names"}
    return [cap, *(_setting_option(replace(s, shown=shown.get(s.name, s.shown))) for s in shared)]


def _one_bot(ctx: click.Context, param: click.Parameter, value: str) -> BotSpec:
    (spec,) = _bot_spec(ctx, param, (value,))
    return spec


_SHARE = click.FloatRange(0, 0.5, min_open=True, max_open=True)


@main.command(cls=_LazyOptions, build=_compare_options, after="beta", epilog=COMPARE_EPILOG)
@click.argument("new", metavar="NEW", callback=_one_bot)
@click.argument("old", metavar="OLD", callback=_one_bot)
@click.option(
    "--field",
    "field",
    multiple=True,
    callback=_bot_spec,
    metavar="[NAME=]COMMAND",
    help="A bot of the field, the other seats of every table (repeatable).  [default: the "
    "sample bots heuristic, lowest and random]",
)
@click.option(
    "--margin",
    type=click.FloatRange(0, min_open=True),
    default=1.0,
    show_default=True,
    help="H1: NEW takes at least this many fewer bullheads per game than OLD.",
)
@click.option(
    "--alpha",
    type=_SHARE,
    default=0.05,
    show_default=True,
    help="The chance of accepting H1 when NEW is no better.",
)
@click.option(
    "--beta",
    type=_SHARE,
    default=0.05,
    show_default=True,
    help="The chance of accepting H0 when NEW is better by the margin.",
)
@click.option("--quiet", is_flag=True, help="No progress line.  [default: off]")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.  [default: off]")
def compare(
    new: BotSpec,
    old: BotSpec,
    field: list[BotSpec],
    margin: float,
    alpha: float,
    beta: float,
    max_games: int,
    quiet: bool,
    as_json: bool,
    **overrides: Any,
) -> None:
    """Is NEW better than OLD? Play every deal in every seat rotation twice, once with NEW and
    once with OLD in the same seat, against the same field with the same seeds, until a
    sequential test (fishtest's GSPRT) decides: H1, NEW takes at least --margin fewer bullheads
    per game; or H0, it is no better. Run it again to resume.

    NEW and OLD are given as `arena run --bot` takes a bot: [NAME=]COMMAND.
    """
    from arena.tournament.compare import CompareConfig, default_field, verdict_lines
    from arena.tournament.config import TournamentConfig
    from arena.tournament.stats.sprt import Hypotheses

    with _one_line("choose a folder you can write to with --output"):
        given = {key: value for key, value in overrides.items() if value is not None}
        if "output" not in given:
            given["output"] = Path("arena-compare") / f"{new.name}-vs-{old.name}"
        config = CompareConfig(
            new,
            old,
            tuple(field) or default_field(),
            TournamentConfig().with_settings(given),
            Hypotheses(margin, alpha, beta),
            max_games,
        )
        result = asyncio.run(_compare(config, quiet or as_json))
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo("\n".join(verdict_lines(result)))
        click.echo(f"{result.stored} games in {config.tournament.output}/")
    for line in result.problems.lines():
        click.echo(line, err=True)
    if result.interrupted:
        click.echo(
            f"interrupted: {result.stored} games kept; run the same command again to go on",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)


async def _compare(config: CompareConfig, quiet: bool) -> CompareResult:
    """Run the comparison with a progress line, stopping cleanly on Ctrl-C or SIGTERM."""
    from arena.tournament.compare import run_compare
    from arena.tournament.stats.sprt import progress_bar

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    terminal = sys.stderr.isatty()
    shown = False

    def progress(state: SprtState, stored: int) -> None:
        nonlocal shown
        if quiet or not (terminal or state.deals % 10 == 0 or state.verdict):
            return
        games = state.deals * config.games_per_deal
        line = (
            f"deal {state.deals:>4}, {games:>5} games  mean {state.mean:+6.2f}  "
            f"LLR {state.llr:+6.2f}  {progress_bar(state)}"
        )
        click.echo(f"\r{line}" if terminal else line, err=True, nl=not terminal)
        shown = True

    try:
        return await run_compare(
            config, progress, stop=stop, announce=lambda line: click.echo(line, err=True)
        )
    finally:
        if shown and terminal:
            click.echo(err=True)
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


if __name__ == "__main__":
    main()
