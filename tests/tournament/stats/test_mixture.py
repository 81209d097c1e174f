"""The always-valid evidence: its closed form is the integral it stands for, it keeps to its level
at every deal at once on normal data, and the bounds it gives are where it starts to reject."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from statistics import fmean

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.tournament.stats.mixture import RHO, bound, log_evidence, rejects
from arena.tournament.stats.student import t_cdf


def sums(xs: list[float]) -> tuple[int, float, float]:
    mean = fmean(xs)
    return len(xs), mean, sum((x - mean) ** 2 for x in xs)


def simpson(f: Callable[[float], float], a: float, b: float, steps: int) -> float:
    h = (b - a) / steps
    inner = sum((4 if i % 2 else 2) * f(a + i * h) for i in range(1, steps))
    return (f(a) + f(b) + inner) * h / 3


def evidence_by_quadrature(xs: list[float], m: float, side: int, rho: float) -> float:
    """The Bayes factor integrated numerically: the mean's distance from m, in deviations, from
    a half-normal of scale rho on `side`, the deviation sigma from d(sigma)/sigma; against the
    mean exactly m with the same prior on sigma."""
    ys = [x - m for x in xs]
    n, s, q = len(ys), sum(ys), sum(y * y for y in ys)

    def likelihood(theta: float, sigma: float) -> float:
        return math.exp(-(q - 2 * theta * s + n * theta * theta) / (2 * sigma * sigma)) / sigma**n

    def half_normal(d: float) -> float:
        return 2 * math.exp(-d * d / (2 * rho * rho)) / (rho * math.sqrt(2 * math.pi))

    def alternative(u: float) -> float:  # u = log sigma: d(sigma)/sigma = du
        sigma = math.exp(u)
        return simpson(
            lambda d: likelihood(side * d * sigma, sigma) * half_normal(d), 0, 9 * rho, 200
        )

    null = simpson(lambda u: likelihood(0, math.exp(u)), -8, 8, 200)
    return math.log(simpson(alternative, -8, 8, 200) / null)


@pytest.mark.parametrize(
    ("xs", "m", "side", "rho"),
    [
        ([0.3, -1.2, 0.8, -2.1, -0.4], 0.0, -1, 1.0),
        ([0.3, -1.2, 0.8, -2.1, -0.4], 0.5, +1, 1.0),
        ([0.3, -1.2, 0.8, -2.1, -0.4], -1.0, -1, 0.5),
        ([-3.0, -1.5, -2.25, -4.0], 0.0, -1, 2.0),
    ],
)
def test_the_closed_form_is_the_integral(xs: list[float], m: float, side: int, rho: float) -> None:
    assert log_evidence(*sums(xs), m, side, rho) == pytest.approx(
        evidence_by_quadrature(xs, m, side, rho), abs=1e-4
    )


def test_one_deal_gives_no_scale() -> None:
    """After one deal E is 2 F_1(+-rho), whatever the deal: a mean of 1 over the two signs."""
    for x in (0.1, 7.0):
        assert math.exp(log_evidence(1, -x, 0.0, 0.0, -1)) == pytest.approx(2 * t_cdf(RHO, 1))
        assert math.exp(log_evidence(1, x, 0.0, 0.0, -1)) == pytest.approx(2 * t_cdf(-RHO, 1))


def test_deals_exactly_at_m_are_no_evidence() -> None:
    assert log_evidence(10, 0.0, 0.0, 0.0, -1) == 0.0
    assert not rejects(10, 0.0, 0.0, 0.0, -1, 0.01)


@settings(deadline=None)  # no timed assertion: a loaded machine stalls any example
@given(
    st.lists(st.floats(-20, 20), min_size=2, max_size=30),
    st.floats(0, 10),
    st.floats(0.01, 5),
)
def test_the_evidence_grows_with_the_distance(xs: list[float], gap: float, step: float) -> None:
    """Against m further from the deals' mean, on the same side, E is larger: which is why
    rejecting the edge of a hypothesis rejects all of it."""
    n, mean, squares = sums(xs)
    nearer = log_evidence(n, mean, squares, mean + gap, -1)
    further = log_evidence(n, mean, squares, mean + gap + step, -1)
    assert further >= nearer - 1e-9


@settings(deadline=None)  # no timed assertion: a loaded machine stalls any example
@given(
    st.lists(st.integers(-80, 80).map(lambda k: k / 4), min_size=2, max_size=30),  # real steps
    st.integers(-20, 20).map(lambda k: k / 4),
    st.sampled_from([1e-150, 1e-3, 7.0, 1e150]),
)
@example([0.0, 4.5e-157], 0.0, 1.0)  # found by Hypothesis: a deviation of 1e-157 gave nan
@example([1.75, 1.75, 1.75], 1.75, 1e-150)  # found by Hypothesis: rounding taken for distance
def test_the_evidence_does_not_change_with_the_scale(
    xs: list[float], m: float, scale: float
) -> None:
    n, mean, squares = sums(xs)
    scaled = sums([x * scale for x in xs])
    for side in (-1, 1):
        assert log_evidence(*scaled, m * scale, side) == pytest.approx(
            log_evidence(n, mean, squares, m, side), rel=1e-6, abs=1e-6
        )


@pytest.mark.parametrize("level", [0.05, 0.2])
def test_on_normal_data_it_rejects_the_true_mean_at_most_at_its_level(level: float) -> None:
    """Looked at after every one of 200 deals, in 1,000 runs: Ville's inequality, measured (the
    bound is loose: what is measured is well under the level)."""
    rng = random.Random(7)
    runs, rejected = 1000, 0
    for _ in range(runs):
        mean, squares = 0.0, 0.0
        for n in range(1, 201):
            x = rng.gauss(3.0, 5.0)
            delta = x - mean
            mean += delta / n
            squares += delta * (x - mean)
            if rejects(n, mean, squares, 3.0, -1, level):
                rejected += 1
                break
    assert rejected / runs <= level + 3 * math.sqrt(level * (1 - level) / runs)
    assert rejected > 0  # it does reject, now and then


def test_the_bounds_are_where_it_starts_to_reject() -> None:
    rng = random.Random(3)
    n, mean, squares = sums([rng.gauss(-6, 4) for _ in range(12)])
    high = bound(n, mean, squares, -1, 0.01)
    low = bound(n, mean, squares, +1, 0.01)
    assert low < mean < high < 0
    for edge, side in ((high, -1), (low, +1)):
        assert rejects(n, mean, squares, edge - side * 1e-6, side, 0.01)
        assert not rejects(n, mean, squares, edge + side * 1e-6, side, 0.01)


def test_no_bound_before_the_evidence_can_reach_the_level() -> None:
    """With two deals, E is at most 2 (1 + 2 rho^2)^(1/2): no m is rejected at 1%."""
    assert bound(2, -5.0, 1.0, -1, 0.01) == math.inf
    assert bound(2, -5.0, 1.0, +1, 0.01) == -math.inf
    assert bound(1, -5.0, 0.0, -1, 0.5) == math.inf


def test_the_side_is_below_or_above() -> None:
    with pytest.raises(ValueError, match="side"):
        log_evidence(3, 0.0, 1.0, 0.0, 0)
