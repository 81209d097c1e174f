"""The sequential test behind `arena compare`: is NEW better than OLD, and by enough?

Pure: no I/O, no clock, no random state. One observation per deal: NEW's bullheads minus OLD's
in the same seat, seed and rotation, averaged over the deal's rotations (see `arena.tournament.
compare`). Deals are independent of one another; the rotations of one deal are not (they share
its cards), which is why the deal, not the game pair, is the unit. Fewer bullheads are better,
so NEW is better when the difference is negative.

The hypotheses, in bullheads per game:

- H0: the mean difference is 0 or more ("NEW is no better"), tested at its edge, mu0 = 0;
- H1: the mean difference is -margin or less ("NEW takes at least `margin` fewer").

The test is the generalized sequential probability ratio test (GSPRT) that fishtest runs on game
pairs (`server/fishtest/stats/LLRcalc.py`), here on a real-valued statistic under the normal
model with its variance unknown: after n deals with mean m, the log-likelihood ratio of H1 to H0
with the variance at its maximum-likelihood value under each hypothesis is

    LLR = n/2 * log(r0 / r1),   r_i = mean over the deals of (x - mu_i)^2,

fishtest's `LLR_alt`. Its first-order expansion is `LLR_alt2`, the Brownian approximation
(mu1 - mu0) / var * (sum - n (mu0 + mu1) / 2) with the sample variance; the two agree once n is
large (test_sprt.py), but the approximation trusts the sample variance as if it
were known, and that costs its error rates. Simulated on normal data, 1,000 to 4,000 runs each,
at the edge of H0 with the margin a tenth to a half of the per-deal deviation (6 nimmt!'s range:
a margin of 1 against 4 to 10 bullheads), it accepted H1 in 15% to 20% of runs for alpha = 5%
when allowed to stop from the second deal, and still in 7% after at least 20 deals (a quarter),
while the full ratio from 10 deals stayed at 3.8% to 4.7%, for about 5% more deals. The full
ratio is slower only where NEW is better than the margin by several times the per-deal
deviation (a mean difference far outside both hypotheses fits neither well): 3 times slower for
14 bullheads with a deviation of 9 and a margin of 1; choose a margin near the improvement that
matters. The test stops at the first deal at which the LLR reaches log(beta / (1 - alpha)) (H0
accepted) or log((1 - beta) / alpha) (H1 accepted), Wald's bounds, but never before `MIN_DEALS`
deals.

Zero variance: a bot against an identical copy gives exactly 0 in every deal, r0 = 0 and the
LLR is minus infinity, as if one deal could prove that NEW is no better. The sums behind r0 and
r1 therefore each hold one pseudo-deal at each hypothesis (at 0 and at -margin), as fishtest
mixes a small prior into empty outcome classes: both sums grow by margin^2, so the prior favours
neither hypothesis, the LLR stays finite (n/2 * log(1 / (n + 1)) for n identical deals: H0 after
4 of them, or after `MIN_DEALS`), and its weight fades as real deals come in (one deal's worth,
against n; for a per-deal deviation a few times the margin it is negligible from the start).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist

MIN_DEALS = 10
"""No verdict before this many deals, however far the LLR has gone."""

CONFIDENCE = 0.95
"""The confidence of the mean difference's interval."""


class Verdict(StrEnum):
    """How a comparison ended."""

    H0 = "H0"
    """NEW is no better than OLD (its mean difference is most likely 0 or more)."""
    H1 = "H1"
    """NEW is better by at least the margin (in the sense of the test's error rates)."""
    UNDECIDED = "undecided"
    """Neither bound was reached before the games ran out."""


