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

import gc

# A bot's start-up is mostly imports: gRPC, asyncio and protobuf make some 40,000 objects that
# the cyclic collector tracks, all kept for the process's life. The collector would walk them
# again and again while they load, in every full collection after, and once more as the
# interpreter exits. So it is held off while they load, and what they made is then frozen
# (`gc.freeze`: out of the collector's sight, still freed by reference counts). That is about
# 0.03 of a Python bot's 0.2 CPU s from exec to exit. The collector is left on (or off) as the
# importer had it.
_collecting = gc.isenabled()
gc.disable()
try:
    from arena.players import cheapest_row
    from arena.rules import BULLHEADS, Settings, TurnRecord, Variant, View, bullheads, row_for
    from arena.sdk.client import Bot, bank_left, run, time_left

    gc.freeze()
finally:
    if _collecting:
        gc.enable()

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
