"""The statistical check of `arena compare`'s test, on simulated comparisons of the heuristic
sample bot in-process against the default field (heuristic, lowest, random) at 4-player tables.

Games are cheap but not free, so each check plays a pool of deals once (`play_deal`: every
rotation, NEW and OLD in the same seat with the same seeds and the same random generators, as
`arena compare` plays them), then runs many comparisons whose deals are drawn from the pool at
random. Each comparison is then a draw from the pool's distribution of per-deal differences,
which stands for the real one: heavy tails, skew and all.

- A strategy against itself: the heuristic playing 30% of its cards at random, NEW and OLD with
  their own random streams. The pool is made symmetric (every difference and its negative: NEW
  and OLD are exchangeable), so the true mean difference is exactly 0, the edge of H0 where a
  false H1 is likeliest. H1 may be accepted in at most alpha of the comparisons, plus three
  standard errors of a binomial share over their number (stated below).
- The heuristic against that noisy twin: clearly weaker (about 1.4 bullheads more per one-round
  game, above the 1.0 margin). H1 must be accepted in at least 1 - beta, less three standard
  errors.

`scripts/measure_compare.py` plays fresh games for every comparison instead of a pool (minutes,
not seconds) and measures the paired design against unpaired ones; its figures are in the README.
"""

from __future__ import annotations

import math
import random
from statistics import fmean

import pytest

from arena.rules import Settings
from arena.tournament.simulate import play_deal
from arena.tournament.stats.sprt import Hypotheses, SprtState, Verdict, run_test
from tests.tournament.sample_strategies import FIELD, heuristic, noisy

SETTINGS = Settings(players=4, max_rounds=1)
POOL = 300
"""Deals per pool: 2,400 one-round games each."""
COMPARISONS = 1000
"""Comparisons per check (the issue asks for at least 200)."""
MAX_DEALS = 500
"""A comparison's cap: 4,000 games."""
HYPOTHESES = Hypotheses(margin=1.0, alpha=0.05, beta=0.05)


def sampling_error(p: float, runs: int) -> float:
    """The standard error of a share p measured over `runs` comparisons."""
    return math.sqrt(p * (1 - p) / runs)


def comparisons(pool: list[float], seed: int) -> list[SprtState]:
    rng = random.Random(seed)
    return [
        run_test((rng.choice(pool) for _ in range(MAX_DEALS)), HYPOTHESES, MAX_DEALS)
        for _ in range(COMPARISONS)
    ]


def share(states: list[SprtState], verdict: Verdict) -> float:
    return sum(1 for state in states if state.verdict is verdict) / len(states)


def mean_games(states: list[SprtState]) -> float:
    return fmean(state.deals for state in states) * 2 * SETTINGS.players


@pytest.fixture(scope="module")
def itself() -> list[float]:
    """The noisy heuristic against itself, each with its own random stream; made symmetric."""
    new, old = noisy(0.3, "new:"), noisy(0.3, "old:")
    pool = [play_deal(SETTINGS, new, old, FIELD, d, d).difference for d in range(POOL)]
    return pool + [-difference for difference in pool]


@pytest.fixture(scope="module")
def weaker_twin() -> list[float]:
    """The heuristic (NEW) against its noisy twin (OLD)."""
    old = noisy(0.3)
    return [
        play_deal(SETTINGS, heuristic, old, FIELD, d, 10**6 + d).difference for d in range(POOL)
    ]


def test_against_itself_h1_is_accepted_in_at_most_alpha(itself: list[float]) -> None:
    assert fmean(itself) == 0  # exactly the edge of H0
    states = comparisons(itself, seed=1)
    error = sampling_error(HYPOTHESES.alpha, COMPARISONS)  # 0.7% over 1,000 comparisons
    false_positives = share(states, Verdict.H1)
    print(f"itself: H1 in {false_positives:.1%}, mean games {mean_games(states):.0f}")
    assert false_positives <= HYPOTHESES.alpha + 3 * error
    assert share(states, Verdict.UNDECIDED) < 0.01
    assert mean_games(states) < MAX_DEALS * 2 * SETTINGS.players / 2


def test_against_a_clearly_weaker_twin_h1_is_accepted_in_at_least_1_minus_beta(
    weaker_twin: list[float],
) -> None:
    assert fmean(weaker_twin) < -HYPOTHESES.margin  # clearly weaker: beyond the margin
    states = comparisons(weaker_twin, seed=2)
    error = sampling_error(HYPOTHESES.beta, COMPARISONS)
    power = share(states, Verdict.H1)
    print(f"weaker twin: H1 in {power:.1%}, mean games {mean_games(states):.0f}")
    assert power >= 1 - HYPOTHESES.beta - 3 * error
    assert share(states, Verdict.UNDECIDED) < 0.01
