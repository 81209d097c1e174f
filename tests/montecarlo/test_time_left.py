"""`arena.sdk.time_left`: each request's own deadline, even with several games on one connection.

(An SDK test; it lives here with the bot that needed it.)
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import replace

import pytest

from arena.protocol import request_message
from arena.rules import Decision, View
from arena.sdk import Bot, time_left
from tests.sdk.test_client import CARD_VIEW, ScriptedArena, serve


class Watch(Bot):
    """Notes time_left() before and after yielding to the other request, per seat."""

    def __init__(self) -> None:
        self.seen: dict[int, list[float]] = {}

    async def choose_card(self, view: View) -> int:
        self.seen[view.seat] = [time_left()]
        await asyncio.sleep(0.05)  # the other request runs meanwhile, in its own task
        self.seen[view.seat].append(time_left())
        return view.hand[0]


@pytest.mark.integration
def test_each_request_sees_its_own_deadline_counting_down() -> None:
    slow, fast = replace(CARD_VIEW, seat=0), replace(CARD_VIEW, seat=1)
    script = [
        request_message(1, "game-a", Decision.CARD, 20_000, slow),
        request_message(2, "game-b", Decision.CARD, 2_000, fast),
    ]
    bot = Watch()
    serve(bot, ScriptedArena(script, answers=2))
    (a_first, a_then), (b_first, b_then) = bot.seen[0], bot.seen[1]
    assert 10 < a_then < a_first <= 20
    assert 0 < b_then < b_first <= 2
    assert a_first - a_then >= 0.04 and b_first - b_then >= 0.04


def test_outside_a_request_there_is_no_deadline() -> None:
    assert time_left() == math.inf
