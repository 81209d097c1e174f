"""`arena.sdk.time_left`: each request's own deadline, even with several games on one connection.

(An SDK test; it lives here with the bot that needed it.)
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import replace

import pytest

from arena.protocol import request_message
from arena.rules import Decision, View
from arena.sdk import Bot, time_left
from tests.sdk.test_client import CARD_VIEW, EPSILON, Left, ScriptedArena, serve


class Watch(Bot):
    """Notes time_left() before and after yielding to the other request, per seat."""

    def __init__(self) -> None:
        self.seen: dict[int, list[Left]] = {}

    async def choose_card(self, view: View) -> int:
        self.seen[view.seat] = [Left.now()]
        await asyncio.sleep(0.05)  # the other request runs meanwhile, in its own task
        self.seen[view.seat].append(Left.now())
        return view.hand[0]


@pytest.mark.integration
def test_each_request_sees_its_own_deadline_counting_down() -> None:
    slow, fast = replace(CARD_VIEW, seat=0), replace(CARD_VIEW, seat=1)
    script = [
        request_message(1, "game-a", Decision.CARD, 20_000, slow),
        request_message(2, "game-b", Decision.CARD, 2_000, fast),
    ]
    bot = Watch()
    sent = time.monotonic()
    serve(bot, ScriptedArena(script, answers=2))
    for seat, seconds in ((0, 20.0), (1, 2.0)):
        first, then = bot.seen[seat]
        # Its own deadline both times, not the other request's, read before and after the other
        # request ran: the same instant, with less time left to it the second time.
        assert first.is_deadline_of(seconds, sent) and then.is_deadline_of(seconds, sent)
        assert max(first.due()[0], then.due()[0]) <= min(first.due()[1], then.due()[1]) + EPSILON
        assert then.seconds < first.seconds


def test_outside_a_request_there_is_no_deadline() -> None:
    assert time_left() == math.inf
