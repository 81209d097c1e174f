"""Answers a card it does not hold: the first card of row 0, which lies on the table."""

from __future__ import annotations

from arena.sdk import Bot, View, run


class IllegalCardBot(Bot):
    def choose_card(self, view: View) -> int:
        print(f"asked for a card in round {view.round} turn {view.turn}", flush=True)
        return view.rows[0][0]


if __name__ == "__main__":
    run(IllegalCardBot(), name="illegal-card")
