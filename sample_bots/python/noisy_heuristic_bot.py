"""The heuristic bot's noisy twin: plays a random card instead of the heuristic's, 30% of the time.

A clearly weaker version of `heuristic_bot.py`, for trying `arena compare` (which should find
the heuristic better) and for its tests. `--share` sets how often it plays at random. Its
randomness is the arena's, as the random bot's is (`view.random()`): the same game plays the
same way every time.
"""

import argparse

from heuristic_bot import HeuristicBot  # this file's folder is on the path: python runs it

from arena.sdk import View, run


class NoisyHeuristicBot(HeuristicBot):
    def __init__(self, share: float) -> None:
        self.share = share

    def choose_card(self, view: View) -> int:
        rng = view.random()
        if rng.random() < self.share:
            return rng.choice(view.hand)
        return super().choose_card(view)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--share", type=float, default=0.3, help="how often to play at random")
    options, rest = parser.parse_known_args()
    run(NoisyHeuristicBot(options.share), name="noisy-heuristic", argv=rest)
