"""A running arena: the servers, the lobby of bots, and games played between them.

Every launched bot has a server of its own, on a unix socket in a private folder (mode 0700,
under the system's temporary folder: a socket's path is limited to about 100 bytes), which a
sealed bot's sandbox binds as its only way out. External bots (started by hand, or on other
machines) share one more server, on loopback TCP (and `--listen`), which exists only when
there are such bots.

What isolates the bots, and how they share the CPU, is decided as the session opens
(`isolation.isolate`): in fair
mode every game holds a core of its own for its whole length (`fairness.Cores`), its bots are
pinned to it and frozen but for their own decisions, and the seats are asked one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import grpc

from arena.players import GameResult, play_game
from arena.rules import Settings
from arena.server.isolation.fairness import Cores, CpuPlan, Pacer
from arena.server.isolation.isolate import Sealing, isolate
from arena.server.isolation.process import raise_open_files_limit
from arena.server.listen import Listener
from arena.server.lobby import BotSpec, Instance, Lobby
from arena.server.options import BotOptions
from arena.server.remote import RemoteGame, RemotePlayer
from arena.server.service import DEFAULT_MAX_MESSAGE, create_bot_server, create_server

LOOPBACK = "127.0.0.1:0"
"""Where external bots connect on this machine, when there are any."""


class Session:
    """Bots connected to a live server, ready to be seated at games."""

    def __init__(
        self,
        lobby: Lobby,
        address: str,
        public_address: str | None = None,
        sealing: Sealing | None = None,
        cpu: CpuPlan | None = None,
    ) -> None:
        self.lobby = lobby
        self.address = address
        """Where external bots connect on this machine (loopback); empty when none can."""
        self.public_address = public_address
        """Where external bots connect, when the session listens beyond loopback."""
        self.sealing = sealing or Sealing(False, False)
        """How the bots run: sealed, in cgroups."""
        self.cpu = cpu or CpuPlan(lobby.options.cpu, False)
        """How the bots get the CPU: fair (a core per game, one decider at a time) or shared."""
        self._cores = Cores(self.cpu.cores) if self.cpu.fair else None

    async def play(
        self,
        game_id: str,
        settings: Settings,
        seats: Sequence[str],
        seed: int,
        rotation: int = 0,
        bot_seed: int | None = None,
    ) -> GameResult:
        """Play one game with the named bots in seat order; the deal comes from `seed`, the
        seeds of the bots' own random choices in every request's view from `bot_seed` (none,
        every view's seed 0, when it is None: `arena.rules.Game`).

        In fair mode the game first waits for a core of its own (`fairness.Cores`)."""
        game = game_id, settings, seats, seed, rotation, bot_seed
        if self._cores is None:
            return await self._play(Pacer(fair=False), *game)
        async with self._cores.claim() as core:
            return await self._play(Pacer(fair=True, core=core), *game)

    async def _play(
        self,
        pacer: Pacer,
        game_id: str,
        settings: Settings,
        seats: Sequence[str],
        seed: int,
        rotation: int,
        bot_seed: int | None,
    ) -> GameResult:
        bots = [self.lobby.bots[name] for name in seats]
        instances = await self._acquire(seats, rotation, pacer.cpus)
        try:
            game = RemoteGame(game_id, seats, self.lobby.options, pacer)
            players = [
                RemotePlayer(bot, instance, game)
                for bot, instance in zip(bots, instances, strict=True)
            ]
            cgroups = [instance.cgroup if instance is not None else None for instance in instances]
            await pacer.seat(cgroups, [player.absence() is None for player in players])
            referees = [bot.referee for bot in bots]
            return await play_game(
                settings,
                players,
                random.Random(seed),
                rotation,
                referees,
                names=seats,
                one_at_a_time=pacer.fair,
                bot_seed=bot_seed,
            )
        finally:
            await pacer.settle()  # the last decider's freeze done: it leaves the game frozen
            for bot, instance in zip(bots, instances, strict=True):
                if instance is not None:
                    await self.lobby.release(bot, instance)

    async def _acquire(
        self, seats: Sequence[str], rotation: int, cpus: str | None
    ) -> list[Instance | None]:
        """Every seat's instance, acquired at once; or, if one acquisition fails or the game
        is cancelled while they are under way, none: the others are cancelled and those already
        acquired released. A session may outlive a game that ends so (an executor stopping
        early cancels the games it started), and an instance left busy would stay so until the
        session closes, a later game of its bot launching another process beside it."""
        acquiring = [
            asyncio.ensure_future(self.lobby.acquire(name, rotation, cpus)) for name in seats
        ]
        try:
            return list(await asyncio.gather(*acquiring))
        except BaseException:
            for task in acquiring:
                task.cancel()
            await asyncio.wait(acquiring)
            for name, task in zip(seats, acquiring, strict=True):
                if task.cancelled() or task.exception() is not None:
                    continue
                if (instance := task.result()) is not None:
                    await self.lobby.release(self.lobby.bots[name], instance)
            raise


@asynccontextmanager
async def open_session(
    specs: list[BotSpec],
    log_dir: Path,
    options: BotOptions = BotOptions(),
    address: str | None = None,
    max_message: int = DEFAULT_MAX_MESSAGE,
    public: Listener | None = None,
    workdir: Path | None = None,
) -> AsyncIterator[Session]:
    """Start the servers and the lobby; on leaving, stop every bot process and the servers,
    and remove the bots' cgroups and sockets.

    Unsealed, each launched bot runs in its own folder under `workdir` (default: `log_dir`).
    External bots connect to `address` (default: a loopback port, opened only when an external
    bot is entered) and to `public`. Raises SandboxError when `options.sandbox` is `on` and the
    machine cannot seal bots, FairnessError when `options.cpu` is `fair` and it cannot pin and
    freeze them.
    """
    raise_open_files_limit()
    async with isolate(options.sandbox, options.cpu) as isolation:
        log_dir.mkdir(parents=True, exist_ok=True)
        sockets = Path(tempfile.mkdtemp(prefix="arena-"))  # 0700: only the arena reaches them
        servers: list[grpc.aio.Server] = []
        lobby = Lobby(
            specs,
            log_dir,
            options,
            workdir,
            sockets=sockets,
            sandbox=isolation.sandbox,
            cgroups=isolation.cgroups,
        )
        try:
            for bot in lobby.bots.values():
                if bot.socket is not None:
                    server = await create_bot_server(lobby, bot.socket, bot.name, max_message)
                    servers.append(server)
            bound, public_address = "", None
            external = any(spec.argv is None for spec in specs)
            if address is not None or public is not None or external:
                server, bound, public_address = await create_server(
                    lobby, address or LOOPBACK, max_message, public
                )
                servers.append(server)
            lobby.address = bound
            yield Session(lobby, bound, public_address, isolation.sealing, isolation.cpu)
        finally:
            try:
                await lobby.close()
            finally:
                await asyncio.gather(*(server.stop(grace=1.0) for server in servers))
                with contextlib.suppress(OSError):
                    shutil.rmtree(sockets)
