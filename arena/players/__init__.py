"""Who decides: the `Player` interface the driver asks, the built-in strategies, and the driver."""

from arena.players.base import Fault, FaultKind, Player, PlayerFault
from arena.players.driver import GameResult, play_game, play_local
from arena.players.strategies import (
    BUILTIN,
    FALLBACK,
    Highest,
    LocalPlayer,
    Lowest,
    Random,
    Strategy,
    cheapest_row,
    fallback,
)

__all__ = [
    "BUILTIN",
    "FALLBACK",
    "Fault",
    "FaultKind",
    "GameResult",
    "Highest",
    "LocalPlayer",
    "Lowest",
    "Player",
    "PlayerFault",
    "Random",
    "Strategy",
    "cheapest_row",
    "fallback",
    "play_game",
    "play_local",
]
