"""Several games on one connection: the bot searches for each at once, each within its deadline."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from arena.protocol import request_message
from arena.rules import Decision, View
from arena.sdk import time_left
from tests.montecarlo.bot import montecarlo
from tests.sdk.test_client import CARD_VIEW, ScriptedArena, serve

pytestmark = pytest.mark.integration


class Timed(montecarlo.MonteCarloBot):  # type: ignore[name-defined, misc]
    """Notes when each search ran and how much of its deadline was left at its end."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.searches: list[tuple[float, float, float]] = []

    def best_card(self, view: View) -> int:
        start = time.monotonic()
        card: int = super().best_card(view)
        self.searches.append((start, time.monotonic(), time_left()))
        return card


def test_two_requests_at_once_are_searched_side_by_side_each_within_its_deadline() -> None:
    bot = Timed(think=0.3)
    views = [CARD_VIEW, replace(CARD_VIEW, seat=(CARD_VIEW.seat + 1) % 3)]
    script = [
        request_message(n, f"game-{n}", Decision.CARD, 2_000, view)
        for n, view in enumerate(views, start=1)
    ]
    arena = ScriptedArena(script, answers=2)
    serve(bot, arena)
    assert sorted(answer.request_id for answer in arena.answers) == [1, 2]
    assert all(answer.WhichOneof("choice") == "card" for answer in arena.answers)
    (_, first_end, first_left), (second, _, second_left) = sorted(bot.searches)
    # Side by side: the second search began before the first ended, not after it (as it would
    # if a search held the event loop), and each saw its own deadline from the worker thread.
    assert second < first_end
    assert 0 < first_left < 2 and 0 < second_left < 2
