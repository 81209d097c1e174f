"""Run a tournament: schedule, play what is not yet played, store each game, write the results.

Every finished game is committed to the results database as it ends, so an interrupted run keeps
all of them, and running the same tournament again plays only the games still missing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from arena.server.lobby import Bot
from arena.server.session import Session, open_session
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.executor import LocalExecutor
from arena.tournament.schedule import schedule
from arena.tournament.standings import Standings
from arena.tournament.store import DATABASE, LOGS, WORK, ResultStore, TournamentMismatchError
from arena.tournament.writer import write_results

Progress = Callable[[int, int], None]
"""Told (games done, games in the tournament) after every game."""


@dataclass(frozen=True)
class RunSummary:
    """How a run ended."""

    standings: Standings
    """The standings over every game stored so far."""
    played: int
    """Games played by this run."""
    total: int
    """Games in the whole tournament."""
    stored: int
    """Games in the results database, this run's and earlier runs'."""
    interrupted: bool
    """True when the run stopped before every game was played."""


async def run_tournament(config: TournamentConfig, progress: Progress | None = None) -> RunSummary:
    """Play the tournament's missing games and write its results; cancel the task to stop early.

    Cancelling stops new games, abandons those in progress (a resume plays them again), stops
    every bot, and still writes the standings of what finished.
    """
    config.check()
    # Bad input raises ScheduleError, a ConfigError; anything else from it is a bug, not input.
    specs = schedule(
        [bot.name for bot in config.bots],
        config.settings(),
        config.deals,
        config.seed,
        tables=config.sample,
    )
    output = config.output
    output.mkdir(parents=True, exist_ok=True)
    played = 0
    interrupted = False
    try:
        store = ResultStore(output / DATABASE, config.identity())
    except TournamentMismatchError as error:
        raise ConfigError(
            f"{output} holds another tournament ({error}): choose another --output folder"
        ) from None
    with store:
        finished = store.finished_ids()
        todo = [spec for spec in specs if spec.game_id not in finished]
        done = len(specs) - len(todo)
        if progress:
            progress(done, len(specs))
        options = config.bot_options()
        try:
            if todo:
                async with open_session(
                    list(config.bots),
                    output / LOGS,
                    options,
                    public=config.public(),
                    workdir=output / WORK,
                ) as session:
                    _hand_out_tokens(session)
                    _restore_faults(store, session.lobby.bots)
                    executor = LocalExecutor(session, config.concurrency)
                    async for outcome in executor.run(todo):
                        store.save(outcome)
                        played += 1
                        if progress:
                            progress(done + played, len(specs))
        except asyncio.CancelledError:
            interrupted = True
        standings = write_results(store, output)
        return RunSummary(standings, played, len(specs), store.count(), interrupted)


def _hand_out_tokens(session: Session) -> None:
    """Tell the organizer how to start each external bot: where to connect, with which token."""
    address = session.public_address or session.address
    for bot in session.lobby.bots.values():
        if bot.spec.argv is None:
            token = session.lobby.external_token(bot.name)
            print(
                f"start bot {bot.name!r} yourself, within the start-up timeout, with "
                f"ARENA_ADDRESS={address} ARENA_TOKEN={token}",
                file=sys.stderr,
                flush=True,
            )


def _restore_faults(store: ResultStore, bots: Mapping[str, Bot]) -> None:
    """A resumed run carries on the fault counts (and disqualifications) of the earlier ones."""
    for outcome in store.outcomes():
        for fault in outcome.faults:
            bots[outcome.spec.seats[fault.seat]].faults += 1
        for name in outcome.disqualified:
            bots[name].disqualified = True
