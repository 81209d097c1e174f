"""The remote player: an engine question becomes a stream request, and its answer or failure
comes back as an answer or a `PlayerFault`. What a fault costs is the referee's, not this
module's (`arena.players.referee`). Each decision is allowed what the seat's `Clock` says
(deadline and bank), paced by the game's `Pacer` (fair CPU: the bot is thawed for it alone),
measured by the connection, and the clock updated with what it took; its `DecisionTime` is the
clock's seconds and bank beside the pacer's CPU."""

from __future__ import annotations

from collections.abc import Sequence

from arena.players import DecisionTime, Fault, FaultKind, Player, PlayerFault
from arena.protocol import convert, pb
from arena.rules import Decision, RoundRecord, Settings, TurnRecord, View
from arena.server.botlog import Where
from arena.server.clock import TIMED_OUT, Clock, Spent, TimeControl
from arena.server.connection import Connection
from arena.server.isolation.fairness import Pacer, Used
from arena.server.lobby import Bot, Instance
from arena.server.options import BotOptions


class RemoteGame:
    """One game as the wire sees it, shared by its remote seats: its id, the players' names, and
    each turn's event, built once for every seat that is told of it."""

    def __init__(
        self,
        game_id: str,
        names: Sequence[str],
        options: BotOptions,
        pacer: Pacer | None = None,
    ) -> None:
        self.game_id = game_id
        self.names = tuple(names)
        self.options = options
        self.time_control = TimeControl(options.first_deadline, options.deadline, options.time_bank)
        """Each seat's limits: every seat has a `Clock` of its own, set to these."""
        self.pacer = pacer or Pacer(fair=False)
        """How its bots get the CPU (fair: thawed for their own decisions alone)."""
        self._turn: tuple[TurnRecord, pb.ArenaMessage] | None = None
        self._public: tuple[View, pb.View] | None = None

    def public_view(self, view: View) -> pb.View:
        """The public part of a request's view (`convert.public_view`): built for the first seat
        asked at a moment of the game, and merged into the requests of the others."""
        if self._public is None or not convert.same_moment(self._public[0], view):
            self._public = (view, convert.public_view(view))
        return self._public[1]

    def turn_message(self, round: int, turn: int, record: TurnRecord) -> pb.ArenaMessage:
        """The event telling of one turn; the driver tells every seat the same turn in a row, so
        the message built for the first serves the others (gRPC only reads what it sends)."""
        if self._turn is None or self._turn[0] is not record:
            self._turn = (record, convert.turn_message(self.game_id, round, turn, record))
        return self._turn[1]