@dataclass(frozen=True, slots=True)
class Hypotheses:
    """What the test decides between, and with which error rates."""

    margin: float = 1.0
    """H1: NEW takes at least this many fewer bullheads per game than OLD."""
    alpha: float = 0.05
    """The chance of accepting H1 when NEW is no better (a false positive)."""
    beta: float = 0.05
    """The chance of accepting H0 when NEW is better by the margin (a miss)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin > 0):
            raise ValueError(f"the margin must be above 0 bullheads, not {self.margin!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value!r}")

    @property
    def mu0(self) -> float:
        """The mean difference under H0, at its edge."""
        return 0.0

    @property
    def mu1(self) -> float:
        """The mean difference under H1, at its edge."""
        return -self.margin

    @property
    def lower_bound(self) -> float:
        """At or below it, H0 is accepted: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """At or above it, H1 is accepted: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)


@dataclass(frozen=True, slots=True)
class SprtState:
    """Where a comparison stands after some deals."""

    hypotheses: Hypotheses
    deals: int
    """Deals counted so far (up to the verdict's, once there is one)."""
    mean: float
    """Mean difference per game, NEW minus OLD: negative when NEW takes fewer bullheads."""
    ci: tuple[float, float] | None
    """Its 95% interval (Student's t over the deals); None before two deals."""
    llr: float
    """The log-likelihood ratio of H1 to H0."""
    verdict: Verdict | None
    """H0 or H1 once a bound was reached (the test then stops), else None."""

    @property
    def lower_bound(self) -> float:
        return self.hypotheses.lower_bound

    @property
    def upper_bound(self) -> float:
        return self.hypotheses.upper_bound


class SequentialTest:
    """The test fed one deal at a time; it decides at the first bound reached, then ignores more.

    The running sums are kept with Welford's update, so that a long run loses no precision.
    """

    def __init__(self, hypotheses: Hypotheses, min_deals: int = MIN_DEALS) -> None:
        if min_deals < 1:
            raise ValueError(f"min_deals must be at least 1, not {min_deals!r}")
        self.hypotheses = hypotheses
        self.min_deals = min_deals
        self._n = 0
        self._mean = 0.0
        self._squares = 0.0  # sum of squared deviations from the running mean
        self._verdict: Verdict | None = None

    def add(self, difference: float) -> Verdict | None:
        """Count one deal's mean difference; the verdict if this deal reaches a bound."""
        if self._verdict is not None:
            return None
        self._n += 1
        delta = difference - self._mean
        self._mean += delta / self._n
        self._squares += delta * (difference - self._mean)
        if self._n < self.min_deals:
            return None
        llr = self.llr
        if llr <= self.hypotheses.lower_bound:
            self._verdict = Verdict.H0
        elif llr >= self.hypotheses.upper_bound:
            self._verdict = Verdict.H1
        return self._verdict

    @property
    def deals(self) -> int:
        return self._n

    @property
    def verdict(self) -> Verdict | None:
        return self._verdict

    @property
    def llr(self) -> float:
        """n/2 * log(r0 / r1), each r_i the mean squared distance to mu_i with the pseudo-deals."""
        n = self._n
        if n == 0:
            return 0.0
        h = self.hypotheses
        prior = (h.mu1 - h.mu0) ** 2  # one pseudo-deal at each hypothesis adds this to both sums
        r0 = self._squares + n * (self._mean - h.mu0) ** 2 + prior
        r1 = self._squares + n * (self._mean - h.mu1) ** 2 + prior
        return n / 2 * math.log(r0 / r1)

    def state(self) -> SprtState:
        """Where the test stands."""
        return SprtState(
            self.hypotheses, self._n, self._mean, self._interval(), self.llr, self._verdict
        )

    def _interval(self) -> tuple[float, float] | None:
        n = self._n
        if n < 2:
            return None
        half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * math.sqrt(self._squares / (n - 1) / n)
        return self._mean - half, self._mean + half


def run_test(
    differences: Iterable[float], hypotheses: Hypotheses, max_deals: int | None = None
) -> SprtState:
    """The test over a stream of per-deal differences: stopped at its verdict, or after
    `max_deals` deals (or the stream's end) undecided."""
    test = SequentialTest(hypotheses)
    for difference in differences:
        if max_deals is not None and test.deals >= max_deals:
            break
        if test.add(difference) is not None:
            break
    return test.state()


def final_verdict(state: SprtState) -> Verdict:
    """The verdict to report: the test's, or undecided when it has none."""
    return state.verdict or Verdict.UNDECIDED


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


def progress_bar(state: SprtState, width: int = 24) -> str:
    """The LLR between its bounds as a bar, e.g. `H0 -2.94 [-----|---#----] +2.94 H1`."""
    low, high = state.lower_bound, state.upper_bound
    share = (min(max(state.llr, low), high) - low) / (high - low)
    cells = ["-"] * width
    cells[round((0 - low) / (high - low) * (width - 1))] = "|"  # where the test starts
    cells[round(share * (width - 1))] = "#"
    return f"H0 {low:+.2f} [{''.join(cells)}] {high:+.2f} H1"
