"""Several games on one connection: the bot searches for each at once, each within its deadline."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from arena.protocol import request_message
from arena.rules import Decision, View
from tests.montecarlo.bot import montecarlo
from tests.sdk.test_client import CARD_VIEW, LIMIT, Left, ScriptedArena, serve

pytestmark = pytest.mark.integration


class Met(montecarlo.MonteCarloBot):  # type: ignore[name-defined, misc]
    """Each search first waits for the other to start: both get past that only if they run side
    by side. Notes, per seat, whether it met the other and the deadline its worker thread saw."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.both = threading.Barrier(2)
        self.searches: dict[int, tuple[bool, Left]] = {}

    def best_card(self, view: View) -> int:
        left = Left.now()
        try:
            self.both.wait(timeout=LIMIT)  # a guard against a hang, not a measure: never reached
            met = True
        except threading.BrokenBarrierError:
            met = False
        self.searches[view.seat] = (met, left)
        card: int = super().best_card(view)
        return card


def test_two_requests_at_once_are_searched_side_by_side_each_within_its_deadline() -> None:
    bot = Met(think=0.3)
    views = [CARD_VIEW, replace(CARD_VIEW, seat=(CARD_VIEW.seat + 1) % 3)]
    deadlines = [2_000, 20_000]
    script = [
        request_message(n, f"game-{n}", Decision.CARD, deadline, view)
        for n, (view, deadline) in enumerate(zip(views, deadlines, strict=True), start=1)
    ]
    arena = ScriptedArena(script, answers=2)
    sent = time.monotonic()
    serve(bot, arena)
    assert sorted(answer.request_id for answer in arena.answers) == [1, 2]
    assert all(answer.WhichOneof("choice") == "card" for answer in arena.answers)
    # Side by side: each search started while the other was still going (were the searches run on
    # the event loop, the first would wait for the second in vain), and each saw its own deadline
    # from the worker thread.
    for view, deadline in zip(views, deadlines, strict=True):
        met, left = bot.searches[view.seat]
        assert met, f"the search for seat {view.seat} ran alone"
        assert left.is_deadline_of(deadline / 1000, sent)
