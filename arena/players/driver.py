"""The drivers: run one game by asking its players, and turn every bad answer into a fault.

The engine validates too and would raise; the driver checks first with the engine's own checks,
so that a faulting player costs a recorded fault and the fallback's decision, never the game.

Two drivers share one `_Table`, which holds everything but the asking: `play_game` asks any
`Player` (async, so remote bots are asked at once), `play_local` asks in-process strategies
directly, without an event loop, for when nothing needs awaiting (simulations, benchmarks).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from arena.players.base import Fault, FaultKind, Player, PlayerFault
from arena.players.strategies import Strategy, fallback
from arena.rules import (
    Decision,
    Game,
    GameRecord,
    IllegalDecisionError,
    Phase,
    Settings,
    View,
    check_answer,
)


@dataclass(frozen=True, slots=True)
class GameResult:
    """What a game produces: its record and the faults committed in it."""

    record: GameRecord
    """The full record of the game, as played (fallback decisions included)."""
    faults: tuple[Fault, ...]
    """Every fault, in the order they happened."""


_ASK: dict[Decision, Callable[[Player, View], Awaitable[int]]] = {
    Decision.CARD: lambda player, view: player.choose_card(view),
    Decision.ROW: lambda player, view: player.choose_row(view),
    Decision.DRAFT: lambda player, view: player.choose_draft(view),
}


async def play_game(
    settings: Settings, players: Sequence[Player], rng: random.Random, rotation: int = 0
) -> GameResult:
    """Play one game to its end; `rng` deals, and nothing a player does can stop the game."""
    table = _Table(settings, len(players), rng, rotation, players)
    while (decision := table.decision()) is not None:
        seats = table.game.deciders
        if len(seats) == 1:
            answers = [await _ask(table, players, decision, seats[0])]
        else:  # every seat at once: a remote bot's thinking overlaps the others'
            asks = [_ask(table, players, decision, seat) for seat in seats]
            answers = await asyncio.gather(*asks)
        table.apply(decision, answers)
    return table.result()


async def _ask(table: _Table, players: Sequence[Player], decision: Decision, seat: int) -> int:
    view = table.game.view(seat)
    try:
        answer = await _ASK[decision](players[seat], view)
    except PlayerFault as error:
        return table.fault(decision, view, error.kind, error.message)
    return table.check(decision, view, answer)


def play_local(
    settings: Settings, strategies: Sequence[Strategy], rng: random.Random, rotation: int = 0
) -> GameResult:
    """The game `play_game` plays with `LocalPlayer(strategy)` at each seat, without awaiting.

    Equal results, several times faster: no event loop, no task per decision, and no events
    (a strategy has no hooks for them).
    """
    table = _Table(settings, len(strategies), rng, rotation)
    game = table.game
    methods = {  # bound once, not looked up for every decision
        Decision.CARD: [strategy.choose_card for strategy in strategies],
        Decision.ROW: [strategy.choose_row for strategy in strategies],
        Decision.DRAFT: [strategy.choose_draft for strategy in strategies],
    }
    while (decision := table.decision()) is not None:
        choose = methods[decision]
        answers = []
        for seat in game.deciders:
            view = game.view(seat)
            try:
                answer = choose[seat](view)
            except PlayerFault as error:
                answers.append(table.fault(decision, view, error.kind, error.message))
            else:
                answers.append(table.check(decision, view, answer))
        table.apply(decision, answers)
    return table.result()


class _Table:
    """One game being driven: the engine, the players' events and faults, everything but the
    asking itself, which is all that differs between `play_game` and `play_local`."""

    def __init__(
        self,
        settings: Settings,
        seats: int,
        rng: random.Random,
        rotation: int,
        players: Sequence[Player] = (),
    ) -> None:
        """A new game for `seats` players; `players` (by seat) hear its events and faults."""
        if seats != settings.players:
            raise ValueError(f"{settings.players} seats but {seats} players")
        self.game = Game(settings, rng, rotation)
        self.players = players
        self.faults: list[Fault] = []
        for seat, player in enumerate(players):
            player.game_started(seat, settings)

    def decision(self) -> Decision | None:
        """What the game waits for (from `game.deciders`); None once it is over."""
        decision: Decision | None = self.game.phase.value  # each phase's value is its decision
        return decision

    def check(self, decision: Decision, view: View, answer: object) -> int:
        """The answer, if the rules allow it; else an ILLEGAL fault and the fallback's answer."""
        try:
            return check_answer(decision, view, answer)
        except IllegalDecisionError as error:
            return self.fault(decision, view, FaultKind.ILLEGAL, str(error))

    def fault(self, decision: Decision, view: View, kind: FaultKind, message: str) -> int:
        """Record a fault of the seat `view` was shown, tell its player; the fallback's answer."""
        fault = Fault(view.seat, kind, decision, view.round, view.turn, message)
        self.faults.append(fault)
        if self.players:
            self.players[view.seat].faulted(fault)
        return fallback(decision, view)

    def apply(self, decision: Decision, answers: Sequence[int]) -> None:
        """Give the game the deciders' answers, and tell every player what became public."""
        game = self.game
        round_ = game.round
        round_index, turn_index = round_.index, round_.turn
        if decision is Decision.DRAFT:
            game.draft(answers[0])
            return
        turn = game.play(answers) if decision is Decision.CARD else game.choose_row(answers[0])
        if turn is not None:
            for player in self.players:
                player.turn_revealed(round_index, turn_index, turn)
        if round_.phase is Phase.OVER:  # this decision ended the round
            record, totals = game.rounds[-1], game.totals
            for player in self.players:
                player.round_ended(round_index, record, totals)

    def result(self) -> GameResult:
        """The finished game, once every player heard that it ended."""
        record = self.game.record()
        for player in self.players:
            player.game_ended(record.totals, record.winners)
        return GameResult(record, tuple(self.faults))
