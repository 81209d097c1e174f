"""A version's life: every legal move, every other refused in one line, and the bench rule."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ladder.errors import LadderError
from arena.ladder.settings import LadderSettings
from arena.ladder.versions import (
    FINAL,
    PLAYABLE,
    TRANSITIONS,
    Event,
    SetFaults,
    VersionStatus,
    bench_reason,
    is_placed,
    next_status,
    superseded,
)

S, E = VersionStatus, Event
SETTINGS = LadderSettings()


def test_the_statuses_and_events_are_the_plans() -> None:
    assert [s.value for s in S] == [
        *("received", "building", "checking", "placement"),
        *("active", "benched", "error", "retired"),
    ]
    assert {S.PLACEMENT, S.ACTIVE} == PLAYABLE
    assert {e.value for e in E} >= {
        *("built", "build_failed", "checked", "check_failed"),
        *("placed", "benched", "restored", "superseded"),
    }


def walk(status: VersionStatus, *events: Event) -> VersionStatus:
    for event in events:
        status = next_status(status, event)
    return status


def test_a_version_lives_from_upload_to_retirement() -> None:
    assert walk(S.RECEIVED, E.STARTED, E.BUILT, E.CHECKED) is S.PLACEMENT
    assert walk(S.RECEIVED, E.BUILT, E.CHECKED, E.PLACED) is S.ACTIVE
    assert walk(S.ACTIVE, E.BENCHED, E.RESTORED, E.PLACED, E.SUPERSEDED) is S.RETIRED
    assert walk(S.RECEIVED, E.STARTED, E.BUILD_FAILED) is S.ERROR
    assert walk(S.RECEIVED, E.BUILT, E.CHECK_FAILED) is S.ERROR
    assert next_status("placement", "benched") is S.BENCHED  # stored values are taken too


@pytest.mark.parametrize("status", list(S))
@pytest.mark.parametrize("event", list(E))
def test_every_move_is_legal_or_refused_in_one_line(status: VersionStatus, event: Event) -> None:
    if (status, event) in TRANSITIONS:
        assert next_status(status, event) is TRANSITIONS[status, event]
        return
    with pytest.raises(LadderError) as caught:
        next_status(status, event)
    message = str(caught.value)
    assert message.startswith(f"a version that is {status} cannot be {event}: that is for ")
    assert "\n" not in message


def test_no_move_leaves_a_final_status_or_reaches_play_unchecked() -> None:
    assert not [key for key in TRANSITIONS if key[0] in FINAL]
    into_play = {s for (s, _), after in TRANSITIONS.items() if after in PLAYABLE}
    assert into_play <= {S.CHECKING, S.PLACEMENT, S.BENCHED}
    reachable, frontier = {S.RECEIVED}, [S.RECEIVED]
    while frontier:
        here = frontier.pop()
        for (source, _), after in TRANSITIONS.items():
            if source is here and after not in reachable:
                reachable.add(after)
                frontier.append(after)
    assert reachable == set(S)


def test_what_is_no_status_or_event_is_refused_naming_the_known() -> None:
    with pytest.raises(LadderError, match=r"'playing' is no version status \(known: received,"):
        next_status("playing", E.PLACED)
    with pytest.raises(LadderError, match=r"'won' is no version event \(known: started,"):
        next_status(S.ACTIVE, "won")


def test_placement_ends_after_its_sets() -> None:
    assert not is_placed(9, SETTINGS) and is_placed(10, SETTINGS)
    assert is_placed(0, replace(SETTINGS, placement_sets=0))


def sets(faulted: list[bool]) -> list[SetFaults]:
    return [SetFaults(index + 1, 2 if bad else 0) for index, bad in enumerate(faulted)]


def test_more_than_half_of_the_last_ten_faulted_is_benched_with_its_reason() -> None:
    assert bench_reason(sets([True] * 5), SETTINGS) is None
    assert bench_reason(sets([True] * 5 + [False] * 5), SETTINGS) is None
    reason = bench_reason(sets([True] * 6), SETTINGS)
    assert reason == (
        "faulted in 6 of its last 10 sets (more than 50%; the latest faults by set: set 4: 2, "
        "set 5: 2, set 6: 2): fix what its logs show and submit a new version"
    )
    # only the last ten count: six old faulted sets and ten clean ones are past
    assert bench_reason(sets([True] * 6 + [False] * 10), SETTINGS) is None


def test_the_share_is_a_count_over_the_window_exactly() -> None:
    settings = replace(SETTINGS, bench_window=100, bench_fault_share=0.29)
    assert bench_reason(sets([True] * 29), settings) is None  # 29 is not more than 29%
    assert bench_reason(sets([True] * 30), settings) is not None
    assert bench_reason(sets([True]), replace(SETTINGS, bench_fault_share=0.0)) is not None


@given(st.lists(st.booleans(), max_size=40), st.integers(1, 20), st.floats(0, 0.99))
def test_benched_exactly_when_more_than_the_share_of_the_window_faulted(
    faulted: list[bool], window: int, share: float
) -> None:
    settings = replace(SETTINGS, bench_window=window, bench_fault_share=share)
    count = sum(faulted[-window:])
    benched = bench_reason(sets(faulted), settings) is not None
    assert benched == (count > round(share * window, 9))


def test_going_active_retires_the_older_versions_never_a_newer_one_in_placement() -> None:
    # bot versions 3 < 5 < 8; 5 is placed while 8, uploaded later, is still in placement
    assert superseded(5, [3, 5, 8], [8, 5, 3], active_per_author=3) == {3}
    # then 8 is placed: 5 goes too
    assert superseded(8, [3, 5, 8], [8, 5], active_per_author=3) == {3, 5}


@given(
    st.integers(1, 40),
    st.sets(st.integers(1, 40), max_size=12),
    st.sets(st.integers(1, 40), max_size=12),
    st.integers(0, 4),
)
def test_superseded_names_only_older_versions_and_keeps_the_authors_newest(
    placed: int, same_bot: set[int], others: set[int], limit: int
) -> None:
    playable = sorted(others | {placed}, reverse=True)
    retired = superseded(placed, sorted(same_bot | {placed}), playable, limit)
    older = {v for v in same_bot if v < placed}
    assert all(version < placed for version in retired)
    assert older <= retired
    assert not (set(playable[: max(limit, 1)]) - older) & retired  # the author's newest stay
    assert retired - older <= set(playable[max(limit, 1) :])  # and nothing else goes
