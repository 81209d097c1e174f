"""Student's t: its quantile, its distribution function and the incomplete beta function behind
it, against published values and their identities."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.stats.student import regularized_beta, t_cdf, t_quantile


@pytest.mark.parametrize(
    ("df", "exact"), [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (30, 2.0423)]
)
def test_t_quantiles(df: int, exact: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(exact, rel=2e-3)


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        (1.0, 1, 0.75),  # Cauchy: 1/2 + atan(x)/pi
        (0.5, 5, 0.6808505),
        (2.228138852, 10, 0.975),  # the tables' 97.5% quantiles
        (3.182446305, 3, 0.975),
        (1.983971519, 100, 0.975),
        (3.0, 20_000, 0.9986484),  # near the normal's 0.9986501
        (-1.0, 1, 0.25),
    ],
)
def test_t_cdf_matches_the_tables(x: float, df: float, p: float) -> None:
    assert t_cdf(x, df) == pytest.approx(p, abs=2e-7)


def test_t_cdf_is_the_quantiles_inverse() -> None:
    for df in (3, 7, 40, 500):
        for p in (0.6, 0.9, 0.99):
            assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=2e-3)


@settings(deadline=None)  # no timed assertion: a loaded machine stalls any example
@given(st.floats(-50, 50), st.integers(1, 100_000))
def test_t_cdf_is_symmetric_and_bounded(x: float, df: int) -> None:
    p = t_cdf(x, df)
    assert 0 <= p <= 1
    assert p + t_cdf(-x, df) == pytest.approx(1, abs=1e-12)


@settings(deadline=None)  # no timed assertion: a loaded machine stalls any example
@given(st.floats(-20, 20), st.floats(0.01, 5), st.integers(1, 2000))
def test_t_cdf_grows_with_x(x: float, step: float, df: int) -> None:
    assert t_cdf(x + step, df) >= t_cdf(x, df)


@settings(deadline=None)  # no timed assertion: a loaded machine stalls any example
@given(st.floats(0.1, 500), st.floats(0.1, 500), st.floats(1e-6, 1 - 1e-6))
def test_the_incomplete_beta_function_mirrors(a: float, b: float, x: float) -> None:
    """I_x(a, b) = 1 - I_{1-x}(b, a): each side evaluated by its own branch of the fraction (x
    kept where 1 - x is exact enough: at 1e-38, 1 - x is 1)."""
    assert regularized_beta(a, b, x) == pytest.approx(1 - regularized_beta(b, a, 1 - x), abs=1e-9)


def test_the_incomplete_beta_function_at_known_points() -> None:
    assert regularized_beta(1, 1, 0.3) == pytest.approx(0.3)  # uniform
    assert regularized_beta(2, 3, 0.4) == pytest.approx(0.5248)  # 2 or more of 4 below 0.4
    assert regularized_beta(0.5, 0.5, 0.5) == pytest.approx(0.5)
    assert regularized_beta(3, 2, 0.0) == 0 and regularized_beta(3, 2, 1.0) == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: t_cdf(1.0, 0), "degrees of freedom"),
        (lambda: t_cdf(math.nan, 3), "nan"),
        (lambda: regularized_beta(0, 1, 0.5), "above 0"),
        (lambda: regularized_beta(1, 1, 1.5), r"\[0, 1\]"),
        (lambda: t_quantile(0.5, 0), "degree of freedom"),
    ],
)
def test_nonsense_is_refused(call: Callable[[], float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
