"""A game's seats are acquired all or none: when one acquisition fails, or the game is cancelled
while they are under way, the instances already acquired go back to the lobby and the
acquisitions still under way are cancelled. A stand-in lobby (no process): what is tested is the
session's bookkeeping, not a launch."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from arena.rules import Settings
from arena.server.isolation.fairness import CpuMode, CpuPlan
from arena.server.lobby import Lobby
from arena.server.session import Session


@dataclass
class StandIn:
    """A lobby whose bots are acquired at once ("quick"), never ("stuck": until cancelled),
    or with an error ("broken"); what it released and cancelled, noted."""

    bots: dict[str, str] = field(default_factory=dict)
    released: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    stuck: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a stuck acquisition waits."""

    async def acquire(self, name: str, rotation: int, cpus: str | None) -> object:
        if name.startswith("quick"):
            return f"{name}'s instance"
        if name == "broken":
            await asyncio.sleep(0)  # after the quick ones are in
            raise RuntimeError("the machine cannot start it")
        try:
            self.stuck.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise
        raise AssertionError("never acquired")

    async def release(self, bot: str, instance: object) -> None:
        self.released.append(bot)


def session(lobby: StandIn, *names: str) -> Session:
    lobby.bots = {name: name for name in names}
    return Session(cast(Lobby, lobby), "", cpu=CpuPlan(CpuMode.SHARED, False))


def play(played: Session, *seats: str) -> Any:
    return played.play("t000-d00-r0", Settings(len(seats)), seats, seed=1)


def test_one_failed_acquisition_releases_the_others_and_cancels_those_under_way() -> None:
    lobby = StandIn()
    seats = ("quick-a", "broken", "quick-b", "stuck")
    with pytest.raises(RuntimeError, match="cannot start"):
        asyncio.run(play(session(lobby, *seats), *seats))
    assert sorted(lobby.released) == ["quick-a", "quick-b"]
    assert lobby.cancelled == ["stuck"]


def test_a_game_cancelled_while_its_seats_are_acquired_releases_those_acquired() -> None:
    lobby = StandIn()
    seats = ("quick-a", "stuck", "quick-b")

    async def cancelled() -> None:
        game = asyncio.ensure_future(play(session(lobby, *seats), *seats))
        await lobby.stuck.wait()
        await asyncio.sleep(0)  # the quick ones, started beside it, are in
        game.cancel()
        with pytest.raises(asyncio.CancelledError):
            await game

    asyncio.run(cancelled())
    assert sorted(lobby.released) == ["quick-a", "quick-b"]
    assert lobby.cancelled == ["stuck"]
