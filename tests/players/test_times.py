"""The driver records each decision's time as its player measured it (`Player.timed`), as the
decision ends, answered or faulted: `GameResult.times` is filled by the game, not after it."""

from __future__ import annotations

import asyncio
import random

from arena.players import (
    DecisionTime,
    FaultKind,
    Highest,
    LocalPlayer,
    PlayerFault,
    Strategy,
    play_game,
)
from arena.rules import Decision, Settings, View


class Stopwatch(LocalPlayer):
    """A local player that says each decision took 0.25 s per card in its hand, and times out
    (after all of its allowance, 9 s) at turn 2."""

    def __init__(self, strategy: Strategy) -> None:
        super().__init__(strategy)
        self._timed: DecisionTime | None = None

    async def decide(self, decision: Decision, view: View) -> int:
        self._timed = None
        if decision is Decision.CARD and view.turn == 2:
            self._timed = DecisionTime(view.seat, decision, view.round, view.turn, 9.0, None)
            raise PlayerFault(FaultKind.TIMEOUT, "no answer within 9 s")
        answer = await super().decide(decision, view)
        seconds = 0.25 * len(view.hand)
        self._timed = DecisionTime(view.seat, decision, view.round, view.turn, seconds, None)
        return answer

    def timed(self) -> DecisionTime | None:
        return self._timed


def test_every_decision_asked_is_timed_in_order_faults_included_and_no_other() -> None:
    game = Settings(players=3, max_rounds=1)
    players = [Stopwatch(Highest()), LocalPlayer(Highest()), Stopwatch(Highest())]
    result = asyncio.run(play_game(game, players, random.Random(4), one_at_a_time=True))
    asked = [(seat, turn) for turn in range(10) for seat in (0, 2)]
    rows = {
        (p.seat, turn)
        for turn, t in enumerate(result.record.rounds[0].turns)
        for p in t.placements
        if p.chosen
    }
    assert [
        (time.seat, time.turn) for time in result.times if time.decision is Decision.CARD
    ] == asked
    assert {(t.seat, t.turn) for t in result.times if t.decision is Decision.ROW} == {
        (seat, turn) for seat, turn in rows if seat in (0, 2) and turn != 2
    }
    assert {
        time.seconds for time in result.times if time.turn == 2 and time.decision is Decision.CARD
    } == {9.0}
    assert {f.turn for f in result.faults} == {2}
