"""The gRPC arena server: the handshake, then one stream per bot carrying requests and answers.

The arena is the server and every bot a client, so a bot needs no port of its own and can run
anywhere that reaches the arena, a debugger included.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
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
MAX_UNGREETED = 16
"""Streams of one server that may be waiting for their hello at once; more are refused at once
(RESOURCE_EXHAUSTED). A bot's own socket never needs more than one per process it starts."""
MAX_CONNECTIONS = 256
"""Connections one listening address accepts at once (gRPC's `max_allowed_incoming_connections`,
which counts per address): a bot's own socket, or the port for external bots. A bot uses one
per process; a flood of connections beyond this is refused by gRPC before it costs the arena a
file descriptor more, and, on a bot's own socket, costs no other bot anything."""
MAX_STREAMS = 8
"""Streams one connection may have open at once (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS)."""
HANDSHAKE_TIMEOUT_MS = 10_000
"""A connection that has not finished its HTTP/2 (or TLS) handshake by then is closed."""
IDLE_TIMEOUT_MS = 30_000
"""A connection with no stream open for this long is closed: a bot keeps its stream open."""
KEEPALIVE_MS = 60_000
"""The server pings a connection quiet for this long, and drops it if no answer comes within
`KEEPALIVE_TIMEOUT_MS`: a peer that vanished (external bots, over a network) is noticed."""
KEEPALIVE_TIMEOUT_MS = 20_000
NO_KEEPALIVE_MS = 2**31 - 1
"""A launched bot's own socket is never pinged: its exit is noticed by its process ending, not
by its silence, and a bot frozen between its decisions (fair CPU) could not answer a ping. (gRPC
did not drop one frozen for 100 s under the external bots' settings either; this makes sure.)"""


_Context: TypeAlias = grpc.aio.ServicerContext[pb.BotMessage, pb.ArenaMessage]
"""The server's side of one Play stream."""


class Refused(Exception):
    """A hello the arena will not accept, with the message for the bot's author."""


class Admission(Protocol):
    """Who may connect: turns a hello into a connection bound to one bot, or refuses it."""

    def admit(self, hello: pb.Hello, scope: str | None = None) -> Connection:
        """The new connection for this hello's token, which must be of the bot `scope` names
        (None: of an external bot); raises Refused."""

    def leave(self, connection: Connection) -> None:
        """The connection's stream has ended."""


class ArenaService(rpc.ArenaServicer):
    """The `Arena` service: authenticates a stream, then pumps its connection both ways.

    `scope` names the one bot this service's server is for (a launched bot's own socket):
    only that bot's tokens are accepted there. None: the server external bots connect to.
    """

    def __init__(
        self, admission: Admission, scope: str | None = None, max_ungreeted: int = MAX_UNGREETED
    ) -> None:
        self._admission = admission
        self._scope = scope
        self._max_ungreeted = max_ungreeted
        self._ungreeted = 0
        """Streams open now that have not said hello yet."""

    # The stubs know only a handler that returns its replies; gRPC's asyncio server also takes
    # one that writes them (`context.write`): the connection's pump, which times each request
    # from its write (`Connection.pump`).
    async def Play(  # type: ignore[override]
        self, requests: AsyncIterator[pb.BotMessage], context: _Context
    ) -> None:
        """Handshake, then write to the stream what the connection sends (`Connection.pump`)
        while a task reads the bot's answers."""
        if self._ungreeted >= self._max_ungreeted:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self._ungreeted} streams are already waiting to say hello: say hello at once",
            )
        self._ungreeted += 1
        try:
            hello = await _read_hello(requests, context)
        finally:
            self._ungreeted -= 1
        try:
            connection = self._admission.admit(hello, self._scope)
        except Refused as refusal:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(refusal))
        connection.skip_events = hello.skip_events
        reader = asyncio.create_task(_read_answers(requests, connection))
        try:
            welcome = pb.Welcome(
                protocol_version=PROTOCOL_VERSION,
                bot_name=connection.bot_name,
                arena_version=__version__,
            )
            await context.write(pb.ArenaMessage(welcome=welcome))
            await connection.pump(context.write)
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


def server_options(
    max_message: int, connections: int = MAX_CONNECTIONS, keepalive_ms: int = KEEPALIVE_MS
) -> list[tuple[str, int]]:
    """The options that bound what any peer can make a server hold: message size, connections
    per address, streams per connection, and how long a silent connection is kept (pinged
    after `keepalive_ms` of quiet)."""
    return [
        ("grpc.max_receive_message_length", max_message),
        ("grpc.so_reuseport", 0),
        ("grpc.max_allowed_incoming_connections", connections),
        ("grpc.max_concurrent_streams", MAX_STREAMS),
        ("grpc.server_handshake_timeout_ms", HANDSHAKE_TIMEOUT_MS),
        ("grpc.max_connection_idle_ms", IDLE_TIMEOUT_MS),
        ("grpc.keepalive_time_ms", keepalive_ms),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ]


async def create_bot_server(
    admission: Admission, socket: Path, bot: str, max_message: int = DEFAULT_MAX_MESSAGE
) -> grpc.aio.Server:
    """A started server for one launched bot alone, on the unix socket `socket`: it admits only
    that bot's tokens, and whatever that bot does to it (a flood of connections or of streams
    that never say hello) is bounded by this server's own limits, and costs no other bot a
    connection. The socket may be connected to by any user (bots run as users of their own):
    it must lie in a folder only the arena can reach, from which a sandbox binds it."""
    server = grpc.aio.server(options=server_options(max_message, keepalive_ms=NO_KEEPALIVE_MS))
    rpc.add_ArenaServicer_to_server(ArenaService(admission, scope=bot), server)
    server.add_insecure_port(f"unix:{socket}")
    await server.start()
    os.chmod(socket, 0o666)
    return server


async def create_server(
    admission: Admission,
    address: str = "127.0.0.1:0",
    max_message: int = DEFAULT_MAX_MESSAGE,
    public: Listener | None = None,
    connections: int = MAX_CONNECTIONS,
) -> tuple[grpc.aio.Server, str, str | None]:
    """A started server for external bots: the address they dial on this machine (the real
    port when asked for port 0), and the public address, if `public` is given. It admits
    external bots' tokens only (launched bots have sockets of their own, `create_bot_server`).

    Besides the Arena service it serves gRPC health checking and reflection.
    """
    server = grpc.aio.server(options=server_options(max_message, connections))
    service = ArenaService(admission, max_ungreeted=max(MAX_UNGREETED, connections // 4))
    rpc.add_ArenaServicer_to_server(service, server)
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
