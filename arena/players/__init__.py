"""Who decides: the `Player` interface the driver asks, the built-in strategies, the referee that
decides what a fault costs, and the drivers."""

from arena.players.base import DecisionTime, Fault, FaultKind, Player, PlayerFault
from arena.players.driver import GameResult, play_game, play_local
from arena.players.referee import Conduct, Referee, Seat
from arena.players.strategies import (
    BUILTIN,
    FALLBACK,
    Chooser,
    Highest,
    LocalPlayer,
    Lowest,
    Random,
    Strategy,
    cheapest_row,
    choose,
    fallback,
    method_for,
)

__all__ = [
    "BUILTIN",
    "FALLBACK",
    "Chooser",
    "Conduct",
    "DecisionTime",
    "Fault",
    "FaultKind",
    "GameResult",
    "Highest",
    "LocalPlayer",
    "Lowest",
    "Player",
    "PlayerFault",
    "Random",
    "Referee",
    "Seat",
    "Strategy",
    "cheapest_row",
    "choose",
    "fallback",
    "method_for",
    "play_game",
    "play_local",
]
