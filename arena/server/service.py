"""The gRPC arena server: the handshake, then one stream per bot carrying requests and answers.

The arena is the server and every bot a client, so a bot needs no port of its own and can run
anywhere that reaches the arena, a debugger included.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Protocol, TypeAlias

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena import __version__
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, pb, rpc
from arena.server.connection import Connection
from arena.server.listen import Listener

HELLO_TIMEOUT = 10.0
"""Seconds a new stream has to say hello before the arena hangs up."""
DEFAULT_MAX_MESSAGE = 64 * 1024
"""The largest message a bot may send: an answer is a few bytes, so this is generous."""


_Context: TypeAlias = grpc.aio.ServicerContext[pb.BotMessage, pb.ArenaMessage]
"""The server's side of one Play stream."""


class Refused(Exception):
    """A hello the arena will not accept, with the message for the bot's author."""


class Admission(Protocol):
    """Who may connect: turns a hello into a connection bound to one bot, or refuses it."""

    def admit(self, hello: pb.Hello) -> Connection:
        """The new connection for this hello's token; raises Refused."""

    def leave(self, connection: Connection) -> None:
        """The connection's stream has ended."""


class ArenaService(rpc.ArenaServicer):
    """The `Arena` service: authenticates a stream, then pumps its connection both ways."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission

    async def Play(
        self, requests: AsyncIterator[pb.BotMessage], context: _Context
    ) -> AsyncIterator[pb.ArenaMessage]:
        """Handshake, then send the connection's outbox while a task reads the bot's answers."""
        hello = await _read_hello(requests, context)
        try:
            connection = self._admission.admit(hello)
        except Refused as refusal:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(refusal))
        connection.skip_events = hello.skip_events
        reader = asyncio.create_task(_read_answers(requests, connection))
        try:
            yield pb.ArenaMessage(
                welcome=pb.Welcome(
                    protocol_version=PROTOCOL_VERSION,
                    bot_name=connection.bot_name,
                    arena_version=__version__,
                )
            )
            while (message := await connection.outbox.get()) is not None:
                yield message
        finally:
            reader.cancel()
            connection.close("the stream ended")
            self._admission.leave(connection)


async def _read_hello(requests: AsyncIterator[pb.BotMessage], context: _Context) -> pb.Hello:
    """The stream's first message, which must be a hello in a protocol version we speak."""
    try:
        first = await asyncio.wait_for(anext(requests), HELLO_TIMEOUT)
    except (StopAsyncIteration, TimeoutError):
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"send a hello as the first message, within {HELLO_TIMEOUT:g} s",
        )
    if first.WhichOneof("kind") != "hello":
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT, "the first message on the stream must be a hello"
        )
    hello: pb.Hello = first.hello
    if hello.protocol_version != PROTOCOL_VERSION:
        await context.abort(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"this arena speaks protocol version {PROTOCOL_VERSION}, the bot sent "
            f"{hello.protocol_version}: build the bot against proto/sixnimmt/v1/arena.proto",
        )
    return hello


async def _read_answers(requests: AsyncIterator[pb.BotMessage], connection: Connection) -> None:
    """Hand every answer to the connection; close it when the bot's side of the stream ends."""
    reason = "the bot closed its stream"
    try:
        async for message in requests:
            if message.WhichOneof("kind") == "answer":
                connection.receive(message.answer)
            else:
                connection.violation("sent a second hello on its stream")
    except grpc.aio.AioRpcError as error:
        reason = f"the stream broke: {error.code().name} {error.details()}"
    except Exception as error:  # a broken stream surfaces as many kinds of error
        reason = f"the stream broke: {error!r}"
    connection.close(reason)


async def create_server(
    admission: Admission,
    address: str = "127.0.0.1:0",
    max_message: int = DEFAULT_MAX_MESSAGE,
    public: Listener | None = None,
) -> tuple[grpc.aio.Server, str, str | None]:
    """A started arena server, the address launched bots dial (the real port when asked for
    port 0), and the public address external bots dial, if `public` is given.

    Besides the Arena service it serves gRPC health checking and reflection.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message),
            ("grpc.so_reuseport", 0),
        ]
    )
    rpc.add_ArenaServicer_to_server(ArenaService(admission), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    local = Listener(address)
    local.check()  # launched bots dial this one: loopback, or refuse
    bound = local.bind(server)
    public_address = public.bind(server) if public is not None else None
    await server.start()
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return server, bound, public_address
