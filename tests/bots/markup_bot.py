"""Plays its lowest card and, at every decision, writes markup a page must show as text: a
script element, a textarea's end tag and an escaped ampersand, on stdout and on stderr."""

from __future__ import annotations

import sys

from arena.sdk import Bot, View, run

MARKUP = "<script>alert(1)</script> </textarea> &amp;"


class MarkupBot(Bot):
    def choose_card(self, view: View) -> int:
        print(f"{MARKUP} card {view.round}.{view.turn}")
        print(f"{MARKUP} on stderr", file=sys.stderr)
        return view.hand[0]

    def choose_row(self, view: View) -> int:
        print(f"{MARKUP} row")
        return 0

    def choose_draft(self, view: View) -> int:
        return view.table[0]


if __name__ == "__main__":
    run(MarkupBot(), name="markup")
