"""The fitted strengths: equal to the means when every bot met every other equally, by strength
when bots met different opponents; intervals over whole deals; likelihoods of superiority."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.players import Lowest, Random, Strategy, play_local
from arena.rules import Settings
from arena.tournament import GameOutcome, GameSpec, compute_standings, deal_seed, game_id, schedule
from arena.tournament.simulate import Noisy
from arena.tournament.stats.fit import MIN_WHOLE_DEALS, Fit, FitData, solve
from tests.tournament.helpers import made_up
from tests.tournament.sample_strategies import Heuristic

Makers = dict[str, Callable[[str], Strategy]]


def play(specs: Sequence[GameSpec], makers: Makers) -> list[GameOutcome]:
    """The specs played in-process, each seat's strategy made from the game's seed and seat."""
    outcomes = []
    for spec in specs:
        strategies = [
            makers[bot](f"{spec.seed}:{spec.rotation}:{seat}")
            for seat, bot in enumerate(spec.seats)
        ]
        result = play_local(spec.settings, strategies, random.Random(spec.seed), spec.rotation)
        outcomes.append(GameOutcome(spec, result.record, result.faults, ()))
    return outcomes


def fitted(outcomes: Sequence[GameOutcome], resamples: int = 300) -> Fit:
    data = FitData()
    for outcome in outcomes:
        data.add(outcome)
    return data.fit(resamples)


def heuristic(seed: str) -> Strategy:
    return Heuristic()


def noisy(seed: str) -> Strategy:
    return Noisy(Heuristic(), 0.3, seed)


def lowest(seed: str) -> Strategy:
    return Lowest()


MAKERS: Makers = {
    "heuristic": heuristic,
    "noisy": noisy,
    "lowest": lowest,
    "random1": Random,
    "random2": Random,
}


def test_a_complete_round_robin_fits_every_bot_its_own_mean() -> None:
    """Everyone met everyone equally: strength is bullheads per game, in the totals' order."""
    specs = schedule(list(MAKERS), Settings(players=3, max_rounds=2), deals=2, seed=5)
    outcomes = play(specs, MAKERS)
    fit = fitted(outcomes)
    standings = compute_standings(outcomes)
    for line in standings.bots:
        assert fit.lines[line.bot].strength == pytest.approx(line.mean, abs=1e-9)
    order = sorted(fit.lines, key=lambda bot: fit.lines[bot].strength)
    assert order == [line.bot for line in standings.bots]


@settings(max_examples=40, deadline=None)
@given(
    bots=st.integers(3, 6),
    players=st.integers(2, 4),
    deals=st.integers(1, 2),
    seed=st.integers(0, 2**16),
)
def test_any_balanced_round_robin_fits_the_means(
    bots: int, players: int, deals: int, seed: int
) -> None:
    """Made-up totals on every table of a round-robin (one table of all bots included)."""
    players = min(players, bots)
    names = [f"b{index}" for index in range(bots)]
    rng = random.Random(seed)
    outcomes = [
        made_up(
            spec.seats,
            [rng.randrange(0, 40) for _ in spec.seats],
            spec.seating,
            spec.deal,
            spec.rotation,
        )
        for spec in schedule(names, Settings(players=players), deals, seed)
    ]
    fit = fitted(outcomes, resamples=2)
    means = {line.bot: line.mean for line in compute_standings(outcomes).bots}
    for bot, line in fit.lines.items():
        assert line.strength == pytest.approx(means[bot], abs=1e-9)


STRONG, WEAK = ("strong1", "strong2"), ("weak1", "weak2")
GOOD, MEDIOCRE = ("good1", "good2"), ("mediocre1", "mediocre2")


def test_bots_that_met_different_opponents_are_ranked_by_strength() -> None:
    """Two mediocre bots (lowest card) met only weak ones (random), two good ones (the heuristic
    playing 30% of its cards at random) only strong ones (the heuristic): the mediocre take fewer
    bullheads per game, but the fit, which links the weak and strong through their own tables,
    ranks the good ones first."""
    makers: Makers = {
        **dict.fromkeys(STRONG, heuristic),
        **dict.fromkeys(WEAK, Random),
        **dict.fromkeys(GOOD, noisy),
        **dict.fromkeys(MEDIOCRE, lowest),
    }
    tables = [
        *((bot, *WEAK) for bot in MEDIOCRE),
        *((bot, *STRONG) for bot in GOOD),
        *((*WEAK, strong) for strong in STRONG),
        *((weak, *STRONG) for weak in WEAK),
    ]
    settings = Settings(players=3, max_rounds=2)
    specs = [
        GameSpec(game_id(t, d, r), t, d, r, seats, deal_seed(0, seats, d), settings)
        for t, seats in enumerate(tables)
        for d in range(4)
        for r in range(3)
    ]
    outcomes = play(specs, makers)
    means = {line.bot: line.mean for line in compute_standings(outcomes).bots}
    assert max(means[bot] for bot in MEDIOCRE) < min(means[bot] for bot in GOOD)  # totals: wrong
    fit = fitted(outcomes)
    strength = {bot: line.strength for bot, line in fit.lines.items()}
    assert max(strength[bot] for bot in GOOD) < min(strength[bot] for bot in MEDIOCRE)
    assert max(strength[bot] for bot in STRONG) < min(strength[bot] for bot in WEAK)
    for good in GOOD:
        for mediocre in MEDIOCRE:
            superiority = fit.superiority(good, mediocre)
            assert superiority is not None and superiority > 0.95
            assert fit.superiority(mediocre, good) == pytest.approx(1 - superiority)


def dealt(outcome: GameOutcome, seed: int) -> GameOutcome:
    """The outcome with its deal's seed: each deal its own cards, one unit of the bootstrap."""
    return replace(outcome, spec=replace(outcome.spec, seed=seed))


def test_intervals_need_two_whole_deals() -> None:
    seats = ("a", "b", "c")
    one = [dealt(made_up(seats, [5 + r, 10, 12 - r], deal=0, rotation=r), 1) for r in range(3)]
    fit = fitted(one)
    assert fit.whole_deals == {"a": 1, "b": 1, "c": 1}
    assert all(line.ci is None for line in fit.lines.values())
    assert fit.superiority("a", "b") is None
    two = one + [dealt(made_up(seats, [9, 3 + r, 7], deal=1, rotation=r), 2) for r in range(3)]
    fit = fitted(two)
    assert fit.whole_deals == {bot: MIN_WHOLE_DEALS for bot in seats}
    assert all(line.ci is not None for line in fit.lines.values())
    half = two[:5]  # the second deal is not whole: rotation 2 is missing
    assert fitted(half).whole_deals == {bot: 1 for bot in seats}


def test_bots_that_never_met_get_no_fit() -> None:
    outcomes = [
        made_up(("a", "b"), [3, 5], seating=0, rotation=0),
        made_up(("c", "d"), [4, 6], seating=1, rotation=0),
    ]
    fit = fitted(outcomes)
    assert fit.lines == {} and "never met" in fit.note


def test_the_solver() -> None:
    assert solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])
    assert solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0]) is None
