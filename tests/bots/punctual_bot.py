"""Answers every decision at a fixed share of its deadline (default 90%), keeping the CPU busy
until then, as a search that uses its time would: `punctual_bot.py [SHARE]`. Plays its lowest
card (the fallback's), so that a timeout changes nothing but the fault count. Logs each answer's
time as it measured it: `punctual: deadline=S answered=S`."""

from __future__ import annotations

import sys
import time

from arena.sdk import Bot, View, run, time_left

SHARE = float(sys.argv[1]) if len(sys.argv) > 1 else 0.9


class Punctual(Bot):
    def choose_card(self, view: View) -> int:
        began = time.monotonic()
        budget = time_left() * SHARE
        while time.monotonic() - began < budget:
            pass
        answered = time.monotonic() - began
        print(f"punctual: deadline={budget / SHARE:.4f} answered={answered:.4f}", file=sys.stderr)
        return view.hand[0]


if __name__ == "__main__":
    run(Punctual(), name="punctual")
