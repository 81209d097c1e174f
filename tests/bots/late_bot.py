"""Answers late: plays its highest card, but on turns 1 and 2 of the first round it holds its
answer until the arena's next request arrives, which the arena sends only once this one timed
out. The late answer is then its second-highest card, so a record showing that card would mean
the arena applied a late answer; it must show the fallback's lowest card instead.

With `every`, it holds every answer so, card or row (the last one of a game it never sends), and
logs every request it is asked (`asked card 0.3`: round 0, turn 3) and every late answer it
sends (`late card 0.3`), so that a test can count both.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable

from arena.sdk import Bot, View, run

LATE_TURNS = (1, 2)
EVERY = "every" in sys.argv[1:]


class LateBot(Bot):
    def __init__(self) -> None:
        self._held: tuple[asyncio.Future[None], asyncio.Future[None]] | None = None

    async def _hold(self, answer: int, note: str) -> int:
        """`answer`, once the next request has come; `note` goes to the log as it is sent."""
        loop = asyncio.get_running_loop()
        release, sent = loop.create_future(), loop.create_future()
        self._held = release, sent
        await release
        print(note, flush=True)
        sent.set_result(None)  # the answer is queued as this returns, before the next one
        return answer

    async def _release(self, kind: str, view: View) -> None:
        """A request came: the held answer, if any, goes out first."""
        if self._held is not None:
            release, sent = self._held
            self._held = None
            release.set_result(None)
            await sent
        if EVERY:
            print(f"asked {kind} {view.round}.{view.turn}", flush=True)

    async def choose_card(self, view: View) -> int:
        await self._release("card", view)
        if EVERY:
            return await self._hold(view.hand[-1], f"late card {view.round}.{view.turn}")
        if view.round == 0 and view.turn in LATE_TURNS:
            return await self._hold(view.hand[-2], f"answering turn {view.turn} late")
        return view.hand[-1]

    def choose_row(self, view: View) -> int | Awaitable[int]:
        if not EVERY:
            return super().choose_row(view)
        return self._late_row(view)

    async def _late_row(self, view: View) -> int:
        await self._release("row", view)
        return await self._hold(0, f"late row {view.round}.{view.turn}")


if __name__ == "__main__":
    run(LateBot(), name="late")
