"""Plays its lowest card; takes the cheapest row when it must (the SDK's default)."""

from arena.sdk import Bot, View, run


class LowestBot(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[0]


if __name__ == "__main__":
    run(LowestBot(), name="lowest")
