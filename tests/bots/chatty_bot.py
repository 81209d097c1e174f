"""Plays its lowest card and says so on every decision, on stdout and on stderr, with markup a
report must show as text: `<b>`, a script end tag, an ampersand. Says "goodbye" when its stream
ends, and, with `crash`, exits with status 7 in its third decision."""

from __future__ import annotations

import sys

from arena.sdk import Bot, View, run

CRASH = "crash" in sys.argv[1:]


class ChattyBot(Bot):
    def __init__(self) -> None:
        self.decisions = 0

    def choose_card(self, view: View) -> int:
        self.decisions += 1
        print(f"card {view.round}.{view.turn} <b>bold</b> & </script><i>x</i>")
        print(f"thinking {view.round}.{view.turn}", file=sys.stderr)
        if CRASH and self.decisions == 3:
            print("crashing now", file=sys.stderr)
            sys.exit(7)
        return view.hand[0]

    def choose_row(self, view: View) -> int:
        print(f"row {view.round}.{view.turn}")
        return 0

    def choose_draft(self, view: View) -> int:
        print(f"draft {view.round}")
        return view.table[0]


if __name__ == "__main__":
    print("hello from chatty")
    run(ChattyBot(), name="chatty")
    print("goodbye")
