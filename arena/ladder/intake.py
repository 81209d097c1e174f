"""Versions coming in: an upload received (`receive`), and the vetting task beside the match
loop (`Intake`), which builds, checks and validates each version received, one at a time.

`receive` runs for the API's request in a worker thread (`api.versions.take`: an archive at the
cap takes seconds to check, which the event loop, the match loop's too, must not wait for). The
archive is unpacked into a scratch folder to check it (every hostile path refused:
`uploads.unpack`; a zip first becomes the gzipped tar of its checked members, `uploads.as_tar`,
so one format is kept), then kept content-addressed at `DIR/versions/<digest>.tar.gz`, written
whole (temp file, fsync, rename) BEFORE the version's row commits, so that an upload is whole or
absent, whatever kills the server.

`Intake` runs in the serve's asyncio loop, never in a request: a build may take minutes, and the
API answers meanwhile. It unpacks the archive again into the version's own folder
(`DIR/built/<id>/`), where vetting builds it sealed, runs check-bot on it and plays its
validation set (`vetting.vet`); the version becomes `error` (its logs kept for its author) or
`placement`, and then takes its bot's place: the bot's older versions are retired, each keeping
its history. A version left `building` by a killed server is vetted again from its archive at
the next start.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import shutil
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder.alarm import Alarm
from arena.ladder.db import repository
from arena.ladder.db.engine import writing
from arena.ladder.db.models import Author, Version
from arena.ladder.folder import LadderFolder, keep
from arena.ladder.loop import machine_fault, seat_name
from arena.ladder.rating import initial
from arena.ladder.settings import LadderSettings
from arena.ladder.uploads import BadUpload, as_tar, is_zip, unpack
from arena.ladder.versions import Event, VersionStatus, next_status

if TYPE_CHECKING:
    from arena.ladder.vetting import Vetted
from arena.server.declared import MAX_SEED
from arena.server.specs import BadBotSpec, check_name

RECEIVED, BUILDING, CHECKING = (
    VersionStatus.RECEIVED,
    VersionStatus.BUILDING,
    VersionStatus.CHECKING,
)

__all__ = ["BadUpload", "Intake", "receive"]

POLL = 1.0
"""Seconds the vetting task waits for a version to come in (`Intake.wake`) before it looks
again all the same."""


class TooMany(BadUpload):
    """More submissions than the day allows."""


def receive(
    db: Session,
    folder: Path,
    settings: LadderSettings,
    author: Author,
    bot_name: str,
    data: bytes,
    scratch: Path,
) -> Version:
    """Check and keep an upload as bot `bot_name`'s next version, `received`; BadUpload (one
    line) for a bad name, a hostile or malformed archive, or the day's submissions used up.

    It blocks (the archive's checks take seconds at the cap): the API calls it in a worker
    thread (`api.versions.take`). The archive is checked before the writer's transaction
    begins (`begin_submission`), not inside it: on SQLite that transaction holds the database's
    write lock, and the match loop, which writes on the event loop, would wait for the checks
    with the whole serve. The day's count is read before the checks too (an author over the
    limit is refused at once) and again under the lock, where two uploads take turns."""
    try:
        check_name(bot_name)
    except BadBotSpec as error:
        raise BadUpload(f"{error} (in the bot's name)") from None
    within_day(repository.submissions_today(db, author), settings)
    data = checked(data, scratch, settings.upload_cap_mb << 20)
    within_day(repository.begin_submission(db, author), settings)
    digest = hashlib.sha256(data).hexdigest()
    keep(LadderFolder(folder).archive(digest), data)  # whole, before the row that names it commits
    version = repository.add_version(db, author, bot_name, digest, RECEIVED, initial())
    db.commit()
    return version


def within_day(today: int, settings: LadderSettings) -> None:
    """TooMany when `today` submissions in the last 24 hours use up the day's."""
    if today >= settings.submissions_per_day:
        raise TooMany(
            f"{today} submissions in the last 24 hours, the ladder's limit "
            f"(submissions_per_day = {settings.submissions_per_day}): try again tomorrow"
        )


def checked(data: bytes, scratch: Path, cap: int) -> bytes:
    """The upload as the ladder keeps it, once unpacked whole into `scratch` (every hostile
    path refused: BadUpload, nothing kept): a zip becomes the gzipped tar of its checked
    members, so one format is stored."""
    if is_zip(data):
        data = as_tar(data, cap)
    unpack(data, scratch / "bot", cap)
    return data


