"""A decision that timed out is settled by the fallback whole (`Seat.fallback_settles`): when the
fallback's card is too low for every row, the fallback chooses the row too, and the player, most
likely still at work on the card, is not asked for it. One late answer, one fault. Without
processes: a strategy that raises the TIMEOUT a remote bot's late answer raises."""

from __future__ import annotations

import asyncio
import random

from hypothesis import given, settings

from arena.players import (
    FaultKind,
    Lowest,
    PlayerFault,
    Strategy,
    play_game,
    play_local,
)
from arena.rules import Decision, GameRecord, Settings, View
from tests import strategies
from tests.players.test_drivers import Listening


class Late(Strategy):
    """Never answers a card in time; notes every row it is asked for."""

    def __init__(self) -> None:
        self.rows_asked: list[tuple[int, int]] = []

    def choose_card(self, view: View) -> int:
        raise PlayerFault(FaultKind.TIMEOUT, "no answer within 0.3 s")

    def choose_row(self, view: View) -> int:
        self.rows_asked.append((view.round, view.turn))
        return 0


class Illegal(Late):
    """Answers every card with one it does not hold: it has answered, so it is asked for the
    row like any bot."""

    def choose_card(self, view: View) -> int:
        return 105


def rows_chosen(record: GameRecord, seat: int) -> list[tuple[int, int]]:
    """The (round, turn) of every turn in which `seat`'s card was too low and a row was chosen."""
    return [
        (round_index, turn_index)
        for round_index, round_ in enumerate(record.rounds)
        for turn_index, turn in enumerate(round_.turns)
        for placement in turn.placements
        if placement.seat == seat and placement.chosen
    ]


def card_turns(record: GameRecord) -> int:
    return sum(len(round_.turns) for round_ in record.rounds)


def test_a_timed_out_card_too_low_costs_one_fault_and_the_fallback_chooses_the_row() -> None:
    game = Settings(players=3, max_rounds=2)
    late = Late()
    player = Listening(late)
    result = asyncio.run(
        play_game(game, [player, Listening(Lowest()), Listening(Lowest())], random.Random(2))
    )
    chosen = rows_chosen(result.record, 0)
    assert chosen, "the deal must give the fallback's card a turn too low for every row"
    faults = [fault for fault in result.faults if fault.seat == 0]
    assert [(f.kind, f.decision) for f in faults] == [(FaultKind.TIMEOUT, Decision.CARD)] * (
        card_turns(result.record)
    )
    assert player.told == faults
    assert late.rows_asked == []
    # The row is the fallback's (the cheapest), exactly as a game of the fallback alone plays it.
    alone = play_local(game, [Lowest(), Lowest(), Lowest()], random.Random(2))
    assert result.record == alone.record


@settings(max_examples=40, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_every_late_card_is_one_fault_whatever_the_deal(game: Settings, seed: int) -> None:
    lates = [Late() if seat % 2 == 0 else Lowest() for seat in range(game.players)]
    players = [Listening(strategy) for strategy in lates]
    remote = asyncio.run(play_game(game, players, random.Random(seed)))
    local = play_local(
        game,
        [Late() if seat % 2 == 0 else Lowest() for seat in range(game.players)],
        random.Random(seed),
    )
    assert remote == local
    turns = card_turns(remote.record)
    for seat, strategy in enumerate(lates):
        faults = [(f.kind, f.decision) for f in remote.faults if f.seat == seat]
        if isinstance(strategy, Late):
            assert faults == [(FaultKind.TIMEOUT, Decision.CARD)] * turns
            assert strategy.rows_asked == []
        else:
            assert faults == []


def test_an_illegal_card_too_low_still_leaves_the_row_to_the_player() -> None:
    game = Settings(players=3, max_rounds=2)
    illegal = Illegal()
    result = play_local(game, [illegal, Lowest(), Lowest()], random.Random(2))
    chosen = rows_chosen(result.record, 0)
    assert chosen and illegal.rows_asked == chosen
    assert {(f.kind, f.decision) for f in result.faults} == {(FaultKind.ILLEGAL, Decision.CARD)}
