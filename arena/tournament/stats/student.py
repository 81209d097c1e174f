"""Student's t distribution: the quantile behind `arena compare`'s interval and the distribution
function behind its always-valid bound (`mixture`).

Pure arithmetic on floats, no dependencies: the project carries no numerical library (numpy and
scipy would be two large dependencies for two functions), and both functions are textbook: the
quantile by the Cornish-Fisher expansion, the distribution function by the regularized incomplete
beta function, evaluated by its continued fraction (Lentz's method, as in Numerical Recipes).
"""

from __future__ import annotations

import math
from statistics import NormalDist

_EPSILON = 1e-15
"""The continued fraction stops when a step changes it by less than this, relatively."""
_TINY = 1e-300
"""Lentz's guard against a zero denominator."""
_MAX_STEPS = 100_000
"""The fraction converges in a few times sqrt(a + b) steps: 10^5 covers 10^9 degrees of freedom."""


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, otherwise the Cornish-Fisher
    expansion about the normal quantile (Abramowitz and Stegun 26.7.5), within 0.2% of the exact
    value from 3 degrees of freedom up (3.179 for 3.182 at the 97.5% quantile)."""
    if df < 1:
        raise ValueError(f"t needs at least 1 degree of freedom, not {df!r}")
    if not 0 < p < 1:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p!r}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    z2 = z * z
    terms = (
        z * (z2 + 1) / 4,
        z * ((5 * z2 + 16) * z2 + 3) / 96,
        z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384,
        z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160,
    )
    return z + sum(term / float(df) ** power for power, term in enumerate(terms, start=1))


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with `df` degrees of freedom (any positive real number):
    1 - I_w(df/2, 1/2) / 2 for x above 0, w = df / (df + x^2), and its mirror below."""
    if not df > 0:
        raise ValueError(f"t needs a positive number of degrees of freedom, not {df!r}")
    if math.isnan(x):
        raise ValueError("t has no distribution function at nan")
    if x == 0:
        return 0.5
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    tail = 0.5 * regularized_beta(df / 2, 0.5, df / (df + x * x))  # P(T > |x|)
    return 1 - tail if x > 0 else tail


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b above 0 and x in [0, 1]."""
    if not (a > 0 and b > 0):
        raise ValueError(f"the beta function needs a and b above 0, not {a!r} and {b!r}")
    if not 0 <= x <= 1:
        raise ValueError(f"the incomplete beta function needs x in [0, 1], not {x!r}")
    if x in (0, 1):
        return float(x)
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    log_front = a * math.log(x) + b * math.log1p(-x) - log_beta
    # The fraction converges fast below the distribution's mean, (a + 1) / (a + b + 2); above
    # it, the mirror I_x(a, b) = 1 - I_{1-x}(b, a) is evaluated instead.
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""

    def guard(value: float) -> float:
        return value if abs(value) >= _TINY else _TINY

    c, d = 1.0, 1 / guard(1 - (a + b) * x / (a + 1))
    fraction = d
    for m in range(1, _MAX_STEPS):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 / guard(1 + even * d)
        c = guard(1 + even / c)
        fraction *= d * c
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 / guard(1 + odd * d)
        c = guard(1 + odd / c)
        step = d * c
        fraction *= step
        if abs(step - 1) < _EPSILON:
            return fraction
    raise ArithmeticError(f"the incomplete beta fraction did not converge for {a!r}, {b!r}, {x!r}")
