"""The statistical check of `arena compare`'s test, on simulated comparisons of the heuristic
sample bot in-process against the default field (heuristic, lowest, random) at 4-player tables.

The pool of deals is stored (`one_round_deals.json`, 300 per-deal differences), so that the
check is pure arithmetic and plays no game: the heuristic playing 30% of its cards at random,
against itself, NEW and OLD with their own random streams, one round a game, each deal played
as `arena compare` plays it (`play_deal`: every rotation, NEW and OLD in the same seat with the
same seeds and random generators). `python -m tests.tournament.stats.test_sprt_check` plays it
again and rewrites the file (about 5 s of CPU). `operating.centred` makes the pool symmetric
about exactly 0 (every difference and its mirror: NEW and OLD are exchangeable), and each check
shifts it to the true difference it asks about (`operating.operate`): the spread, skew, tails
and quarter-bullhead steps of real deals, at any mean. Each comparison then draws its deals
from the shifted pool.

- At the edge of H0 (a true difference of 0, where a false H1 is likeliest), H1 may be accepted
  in at most alpha of 1,000 comparisons, plus three standard errors of a binomial share.
- At the edge of H1 (NEW better by exactly the margin), H1 must be accepted in at least 1 - beta.
- At 2, 5, 10 and 30 times the margin, the test takes fewer deals on average than the GSPRT
  alone (the test before the always-valid interval) from 5 times on, and never many more, and
  fewer than the fixed-size test of the same alpha and beta everywhere.

`scripts/measure_compare.py` prints the same table with more comparisons, on one-round and
whole games; its figures are in docs/compare-and-standings.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.rules import Settings
from arena.tournament.simulate import play_deal
from arena.tournament.stats.operating import (
    Operating,
    centred,
    deviation,
    fixed_size_deals,
    operate,
)
from arena.tournament.stats.sprt import MIN_DEALS, Hypotheses
from tests.tournament.sample_strategies import FIELD, noisy

SETTINGS = Settings(players=4, max_rounds=1)
POOL = 300
"""Deals in the pool: 2,400 one-round games (600 differences once mirrored)."""
STORED = Path(__file__).with_name("one_round_deals.json")
COMPARISONS = 1000
"""Comparisons at each edge (the issue asks for at least 200)."""
MAX_DEALS = 1250
"""A comparison's cap: 10,000 games, `arena compare`'s own."""
HYPOTHESES = Hypotheses(margin=1.0, alpha=0.05, beta=0.05)
GSPRT_ALONE = Hypotheses(margin=1.0, alpha=0.05, beta=0.05, interval_share=0.0)


def play_pool() -> list[float]:
    """The pool's deals played again: the noisy heuristic against itself, each with its own
    random stream, the deal's number its seed."""
    new, old = noisy(0.3, "new:"), noisy(0.3, "old:")
    return [play_deal(SETTINGS, new, old, FIELD, d, d).difference for d in range(POOL)]


@pytest.fixture(scope="module")
def pool() -> list[float]:
    """The stored pool, centred."""
    differences: list[float] = json.loads(STORED.read_text())["differences"]
    assert len(differences) == POOL and all((4 * x).is_integer() for x in differences)
    return centred(differences)


def at(pool: list[float], times: float, hypotheses: Hypotheses, comparisons: int) -> Operating:
    """The test's behaviour with NEW better by `times` the margin."""
    difference = -times * hypotheses.margin
    return operate(
        pool, difference, hypotheses, comparisons=comparisons, max_deals=MAX_DEALS, seed=17
    )


def test_at_the_edge_of_h0_h1_is_accepted_in_at_most_alpha(pool: list[float]) -> None:
    assert sum(pool) == pytest.approx(0, abs=1e-9)  # exactly the edge of H0
    edge = at(pool, 0, HYPOTHESES, COMPARISONS)
    error = (HYPOTHESES.alpha * (1 - HYPOTHESES.alpha) / COMPARISONS) ** 0.5  # 0.7%
    print(f"edge of H0: H1 in {edge.h1:.1%}, mean deals {edge.mean_deals:.0f}")
    assert edge.h1 <= HYPOTHESES.alpha + 3 * error
    assert edge.h0 + edge.h1 > 0.99  # hardly ever undecided at the cap


def test_at_the_edge_of_h1_h1_is_accepted_in_at_least_1_minus_beta(pool: list[float]) -> None:
    edge = at(pool, 1, HYPOTHESES, COMPARISONS)
    print(f"edge of H1: H1 in {edge.h1:.1%}, mean deals {edge.mean_deals:.0f}")
    assert edge.h1 >= 1 - HYPOTHESES.beta
    assert edge.h0 + edge.h1 > 0.99


def test_clear_differences_take_fewer_deals_than_the_gsprt_or_a_fixed_size(
    pool: list[float],
) -> None:
    fixed = fixed_size_deals(deviation(pool), HYPOTHESES)
    for times in (2, 5, 10, 30):
        ours, alone = (at(pool, times, h, 300) for h in (HYPOTHESES, GSPRT_ALONE))
        print(
            f"{times:>2} x margin: {ours.mean_deals:5.1f} deals (GSPRT alone "
            f"{alone.mean_deals:5.1f}, fixed size {fixed})"
        )
        assert ours.h1 == 1 and alone.h1 == 1
        assert ours.mean_deals < fixed
        if times >= 5:
            assert ours.mean_deals < alone.mean_deals
        else:  # where the GSPRT is near its best, the interval's share of alpha costs a little
            assert ours.mean_deals < 1.15 * alone.mean_deals
    assert ours.mean_deals == MIN_DEALS  # at 30 times the margin: the first deal allowed


if __name__ == "__main__":
    made_by = "python -m tests.tournament.stats.test_sprt_check (play_pool)"
    document = {"made_by": made_by, "differences": play_pool()}
    STORED.write_text(json.dumps(document, indent=None) + "\n")
