"""How the sequential test behaves, by simulation: how often it accepts H1 and how many deals it
takes, at a given true difference (its operating characteristic and average sample number).

Pure: the randomness is a seeded `random.Random`, no I/O, no clock. The deals are drawn from a
pool of real per-deal differences (deals played as `arena compare` plays them, see
`arena.tournament.simulate`), shifted to the true difference asked for: the shape of real deals
(their skew, their tails, their quarter-bullhead steps), at any mean. `centred` makes a pool
symmetric about 0 first, so that its mean is exactly 0 and a shift puts it exactly where asked.
The test suite (`tests/tournament/stats/test_sprt_check.py`) and `scripts/measure_compare.py`
both measure through here.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean, pstdev

from arena.tournament.stats.sprt import Hypotheses, SequentialTest, Verdict


@dataclass(frozen=True, slots=True)
class Operating:
    """The test's behaviour over many comparisons at one true difference."""

    difference: float
    """The true mean difference per deal (NEW minus OLD, bullheads a game)."""
    comparisons: int
    h1: float
    """The share of comparisons that accepted H1."""
    h0: float
    """The share that accepted H0 (the rest reached the cap undecided)."""
    mean_deals: float
    """Deals to a verdict (or to the cap), on average."""
    by_interval: float
    """The share of verdicts that the always-valid bounds reached first."""

    @property
    def standard_error(self) -> float:
        """The standard error of the H1 share, as a binomial share over the comparisons."""
        return math.sqrt(self.h1 * (1 - self.h1) / self.comparisons)


def centred(pool: Sequence[float]) -> list[float]:
    """The pool's deviations from its mean, each with its mirror: symmetric about exactly 0."""
    mean = fmean(pool)
    return [sign * (x - mean) for x in pool for sign in (1, -1)]


def operate(
    pool: Sequence[float],
    difference: float,
    hypotheses: Hypotheses,
    *,
    comparisons: int,
    max_deals: int,
    seed: int,
) -> Operating:
    """`comparisons` comparisons of deals drawn from `pool` shifted by `difference`, each stopped
    at its verdict or after `max_deals` deals."""
    if not pool:
        raise ValueError("a pool of deals to draw from is needed")
    rng = random.Random(seed)
    values = [x + difference for x in pool]
    verdicts: list[Verdict | None] = []
    deals, by_interval = 0, 0
    for _ in range(comparisons):
        test = SequentialTest(hypotheses)
        while test.deals < max_deals and test.add(rng.choice(values)) is None:
            pass
        verdicts.append(test.verdict)
        deals += test.deals
        by_interval += test.state().decided_by == "interval"
    decided = sum(verdict is not None for verdict in verdicts)
    return Operating(
        difference,
        comparisons,
        verdicts.count(Verdict.H1) / comparisons,
        verdicts.count(Verdict.H0) / comparisons,
        deals / comparisons,
        by_interval / max(decided, 1),
    )


def fixed_size_deals(deviation: float, hypotheses: Hypotheses) -> int:
    """The deals a test of a fixed number of deals needs for the same alpha and beta: the
    one-sided z-test of the mean with the deals' deviation known, the fewest any fixed size can
    take (a t-test, which must estimate it, needs a few more)."""
    z = NormalDist().inv_cdf
    spread = (z(1 - hypotheses.alpha) + z(1 - hypotheses.beta)) * deviation / hypotheses.margin
    return math.ceil(spread * spread)


def deviation(pool: Sequence[float]) -> float:
    """A pool's deviation per deal, the one `fixed_size_deals` needs."""
    return pstdev(pool)
