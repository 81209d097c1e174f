"""The drivers: run one game by asking its seats, and give the engine only legal answers.

The engine validates too and would raise; each seat's referee checks first with the engine's own
checks, so that a faulting player costs a recorded fault and the fallback's decision, never the
game (`referee`).

Two drivers share one `_Game`, which holds everything but the asking: `play_game` asks any
`Player` (async, so remote bots are asked at once), `play_local` asks in-process strategies
directly, without an event loop, for when nothing needs awaiting (simulations, benchmarks).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.players.base import DecisionTime, Fault, Player, PlayerFault
from arena.players.referee import Referee, Seat
from arena.players.strategies import Strategy, fallback, method_for
from arena.rules import Decision, Game, GameRecord, Phase, Settings


@dataclass(frozen=True, slots=True)
class GameResult:
    """What a game produces: its record and the faults committed in it."""

    record: GameRecord
    """The full record of the game, as played (fallback decisions included)."""
    faults: tuple[Fault, ...]
    """Every fault, in the order they happened."""
    times: tuple[DecisionTime, ...] = ()
    """How long each seat took over each decision it was asked, in the order they ended, as
    its player measured it (`Player.timed`: remote bots); empty for players that measure none."""


async def play_game(
    settings: Settings,
    players: Sequence[Player],
    rng: random.Random,
    rotation: int = 0,
    referees: Sequence[Referee] | None = None,
    names: Sequence[str] = (),
    *,
    one_at_a_time: bool = False,
    bot_seed: int | None = None,
) -> GameResult:
    """Play one game to its end; `rng` deals, and nothing a player does can stop the game.

    `referees` (by seat) carry each bot's faults across games; by default every seat has its own,
    which never disqualifies. `names` (by seat) are shown in every view, and `bot_seed` gives
    every view its decision's seed for the player's own random choices (see `Game`).

    Seats that decide together (every card of a turn) are asked at once, so that remote bots
    think side by side; `one_at_a_time` asks them one after another, in seat order, each once
    the one before has answered (fair CPU: a bot alone on its core while it decides). Either
    way no answer is seen before all are in, so the game is the same.
    """
    game = _Game(settings, len(players), rng, rotation, players, names, bot_seed)
    seats = game.seats(players, referees)
    while (decision := game.decision()) is not None:
        deciders = game.engine.deciders
        if len(deciders) == 1 or one_at_a_time:
            view = game.engine.view
            answers = [await seats[seat].decide(decision, view(seat)) for seat in deciders]
        else:  # every seat at once: a remote bot's thinking overlaps the others'
            asks = [seats[seat].decide(decision, game.engine.view(seat)) for seat in deciders]
            answers = await asyncio.gather(*asks)
        game.apply(decision, answers)
    return game.result()


def play_local(
    settings: Settings,
    strategies: Sequence[Strategy],
    rng: random.Random,
    rotation: int = 0,
    names: Sequence[str] = (),
    bot_seed: int | None = None,
) -> GameResult:
    """The game `play_game` plays with `LocalPlayer(strategy)` at each seat, without awaiting.

    Equal results, several times faster: no event loop, no task per decision, and no events
    (a strategy has no hooks for them).
    """
    game = _Game(settings, len(strategies), rng, rotation, names=names, bot_seed=bot_seed)
    engine = game.engine
    seats = game.seats([None] * len(strategies))
    methods = {  # bound once, not looked up for every decision
        decision: [method_for(strategy, decision) for strategy in strategies]
        for decision in Decision
    }
    while (decision := game.decision()) is not None:
        choose = methods[decision]
        answers = []
        for seat in engine.deciders:
            view = engine.view(seat)
            if seats[seat].fallback_settles(decision, view):  # the rest of a timed-out turn
                answers.append(fallback(decision, view))
                continue
            try:
                answer: object = choose[seat](view)
            except PlayerFault as fault:
                answer = fault
            answers.append(seats[seat].settle(decision, view, answer))
        game.apply(decision, answers)
    return game.result()


class _Game:
    """One game being driven: the engine, its faults and the players' events; everything but the
    asking itself, which is all that differs between `play_game` and `play_local`."""

    def __init__(
        self,
        settings: Settings,
        seats: int,
        rng: random.Random,
        rotation: int,
        players: Sequence[Player] = (),
        names: Sequence[str] = (),
        bot_seed: int | None = None,
    ) -> None:
        """A new game for `seats` players; `players` (by seat) hear its events."""
        if seats != settings.players:
            raise ValueError(f"{settings.players} seats but {seats} players")
        self.engine = Game(settings, rng, rotation, names=names, bot_seed=bot_seed)
        self.players = players
        self.faults: list[Fault] = []
        self.times: list[DecisionTime] = []
        for seat, player in enumerate(players):
            player.game_started(seat, settings)

    def seats(
        self, players: Sequence[Player | None], referees: Sequence[Referee] | None = None
    ) -> list[Seat]:
        """The seats of this game, each asking its player under its referee."""
        judges = referees if referees is not None else [Referee() for _ in players]
        return [
            Seat(player, referee, self.faults, self.times)
            for player, referee in zip(players, judges, strict=True)
        ]

    def decision(self) -> Decision | None:
        """What the game waits for (from `engine.deciders`); None once it is over."""
        decision: Decision | None = self.engine.phase.value  # each phase's value is its decision
        return decision

    def apply(self, decision: Decision, answers: Sequence[int]) -> None:
        """Give the engine the deciders' answers, and tell every player what became public."""
        game = self.engine
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
        record = self.engine.record()
        for player in self.players:
            player.game_ended(record.totals, record.winners)
        return GameResult(record, tuple(self.faults), tuple(self.times))
