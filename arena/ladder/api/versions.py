"""A version's page (its logs for its author alone) and uploads (an author's new version).

An upload's body is the archive itself (a tar, gzipped tar or zip with `bot.toml` at its top;
`arena submit` sends a gzipped tar), read with a hard cap while it streams: `Content-Length` is
never trusted, and the body is cut off at the first byte over the cap (413). It is unpacked into a
scratch folder inside the ladder's (`uploads.unpack`: every hostile path refused, 400) only to
check it; the archive itself is what is kept, written whole (temp file, fsync, rename) before
the version's row commits, so an upload is whole or absent whatever kills the server. The
vetting task unpacks it again, into the version's own folder, and builds it there.

The checks and the storing (`take`, for the API's route and the author's page alike) run in a
worker thread, at most `UPLOAD_CHECKS` uploads at once: an archive at the cap takes seconds to
check, and the event loop that would otherwise wait for it also plays the sets and answers
every other request.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, HTTPException, Request
from sqlalchemy.orm import Session

from arena.ladder.access import Refused, find_version, own_version
from arena.ladder.api.deps import Db, Ladder, MaybeSignedIn, Served, SignedIn, VersionId
from arena.ladder.api.public import NOT_FOUND, find_bot, rated
from arena.ladder.api.schemas import Problem, Received, VersionPage
from arena.ladder.db import repository
from arena.ladder.db.models import Author, Version
from arena.ladder.db.repository import BotTaken
from arena.ladder.finals import closed
from arena.ladder.intake import BadUpload, TooMany, receive
from arena.ladder.logs import recent_logs
from arena.server.specs import BadBotSpec, check_name

router = APIRouter(prefix="/api", tags=["versions"])
ARCHIVE_TYPES = ("application/gzip", "application/x-gzip", "application/x-tar", "application/zip")
"""The types of an upload's body: a gzipped tar (what `arena submit` sends), a tar, a zip."""
UPLOAD_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 401, 403, 413, 415, 429)
}
UPLOAD_CHECKS = 2
"""Uploads checked at once, each in a worker thread; the others wait their turn without holding
a thread: a burst of uploads then neither takes every worker thread (the pages' and the API's
other routes run in them too) nor holds every archive's unpacked bytes in memory at once."""
_CHECKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)


@router.get("/versions/{version_id}", response_model=VersionPage, responses=NOT_FOUND)
def version_page(
    version_id: VersionId, db: Db, ladder: Ladder, author: MaybeSignedIn
) -> VersionPage:
    """A version's status; with its author's token, also its build log, check-bot's lines,
    its faults and what it wrote in its recent sets (403 with another author's token)."""
    version = find_version(db, version_id)
    page = VersionPage(
        bot=version.bot.name,
        number=version.number,
        created_at=version.created_at,
        **rated(version),
    )
    if author is None:
        return page
    own_version(db, version_id, author)
    found = recent_logs(db, ladder.folder, version)
    return page.model_copy(
        update={
            "reason": version.reason,
            "build_log": version.build_log,
            "check_bot": check_lines(version),
            "faults": found.faults,
            "logs": found.line_dicts(),
        }
    )


@router.post(
    "/bots/{name}/versions", response_model=Received, status_code=201, responses=UPLOAD_ERRORS
)
async def upload(name: str, request: Request, db: Db, ladder: Ladder, author: SignedIn) -> Received:
    """A new version of bot `name` (the author's, or a new bot that becomes theirs): the body
    is the archive (a tar or gzipped tar with `bot.toml` at its top), at most the ladder's
    upload cap; refused with one line for another author's bot, over the day's submissions,
    too large, or a hostile or malformed archive."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind not in ARCHIVE_TYPES:
        raise HTTPException(
            415,
            f"the body must be the archive itself, sent as application/gzip, "
            f"application/x-tar or application/zip, not {kind or 'no Content-Type'!r}: "
            "`arena submit` sends it so",
        )
    check_open(db, ladder, name, author)
    cap = ladder.settings.upload_cap_mb << 20
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > cap:
            raise HTTPException(
                413,
                f"the upload is over the ladder's cap of {ladder.settings.upload_cap_mb} MiB: "
                "leave build outputs and data out of the folder",
            )
    version = await take(db, ladder, author, name, data)
    return Received(id=version.id, bot=name, number=version.number, status=version.status)


def check_lines(version: Version) -> list[str]:
    """check-bot's lines of a version, as its author reads them (JSON Lines, blank lines left
    out)."""
    return [line for line in version.check_bot.splitlines() if line.strip()]


def check_open(db: Session, ladder: Served, name: str, author: Author) -> None:
    """Refused (403) when submissions are closed (the finals) or the bot's name is another
    author's: said before the body is read, for the API and the pages alike."""
    if closed(ladder.folder):
        raise Refused(403, "submissions are closed: the finals have begun (`arena ladder finals`)")
    try:
        check_name(name)
    except BadBotSpec as error:
        raise Refused(400, f"{error} (in the bot's name)") from None
    bot = repository.bot_named(db, name)
    if bot is not None and bot.author_id != author.id:
        raise Refused(
            403,
            f"the bot name {name!r} belongs to another author (a name is its first "
            "submitter's): choose another name",
        )


