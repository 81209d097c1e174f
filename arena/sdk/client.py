"""The SDK's client side of the stream: handshake, requests answered (async ones concurrently),
events.

`connect` opens the stream and `run_connection` runs one to its end with errors a person can
act on; both serve every Python-side client of the arena: `play` (SDK bots) and the
line-protocol bridge (`arena.sdk.stdio`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import math
import os
import sys
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Coroutine, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from arena.players import cheapest_row, choose
from arena.protocol import (
    ADDRESS_VARIABLE,
    PROTOCOL_VERSION,
    TLS_CA_VARIABLE,
    TOKEN_VARIABLE,
    convert,
    pb,
    rpc,
)
from arena.rules import Decision, Settings, TurnRecord, View


class Bot:
    """A bot: implement `choose_card`; `choose_row` (cheapest row) and `choose_draft` (lowest
    card) have defaults. Each may be a plain method or `async def`: a plain one is answered at once,
    one request at a time; an `async def` one in a task of its own, so that several requests (in
    different games) can be decided at once. The `on_` hooks are optional notifications for bots
    that keep state; the view in every request is complete without them. A bot that overrides
    none of `on_game_start`, `on_turn`, `on_round_end` and `on_game_end` is sent no events at all
    (Hello.skip_events); fault notices always come.

    (Not an `arena.players.Strategy`, which must answer synchronously: a bot may `await`.)
    """

    def choose_card(self, view: View) -> int | Awaitable[int]:
        """The card to play this turn; must be in `view.hand`."""
        raise NotImplementedError("a bot must implement choose_card")

    def choose_row(self, view: View) -> int | Awaitable[int]:
        """The row to take (0 to 3) when this bot's card is too low: by default the cheapest."""
        return cheapest_row(view.rows)

    def choose_draft(self, view: View) -> int | Awaitable[int]:
        """The face-up card to draft, from `view.table`: by default the lowest."""
        return view.table[0]

    def decide(self, decision: Decision, view: View) -> int | Awaitable[int]:
        """The answer to any decision: the `choose_` method for it."""
        return choose(self, decision, view)

    def on_game_start(
        self, game_id: str, seat: int, settings: Settings, players: list[str]
    ) -> None:
        """A game begins: this bot sits at `seat`; `players` are the bot names by seat."""

    def on_turn(self, game_id: str, round: int, turn: int, record: TurnRecord) -> None:
        """A turn's cards were revealed and placed."""

    def on_round_end(
        self, game_id: str, round: int, penalties: list[int], totals: list[int]
    ) -> None:
        """A round ended; `totals` are the game totals after it."""

    def on_game_end(self, game_id: str, totals: list[int], winners: list[int]) -> None:
        """A game ended."""

    def on_fault(self, game_id: str, kind: str, message: str) -> None:
        """The arena did not accept an answer; by default this prints why to stderr (the log)."""
        print(f"arena: fault in game {game_id}: {kind}: {message}", file=sys.stderr, flush=True)


_DEADLINE: ContextVar[float] = ContextVar("arena_sdk_deadline", default=math.inf)
"""When the request being answered falls due, on the `time.monotonic` clock. A context variable,
because an `async def` decision runs in its own task (which copies the context when it is
created): with several games on one connection, every decision sees its own deadline."""


_BANK: ContextVar[float] = ContextVar("arena_sdk_bank", default=0.0)
"""Seconds of time bank the request being answered may still draw on (Request.bank_ms)."""


def time_left() -> float:
    """Seconds left to answer the request being decided, so a bot can think as long as it may.

    Counted from when the SDK started on the request: delays on the way in and out still count
    against the bot, so keep a margin. `math.inf` outside a request (e.g. a bot called in a test).
    The time bank comes on top of it (`bank_left`).
    """
    return _DEADLINE.get() - time.monotonic()


def bank_left() -> float:
    """Seconds of this game's time bank left when the request being decided was sent (0 when
    the tournament has none, or it is spent): a decision may run this much past `time_left()`,
    and what it takes is gone for the rest of the game. 0 outside a request."""
    return _BANK.get()


EVENT_HOOKS = ("on_game_start", "on_turn", "on_round_end", "on_game_end")
"""The hooks that need the game's events; a bot that overrides none of them is sent none."""


def wants_events(bot: Bot) -> bool:
    """Whether `bot` overrides any of the event hooks (`on_fault` does not count: fault notices
    come to every bot)."""
    for name in EVENT_HOOKS:
        hook = getattr(bot, name)
        if getattr(hook, "__func__", hook) is not getattr(Bot, name):
            return True
    return False


