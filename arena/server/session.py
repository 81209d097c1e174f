"""A running arena: the server, the lobby of bots, and games played between them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from arena.players import GameResult, play_game
from arena.rules import Settings
from arena.server.listen import Listener
from arena.server.lobby import BotOptions, BotSpec, Lobby
from arena.server.remote import RemoteGame, RemotePlayer
from arena.server.service import DEFAULT_MAX_MESSAGE, create_server


class Session:
    """Bots connected to a live server, ready to be seated at games."""

    def __init__(self, lobby: Lobby, address: str, public_address: str | None = None) -> None:
        self.lobby = lobby
        self.address = address
        """Where launched bots connect (loopback)."""
        self.public_address = public_address
        """Where external bots connect, when the session listens beyond loopback."""

    async def play(
        self, game_id: str, settings: Settings, seats: Sequence[str], seed: int, rotation: int = 0
    ) -> GameResult:
        """Play one game with the named bots in seat order; the deal comes from `seed`."""
        bots = [self.lobby.bots[name] for name in seats]
        instances = await asyncio.gather(*(self.lobby.acquire(name) for name in seats))
        try:
            game = RemoteGame(game_id, seats, self.lobby.options)
            players = [
                RemotePlayer(bot, instance, game)
                for bot, instance in zip(bots, instances, strict=True)
            ]
            referees = [bot.referee for bot in bots]
            return await play_game(
                settings, players, random.Random(seed), rotation, referees, names=seats
            )
        finally:
            for bot, instance in zip(bots, instances, strict=True):
                if instance is not None:
                    await self.lobby.release(bot, instance)


@asynccontextmanager
async def open_session(
    specs: list[BotSpec],
    log_dir: Path,
    options: BotOptions = BotOptions(),
    address: str = "127.0.0.1:0",
    max_message: int = DEFAULT_MAX_MESSAGE,
    public: Listener | None = None,
    workdir: Path | None = None,
) -> AsyncIterator[Session]:
    """Start the server and the lobby; on leaving, stop every bot process and the server.

    Each launched bot runs in its own folder under `workdir` (default: `log_dir`).
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    lobby = Lobby(specs, log_dir, options, workdir)
    server, bound, public_address = await create_server(lobby, address, max_message, public)
    lobby.address = bound
    try:
        yield Session(lobby, bound, public_address)
    finally:
        try:
            await lobby.close()
        finally:
            await server.stop(grace=1.0)
