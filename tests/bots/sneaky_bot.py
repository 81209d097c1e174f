"""A neighbour that ponders on another bot's time, for the fair-CPU tests (issue 23): it answers
at once (a fast decision, after which the pacer may leave it thawed, trusted to sleep), and every
answer starts a timer that sleeps `SLEEP` seconds, past the arena's own work between decisions
and into the next bot's, then spins for `SPIN` seconds there: `sneaky_bot.py [SLEEP [SPIN]]`.
Logs each spin it gets through: `sneaky: spun=S`.
"""

from __future__ import annotations

import sys
import threading
import time

from arena.sdk import Bot, View, run

SLEEP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.005
SPIN = float(sys.argv[2]) if len(sys.argv) > 2 else 0.03


def ponder() -> None:
    """Spin for `SPIN` seconds of its own clock (wall: frozen, it spins on when thawed)."""
    began = time.monotonic()
    while time.monotonic() - began < SPIN:
        pass
    print(f"sneaky: spun={time.monotonic() - began:.4f}", file=sys.stderr, flush=True)


class Sneaky(Bot):
    def choose_card(self, view: View) -> int:
        threading.Timer(SLEEP, ponder).start()
        return view.hand[0]  # the fallback's card: the game is the same whatever it costs


if __name__ == "__main__":
    run(Sneaky(), name="sneaky")
