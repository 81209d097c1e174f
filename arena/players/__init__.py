"""Who decides: the `Player` interface the driver asks, the built-in strategies, the referee that
decides what a fault costs, and the drivers.

The referee and the drivers are imported when first asked for (`arena.lazy`): a bot's SDK needs
the interface and the strategies alone, and every sealed bot's start-up would otherwise pay for
the rest.
"""

from typing import TYPE_CHECKING

from arena.lazy import exports
from arena.players.base import DecisionTime, Fault, FaultKind, Player, PlayerFault
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

if TYPE_CHECKING:
    from arena.players.driver import GameResult, play_game, play_local
    from arena.players.referee import Conduct, Referee, Seat

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

__getattr__ = exports(
    __name__,
    {name: "driver" for name in ("GameResult", "play_game", "play_local")}
    | {name: "referee" for name in ("Conduct", "Referee", "Seat")},
)
