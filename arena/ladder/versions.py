"""A version's life: its statuses, the events that move it between them, and the bench rule.

    received                    --started-->       building
    received, building          --built-->         checking
    received, building          --build_failed-->  error
    checking                    --checked-->       placement
    checking                    --check_failed-->  error
    placement                   --placed-->        active
    placement, active           --benched-->       benched
    benched                     --restored-->      placement
    placement, active, benched  --superseded-->    retired

`received` is an upload stored whole; `building` and `checking` are its vetting (a sealed build,
check-bot and a validation set against copies of itself); `error` is where a version that fails
either ends, its logs shown to its author. `placement` and `active` are `PLAYABLE`: matchmaking
seats them, placement first (`matchmaking`), and a version is `placed` once it has played
`placement_sets` sets (`is_placed`). `benched` is a version taken out of play for its faults
(`bench_reason`), its reason shown to its author; the organizer may restore it, to placement
again, so that it plays its way back. `retired` is a version a newer one of its bot replaced when
that one went active: it plays no more and keeps its history. `error` and `retired` are final.
A version going active retires only versions older than itself (`superseded`): a newer one of its
bot still in placement, uploaded while this one was placing, plays on, and retires this one in
its turn once placed.

`built` and `build_failed` are taken from `received` too, not only from `building`: vetting may
record the build's outcome without its start. Any other move raises LadderError, so a version is
never placed that was not checked, nor played after it was retired.

The bench rule counts a version's faulted sets among its last `bench_window`: more than
`bench_fault_share` of the window (6 of 10 by default) and it is benched. The count is over the
window, not over the sets played, so a new version that crashes in every set is benched after
six of them, not after its first unlucky one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.ladder.errors import LadderError
from arena.ladder.settings import LadderSettings


class VersionStatus(StrEnum):
    """Where a version is in its life (the module's note); stored by its value."""

    RECEIVED = "received"
    BUILDING = "building"
    CHECKING = "checking"
    PLACEMENT = "placement"
    ACTIVE = "active"
    BENCHED = "benched"
    ERROR = "error"
    RETIRED = "retired"


class Event(StrEnum):
    """What happens to a version, moving it to another status."""

    STARTED = "started"
    """Its build started."""
    BUILT = "built"
    BUILD_FAILED = "build_failed"
    CHECKED = "checked"
    """check-bot and its validation set passed."""
    CHECK_FAILED = "check_failed"
    PLACED = "placed"
    """It has played its placement sets (`is_placed`)."""
    BENCHED = "benched"
    RESTORED = "restored"
    SUPERSEDED = "superseded"
    """A newer version of its bot went active."""


PLAYABLE = frozenset({VersionStatus.PLACEMENT, VersionStatus.ACTIVE})
"""The statuses matchmaking seats."""
FINAL = frozenset({VersionStatus.ERROR, VersionStatus.RETIRED})
"""The statuses no event leaves."""

_S, _E = VersionStatus, Event
TRANSITIONS: dict[tuple[VersionStatus, Event], VersionStatus] = {
    (_S.RECEIVED, _E.STARTED): _S.BUILDING,
    (_S.RECEIVED, _E.BUILT): _S.CHECKING,
    (_S.BUILDING, _E.BUILT): _S.CHECKING,
    (_S.RECEIVED, _E.BUILD_FAILED): _S.ERROR,
    (_S.BUILDING, _E.BUILD_FAILED): _S.ERROR,
    (_S.CHECKING, _E.CHECKED): _S.PLACEMENT,
    (_S.CHECKING, _E.CHECK_FAILED): _S.ERROR,
    (_S.PLACEMENT, _E.PLACED): _S.ACTIVE,
    (_S.PLACEMENT, _E.BENCHED): _S.BENCHED,
    (_S.ACTIVE, _E.BENCHED): _S.BENCHED,
    (_S.BENCHED, _E.RESTORED): _S.PLACEMENT,
    (_S.PLACEMENT, _E.SUPERSEDED): _S.RETIRED,
    (_S.ACTIVE, _E.SUPERSEDED): _S.RETIRED,
    (_S.BENCHED, _E.SUPERSEDED): _S.RETIRED,
}
"""Every legal move: (status, event) to the status it leads to."""


def next_status(status: VersionStatus | str, event: Event | str) -> VersionStatus:
    """The status `event` moves a version in `status` to. LadderError, naming both and the
    statuses the event is taken from, for a status or event that is none, or a move the
    version's life does not have."""
    current, happened = _status(status), _event(event)
    after = TRANSITIONS.get((current, happened))
    if after is None:
        sources = sorted(str(s) for s, e in TRANSITIONS if e is happened)
        raise LadderError(
            f"a version that is {current} cannot be {happened}: that is for a version that is "
            f"{' or '.join(sources)}"
        )
    return after


def _status(value: VersionStatus | str) -> VersionStatus:
    try:
        return VersionStatus(value)
    except ValueError:
        known = ", ".join(VersionStatus)
        raise LadderError(f"{value!r} is no version status (known: {known})") from None


def _event(value: Event | str) -> Event:
    try:
        return Event(value)
    except ValueError:
        raise LadderError(f"{value!r} is no version event (known: {', '.join(Event)})") from None


def is_placed(sets: int, settings: LadderSettings) -> bool:
    """Whether a version in placement that has played `sets` sets is placed (goes active)."""
    return sets >= settings.placement_sets


@dataclass(frozen=True, slots=True)
class SetFaults:
    """One set a version played, as the bench rule reads it."""

    set_id: int
    faults: int
    """The version's faults over the set (timeouts, crashes, illegal answers)."""


def bench_reason(recent: Sequence[SetFaults], settings: LadderSettings) -> str | None:
    """Why a version should be benched, for its author, or None: it faulted in more than
    `bench_fault_share` of its last `bench_window` sets (`recent` in the order played, oldest
    first; only its last `bench_window` count)."""
    window = list(recent)[-settings.bench_window :]
    faulted = [each for each in window if each.faults > 0]
    # rounded first, so that 0.29 of 100 allows 29 (its float product is 28.999...)
    allowed = math.floor(round(settings.bench_fault_share * settings.bench_window, 9))
    if len(faulted) <= allowed:
        return None
    shown = ", ".join(f"set {each.set_id}: {each.faults}" for each in faulted[-3:])
    return (
        f"faulted in {len(faulted)} of its last {settings.bench_window} sets (more than "
        f"{settings.bench_fault_share:.0%}; the latest faults by set: {shown}): fix what its "
        "logs show and submit a new version"
    )


def superseded(
    placed: int, same_bot: Sequence[int], authors_playable: Sequence[int], active_per_author: int
) -> set[int]:
    """The versions to retire as version `placed` goes active (ids, which grow with uploads): its
    bot's other versions older than it, and its author's playable versions older than it beyond
    the newest `active_per_author` (`authors_playable`, newest first, may hold `placed`: the
    latest play, as on Kaggle). Never a newer version: that one is still proving itself."""
    older = {other for other in same_bot if other < placed}
    beyond = {other for other in authors_playable[max(active_per_author, 1) :] if other < placed}
    return older | beyond