def _deadline(request: pb.Request) -> float:
    """When the request falls due, on the `time.monotonic` clock."""
    if not request.deadline_ms:  # 0 is proto's "unset": no deadline known
        return math.inf
    return time.monotonic() + request.deadline_ms / 1000


def _unanswered(request: pb.Request) -> None:
    """The bot's own bug kept it from answering: show it in the log (the arena decides for it)."""
    print(f"arena: no answer to request {request.request_id}:", file=sys.stderr)
    traceback.print_exc()
    sys.stderr.flush()


def _notify(bot: Bot, message: pb.ArenaMessage) -> None:
    kind = message.WhichOneof("kind")
    if kind == "game_started":
        event = message.game_started
        settings = convert.settings_from_proto(event.settings)
        bot.on_game_start(event.game_id, event.seat, settings, list(event.players))
    elif kind == "turn_revealed":
        turn = message.turn_revealed
        bot.on_turn(turn.game_id, turn.round, turn.turn, convert.turn_from_proto(turn))
    elif kind == "round_ended":
        end = message.round_ended
        bot.on_round_end(end.game_id, end.round, list(end.penalties), list(end.totals))
    elif kind == "game_ended":
        over = message.game_ended
        bot.on_game_end(over.game_id, list(over.totals), list(over.winners))
    elif kind == "fault":
        fault = message.fault
        bot.on_fault(fault.game_id, _fault_kind(fault.kind), fault.message)


def _fault_kind(value: int) -> str:
    """The kind's name; a kind this SDK does not know (from a newer arena) as its number."""
    try:
        return convert.fault_kind_from_proto(value)
    except convert.ProtocolError:
        return str(value)


class Stream:
    """One open Play stream, from the bot's side: iterate it for the arena's messages (the
    Welcome first) and `send` answers. Iterating raises grpc.aio.AioRpcError when the arena
    ends the stream with an error status; it simply stops when the arena closes it (OK)."""

    def __init__(self, call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.ArenaMessage]) -> None:
        self._call = call
        self._writing = asyncio.Lock()
        """gRPC takes one message at a time on a stream: concurrent sends take turns."""

    def __aiter__(self) -> AsyncIterator[pb.ArenaMessage]:
        iterator: AsyncIterator[pb.ArenaMessage] = self._call.__aiter__()
        return iterator

    async def send(self, answer: pb.Answer) -> None:
        """Send an answer; messages go out in the order they were sent. Once the stream has
        ended the answer is dropped: iterating the stream says how it ended."""
        await self._write(pb.BotMessage(answer=answer))

    async def _write(self, message: pb.BotMessage) -> None:
        # Once the stream is over, reading it raises or ends: that says what happened.
        async with self._writing:
            with contextlib.suppress(asyncio.InvalidStateError, grpc.aio.AioRpcError):
                await self._call.write(message)

    async def _close(self) -> None:
        """Close the bot's side of the stream (idempotent; nothing to do once it has ended)."""
        with contextlib.suppress(asyncio.InvalidStateError, grpc.aio.AioRpcError):
            await self._call.done_writing()


@asynccontextmanager
async def connect(
    address: str,
    token: str,
    name: str,
    version: str = "",
    tls_ca: bytes | None = None,
    skip_events: bool = False,
) -> AsyncIterator[Stream]:
    """Open the Play stream and say hello; leaving the block closes the bot's side and the channel.

    `tls_ca` is the CA certificate (PEM) of an arena that listens with TLS; None for the
    plaintext channel of bots the arena launches. `skip_events` asks the arena for requests and
    fault notices only (Hello.skip_events).
    """
    hello = pb.Hello(
        token=token,
        name=name,
        version=version,
        protocol_version=PROTOCOL_VERSION,
        skip_events=skip_events,
    )
    channel = (
        grpc.aio.insecure_channel(address)
        if tls_ca is None
        else grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(tls_ca))
    )
    async with channel:
        stream = Stream(rpc.ArenaStub(channel).Play())
        await stream._write(pb.BotMessage(hello=hello))
        try:
            yield stream
        finally:
            await stream._close()


