"""Events for the bots that want them: a bot that says Hello.skip_events gets requests and fault
notices only, and the arena builds no event for it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.players import Fault, FaultKind, Referee
from arena.protocol import PROTOCOL_VERSION, convert, pb, rpc
from arena.rules import Decision, Settings
from arena.server.connection import Connection
from arena.server.lobby import Bot, BotSpec, Instance
from arena.server.options import BotOptions
from arena.server.remote import RemoteGame, RemotePlayer
from arena.server.session import open_session
from tests.protocol.games import play as play_locally

SETTINGS = Settings(players=2)
GAME = play_locally(SETTINGS, seed=3)
ROUND = GAME.record.rounds[0]


def player(tmp_path: Path, connection: Connection) -> RemotePlayer:
    bot = Bot(BotSpec("b", None), tmp_path / "b.log", Referee("b"))
    instance = Instance(token="t", connection=connection)
    return RemotePlayer(bot, instance, RemoteGame("g1", ("a", "b"), BotOptions(max_faults=0)))


def tell_a_game(seat: RemotePlayer) -> None:
    """Every event of a game's life, and one fault, as the driver tells a seat."""
    seat.game_started(1, SETTINGS)
    seat.turn_revealed(0, 0, ROUND.turns[0])
    seat.round_ended(0, ROUND, (5, 9))
    seat.faulted(Fault(1, FaultKind.ILLEGAL, Decision.CARD, 0, 1, "card 200 is not in the hand"))
    seat.game_ended((5, 9), (0,))


def sent(connection: Connection) -> list[str]:
    kinds = []
    while not connection.outbox.empty():
        message = connection.outbox.get_nowait()
        assert message is not None
        kinds.append(message.WhichOneof("kind"))
    return kinds


def test_a_bot_that_wants_events_gets_every_event_and_the_fault(tmp_path: Path) -> None:
    connection = Connection("b")
    tell_a_game(player(tmp_path, connection))
    assert sent(connection) == [
        "game_started",
        "turn_revealed",
        "round_ended",
        "fault",
        "game_ended",
    ]


def test_a_bot_that_skips_events_gets_only_the_fault_and_no_event_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def built(*args: Any) -> None:
        raise AssertionError("an event was built for a bot that skips them")

    for name in (
        "game_started_to_proto",
        "turn_message",
        "round_ended_to_proto",
        "game_ended_to_proto",
    ):
        monkeypatch.setattr(convert, name, built)
    connection = Connection("b", skip_events=True)
    tell_a_game(player(tmp_path, connection))
    assert sent(connection) == ["fault"]


def hello(token: str, skip_events: bool) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(
            token=token, name="raw", protocol_version=PROTOCOL_VERSION, skip_events=skip_events
        )
    )


@pytest.mark.integration
@pytest.mark.usefixtures("no_leftover_processes")
@pytest.mark.parametrize("skip_events", [False, True])
def test_the_arena_records_the_bot_s_choice_from_its_hello(
    tmp_path: Path, skip_events: bool
) -> None:
    async def scenario() -> bool:
        async with (
            open_session([BotSpec("by-hand", None)], tmp_path) as session,
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            call = rpc.ArenaStub(channel).Play(timeout=30)
            await call.write(hello(session.lobby.external_token("by-hand"), skip_events))
            assert (await call.read()).WhichOneof("kind") == "welcome"
            (instance,) = [
                instance
                for instance in session.lobby.bots["by-hand"].instances
                if instance.connection is not None
            ]
            assert instance.connection is not None
            call.cancel()
            return instance.connection.skip_events

    assert asyncio.run(scenario()) is skip_events
