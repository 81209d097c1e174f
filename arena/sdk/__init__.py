"""The Python bot SDK: write a `Bot` over plain Python objects and call `run`.

    from arena.sdk import Bot, View, run

    class Lowest(Bot):
        def choose_card(self, view: View) -> int:
            return view.hand[0]

    if __name__ == "__main__":
        run(Lowest(), name="lowest")

`run` reads the arena's address and the bot's token from ARENA_ADDRESS and ARENA_TOKEN (or takes
them as arguments or --address/--token flags), connects, says hello, answers every request (games
run concurrently on one connection) and returns when the arena closes the stream. While a bot
decides, `time_left()` says how many seconds remain before the request's deadline, and
`bank_left()` how many more its game's time bank holds (when the tournament gives one). A bot
that chooses at random draws from `view.random()`, a generator seeded from the seed the arena
sends with every decision (`View.seed`): its games then replay exactly, and `arena compare`'s
paired games draw alike.
"""

from arena.players import cheapest_row
from arena.rules import BULLHEADS, Settings, TurnRecord, Variant, View, bullheads, row_for
from arena.sdk.client import Bot, bank_left, run, time_left

__all__ = [
    "BULLHEADS",
    "Bot",
    "Settings",
    "TurnRecord",
    "Variant",
    "View",
    "bank_left",
    "bullheads",
    "cheapest_row",
    "row_for",
    "run",
    "time_left",
]
