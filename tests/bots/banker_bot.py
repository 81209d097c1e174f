"""Draws on its time bank (`arena.sdk.bank_left`): each card decision with a bank waits out its
deadline less a margin, and then half of what is left of its bank (while that is more than the
margin); one without a bank is answered at once (waiting to within a margin of a deadline that
nothing may exceed would only test the machine's load).
With `overdraw`, it waits past the deadline and the whole bank whenever it has a bank, and so
times out exactly then. Plays its lowest card; logs `banker: bank_left=S` at every decision."""

from __future__ import annotations

import asyncio
import sys

from arena.sdk import Bot, View, bank_left, run, time_left

OVERDRAW = "overdraw" in sys.argv[1:]
MARGIN = 0.1
"""Seconds kept clear of the deadline (and of the bank's end)."""


class Banker(Bot):
    async def choose_card(self, view: View) -> int:  # async: several games wait side by side
        bank = bank_left()
        print(f"banker: bank_left={bank:.3f}", file=sys.stderr, flush=True)
        if OVERDRAW and bank > 0:
            wait = time_left() + bank + 0.2
        elif bank > 0:
            wait = time_left() - MARGIN + (bank / 2 if bank > 2 * MARGIN else 0.0)
        else:
            wait = 0.0
        await asyncio.sleep(max(0.0, wait))
        return view.hand[0]


if __name__ == "__main__":
    run(Banker(), name="banker")
