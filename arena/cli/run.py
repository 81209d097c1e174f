"""`arena run`: a round-robin tournament, resumed or grown when run again, with a progress bar
and the standings at the end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Never

import click

from arena.cli.exits import EXIT_INTERRUPTED, EXIT_PROBLEMS, one_line
from arena.cli.group import LazyOptions, bot_specs, main
from arena.cli.options import AbsolutePath, setting_options
from arena.tournament.standings import Standings, pairwise_table, standings_table
from arena.tournament.store import LOGS
from arena.tournament.timing import times_table

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from tqdm import tqdm

    from arena.server.lobby import BotSpec
    from arena.tournament.cluster import Cluster
    from arena.tournament.config import TournamentConfig
    from arena.tournament.runner import RunSummary


RUN_EPILOG = (
    "Exit status: 0 when every bot played; 3 when a bot was disqualified, never connected or "
    "was left out (0 with --allow-faults); 2 when the run cannot start or go on as asked (one "
    "line says why); 130 when interrupted (the same command resumes); 1 for a bug."
)


@main.command(cls=LazyOptions, build=setting_options, after="bots", epilog=RUN_EPILOG)
@click.argument(
    "tournament_file", required=False, type=AbsolutePath(dir_okay=False, path_type=Path)
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=bot_specs,
    metavar="[NAME=]COMMAND",
    help="Enter a bot (repeatable); a .py file runs with the arena's Python.  [default: none]",
)
@click.option(
    "--submissions",
    type=AbsolutePath(exists=True, file_okay=False, path_type=Path),
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
    from arena.tournament.config import TournamentConfig
    from arena.tournament.tournament_file import load

    if submissions is None and overrides.get("build_timeout") is not None:
        raise click.UsageError(
            "--build-timeout is for the builds of --submissions, which is not given: leave "
            "--build-timeout out"
        )
    write_fix = "choose a folder you can write to with --output"
    with one_line(write_fix) as place:
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
            "games": {
                "stored": summary.stored,
                "planned": summary.total,
                "played": summary.played,
                "tournament": summary.whole,
            },
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
        click.echo("\n" + games_line(summary, config))
        if problems.lines():
            click.echo("\n" + "\n".join(problems.lines()))
        if summary.workers is not None:
            click.echo("\n" + "\n".join(summary.workers.lines()))
    if summary.interrupted:
        click.echo(interrupted_line(summary, config), err=True)
        sys.exit(EXIT_INTERRUPTED)
    if problems.serious and not config.allow_faults:
        click.echo(
            f"exit status {EXIT_PROBLEMS}: not every entered bot played (see above); "
            "--allow-faults to exit 0 all the same",
            err=True,
        )
        sys.exit(EXIT_PROBLEMS)


def games_line(summary: RunSummary, config: TournamentConfig) -> str:
    """The summary's count: what is stored of the whole tournament, what this run played, and
    what the tournament still lacks beyond this run's plan (the tables a gauntlet left out)."""
    played = f"{summary.played} played" if summary.played else "none played"
    line = f"{summary.stored} of {summary.whole} games in {config.output}/ ({played} by this run"
    if config.gauntlet is not None:
        line += f", the gauntlet of {config.gauntlet}"
    line += ")"
    beyond = summary.whole - summary.total
    if beyond > 0:
        line += (
            f"; the tournament still lacks {beyond} games of the tables without "
            f"{config.gauntlet}: run again without --gauntlet to play them"
        )
    return line


def interrupted_line(summary: RunSummary, config: TournamentConfig) -> str:
    """What an interrupted run keeps, and how to go on: the same command, but for `--replace`,
    which would drop the replaced bot's games again, those this run played included."""
    left = summary.total - summary.stored
    line = (
        f"interrupted: {left} of the games this run planned are not played yet, the "
        f"{summary.stored} stored are kept; "
    )
    if config.replace is None:
        return line + "run the same command again to play them"
    return line + (
        f"run the same command without --replace to play them (with it, the games of "
        f"{config.replace} played so far would be dropped again)"
    )


def _as_entered(config: TournamentConfig, submissions: Path | None) -> TournamentConfig:
    """The config as it is once the submissions are entered, if each of them builds: what the
    run is checked as before anything is copied or built."""
    if submissions is None:
        return config
    from arena.tournament.submissions import expected_entries

    bots, fingerprints = expected_entries(submissions)
    return replace(config, bots=config.bots + bots, fingerprints=config.fingerprints + fingerprints)


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

    from arena.tournament.folder import hold_output
    from arena.tournament.observer import Observer
    from arena.tournament.runner import check_run, run_tournament
    from arena.tournament.submissions import check_folder

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
            hold = stack.enter_context(hold_output(config.output))  # the builds' folder too
            if submissions is not None:
                check_folder(submissions)  # one that holds none would enter nothing, unsaid
            check_run(_as_entered(config, submissions))  # before anything is copied or built
            cluster = None
            if config.distributed:  # one connection to the cluster, for the builds and the games
                from arena.tournament.cluster import open_cluster

                cluster = await stack.enter_async_context(open_cluster(config))
            if submissions is not None:  # the builds and their logs are kept whatever comes
                hold.make()
                building = asyncio.ensure_future(_enter(submissions, config, cluster))
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait([building, stopping], return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not building.done():  # stopped: the builds are stopped, process groups too
                    building.cancel()
                    await asyncio.wait([building])
                    return None
                config = building.result()
            observer = Observer(
                progress=progress,
                announce=lambda line: click.echo(line, err=True),
                standings=watch,
                workers=workers_up,
            )
            return await run_tournament(config, observer=observer, venue=cluster, stop=stop)
    finally:
        if bar is not None:
            bar.close()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
