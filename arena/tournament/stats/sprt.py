"""The sequential test behind `arena compare`: is NEW better than OLD, and by enough?

Pure: no I/O, no clock, no random state. One observation per deal: NEW's bullheads minus OLD's
in the same seat, seed and rotation, averaged over the deal's rotations (see `arena.tournament.
compare`). Deals are independent of one another; the rotations of one deal are not (they share
its cards), which is why the deal, not the game pair, is the unit. Fewer bullheads are better,
so NEW is better when the difference is negative.

The hypotheses, in bullheads per game:

- H0: the mean difference is 0 or more ("NEW is no better"), tested at its edge, mu0 = 0;
- H1: the mean difference is -margin or less ("NEW takes at least `margin` fewer").

Two tests run side by side on the same deals, and the first to decide ends the comparison; each
has its share of the error rates, so that together they keep to alpha and beta: a false H1 needs
one of them to err, so its chance is at most the sum of theirs (the same for a false H0).

1. The generalized sequential probability ratio test (GSPRT) that fishtest runs on game pairs
   (`server/fishtest/stats/LLRcalc.py`), here on a real-valued statistic under the normal model
   with its variance unknown, at 1 - `INTERVAL_SHARE` of alpha and beta: after n deals, the
   log-likelihood ratio of H1 to H0 with the variance at its maximum-likelihood value under
   each hypothesis is

       LLR = n/2 * log(r0 / r1),   r_i = mean over the deals of (x - mu_i)^2,

   fishtest's `LLR_alt`, which stops at Wald's bounds log(beta / (1 - alpha)) (H0) and
   log((1 - beta) / alpha) (H1). Near the hypotheses it is the quickest test there is; but a
   mean difference far outside both fits neither, and the clearer the improvement, the slower
   the LLR grows (for a difference of 35 bullheads with a deviation of 12 and a margin of 1, it
   took 114 deals).
2. The always-valid bounds of `mixture` (a t-mixture: the exact form of the mixture SPRT), at
   `INTERVAL_SHARE` of alpha and beta: H1 once the bound from above, at alpha's share, is below
   0 (every mean difference of 0 or more is rejected), H0 once the bound from below, at beta's
   share, is above -margin. Their evidence grows with the squared distance from the hypotheses
   in deviations of a deal, so a clear difference decides in a few deals.

A fifth of the error rates for the bounds costs the close calls little (the GSPRT's bounds move
from +-2.94 to +-3.18 at alpha = beta = 0.05: 8% more deals at H0 and H1, measured), and buys
the clear ones much: scripts/measure_compare.py prints the table, the docs hold it.

Why the full ratio and not its first-order expansion `LLR_alt2`, (mu1 - mu0) / var * (sum -
n (mu0 + mu1) / 2) with the sample variance: the two agree once n is large (test_sprt.py), but
the approximation trusts the sample variance as if it were known, and that costs its error
rates: simulated on normal data at the edge of H0 with the margin a tenth to a half of the
per-deal deviation, it accepted H1 in 15% to 20% of runs for alpha = 5% when allowed to stop
from the second deal, and still in 7% after at least 20 deals, while the full ratio from 10
deals stayed at 3.8% to 4.7%.

No verdict, from either test, before `MIN_DEALS` deals: both are of the normal model, and a
deal's difference is a multiple of a quarter bullhead (at four seats) with heavy tails; a few
deals that happen to agree closely would otherwise look like certainty.

Zero variance: a bot against an identical copy gives exactly 0 in every deal, r0 = 0 and the
LLR is minus infinity, as if one deal could prove that NEW is no better. The sums behind r0 and
r1 therefore each hold one pseudo-deal at each hypothesis (at 0 and at -margin), as fishtest
mixes a small prior into empty outcome classes: both sums grow by margin^2, so the prior favours
neither hypothesis, the LLR stays finite (n/2 * log(1 / (n + 1)) for n identical deals: H0 after
4 of them, or after `MIN_DEALS`), and its weight fades as real deals come in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from arena.tournament.stats import mixture
from arena.tournament.stats.student import t_quantile

MIN_DEALS = 10
"""No verdict before this many deals, from either test."""

CONFIDENCE = 0.95
"""The confidence of the mean difference's interval (Student's t, at the end)."""

INTERVAL_SHARE = 0.2
"""The share of alpha and of beta given to the always-valid bounds; the GSPRT has the rest."""


class Verdict(StrEnum):
    """How a comparison ended."""

    H0 = "H0"
    """NEW is no better than OLD (its mean difference is most likely 0 or more)."""
    H1 = "H1"
    """NEW is better by at least the margin (in the sense of the test's error rates)."""
    UNDECIDED = "undecided"
    """Neither bound was reached before the games ran out."""


class DecidedBy(StrEnum):
    """Which of the two tests reached its bound first."""

    SPRT = "sprt"
    """The GSPRT's LLR reached one of its bounds."""
    INTERVAL = "interval"
    """The always-valid interval left a hypothesis behind."""


@dataclass(frozen=True, slots=True)
class Hypotheses:
    """What the test decides between, and with which error rates."""

    margin: float = 1.0
    """H1: NEW takes at least this many fewer bullheads per game than OLD."""
    alpha: float = 0.05
    """The chance of accepting H1 when NEW is no better (a false positive)."""
    beta: float = 0.05
    """The chance of accepting H0 when NEW is better by the margin (a miss)."""
    interval_share: float = INTERVAL_SHARE
    """The share of alpha and beta given to the always-valid bounds (0: the GSPRT alone)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin > 0):
            raise ValueError(f"the margin must be above 0 bullheads, not {self.margin!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value!r}")
        if not 0 <= self.interval_share < 1:
            raise ValueError(f"the interval's share must be 0 to 1, not {self.interval_share!r}")

    @property
    def mu0(self) -> float:
        """The mean difference under H0, at its edge."""
        return 0.0

    @property
    def mu1(self) -> float:
        """The mean difference under H1, at its edge."""
        return -self.margin

    @property
    def sprt_alpha(self) -> float:
        """The GSPRT's share of alpha."""
        return self.alpha * (1 - self.interval_share)

    @property
    def sprt_beta(self) -> float:
        """The GSPRT's share of beta."""
        return self.beta * (1 - self.interval_share)

    @property
    def interval_alpha(self) -> float:
        """The always-valid bound from above errs (below 0 though NEW is no better) this often."""
        return self.alpha * self.interval_share

    @property
    def interval_beta(self) -> float:
        """The bound from below errs (above -margin though NEW is that much better) this often."""
        return self.beta * self.interval_share

    @property
    def lower_bound(self) -> float:
        """At or below it, the GSPRT accepts H0: log(beta / (1 - alpha)), at its shares."""
        return math.log(self.sprt_beta / (1 - self.sprt_alpha))

    @property
    def upper_bound(self) -> float:
        """At or above it, the GSPRT accepts H1: log((1 - beta) / alpha), at its shares."""
        return math.log((1 - self.sprt_beta) / self.sprt_alpha)


@dataclass(frozen=True, slots=True)
class SprtState:
    """Where a comparison stands after some deals."""

    hypotheses: Hypotheses
    deals: int
    """Deals counted so far (up to the verdict's, once there is one)."""
    mean: float
    """Mean difference per game, NEW minus OLD: negative when NEW takes fewer bullheads."""
    squares: float
    """The sum of the deals' squared deviations from their mean."""
    llr: float
    """The GSPRT's log-likelihood ratio of H1 to H0."""
    verdict: Verdict | None
    """H0 or H1 once a bound was reached (the test then stops), else None."""
    decided_by: DecidedBy | None = None
    """Which test reached its bound, once one has."""

    @property
    def lower_bound(self) -> float:
        return self.hypotheses.lower_bound

    @property
    def upper_bound(self) -> float:
        return self.hypotheses.upper_bound

    @property
    def ci(self) -> tuple[float, float] | None:
        """The mean's 95% interval (Student's t over the deals, valid for a fixed number of
        deals: not corrected for the stop); None before two deals."""
        n = self.deals
        if n < 2:
            return None
        half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * math.sqrt(self.squares / (n - 1) / n)
        return self.mean - half, self.mean + half

    @property
    def always_valid(self) -> tuple[float | None, float | None]:
        """The always-valid interval of the mean: its lower end at the bounds' share of beta,
        its upper at theirs of alpha (None: no end yet, or no share). About a millisecond."""
        h = self.hypotheses
        if h.interval_share == 0:
            return None, None
        ends = (
            mixture.bound(self.deals, self.mean, self.squares, +1, h.interval_beta),
            mixture.bound(self.deals, self.mean, self.squares, -1, h.interval_alpha),
        )
        low, high = (end if math.isfinite(end) else None for end in ends)
        return low, high

    @property
    def always_valid_confidence(self) -> float:
        """The chance that the always-valid interval holds the true mean at every deal at once."""
        return 1 - self.hypotheses.interval_alpha - self.hypotheses.interval_beta


class SequentialTest:
    """The two tests fed one deal at a time; the first to reach its bound decides, and later
    deals are ignored.

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
        self._decided_by: DecidedBy | None = None

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
        h = self.hypotheses
        llr = self.llr
        if llr <= h.lower_bound:
            self._decide(Verdict.H0, DecidedBy.SPRT)
        elif llr >= h.upper_bound:
            self._decide(Verdict.H1, DecidedBy.SPRT)
        elif h.interval_share > 0:
            sums = (self._n, self._mean, self._squares)
            if mixture.rejects(*sums, h.mu0, -1, h.interval_alpha):
                self._decide(Verdict.H1, DecidedBy.INTERVAL)
            elif mixture.rejects(*sums, h.mu1, +1, h.interval_beta):
                self._decide(Verdict.H0, DecidedBy.INTERVAL)
        return self._verdict

    def _decide(self, verdict: Verdict, by: DecidedBy) -> None:
        self._verdict, self._decided_by = verdict, by

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
            self.hypotheses,
            self._n,
            self._mean,
            self._squares,
            self.llr,
            self._verdict,
            self._decided_by,
        )


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


def progress_bar(state: SprtState, width: int = 24) -> str:
    """The LLR between its bounds as a bar, e.g. `H0 -2.94 [-----|---#----] +2.94 H1`."""
    low, high = state.lower_bound, state.upper_bound
    share = (min(max(state.llr, low), high) - low) / (high - low)
    cells = ["-"] * width
    cells[round((0 - low) / (high - low) * (width - 1))] = "|"  # where the test starts
    cells[round(share * (width - 1))] = "#"
    return f"H0 {low:+.2f} [{''.join(cells)}] {high:+.2f} H1"
