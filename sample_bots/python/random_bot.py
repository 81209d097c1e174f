"""Plays a random card and takes a random row.

Its randomness is the arena's: every request's view carries a seed for the decision's random
choices, and `view.random()` is a generator seeded from it. So a game plays the same way every
time it is played again (`arena play --game`), many games at once on one connection stay apart,
and in `arena compare` this bot draws alike in NEW's game and OLD's game of a deal.
"""

from arena.sdk import Bot, View, run


class RandomBot(Bot):
    def choose_card(self, view: View) -> int:
        return view.random().choice(view.hand)

    def choose_row(self, view: View) -> int:
        return view.random().randrange(len(view.rows))

    def choose_draft(self, view: View) -> int:
        return view.random().choice(view.table)


if __name__ == "__main__":
    run(RandomBot(), name="random")
