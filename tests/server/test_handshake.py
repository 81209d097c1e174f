"""The handshake, seen by a raw gRPC client: who is let in, who is refused and with what words;
and the health and reflection services beside the Arena service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, pb, rpc
from arena.server import service
from arena.server.lobby import BotSpec
from arena.server.session import Session, open_session

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

NAME = "by-hand"


@asynccontextmanager
async def arena(logs: Path) -> AsyncIterator[tuple[Session, str]]:
    """A running arena with one external bot, and that bot's token."""
    async with open_session([BotSpec(NAME, None)], logs) as session:
        yield session, session.lobby.external_token(NAME)


def hello(token: str, version: int = PROTOCOL_VERSION) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(token=token, name="raw", version="test", protocol_version=version)
    )


async def refusal(address: str, *messages: pb.BotMessage) -> tuple[grpc.StatusCode, str]:
    """Open a stream, send `messages`, and return how the arena ended it."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = rpc.ArenaStub(channel).Play(timeout=30)
        for message in messages:
            await call.write(message)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call.read()
        return refused.value.code(), refused.value.details() or ""


def test_a_bot_with_its_token_is_welcomed_under_its_registered_name(logs: Path) -> None:
    async def scenario() -> pb.ArenaMessage:
        async with (
            arena(logs) as (session, token),
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            call = rpc.ArenaStub(channel).Play(timeout=30)
            await call.write(hello(token))
            welcome: pb.ArenaMessage = await call.read()
            call.cancel()
            return welcome

    message = asyncio.run(scenario())
    assert message.WhichOneof("kind") == "welcome"
    assert message.welcome.bot_name == NAME
    assert message.welcome.protocol_version == PROTOCOL_VERSION


def test_an_unknown_token_is_unauthenticated(logs: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with arena(logs) as (session, token):
            return await refusal(session.address, hello(token + "x"))

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.UNAUTHENTICATED
    assert "unknown token" in details
    assert "ARENA_TOKEN" in details  # where the right one is


def test_a_second_stream_with_a_connected_token_is_unauthenticated(logs: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, str, str]:
        async with (
            arena(logs) as (session, token),
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            first = rpc.ArenaStub(channel).Play(timeout=30)
            await first.write(hello(token))
            welcome = await first.read()
            code, details = await refusal(session.address, hello(token))
            first.cancel()
            return code, details, welcome.WhichOneof("kind")

    code, details, first_kind = asyncio.run(scenario())
    assert first_kind == "welcome"
    assert code is grpc.StatusCode.UNAUTHENTICATED
    assert "already connected" in details
    assert "another copy" in details  # what to look for
    assert repr(NAME) in details


def test_a_token_may_connect_again_once_its_stream_ended(logs: Path) -> None:
    async def scenario() -> str:
        async with arena(logs) as (session, token):
            async with grpc.aio.insecure_channel(session.address) as channel:
                first = rpc.ArenaStub(channel).Play(timeout=30)
                await first.write(hello(token))
                await first.read()
                await first.done_writing()  # the bot's side ends: the arena ends the stream
                assert await first.read() is grpc.aio.EOF
                assert await first.code() is grpc.StatusCode.OK
            async with grpc.aio.insecure_channel(session.address) as channel:
                again = rpc.ArenaStub(channel).Play(timeout=30)
                await again.write(hello(token))
                kind: str = (await again.read()).WhichOneof("kind")
                again.cancel()
                return kind

    assert asyncio.run(scenario()) == "welcome"


def test_an_unsupported_protocol_version_is_a_failed_precondition(logs: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with arena(logs) as (session, token):
            return await refusal(session.address, hello(token, version=PROTOCOL_VERSION + 1))

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert f"protocol version {PROTOCOL_VERSION}" in details
    assert f"sent {PROTOCOL_VERSION + 1}" in details
    assert "arena.proto" in details  # what to build against


def test_a_first_message_that_is_not_a_hello_is_an_invalid_argument(logs: Path) -> None:
    answer = pb.BotMessage(answer=pb.Answer(request_id=1, card=5))

    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with arena(logs) as (session, _):
            return await refusal(session.address, answer)

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert "first message" in details and "hello" in details


def test_a_stream_that_never_says_hello_is_an_invalid_argument(
    logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "HELLO_TIMEOUT", 0.3)

    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with arena(logs) as (session, _):
            return await refusal(session.address)

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert "send a hello as the first message, within 0.3 s" in details


def test_a_bot_that_closes_its_side_before_hello_is_an_invalid_argument(logs: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        async with (
            arena(logs) as (session, _),
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            call = rpc.ArenaStub(channel).Play(timeout=30)
            await call.done_writing()
            return await call.code(), await call.details()

    code, details = asyncio.run(scenario())
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert "hello" in details


def test_the_health_service_reports_the_arena_serving(logs: Path) -> None:
    async def scenario() -> list[int]:
        async with (
            arena(logs) as (session, _),
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            stub = health_pb2_grpc.HealthStub(channel)
            statuses = []
            for name in (SERVICE_NAME, ""):
                request = health_pb2.HealthCheckRequest(service=name)
                statuses.append((await stub.Check(request, timeout=30)).status)
            return statuses

    assert SERVICE_NAME == "sixnimmt.v1.Arena"
    assert asyncio.run(scenario()) == [health_pb2.HealthCheckResponse.SERVING] * 2


def test_reflection_lists_the_arena_service_and_describes_it(logs: Path) -> None:
    async def scenario() -> tuple[set[str], str]:
        async with (
            arena(logs) as (session, _),
            grpc.aio.insecure_channel(session.address) as channel,
        ):
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            asked = [
                reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME),
            ]
            replies = [reply async for reply in stub.ServerReflectionInfo(iter(asked), timeout=30)]
            services = {s.name for s in replies[0].list_services_response.service}
            files = replies[1].file_descriptor_response.file_descriptor_proto
            return services, b"".join(files).decode("latin-1")

    services, descriptor = asyncio.run(scenario())
    assert SERVICE_NAME in services
    assert "grpc.health.v1.Health" in services
    assert "sixnimmt/v1/arena.proto" in descriptor
