"""Who may read and do what on a ladder: the one place the JSON API and the pages both ask.

Public, for anyone: every version's status and rating, every set's seats, bullheads and games
(the replays show only what the table saw). An author's alone: their versions' reasons, build
logs, check-bot lines, faults and per-turn bot logs, and in a set only the logs of their own
seats, never an opponent's (a bot's log may say what it thinks of the others' cards). An
organizer's (a token made with `arena ladder author add --organizer`): the ladder's status
page and benching or restoring a version.

Each rule raises `Refused` with the HTTP status it is (403 for what exists but is another's:
a version's or a set's existence is public; 404 for what does not exist) and one line naming
the problem and the fix; the API answers it as JSON, the pages as a page.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.ladder.db.models import Author, LadderSet, SetSeat, Version
from arena.ladder.errors import LadderError


class Refused(LadderError):
    """A request the ladder refuses: its HTTP status and one line."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def find_version(db: Session, version_id: int) -> Version:
    """The version of that id; Refused (404) if there is none."""
    version = db.get(Version, version_id)
    if version is None:
        raise Refused(404, f"no version {version_id} on this ladder: see the leaderboard")
    return version


def own_version(db: Session, version_id: int, author: Author) -> Version:
    """`author`'s version of that id, whose logs they may read; Refused: 404 if there is none,
    403 if it is another author's."""
    version = find_version(db, version_id)
    if version.bot.author_id != author.id:
        raise Refused(
            403,
            f"version {version_id} is {version.bot.name!r}'s, another author's: its logs are "
            "its author's alone",
        )
    return version


def own_seats(db: Session, set_id: int, author: Author) -> tuple[LadderSet, list[SetSeat]]:
    """A set and `author`'s seats in it, whose logs they may read; Refused: 404 if there is no
    such set, 403 if none of its seats is theirs."""
    ladder_set = db.get(LadderSet, set_id)
    if ladder_set is None:
        raise Refused(404, f"no set {set_id} on this ladder: see the sets played")
    seats = [seat for seat in ladder_set.seats if seat.version.bot.author_id == author.id]
    if not seats:
        raise Refused(
            403,
            f"none of set {set_id}'s seats is a bot of yours: a set's bot logs are each "
            "seat's author's alone (its replay is public)",
        )
    return ladder_set, sorted(seats, key=lambda seat: seat.seat)


def organizer(author: Author) -> Author:
    """`author`, if an organizer; Refused (403) if not."""
    if not author.organizer:
        raise Refused(
            403,
            f"{author.name!r} is not an organizer: the ladder's status and benching are for a "
            "token made with `arena ladder author add --organizer`",
        )
    return author
