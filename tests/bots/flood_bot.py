"""Floods its log: writes a megabyte to stdout before connecting, then plays its lowest card."""

from __future__ import annotations

import sys

from arena.sdk import Bot, View, run

LINE = "flood " * 16 + "\n"


class FloodBot(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[0]


if __name__ == "__main__":
    for _ in range((1 << 20) // len(LINE)):
        sys.stdout.write(LINE)
    sys.stdout.flush()
    run(FloodBot(), name="flood")
