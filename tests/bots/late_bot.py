"""Answers late: plays its highest card, but on turns 1 and 2 of the first round it holds its
answer until the arena's next request arrives, which the arena sends only once this one timed
out. The late answer is then its second-highest card, so a record showing that card would mean
the arena applied a late answer; it must show the fallback's lowest card instead.
"""

from __future__ import annotations

import asyncio

from arena.sdk import Bot, View, run

LATE_TURNS = (1, 2)


class LateBot(Bot):
    def __init__(self) -> None:
        self._held: tuple[asyncio.Future[None], asyncio.Future[None]] | None = None

    async def choose_card(self, view: View) -> int:
        if self._held is not None:  # a later request came: the held answer goes out first
            release, sent = self._held
            self._held = None
            release.set_result(None)
            await sent
        if view.round == 0 and view.turn in LATE_TURNS:
            loop = asyncio.get_running_loop()
            release, sent = loop.create_future(), loop.create_future()
            self._held = release, sent
            await release
            print(f"answering turn {view.turn} late", flush=True)
            sent.set_result(None)  # the answer is queued as this returns, before the next one
            return view.hand[-2]
        return view.hand[-1]


if __name__ == "__main__":
    run(LateBot(), name="late")
