"""The bot's decisions: legal for every kind of view, within its budget, from sound knowledge."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from arena.rules import Decision, Game, Phase, Settings, Variant, View
from tests.montecarlo.bot import Searching, montecarlo
from tests.protocol.games import PlayedGame, play
from tests.rules.helpers import drive

STEP = 1 / 1024
"""Seconds the bot's clock moves at each reading, in these tests: its searches are then measured
in clock readings, the same on any machine however loaded (powers of two: exact in floats)."""
THINK = 16 * STEP
"""Seconds per decision in these tests: enough for a few deals, small enough to ask often."""
DEALS = 15
"""Deals a search of THINK makes on that clock: it reads the clock once to start and once before
each deal, and stops at the reading that finds THINK spent."""


class Ticking:
    """The bot's `time` module in these tests: a clock that moves STEP each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        """The time, one STEP later than at the last reading."""
        self.now += STEP
        return self.now


@pytest.fixture(autouse=True)
def deals(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every search here on a `Ticking` clock, so that no result depends on the machine's speed
    (a deal cap is reached first, not a deadline); the deals made, cleared by a test at will."""
    monkeypatch.setattr(montecarlo, "time", Ticking())
    dealt: list[object] = []
    deal = montecarlo.Position.deal

    def counted(position: object, rng: random.Random) -> object:
        dealt.append(position)
        return deal(position, rng)

    monkeypatch.setattr(montecarlo.Position, "deal", counted)
    yield dealt


def games() -> list[tuple[str, PlayedGame]]:
    """One short random game per variant and a few table sizes, with every view asked."""
    return [
        (f"{variant.value}-{players}", play(Settings(players, variant, max_rounds=1), seed))
        for seed, (variant, players) in enumerate(
            (variant, players) for variant in Variant for players in (2, 4, 10)
        )
    ]


@pytest.mark.parametrize(("name", "game"), games(), ids=[name for name, _ in games()])
def test_every_decision_is_legal_and_within_its_budget(
    name: str, game: PlayedGame, deals: list[object]
) -> None:
    bot = montecarlo.MonteCarloBot(think=THINK, seed=1)
    asked = [(kind, view) for kind, view in game.asked if kind is not Decision.DRAFT]
    assert any(kind is Decision.ROW for kind, _ in asked), "no row decision to check"
    for kind, view in asked[::3] + [pair for pair in asked if pair[0] is Decision.ROW]:
        deals.clear()
        if kind is Decision.CARD:
            assert bot.best_card(view) in view.hand
            options = len(view.hand)
        else:
            assert bot.best_row(view) in range(len(view.rows))
            options = len(view.rows)
        # It searched until its budget was spent on its clock, and not one deal beyond; with a
        # single option there is nothing to compare, and it answers at once.
        assert len(deals) == (DEALS if options > 1 else 0), (kind, view.turn)


def test_with_a_deal_cap_and_a_seed_the_bot_repeats_itself() -> None:
    game = play(Settings(4), seed=3)
    views = [view for kind, view in game.asked if kind is Decision.CARD][:8]
    first = [montecarlo.MonteCarloBot(simulations=20, seed=4).best_card(v) for v in views]
    again = [montecarlo.MonteCarloBot(simulations=20, seed=4).best_card(v) for v in views]
    assert first == again


def test_an_obvious_choice_is_found() -> None:
    """Rows [1..4, 10] and [20]: playing 11 takes the full row, 21 is safe."""
    view = View(
        settings=Settings(2),
        seat=0,
        round=0,
        turn=9,
        hand=(11, 21),
        rows=((1, 2, 3, 4, 10), (20,), (50,), (80,)),
        penalties=(0, 0),
        totals=(0, 0),
        played=(),
    )
    assert montecarlo.MonteCarloBot(simulations=30).best_card(view) == 21
    row_view = View(
        settings=Settings(2),
        seat=0,
        round=0,
        turn=9,
        hand=(),
        rows=((10, 11, 22), (30, 55), (40,), (60, 70)),
        penalties=(0, 0),
        totals=(0, 0),
        played=(),
        revealed=(5, 90),
    )
    assert montecarlo.MonteCarloBot(simulations=30).best_row(row_view) == 2


@pytest.mark.parametrize("variant", list(Variant))
def test_the_cards_it_deals_to_the_others_are_the_ones_they_may_hold(variant: Variant) -> None:
    """Play a game with the bot at seat 0 and check, at each of its card decisions, what it
    believes of the other hands against the truth: in the professional variants the unseen cards
    are exactly the other hands (every card is dealt), in the draft they are known outright.
    A fresh bot each time: the view alone tells it (its starting rows above all)."""
    settings = Settings(4, variant, max_rounds=2)
    bot = montecarlo.MonteCarloBot(simulations=1)
    checked = 0

    def check(game: Game) -> None:
        nonlocal checked
        if game.phase is not Phase.CARDS:
            return
        view = game.view(0)
        position = montecarlo.MonteCarloBot(simulations=1)._position(view)
        truth = [game.view(seat).hand for seat in range(settings.players)]
        others = set().union(*truth[1:])
        if variant is Variant.PROFESSIONAL_DRAFT:
            assert position.known == tuple(truth)
        elif variant is Variant.PROFESSIONAL:
            assert set(position.unseen) == others
        else:
            assert others <= set(position.unseen)
            assert not set(position.unseen) & set(view.hand)
        checked += 1

    players = [Searching(bot)] + [Searching(montecarlo.MonteCarloBot(simulations=1))] * 3
    drive(Game(settings, random.Random(11)), players, check)
    assert checked >= 20
