"""Where a run's games are played when no cluster is named: this machine, over one arena session
opened for the run (`LocalExecutor`), and in fair mode with two games or more at once, on its
core hosts (`arena.tournament.hosts`, an arena process a core). The one place that chooses
between them (`hosts.executor.wanted`) and tells the organizer what it must know first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from arena.server.isolation.fairness import CpuMode
from arena.server.session import Session, open_session
from arena.tournament.config import TournamentConfig
from arena.tournament.executor import Executor, LocalExecutor
from arena.tournament.hosts.executor import open_hosts, wanted
from arena.tournament.observer import Observer
from arena.tournament.store import LOGS, WORK


class ThisMachine:
    """The games on this machine, over one arena session opened for the run."""

    @asynccontextmanager
    async def executor(
        self, config: TournamentConfig, observer: Observer
    ) -> AsyncIterator[Executor]:
        """The session's executor, or in fair mode its core hosts' (`arena.tournament.hosts`);
        the organizer is told how the bots are sealed and paced when not in full, and how to
        start each external bot."""
        async with open_session(
            list(config.bots),
            config.output / LOGS,
            config.bot_options(),
            public=config.public(),
            workdir=config.output / WORK,
        ) as session:
            if not (session.sealing.sealed and session.sealing.cgroups):
                observer.announce(session.sealing.describe())
            cpu = session.cpu
            if cpu.note and cpu.asked is not CpuMode.SHARED:  # fair CPU unavailable, or partial
                observer.announce(cpu.describe())
            elif cpu.fair and config.concurrency > len(cpu.cores):
                games = f"{len(cpu.cores)} games at once, not {config.concurrency}"
                observer.announce(f"{cpu.describe()}: {games}")
            _hand_out_tokens(session, observer)
            hosts = wanted(session, config)
            if not hosts:
                yield LocalExecutor(session, config.concurrency)
                return
            async with open_hosts(session, config, hosts) as executor:
                yield executor


def _hand_out_tokens(session: Session, observer: Observer) -> None:
    """Tell the organizer how to start each external bot: where to connect, with which token."""
    address = session.public_address or session.address
    for bot in session.lobby.bots.values():
        if bot.spec.argv is None:
            token = session.lobby.external_token(bot.name)
            observer.announce(
                f"start bot {bot.name!r} yourself, within the start-up timeout, with "
                f"ARENA_ADDRESS={address} ARENA_TOKEN={token}"
            )
