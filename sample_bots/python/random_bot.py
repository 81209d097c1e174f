"""Plays a random card and takes a random row.

The randomness is seeded from what the bot sees, so the same game plays the same way every time,
even with many games at once on one connection.
"""

import random

from arena.sdk import Bot, View, run


def rng(view: View) -> random.Random:
    return random.Random(repr((view.round, view.turn, view.seat, view.hand, view.rows)))


class RandomBot(Bot):
    def choose_card(self, view: View) -> int:
        return rng(view).choice(view.hand)

    def choose_row(self, view: View) -> int:
        return rng(view).randrange(len(view.rows))

    def choose_draft(self, view: View) -> int:
        return rng(view).choice(view.table)


if __name__ == "__main__":
    run(RandomBot(), name="random")
