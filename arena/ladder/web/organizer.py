"""The organizer's page (`/status`, for an author made with `author add --organizer`): sets per
hour, the queue, the workers up and lost, the benched versions and why, the disk the ladder's
folder takes, every decision organizers made; and a button per version to bench or restore it,
each a form with a reason and the CSRF token, recorded with who did it (`benching`)."""

from __future__ import annotations

import os
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.ladder.access import find_version, organizer
from arena.ladder.api import public as api
from arena.ladder.api.deps import Db, Ladder, VersionId
from arena.ladder.benching import bench_by, restore_by
from arena.ladder.db import repository
from arena.ladder.db.engine import turn
from arena.ladder.loop import seat_name
from arena.ladder.versions import PLAYABLE, VersionStatus
from arena.ladder.web.render import render
from arena.ladder.web.signin import SignedBrowser, check_csrf, read_form, signed_in, text_field

router = APIRouter(include_in_schema=False)
ACTIONS = 50
"""The organizers' latest decisions shown."""


def disk_used(folder: Path) -> int:
    """Bytes the ladder's folder takes on disk (its blocks, not its files' lengths), links not
    followed: archives, built copies, every set's games and logs, the database."""
    total = 0
    waiting = [folder]
    while waiting:
        with os.scandir(waiting.pop()) as entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:  # removed meanwhile (a set played again)
                    continue
                total += info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    waiting.append(Path(entry.path))
    return total


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MiB"


@router.get("/status", response_class=HTMLResponse)
def status(request: Request, db: Db, ladder: Ladder, found: SignedBrowser) -> Response:
    """The ladder's state for its organizer, and the bench and restore buttons."""
    organizer(signed_in(found))
    shown = api.status(db, ladder)
    versions = [
        {
            "id": version.id,
            "name": seat_name(version.bot.name, version.number),
            "author": version.bot.author.name,
            "status": version.status,
            "reason": version.reason,
            **api.rated(version),
        }
        for version in repository.leaderboard(db, [*PLAYABLE, VersionStatus.BENCHED])
    ]
    actions = [
        {
            "at": action.at,
            "organizer": action.organizer.name,
            "action": action.action,
            "version": seat_name(action.version.bot.name, action.version.number),
            "reason": action.reason,
        }
        for action in repository.organizer_actions(db, ACTIONS)
    ]
    return render(
        request,
        "status.html",
        shown=shown,
        disk=_mib(disk_used(ladder.folder)),
        playing=[v for v in versions if v["status"] != VersionStatus.BENCHED],
        benched=[v for v in versions if v["status"] == VersionStatus.BENCHED],
        actions=actions,
        csrf=found.csrf,
    )


@router.post("/status/versions/{version_id}/{action}")
async def decide(
    request: Request, version_id: VersionId, action: str, db: Db, found: SignedBrowser
) -> Response:
    """Bench or restore a version (`action`), for the form's reason; then the status page."""
    boss = organizer(signed_in(found))
    form = await read_form(request)
    check_csrf(found, form)
    if action not in ("bench", "restore"):
        return render(
            request, "refused.html", 404, title="Not found", reason=f"no action {action!r}"
        )
    reason = text_field(form, "reason")
    with turn(db):  # the body is read: the version is read and changed in one writer's turn
        version = find_version(db, version_id)
        (bench_by if action == "bench" else restore_by)(db, version, boss, reason)
    return RedirectResponse("/status", status_code=303)
