"""Run a tournament: schedule, play what is not yet played, store each game, write the results.

Every finished game is committed to the results database as it ends, so an interrupted run keeps
all of them, and running the same tournament again plays only the games still missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

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
Announce = Callable[[str], None]
"""Told a line for the organizer to act on during the run."""
FIRST = asyncio.FIRST_COMPLETED


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


async def run_tournament(
    config: TournamentConfig,
    progress: Progress | None = None,
    *,
    stop: asyncio.Event | None = None,
    announce: Announce | None = None,
) -> RunSummary:
    """Play the tournament's missing games and write its results.

    Setting `stop` ends the run early: no new game starts, those in progress are abandoned (a
    resume plays them again), every bot is stopped, and the standings of what finished are
    written. Cancelling the task does the same, then propagates. `announce` is told what the
    organizer must do during the run (start external bots).
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
        played = 0
        if progress:
            progress(done, len(specs))

        async def play() -> None:
            nonlocal played
            async with open_session(
                list(config.bots),
                output / LOGS,
                config.bot_options(),
                public=config.public(),
                workdir=output / WORK,
            ) as session:
                _hand_out_tokens(session, announce)
                _restore_faults(store, session.lobby.bots)
                executor = LocalExecutor(session, config.concurrency)
                async for outcome in executor.run(todo):
                    store.save(outcome)
                    played += 1
                    if progress:
                        progress(done + played, len(specs))

        try:
            completed = not todo or await _unless_stopped(play(), stop)
        finally:  # the results are written whatever ends the run, cancellation included
            standings = write_results(store, output)
        return RunSummary(standings, played, len(specs), store.count(), not completed)


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


def _restore_faults(store: ResultStore, bots: Mapping[str, Bot]) -> None:
    """A resumed run carries on the fault counts (and disqualifications) of the earlier ones."""
    for outcome in store.outcomes():
        for fault in outcome.faults:
            bots[outcome.spec.seats[fault.seat]].referee.faults += 1
        for name in outcome.disqualified:
            bots[name].referee.disqualify("was disqualified in an earlier run of this tournament")