@dataclass(frozen=True)
class Taken:
    """A version received, as the upload routes answer it: plain values read in the worker's
    own session (no ORM object leaves the thread that loaded it)."""

    id: int
    number: int
    status: str


async def take(
    db: Session, ladder: Served, author: Author, name: str, data: bytes | bytearray
) -> Taken:
    """Receive an upload's archive as bot `name`'s next version and wake the vetting task
    (`ladder.wake`, called back on this event loop): the one way in for the API's route and the
    author's page. The work runs in a worker thread (`receive_in_thread`, at most UPLOAD_CHECKS
    at once), since the checks of an archive at the cap take seconds that the match loop and
    every other request would otherwise wait. The request's session ends its reads here, its
    connection back in the pool meanwhile; the worker opens one of its own. Refused as
    `receive_in_thread` refuses."""
    author_id = author.id
    db.rollback()  # nothing of the request's is pending: its dependencies commit what they write
    wake = partial(call_back_on, asyncio.get_running_loop(), ladder.wake)
    work = partial(receive_in_thread, ladder, author_id, name, data, wake)
    return await to_thread.run_sync(work, limiter=_checks())


def receive_in_thread(
    ladder: Served,
    author_id: int,
    name: str,
    data: bytes | bytearray,
    wake: Callable[[], None],
) -> Taken:
    """`take`'s work, blocking, in the calling (worker) thread: `intake.receive` in a scratch
    folder inside the ladder's, in a session of this thread's own (its writer's transaction,
    BEGIN IMMEDIATE on SQLite: `repository.begin_submission`), then `wake`. Refused with the
    status each refusal is: 429 over the day's submissions, 403 for a name taken meanwhile, 413
    too large, 400 a hostile or malformed archive or a bad name."""
    with Session(ladder.engine) as db:
        author = db.get_one(Author, author_id)  # authors are revoked, never deleted
        try:
            with tempfile.TemporaryDirectory(dir=ladder.folder, prefix=".upload-") as scratch:
                version = receive(
                    db, ladder.folder, ladder.settings, author, name, bytes(data), Path(scratch)
                )
        except TooMany as error:
            raise Refused(429, str(error)) from None
        except BotTaken as error:  # taken between the check and the upload's end
            raise Refused(403, str(error)) from None
        except BadUpload as error:
            raise Refused(413 if error.too_large else 400, str(error)) from None
        taken = Taken(version.id, version.number, version.status)
    wake()
    return taken


def call_back_on(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Call `callback` on `loop`'s thread, from any thread (an asyncio Event, as the vetting
    task's wake-up is, may only be set there); nothing once the loop is closed: the serve has
    ended, and no task is left to wake."""
    with contextlib.suppress(RuntimeError):  # the loop is closed
        loop.call_soon_threadsafe(callback)


def _checks() -> CapacityLimiter:
    """The running event loop's limit on the uploads checked at once (UPLOAD_CHECKS): one per
    loop, as what waits for a limiter is bound to a loop (`alarm.Alarm`'s note)."""
    loop = asyncio.get_running_loop()
    limiter = _CHECKS.get(loop)
    if limiter is None:
        limiter = _CHECKS[loop] = CapacityLimiter(UPLOAD_CHECKS)
    return limiter


__all__ = ["find_bot", "router"]
