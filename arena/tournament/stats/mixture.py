"""The always-valid half of `arena compare`'s test: evidence about the mean difference per deal
that may be looked at after every deal, and the bounds on that mean it gives.

Pure: no I/O, no clock, no random state. The observations are the per-deal differences of
`sprt` (NEW's bullheads minus OLD's, averaged over a deal's rotations), independent from deal to
deal, modelled as normal with a mean and a deviation that are both unknown.

The evidence against "the mean is m" is the t-mixture of Lai (1976, "On confidence sequences"),
the exact, small-sample form of the mixture SPRT of Johari, Pekelis and Walsh ("Always valid
inference", 2017), which plugs an estimated variance into a known-variance formula. Of n deals,
with y = x - m, S the sum of the y and Q the sum of their squares, it is the Bayes factor of a
normal model whose distance from m is drawn, in deviations of a deal, from a half-normal of
scale `RHO` on one side (`side` -1: the mean is below m; +1: above), the deviation sigma from the
scale-free prior d(sigma)/sigma:

    E(m) = 2 (1 + n rho^2)^(-1/2) (Q / A)^(n/2) F_n(side S sqrt(n / A) / k),
    k^2 = n + 1 / rho^2,   A = Q - S^2 / k^2,   F_n Student's t distribution function.

(Integrating the mean out leaves (1 + n rho^2)^(-1/2) exp(S^2 / (2 sigma^2 k^2)) times the normal
probability of the half line; integrating sigma out turns the exponential into (Q / A)^(n/2)
and that probability into F_n.) Whatever sigma, if the mean is m, E(m) is a nonnegative
martingale of mean 1 over the deals (the likelihood ratio of the deals' shape, their values up
to scale, whose law does not depend on sigma; Perez-Ortiz, Lardy, de Heide and Grunwald 2024 show
this for any such group-invariant Bayes factor). By Ville's inequality it then reaches 1/alpha at
any deal at all with probability at most alpha: a bound crossed at whichever deal a user looks
is as trustworthy as one fixed in advance. The first deal gives no scale and E is 2 F_1(+-rho)
there; every later one counts. A deal exactly at m every time has no scale either: E(m) is then
1, no evidence.

E(m) grows with the distance of the mean of the deals from m on its side (with the sample
deviation fixed, the ratio Q / A does), so the m that E rejects at a level form a half line:
`bound` finds its end, and a hypothesis "the mean is m or more" is rejected for every such m as
soon as it is rejected at its edge. Against the GSPRT of `sprt`, which fits the variance under
each of two points, the evidence grows with the squared distance in deviations: fast where
the mean is far from both hypotheses, where the GSPRT is slow, and slower near them, where the
GSPRT is nearly optimal; `sprt.SequentialTest` runs both.

RHO, the half-normal's scale, sets which distances it is quickest for: the distances the GSPRT
is slow for are those of a deviation of a deal and more, so RHO is 1, the conventional unit
choice (scripts/measure_compare.py measured 0.5 and 2 as well: within a deal on average of 1 at
10 and 30 times the margin, and 0.5 slower at 5 times).
"""

from __future__ import annotations

import math
import sys

from arena.tournament.stats.student import t_cdf

RHO = 1.0
"""The scale of the mixture over the mean's distance from m, in deviations of a deal."""
_SEARCH_STEPS = 60
"""Halvings of the interval in which `bound` looks for its end (to 1e-12 of its width or so)."""


EPSILON = sys.float_info.epsilon
"""A mean of n deals worked out in floating point is off by up to about n + 1 of these, relative."""


def log_evidence(
    deals: int, mean: float, squares: float, m: float, side: int, rho: float = RHO
) -> float:
    """log E(m) against "the mean is m", for a mean on `side` of it (-1 below, +1 above), of
    `deals` deals with this mean and sum of squared deviations from it."""
    if side not in (-1, 1):
        raise ValueError(f"side is -1 (below) or +1 (above), not {side!r}")
    sums = _scaled_sums(deals, mean, squares, m)
    if sums is None:
        return 0.0  # no deal yet, or every deal exactly at m: no scale, no evidence
    s, q = sums
    log_two_sided, a, k2 = _two_sided(deals, s, q, rho)
    probability = t_cdf(side * s * math.sqrt(deals / a / k2), deals)
    if probability <= 0:
        return -math.inf
    return math.log(2) + log_two_sided + math.log(probability)


def rejects(
    deals: int, mean: float, squares: float, m: float, side: int, level: float, rho: float = RHO
) -> bool:
    """Whether the evidence rejects, at `level`, every mean on the far side of m from `side`
    (side -1: every mean m or more; +1: every mean m or less)."""
    if side * (mean - m) <= 0:
        return False  # the deals' mean is not on that side: no evidence that way
    sums = _scaled_sums(deals, mean, squares, m)
    if sums is None:
        return False
    threshold = math.log(1 / level)
    # E is at most twice its two-sided form: most deals are decided without the t function.
    if math.log(2) + _two_sided(deals, *sums, rho)[0] < threshold:
        return False
    return log_evidence(deals, mean, squares, m, side, rho) >= threshold


def _scaled_sums(deals: int, mean: float, squares: float, m: float) -> tuple[float, float] | None:
    """S and Q of the deals' distances from m, in units of the larger of the mean's distance and
    the deals' deviation: E does not change with the scale, and so Q is at least n, and neither
    overflows nor underflows. None with no deal, or every deal at m: exactly, or but for the
    rounding of a mean worked out in floating point (`EPSILON`), which is no
    evidence of anything."""
    if deals < 1:
        return None
    distance = mean - m
    unit = max(abs(distance), math.sqrt(max(squares, 0.0) / deals))
    if unit <= (deals + 4) * EPSILON * max(abs(mean), abs(m)):
        return None
    d = distance / unit
    return deals * d, max(squares, 0.0) / unit / unit + deals * d * d


def _two_sided(deals: int, s: float, q: float, rho: float) -> tuple[float, float, float]:
    """log of the two-sided form, (1 + n rho^2)^(-1/2) (Q / A)^(n/2), with A and k^2."""
    k2 = deals + 1 / (rho * rho)
    share = s * s / q / k2  # S^2 / (k^2 Q), below n / k^2 < 1 (Cauchy-Schwarz)
    log_two_sided = -0.5 * math.log1p(deals * rho * rho) - deals / 2 * math.log1p(-share)
    return log_two_sided, q * (1 - share), k2


def bound(deals: int, mean: float, squares: float, side: int, level: float) -> float:
    """The end of the half line of means the evidence rejects at `level` on `side`: side -1 the
    least m it rejects from below (every mean m or more is rejected: an upper bound on the mean),
    +1 the greatest from above (a lower bound); infinite while no m is rejected."""
    if deals < 2:
        return -side * math.inf

    def rejected(distance: float) -> bool:
        return rejects(deals, mean, squares, mean - side * distance, side, level)

    far = math.sqrt(max(squares, 0.0) / deals) or 1.0
    for _ in range(200):  # far enough to be rejected, if any distance is
        if rejected(far):
            break
        far *= 2
    else:
        return -side * math.inf
    near = 0.0
    for _ in range(_SEARCH_STEPS):
        middle = (near + far) / 2
        near, far = (near, middle) if rejected(middle) else (middle, far)
    return mean - side * far
