"""Crashes mid-game: plays its highest card, but in a game whose id starts with "crash" it
exits with status 3 when asked for the card of turn 3. A fresh copy plays other games normally.
"""

from __future__ import annotations

import os

from arena.sdk import Bot, Settings, View, run


class CrashBot(Bot):
    def __init__(self) -> None:
        self.game_id = ""

    def on_game_start(
        self, game_id: str, seat: int, settings: Settings, players: list[str]
    ) -> None:
        self.game_id = game_id  # the arena seats one copy of a bot in one game at a time

    def choose_card(self, view: View) -> int:
        if self.game_id.startswith("crash") and view.turn == 3:
            print(f"exiting in game {self.game_id}", flush=True)
            os._exit(3)
        return view.hand[-1]


if __name__ == "__main__":
    run(CrashBot(), name="crash")
