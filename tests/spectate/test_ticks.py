"""A chart's ticks: a few round numbers covering its values, whatever the values.

`nice_ticks` once looped forever on values equal but for their last bits (a bot's ratings of 1
and 1 + 1e-15 on its ladder page, or the series chart's Hypothesis test), adding a step too
small to change them, until the process that drew the page ran out of memory."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import example, given
from hypothesis import strategies as st

from arena.spectate.charts import nice_ticks

finite = st.floats(-1e300, 1e300, allow_nan=False)


@given(finite, finite, st.integers(1, 30))
@example(1.0, 1.0 + 1e-15, 5)  # looped forever
@example(0.0, 1e-11, 5)  # looped forever: the step rounded away
@example(0.0, 5e-324, 5)  # the logarithm of nothing
@example(1e17, 1e17, 5)  # one unit is lost at this size
def test_a_few_round_ticks_cover_any_values(a: float, b: float, count: int) -> None:
    low, high = min(a, b), max(a, b)
    ticks = nice_ticks(low, high, count)
    assert 2 <= len(ticks) <= count + 3
    assert all(left < right for left, right in pairwise(ticks))
    slack = (ticks[1] - ticks[0]) * 1e-6
    assert ticks[0] <= low + slack and ticks[-1] >= high - slack


def test_round_ranges_keep_their_round_ticks() -> None:
    assert nice_ticks(0, 70, 5) == [0, 20, 40, 60, 80]
    assert nice_ticks(0, 0.3, 5) == [0, 0.1, 0.2, 0.3]
    assert nice_ticks(20.3, 29.1, 5) == [20, 22, 24, 26, 28, 30]
    assert nice_ticks(25, 25, 5) == [25, 25.2, 25.4, 25.6, 25.8, 26]  # flat: one unit wide
