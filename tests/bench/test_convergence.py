"""The ladder's convergence section (`bench.convergence`): its Kendall's tau, its sets played as
the ladder plays them, and seeded runs that play the same every time. No figure is asserted:
how soon a field settles is what the bench measures, not what a test may fix."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.ladder.settings import LadderSettings
from bench.convergence import QUICK, SHARES, kendall_tau, measure, play_set, policies, run
from bench.report import table

SETTINGS = replace(LadderSettings(), max_rounds=1)


def test_kendall_tau_counts_the_pairs_in_order() -> None:
    assert kendall_tau([8, 7, 6, 5, 4, 3, 2, 1]) == 1.0
    assert kendall_tau([1, 2, 3, 4, 5, 6, 7, 8]) == -1.0
    assert kendall_tau([8, 7, 5, 6, 4, 3, 2, 1]) == pytest.approx(26 / 28)  # one swap: >= 0.9
    assert kendall_tau([8, 6, 7, 4, 5, 3, 2, 1]) == pytest.approx(24 / 28)  # two: below
    assert kendall_tau([0.0] * 8) == 0.0  # a new field, all tied, is in no order yet


def test_a_set_is_one_deal_in_every_rotation_summed_by_seat() -> None:
    once = play_set(SETTINGS, [0.0, 0.7, 0.3, 0.5], "deal:1")
    assert once == play_set(SETTINGS, [0.0, 0.7, 0.3, 0.5], "deal:1")
    assert len(once) == 4 and all(heads >= 0 for heads in once)
    assert play_set(SETTINGS, [0.0, 0.7, 0.3, 0.5], "deal:2") != once or sum(once) == 0


def test_a_seeded_run_plays_the_same_sets_every_time() -> None:
    sizes = replace(QUICK, cap=12, hold=2)
    for policy in policies(SETTINGS).values():
        first = run(policy, 3, sizes, SETTINGS)
        assert first == run(policy, 3, sizes, SETTINGS)
        assert first is None or 1 <= first <= sizes.cap - sizes.hold


def test_the_section_reports_both_policies_and_their_ratio() -> None:
    found = measure(replace(QUICK, seeds=1, cap=6, hold=1))
    assert found["bots"] == len(SHARES) == 8
    for name in ("matchmaking", "uniform"):
        assert len(found[name]["sets"]) == 1
        assert 1 <= found[name]["median_sets"] <= 6
    assert found["ratio"] == found["matchmaking"]["median_sets"] / found["uniform"]["median_sets"]
    assert "ladder convergence, 8 bots at 4 seats" in table({"ladder-convergence": found})
