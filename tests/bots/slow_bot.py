"""Thinks for a while before each card: `slow_bot.py SECONDS` sleeps that long, then plays its
lowest card. Longer than the deadline, every decision is a timeout; shorter, it only makes a
tournament last, for a test to look at it while it runs."""

from __future__ import annotations

import sys
import time

from arena.sdk import Bot, View, run


class SlowBot(Bot):
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def choose_card(self, view: View) -> int:
        time.sleep(self.seconds)
        return view.hand[0]


if __name__ == "__main__":
    run(SlowBot(float(sys.argv[1])), name="slow")