async def play(
    bot: Bot,
    address: str,
    token: str,
    name: str,
    version: str = "",
    tls_ca: bytes | None = None,
) -> None:
    """Connect to the arena and serve until it closes the stream; raises grpc.aio.AioRpcError.

    A plain decision method is answered at once, before the next message is read; an `async def`
    one in a task of its own, so that it may wait (on a search in a thread, say) while other
    requests are answered.
    """
    skip_events = not wants_events(bot)
    async with connect(address, token, name, version, tls_ca, skip_events) as stream:

        async def reply(request: pb.Request, decision: Decision, choice: Awaitable[int]) -> None:
            try:
                answer = convert.answer_to_proto(request.request_id, decision, int(await choice))
            except Exception:  # the bot's own bug: show it in the log, and serve the other requests
                _unanswered(request)
                return
            await stream.send(answer)

        tasks: set[asyncio.Task[None]] = set()

        def decide(request: pb.Request) -> pb.Answer | None:
            """The answer of a plain method; None when an `async def` one goes on in a task (it
            copies the context now, with this request's deadline) or the bot failed."""
            token = _DEADLINE.set(_deadline(request))
            bank = _BANK.set(request.bank_ms / 1000)
            try:
                decision = convert.decision_from_proto(request.decision)
                choice = bot.decide(decision, convert.view_from_proto(request.view))
                if inspect.isawaitable(choice):
                    task = asyncio.create_task(reply(request, decision, choice))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                    return None
                return convert.answer_to_proto(request.request_id, decision, int(choice))
            except Exception:  # the bot's own bug: as in reply
                _unanswered(request)
                return None
            finally:
                _DEADLINE.reset(token)
                _BANK.reset(bank)

        try:
            async for message in stream:
                if message.WhichOneof("kind") != "request":
                    _notify(bot, message)
                elif (answer := decide(message.request)) is not None:
                    await stream.send(answer)
        finally:
            for task in tasks:
                task.cancel()


@dataclass(frozen=True)
class Endpoint:
    """Where a bot connects, and the token it shows."""

    address: str
    token: str
    tls_ca: bytes | None = None
    """The CA certificate (PEM) of an arena that listens with TLS; None for plaintext."""


def add_endpoint_options(parser: argparse.ArgumentParser) -> None:
    """Add --address, --token and --tls-ca, each defaulting to the environment the arena sets."""
    parser.add_argument("--address", default=os.environ.get(ADDRESS_VARIABLE))
    parser.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE))
    parser.add_argument(
        "--tls-ca",
        default=os.environ.get(TLS_CA_VARIABLE),
        help="CA certificate (PEM) of an arena that listens with TLS",
    )


def endpoint(args: argparse.Namespace) -> Endpoint:
    """The endpoint the options of `add_endpoint_options` name; exits with one line if it cannot."""
    if not args.address or not args.token:
        sys.exit(
            f"no arena to connect to: set {ADDRESS_VARIABLE} and {TOKEN_VARIABLE} "
            "(the arena does so for bots it starts) or pass --address and --token"
        )
    try:
        tls_ca = Path(args.tls_ca).read_bytes() if args.tls_ca else None
    except OSError as error:
        sys.exit(f"cannot read the TLS CA certificate {args.tls_ca!r}: {error.strerror}")
    return Endpoint(args.address, args.token, tls_ca)


def run_connection(main: Coroutine[Any, Any, None], address: str) -> None:
    """Run a connection (`main`) to its end; exits with one line when the arena refuses the bot
    or cannot be reached, quietly on Ctrl-C."""
    try:
        asyncio.run(main)
    except grpc.aio.AioRpcError as error:
        if error.code() is grpc.StatusCode.UNAVAILABLE:
            sys.exit(f"the arena at {address} is unavailable: {error.details()}")
        sys.exit(f"the arena ended the connection: {error.code().name}: {error.details()}")
    except KeyboardInterrupt:
        pass


def run(bot: Bot, name: str | None = None, argv: Sequence[str] | None = None) -> None:
    """Run `bot` until the arena is done with it; exits with a one-line error if it cannot.

    Its stdout is made line-buffered, as stderr is: the arena files each line of a bot's log
    under the turn it was read in, so a `print` must not wait in a buffer for later turns.
    """
    with contextlib.suppress(AttributeError, ValueError):  # a replaced or closed stream
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    parser = argparse.ArgumentParser(description=f"6 nimmt! bot {name or type(bot).__name__}")
    add_endpoint_options(parser)
    parser.add_argument("--name", default=name or type(bot).__name__)
    args, _ = parser.parse_known_args(argv)
    where = endpoint(args)
    run_connection(
        play(bot, where.address, where.token, args.name, tls_ca=where.tls_ca), where.address
    )
