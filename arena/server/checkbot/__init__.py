"""check-bot: one bot put through scripted situations before it enters a contest.

Its engine (`checks`: the situations, each a short scripted game through the bot's real
connection) lives in the server's layer, beside the sessions and connections it plays through,
so that every caller above can run it: `arena check-bot` (the command line) and the ladder's
vetting of an uploaded version (`arena.ladder.vetting`), which hold a bot to the same options,
`check_options`. This module loads no gRPC (the command line imports it at its start); the engine
does, and is imported where it runs.
"""

from __future__ import annotations

from typing import Any

from arena.server.options import BotOptions

TIME_BANK = 1.0
"""check-bot's time bank, where a tournament's is 0 (none unless asked): its time-bank check
needs a bank to see the bot keep to, and a bot that enters a tournament with one must."""


def check_options(**given: Any) -> BotOptions:
    """The options check-bot holds a bot to: a tournament's (the declared defaults) but for the
    time bank, with those `given` by name."""
    return BotOptions.of({"time_bank": TIME_BANK, **given})
