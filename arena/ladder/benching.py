"""A version taken out of play, and put back: the bench rule's after a set (`loop`), the serve's
for a version it cannot seat, and an organizer's at `/status`, each through `bench`, so that a
benched version is one thing however it got there.

Benched, a version plays no more (matchmaking seats only the playable), and its author reads why
on their page; a set it is playing when benched is played to its end and rated. Restored, it
goes back to placement and plays its way back (versions.py's `restored` event). What an
organizer did is kept (`organizer_actions`: who, what, why and when) besides the version's
latest reason, so the ladder's status page shows every such decision and its author.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from arena.ladder.access import Refused
from arena.ladder.db import repository
from arena.ladder.db.models import Author, Version
from arena.ladder.versions import PLAYABLE, Event, VersionStatus, next_status

REASON_LENGTH = 500
"""The longest reason an organizer may give: a line, not a letter."""


def bench(version: Version, reason: str) -> bool:
    """Take a version that can still play out of play for `reason` (versions.py's `benched`
    event); False, changing nothing, for one benched or retired already."""
    if VersionStatus(version.status) not in PLAYABLE:
        return False
    version.status = next_status(VersionStatus(version.status), Event.BENCHED)
    version.reason = reason
    return True


def restore(version: Version) -> bool:
    """Put a benched version back in play, to placement (versions.py's `restored` event), its
    reason gone; False, changing nothing, for one that is not benched."""
    if version.status != VersionStatus.BENCHED:
        return False
    version.status = next_status(VersionStatus.BENCHED, Event.RESTORED)
    version.reason = None
    return True


def check_reason(reason: str) -> str:
    """An organizer's reason, stripped; Refused (400) for none, one over `REASON_LENGTH`, or
    one with a control character (it shows as one line)."""
    reason = reason.strip()
    if not reason:
        raise Refused(400, "say why, in a line: the version's author reads it")
    if len(reason) > REASON_LENGTH or any(ord(c) < 0x20 or ord(c) == 0x7F for c in reason):
        raise Refused(
            400, f"a reason is one line of at most {REASON_LENGTH} characters: shorten it"
        )
    return reason


def bench_by(
    db: Session, version: Version, organizer: Author, reason: str, at: dt.datetime | None = None
) -> None:
    """An organizer benches a version in play, for `reason` (shown to its author, and kept with
    who did it); Refused (409) for a version not in play."""
    reason = check_reason(reason)
    if not bench(version, f"benched by the organizer {organizer.name}: {reason}"):
        raise Refused(
            409,
            f"version {version.id} is {version.status}: only a version in placement or active "
            "can be benched",
        )
    repository.record_action(db, version, organizer, Event.BENCHED, reason, at)


def restore_by(
    db: Session, version: Version, organizer: Author, reason: str, at: dt.datetime | None = None
) -> None:
    """An organizer puts a benched version back in play, to placement (`restored`), for
    `reason` (kept with who did it); Refused (409) for a version that is not benched."""
    reason = check_reason(reason)
    if not restore(version):
        raise Refused(
            409, f"version {version.id} is {version.status}: only a benched one can be restored"
        )
    repository.record_action(db, version, organizer, Event.RESTORED, reason, at)