class RemotePlayer(Player):
    """One bot at one seat of one game, asked over its instance's stream."""

    def __init__(self, bot: Bot, instance: Instance | None, game: RemoteGame) -> None:
        self.bot = bot
        self._instance = instance
        self._game = game
        self._request_id = 0
        """The request the latest decision was asked in; 0 when none was sent."""
        self.clock = Clock(game.time_control)
        """This seat's clock in this game: its next decision's allowance, and its bank."""
        self._timed: DecisionTime | None = None
        """What the latest decision took (`timed`)."""
        if instance is not None:  # from now on, what it writes belongs to this game
            bot.lines.at(instance, Where(game.game_id))

    def _connection(self) -> Connection | None:
        return self._instance.connection if self._instance is not None else None

    def absence(self) -> PlayerFault | None:
        connection = self._connection()
        if connection is None:  # it could not start; or, with no problem noted, it is out
            if not self.bot.problem:
                return None
            return PlayerFault(FaultKind.NOT_CONNECTED, f"{self.bot.name} {self.bot.problem}")
        if connection.closed.is_set():
            return PlayerFault(FaultKind.CRASHED, f"{self.bot.name}: {connection.close_reason}")
        return None

    def timed(self) -> DecisionTime | None:
        return self._timed

    async def decide(self, decision: Decision, view: View) -> int:
        self._request_id = 0
        self._timed = None
        connection = self._connection()
        if connection is None:
            raise PlayerFault(FaultKind.NOT_CONNECTED, f"{self.bot.name} is not connected")
        game = self._game
        allowance = self.clock.allowance()
        if self._instance is not None:  # what it writes from now on is filed under this decision
            self.bot.lines.at(self._instance, self._where(decision, view.round, view.turn))
        outcome: tuple[int, float] | PlayerFault
        ended = connection.closed.is_set
        async with game.pacer.decision(view.seat, ended) as used:
            try:
                public = game.public_view(view)
                request_id = connection.request(
                    game.game_id, decision, view, allowance.deadline, allowance.bank, public
                )
                self._request_id = request_id
                outcome = await connection.answer_timed(request_id)
            except PlayerFault as fault:
                outcome = fault
        # The pacing is over: the bot is frozen again, and the CPU it used is known.
        if isinstance(outcome, PlayerFault):
            timed_out = outcome.kind is FaultKind.TIMEOUT  # it had all its time: the bank is spent
            self._note(decision, view, self.clock.update(TIMED_OUT if timed_out else None), used)
            raise outcome
        answer, took = outcome
        self._note(decision, view, self.clock.update(took), used)
        return answer

    def _note(self, decision: Decision, view: View, spent: Spent | None, used: Used) -> None:
        """Note what a decision took (the clock's judgement beside the pacer's CPU), for `timed`;
        nothing for a decision the clock did not time."""
        if spent is None:
            return
        self._timed = DecisionTime(
            view.seat,
            decision,
            view.round,
            view.turn,
            spent.seconds,
            used.cpu,
            spent.bank,
            used.neighbours,
        )

    def _where(self, decision: Decision, round: int, turn: int) -> Where:
        """Where in this game a decision is: its round and turn (no turn in the draft)."""
        return Where(self._game.game_id, round, None if decision is Decision.DRAFT else turn)

    def _listener(self) -> Connection | None:
        """The connection to tell the game's events, if the bot is connected and wants them.

        Asked before an event is built, so that nothing is built for a bot that said it keeps no
        state (Hello.skip_events). Fault notices go to every connected bot.
        """
        connection = self._connection()
        if connection is None or connection.skip_events:
            return None
        return connection

    def game_started(self, seat: int, settings: Settings) -> None:
        if (connection := self._listener()) is not None:
            game = self._game
            event = convert.game_started_to_proto(game.game_id, seat, settings, game.names)
            connection.send(pb.ArenaMessage(game_started=event))

    def turn_revealed(self, round: int, turn: int, record: TurnRecord) -> None:
        if (connection := self._listener()) is not None:
            connection.send(self._game.turn_message(round, turn, record))

    def round_ended(self, round: int, record: RoundRecord, totals: tuple[int, ...]) -> None:
        if (connection := self._listener()) is not None:
            event = convert.round_ended_to_proto(self._game.game_id, round, record, totals)
            connection.send(pb.ArenaMessage(round_ended=event))

    def game_ended(self, totals: tuple[int, ...], winners: tuple[int, ...]) -> None:
        if (connection := self._listener()) is not None:
            event = convert.game_ended_to_proto(self._game.game_id, totals, winners)
            connection.send(pb.ArenaMessage(game_ended=event))

    def faulted(self, fault: Fault) -> None:
        """Tell the bot, so its author sees why, and note it in the bot's log beside its turn."""
        disqualified = fault.kind is FaultKind.DISQUALIFIED
        where = self._where(fault.decision, fault.round, fault.turn)
        if disqualified:
            self.bot.note(self.bot.referee.disqualified, where)
        else:
            self.bot.note(f"fault ({fault.kind}, {fault.decision}): {fault.message}", where)
        request_id = 0 if disqualified else self._request_id
        if (connection := self._connection()) is not None:
            notice = convert.fault_to_proto(self._game.game_id, request_id, fault)
            connection.send(pb.ArenaMessage(fault=notice))
