"""The remote player: engine questions become stream requests, and a bot's failures faults."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from arena.players import Fault, FaultKind, Player, PlayerFault, fallback
from arena.protocol import convert, pb
from arena.rules import Decision, RoundRecord, Settings, TurnRecord, View
from arena.server.connection import Connection
from arena.server.lobby import Bot, BotOptions, Instance


class RemotePlayer(Player):
    """One bot at one seat of one game.

    A bot that is gone (crashed, never connected) costs one fault in the game, then the fallback
    plays for it quietly; a disqualified bot is never asked again.
    """

    def __init__(
        self,
        bot: Bot,
        instance: Instance | None,
        game_id: str,
        names: Sequence[str],
        options: BotOptions,
    ) -> None:
        self.bot = bot
        self._instance = instance
        self._game_id = game_id
        self._names = tuple(names)
        self._options = options
        self._asked = False
        self._gone = False
        self._request_id = 0
        """The request the latest decision was asked in; 0 when none was sent."""

    async def choose_card(self, view: View) -> int:
        return await self._ask(Decision.CARD, view)

    async def choose_row(self, view: View) -> int:
        return await self._ask(Decision.ROW, view)

    async def choose_draft(self, view: View) -> int:
        return await self._ask(Decision.DRAFT, view)

    async def _ask(self, decision: Decision, view: View) -> int:
        self._request_id = 0
        if self._gone:
            return fallback(decision, view)
        connection = self._instance.connection if self._instance is not None else None
        if connection is None or connection.closed.is_set():
            self._gone = True
            if connection is not None:
                raise PlayerFault(FaultKind.CRASHED, f"{self.bot.name}: {connection.close_reason}")
            if self.bot.problem:  # each game it misses says why, once
                raise PlayerFault(FaultKind.NOT_CONNECTED, f"{self.bot.name} {self.bot.problem}")
            return fallback(decision, view)  # disqualified for its faults before the game
        if self.bot.disqualified:  # out for its faults: never asked again
            return fallback(decision, view)
        deadline = self._options.deadline if self._asked else self._options.first_deadline
        self._asked = True
        try:
            self._request_id = connection.request(self._game_id, decision, view, deadline)
            return await connection.answer(self._request_id)
        except PlayerFault as fault:
            if fault.kind is FaultKind.CRASHED:
                self._gone = True
            raise

    def _send(self, message: pb.ArenaMessage) -> None:
        if self._instance is not None and self._instance.connection is not None:
            self._instance.connection.send(message)

    def _listener(self) -> Connection | None:
        """The connection to tell the game's events, if the bot is connected and wants them.

        Asked before an event is built, so that nothing is built for a bot that said it keeps no
        state (Hello.skip_events). Fault notices go to every bot, through `_send`.
        """
        instance = self._instance
        if instance is None:
            return None
        connection = instance.connection
        if connection is None or connection.skip_events:
            return None
        return connection

    def game_started(self, seat: int, settings: Settings) -> None:
        if (connection := self._listener()) is not None:
            event = convert.game_started_to_proto(self._game_id, seat, settings, self._names)
            connection.send(pb.ArenaMessage(game_started=event))

    def turn_revealed(self, round: int, turn: int, record: TurnRecord) -> None:
        if (connection := self._listener()) is not None:
            connection.send(_turn_message(self._game_id, round, turn, record))

    def round_ended(self, round: int, record: RoundRecord, totals: tuple[int, ...]) -> None:
        if (connection := self._listener()) is not None:
            event = convert.round_ended_to_proto(self._game_id, round, record, totals)
            connection.send(pb.ArenaMessage(round_ended=event))

    def game_ended(self, totals: tuple[int, ...], winners: tuple[int, ...]) -> None:
        if (connection := self._listener()) is not None:
            event = convert.game_ended_to_proto(self._game_id, totals, winners)
            connection.send(pb.ArenaMessage(game_ended=event))

    def faulted(self, fault: Fault) -> None:
        """Count the fault toward disqualification and tell the bot, so its author sees why."""
        self.bot.faults += 1
        self._tell(self._request_id, fault)
        limit = self._options.max_faults
        if limit and self.bot.faults >= limit and not self.bot.disqualified:
            self.bot.disqualified = True
            why = f"is disqualified after {self.bot.faults} faults: the fallback plays for it"
            self.bot.note(why)
            self._tell(
                0, replace(fault, kind=FaultKind.DISQUALIFIED, message=f"{self.bot.name} {why}")
            )

    def _tell(self, request_id: int, fault: Fault) -> None:
        notice = convert.fault_to_proto(self._game_id, request_id, fault)
        self._send(pb.ArenaMessage(fault=notice))


_last_turn: tuple[TurnRecord, str, pb.ArenaMessage] | None = None
"""The TurnRevealed message last built, with the turn and game it tells of."""


def _turn_message(game_id: str, round: int, turn: int, record: TurnRecord) -> pb.ArenaMessage:
    """The event telling of one turn, built once for all the seats of its game.

    The driver tells every seat of a game the same turn one after the other, so the message
    built for the first seat serves the others (gRPC only reads a message it sends).
    """
    global _last_turn
    if _last_turn is not None and _last_turn[0] is record and _last_turn[1] == game_id:
        return _last_turn[2]
    message = convert.turn_message(game_id, round, turn, record)
    _last_turn = (record, game_id, message)
    return message
