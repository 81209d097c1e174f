"""The SDK's client side of the stream: handshake, requests answered concurrently, events."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Sequence

import grpc

from arena.players import cheapest_row
from arena.protocol import (
    ADDRESS_VARIABLE,
    PROTOCOL_VERSION,
    TOKEN_VARIABLE,
    convert,
    pb,
    rpc,
)
from arena.rules import Decision, Settings, TurnRecord, View


class Bot:
    """A bot: implement `choose_card`; `choose_row` (cheapest row) and `choose_draft` (lowest
    card) have defaults. Each may be a plain method or `async def`. The `on_` hooks are optional
    notifications for bots that keep state; the view in every request is complete without them.

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


_CHOOSE = {
    Decision.CARD: "choose_card",
    Decision.ROW: "choose_row",
    Decision.DRAFT: "choose_draft",
}


async def _answer(bot: Bot, request: pb.Request) -> pb.BotMessage:
    decision = convert.decision_from_proto(request.decision)
    choice = getattr(bot, _CHOOSE[decision])(convert.view_from_proto(request.view))
    if inspect.isawaitable(choice):
        choice = await choice
    return pb.BotMessage(answer=convert.answer_to_proto(request.request_id, decision, int(choice)))


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


async def play(bot: Bot, address: str, token: str, name: str, version: str = "") -> None:
    """Connect to the arena and serve until it closes the stream; raises grpc.aio.AioRpcError."""
    outbox: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
    outbox.put_nowait(
        pb.BotMessage(
            hello=pb.Hello(
                token=token, name=name, version=version, protocol_version=PROTOCOL_VERSION
            )
        )
    )

    async def outgoing() -> AsyncIterator[pb.BotMessage]:
        while (message := await outbox.get()) is not None:
            yield message

    async def reply(request: pb.Request) -> None:
        try:
            outbox.put_nowait(await _answer(bot, request))
        except Exception:  # the bot's own bug: show it in the log, and serve the other requests
            print(f"arena: no answer to request {request.request_id}:", file=sys.stderr)
            traceback.print_exc()
            sys.stderr.flush()

    tasks: set[asyncio.Task[None]] = set()
    async with grpc.aio.insecure_channel(address) as channel:
        call = rpc.ArenaStub(channel).Play(outgoing())
        try:
            async for message in call:
                if message.WhichOneof("kind") == "request":
                    task = asyncio.create_task(reply(message.request))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                else:
                    _notify(bot, message)
        finally:
            for task in tasks:
                task.cancel()
            outbox.put_nowait(None)


def run(bot: Bot, name: str | None = None, argv: Sequence[str] | None = None) -> None:
    """Run `bot` until the arena is done with it; exits with a one-line error if it cannot."""
    parser = argparse.ArgumentParser(description=f"6 nimmt! bot {name or type(bot).__name__}")
    parser.add_argument("--address", default=os.environ.get(ADDRESS_VARIABLE))
    parser.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE))
    parser.add_argument("--name", default=name or type(bot).__name__)
    args, _ = parser.parse_known_args(argv)
    if not args.address or not args.token:
        sys.exit(
            f"no arena to connect to: set {ADDRESS_VARIABLE} and {TOKEN_VARIABLE} "
            "(the arena does so for bots it starts) or pass --address and --token"
        )
    try:
        asyncio.run(play(bot, args.address, args.token, args.name))
    except grpc.aio.AioRpcError as error:
        if error.code() is grpc.StatusCode.UNAVAILABLE:
            sys.exit(f"the arena at {args.address} is unavailable: {error.details()}")
        sys.exit(f"the arena ended the connection: {error.code().name}: {error.details()}")
    except KeyboardInterrupt:
        pass
