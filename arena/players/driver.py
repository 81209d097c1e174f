"""The driver: runs one game by asking its players, and turns every bad answer into a fault.

The engine validates too and would raise; the driver checks first with the engine's own checks,
so that a faulting player costs a recorded fault and the fallback's decision, never the game.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from arena.players.base import Fault, FaultKind, Player, PlayerFault
from arena.players.strategies import fallback
from arena.rules import (
    Decision,
    Game,
    GameRecord,
    IllegalDecisionError,
    Phase,
    Settings,
    View,
    check_card,
    check_draft,
    check_row,
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
_CHECK: dict[Decision, Callable[[View, object], int]] = {
    Decision.CARD: lambda view, answer: check_card(view.seat, view.hand, answer),
    Decision.ROW: lambda view, answer: check_row(view.seat, answer),
    Decision.DRAFT: lambda view, answer: check_draft(view.seat, view.table, answer),
}


async def play_game(
    settings: Settings, players: Sequence[Player], rng: random.Random, rotation: int = 0
) -> GameResult:
    """Play one game to its end; `rng` deals, and nothing a player does can stop the game."""
    if len(players) != settings.players:
        raise ValueError(f"{settings.players} seats but {len(players)} players")
    game = Game(settings, rng, rotation)
    faults: list[Fault] = []

    async def ask(decision: Decision, seat: int) -> int:
        view = game.view(seat)
        player = players[seat]
        try:
            return _CHECK[decision](view, await _ASK[decision](player, view))
        except PlayerFault as error:
            kind, message = error.kind, error.message
        except IllegalDecisionError as error:
            kind, message = FaultKind.ILLEGAL, str(error)
        fault = Fault(seat, kind, decision, view.round, view.turn, message)
        faults.append(fault)
        player.faulted(fault)
        return fallback(decision, view)

    for seat, player in enumerate(players):
        player.game_started(seat, settings)
    while (phase := game.phase) is not Phase.OVER:
        round_index, turn_index = len(game.rounds), len(game.round.turns)
        if phase is Phase.DRAFT:
            game.draft(await ask(Decision.DRAFT, game.deciders[0]))
            continue
        if phase is Phase.CARDS:
            cards = await asyncio.gather(*(ask(Decision.CARD, seat) for seat in game.deciders))
            turn = game.play(cards)
        else:
            turn = game.choose_row(await ask(Decision.ROW, game.deciders[0]))
        if turn is not None:
            for player in players:
                player.turn_revealed(round_index, turn_index, turn)
        if len(game.rounds) > round_index:
            for player in players:
                player.round_ended(round_index, game.rounds[-1], game.totals)
    record = game.record()
    for player in players:
        player.game_ended(record.totals, record.winners)
    return GameResult(record, tuple(faults))
