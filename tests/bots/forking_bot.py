"""Leaves a child behind: starts a long sleep in a child process, then plays its lowest card.

The child shares the bot's process group and its output pipe, so the arena must stop it with
the bot. With the argument `crash` the bot exits (status 3) when asked for turn 3's card,
leaving the child running on its own.
"""

from __future__ import annotations

import os
import subprocess
import sys

from arena.sdk import Bot, View, run

CRASH = sys.argv[1:] == ["crash"]


class ForkingBot(Bot):
    def choose_card(self, view: View) -> int:
        if CRASH and view.turn == 3:
            print("exiting, the child stays", flush=True)
            os._exit(3)
        return view.hand[0]


if __name__ == "__main__":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    print(f"child {child.pid}", flush=True)
    run(ForkingBot(), name="forking", argv=[])
