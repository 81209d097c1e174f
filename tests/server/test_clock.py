"""One seat's clock in one game (`arena.server.clock`), without a process or a stream: the first
deadline for the first decision only, the bank drawn past the deadline and spent by a timeout,
never negative and never growing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.server.clock import TIMED_OUT, Allowance, Clock, Spent, TimeControl

CONTROL = TimeControl(first_deadline=5.0, deadline=1.0, bank=2.0)

seconds = st.floats(0.0, 1e4, allow_nan=False)
controls = st.builds(
    lambda deadline, extra, bank: TimeControl(deadline + extra, deadline, bank),
    st.floats(0.001, 100.0),
    st.floats(0.0, 100.0),
    st.floats(0.0, 1000.0),
)
outcomes = st.lists(st.one_of(seconds, st.just(TIMED_OUT), st.none()), max_size=30)
"""What each decision took: seconds, a timeout, or no time at all (a malformed answer)."""


def test_the_first_decision_gets_the_first_deadline_and_every_later_one_the_deadline() -> None:
    clock = Clock(CONTROL)
    assert clock.allowance() == Allowance(5.0, 2.0)
    assert clock.update(0.5) == Spent(0.5, 0.0)
    assert clock.allowance() == Allowance(1.0, 2.0)
    assert clock.update(0.5) == Spent(0.5, 0.0)
    assert clock.allowance() == Allowance(1.0, 2.0)


def test_an_answer_past_its_deadline_draws_the_excess_and_a_timeout_spends_the_bank() -> None:
    clock = Clock(CONTROL)
    clock.update(4.0)  # within the first deadline
    assert clock.update(1.5) == Spent(1.5, 0.5)
    assert clock.allowance() == Allowance(1.0, 1.5)
    assert clock.allowance().limit == 2.5
    assert clock.update(TIMED_OUT) == Spent(2.5, 1.5)  # its whole allowance, as recorded
    assert clock.allowance() == Allowance(1.0, 0.0)
    assert clock.update(TIMED_OUT) == Spent(1.0, 0.0)


def test_a_decision_not_timed_uses_up_the_first_deadline_and_nothing_else() -> None:
    clock = Clock(CONTROL)
    assert clock.update(None) is None
    assert clock.allowance() == Allowance(1.0, 2.0)


def test_a_negative_bank_counts_as_none() -> None:
    assert Clock(TimeControl(1.0, 1.0, -3.0)).allowance() == Allowance(1.0, 0.0)


@given(controls, outcomes)
def test_the_bank_never_grows_never_goes_negative_and_pays_exactly_what_is_drawn(
    control: TimeControl, took: list[float | None]
) -> None:
    clock = Clock(control)
    drawn_in_all = 0.0
    for index, decision in enumerate(took):
        allowance = clock.allowance()
        assert allowance.deadline == (control.deadline if index else control.first_deadline)
        assert allowance.bank == clock.bank
        assert allowance.limit == allowance.deadline + allowance.bank
        before = clock.bank
        spent = clock.update(decision)
        assert 0.0 <= clock.bank <= before
        if spent is None:
            assert decision is None and clock.bank == before
            continue
        assert decision is not None
        assert spent.bank == pytest.approx(before - clock.bank, abs=1e-9)
        drawn_in_all += spent.bank
        if decision == TIMED_OUT:
            assert clock.bank == 0.0 and spent == Spent(allowance.limit, before)
        else:
            assert spent == Spent(decision, min(before, max(0.0, decision - allowance.deadline)))
    assert drawn_in_all + clock.bank == pytest.approx(max(0.0, control.bank))


@given(controls, st.lists(seconds, max_size=30))
def test_answers_within_their_deadline_never_touch_the_bank(
    control: TimeControl, took: list[float]
) -> None:
    clock = Clock(control)
    for decision in took:
        within = min(decision, clock.allowance().deadline)
        assert clock.update(within) == Spent(within, 0.0)
    assert clock.bank == control.bank