class Intake:
    """The vetting task: each version received, in order, vetted (see the module's note)."""

    def __init__(
        self,
        folder: Path,
        engine: Engine,
        settings: LadderSettings,
        *,
        vetted: Callable[[], None] = lambda: None,
        say: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.folder = folder
        self.engine = engine
        self.settings = settings
        self.vetted = vetted
        """Called when a version becomes playable: the match loop may make a new table."""
        self.say = say
        self.wake = Alarm()
        """Set when a version comes in (`Served.wake`, on the serve's loop); armed by each run."""
        self.rng = random.Random(random.SystemRandom().getrandbits(64))
        """The validation sets' deals."""

    def recover(self) -> None:
        """Versions a killed server left mid-vetting are vetted again from their archives."""
        waiting = [BUILDING, CHECKING]
        with writing(self.engine) as db:
            for version in db.scalars(select(Version).where(Version.status.in_(waiting))):
                version.status = RECEIVED

    async def run(self, stop: asyncio.Event) -> None:
        """Vet versions as they come, until `stop`."""
        self.wake.arm()
        self.recover()
        while not stop.is_set():
            version = self._next()
            if version is not None:
                await self.vet_or_refuse(version)
                continue
            self.wake.clear()
            with_wake = asyncio.ensure_future(self.wake.wait())
            with_stop = asyncio.ensure_future(stop.wait())
            await asyncio.wait([with_wake, with_stop], timeout=POLL, return_when="FIRST_COMPLETED")
            with_wake.cancel()
            with_stop.cancel()

    def _next(self) -> int | None:
        """The oldest version received, now `building`."""
        with writing(self.engine) as db:
            version = db.scalar(
                select(Version).where(Version.status == RECEIVED).order_by(Version.id).limit(1)
            )
            if version is None:
                return None
            version.status = next_status(version.status, Event.STARTED)
            return version.id

    async def vet_or_refuse(self, version_id: int) -> None:
        """`vet`, where anything it raises that is not the machine's (`loop.machine_fault`: the
        disk, memory, the database, the sandbox) ends the version as `error`, not the serve.
        An upload is hostile input: a check that raised on it (a command naming a path past
        NAME_MAX once raised "File name too long" out of vetting) ended the serve, and every
        restart met the same version still `building` and ended again. Its author reads that
        the arena failed on it; the organizer's log has the traceback."""
        try:
            await self.vet(version_id)
        except Exception as error:
            if machine_fault(error):
                raise
            self._refuse(version_id, error)

    def _refuse(self, version_id: int, error: Exception) -> None:
        """End a version whose vetting raised `error` as `error`, saying so to both sides: its
        author a line without the server's paths, the organizer the traceback."""
        reason = (
            f"the arena failed while vetting it ({type(error).__name__}); the organizer's log "
            "has the details: check bot.toml and the folder, and submit again"
        )
        with writing(self.engine) as db:
            version = db.get(Version, version_id)
            assert version is not None
            version.status = next_status(BUILDING, Event.BUILD_FAILED)
            version.reason = reason
            name = seat_name(version.bot.name, version.number)
        self.say(f"{name}: error: vetting raised {type(error).__name__}: {error}")
        self.say("".join(traceback.format_exception(error)).rstrip())

    async def vet(self, version_id: int) -> None:
        """Unpack, build, check and validate one version; record what came of it."""
        from arena.ladder.vetting import vet  # loads the server: only when vetting

        with Session(self.engine) as db:
            version = db.get(Version, version_id)
            assert version is not None
            digest, name = version.digest, seat_name(version.bot.name, version.number)
        folder = LadderFolder(self.folder).built_version(version_id)
        upload = folder.with_name(f"{version_id}.upload")
        for stale in (folder, upload):
            shutil.rmtree(stale, ignore_errors=True)
        data = LadderFolder(self.folder).archive(digest).read_bytes()
        # named for its author to read (`heuristic.v2` in its build log and validation seats),
        # not after the scratch folder it was unpacked into
        manifest = replace(unpack(data, upload, self.settings.upload_cap_mb << 20), name=name)
        try:
            result = await vet(manifest, folder, self.settings, seed=self.rng.randint(0, MAX_SEED))
        finally:
            shutil.rmtree(upload, ignore_errors=True)
        with writing(self.engine) as db:
            version = db.get(Version, version_id)
            assert version is not None
            version.status = vetted_status(result)
            version.reason = result.reason
            version.build_log = result.build_log
            version.check_bot = "\n".join(result.check_lines)
        self.say(f"{name}: {result.status}" + (f" ({result.reason})" if result.reason else ""))
        self.vetted()


def vetted_status(result: Vetted) -> VersionStatus:
    """Where vetting leaves a `building` version: through `checking` to `placement`, or to
    `error` from the step that failed (check-bot ran if it left lines)."""
    if result.status == "error" and not result.check_lines:
        return next_status(BUILDING, Event.BUILD_FAILED)
    checking = next_status(BUILDING, Event.BUILT)
    return next_status(checking, Event.CHECKED if result.status != "error" else Event.CHECK_FAILED)
