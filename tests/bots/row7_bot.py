"""Plays its lowest card, so it often has to take a row, and then answers row 7 (rows are 0-3)."""

from __future__ import annotations

from arena.sdk import Bot, View, run


class Row7Bot(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[0]

    def choose_row(self, view: View) -> int:
        print(f"asked for a row in round {view.round} turn {view.turn}", flush=True)
        return 7


if __name__ == "__main__":
    run(Row7Bot(), name="row7")
