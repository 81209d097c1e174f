"""Plays its highest card; takes the cheapest row when it must (the SDK's default)."""

from arena.sdk import Bot, View, run


class HighestBot(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[-1]


if __name__ == "__main__":
    run(HighestBot(), name="highest")
