"""The signed-in pages: `/login` and signing out, an author's own page (`/me`: their bots and
versions, a version's build log, check-bot lines, faults and per-turn logs, a set's logs of
their own seats) and an upload from the page.

Who may see what is `access`'s to say (the JSON API asks the same rules); the session, its
cookie and the CSRF token of every form are `signin`'s. A wrong token at `/login` gets one
message whatever was wrong with it (malformed, unknown or revoked: a guesser learns nothing),
counted against the client's address (`sessions.LoginThrottle`): past the burst, 429 with the
seconds to wait. Everything an author or a bot wrote is shown as text (the templates are
autoescaped, and log lines sit in `<pre>`/table cells, never in markup).
"""

from __future__ import annotations

import math
import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.ladder import authors
from arena.ladder.access import Refused, own_seats, own_version
from arena.ladder.api.deps import Db, Ladder, SetId, VersionId
from arena.ladder.api.public import rated
from arena.ladder.api.versions import check_lines, check_open, take
from arena.ladder.db import repository
from arena.ladder.db.engine import turn
from arena.ladder.logs import SeatLogs, read_seats, recent_logs
from arena.ladder.loop import seat_name
from arena.ladder.sessions import SESSION_COOKIE, csrf_token, new_secret
from arena.ladder.versions import VersionStatus
from arena.ladder.web.render import render
from arena.ladder.web.signin import (
    SignedBrowser,
    check_csrf,
    drop_session,
    file_field,
    give_login_secret,
    give_session,
    read_form,
    signed_in,
    text_field,
)
from arena.server.botlog import ARENA
from arena.spectate.botlogs import text_of, where

router = APIRouter(include_in_schema=False)
WRONG_TOKEN = (
    "that token signs no one in: paste the whole token `arena ladder author add` printed for "
    "you, or ask the organizer for a new one"
)
"""The one message for every wrong token: which part was wrong is not said."""
VETTING = (VersionStatus.RECEIVED, VersionStatus.BUILDING, VersionStatus.CHECKING)
"""A version's statuses while it is vetted: its page reloads itself until it is done."""
RECENT = 10
"""Sets of each bot listed on `/me`, unless it asks for more (`?sets=N`)."""
MAX_SETS = 1000
"""The most sets of each bot `/me` lists."""
UPLOAD_ROOM = 64 << 10
"""Bytes of a page's upload form beyond its archive: the boundary, the fields, the headers."""


TITLES = {
    400: "Refused",
    403: "Not yours",
    404: "Not found",
    409: "Not now",
    413: "Too large",
    415: "Refused",
    429: "Too many",
}
"""A refusal's page's heading, by its status."""


def _see_other(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


def refused(request: Request, error: Refused) -> Response:
    """A refused request as a page: its one line and its status; a browser not signed in is
    sent to sign in instead."""
    if error.status == 401:
        return _see_other("/login")
    title = TITLES.get(error.status, "Refused")
    return render(request, "refused.html", error.status, title=title, reason=str(error))


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, found: SignedBrowser) -> Response:
    """The sign-in form: one field, `token` (and its CSRF token, from the form's own cookie)."""
    if found.author is not None:
        return _see_other("/me")
    secret = found.secret or new_secret()
    page = _login(request, csrf_token(secret), None, 200)
    if found.secret is None:
        give_login_secret(page, request, secret)
    return page


def _login(request: Request, csrf: str, problem: str | None, status: int) -> HTMLResponse:
    return render(request, "login.html", status_code=status, csrf=csrf, problem=problem)


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request, db: Db, ladder: Ladder, found: SignedBrowser) -> Response:
    """Sign in with an author's token: a session cookie, then `/me`; a wrong token, one line
    (and one try fewer for the address)."""
    form = await read_form(request)
    check_csrf(found, form)
    address = request.client.host if request.client is not None else "unknown"
    now = time.monotonic()
    wait = ladder.throttle.wait(address, now)
    if wait > 0:
        seconds = math.ceil(wait)
        page = _login(
            request,
            found.csrf,
            f"too many wrong tokens from your address: try again in {seconds} s",
            429,
        )
        page.headers["Retry-After"] = str(seconds)
        return page
    try:
        with turn(db):  # read and written in one writer's turn, ended here either way
            _, secret = authors.sign_in(db, text_field(form, "token").strip())
    except authors.TokenRefused:
        ladder.throttle.failed(address, now)
        return _login(request, found.csrf, WRONG_TOKEN, 401)
    ladder.throttle.succeeded(address)
    response = _see_other("/me")
    give_session(response, request, secret)
    return response


@router.post("/logout")
async def logout(request: Request, db: Db, found: SignedBrowser) -> Response:
    """Sign out: the session ended in the database, its cookie taken back."""
    check_csrf(found, await read_form(request))
    with turn(db):
        authors.sign_out(db, request.cookies.get(SESSION_COOKIE))
    response = _see_other("/")
    drop_session(response, request)
    return response


@router.get("/me", response_class=HTMLResponse)
def me(
    request: Request,
    db: Db,
    found: SignedBrowser,
    sets: Annotated[int, Query(ge=1, le=MAX_SETS)] = RECENT,
) -> Response:
    """The author's bots, their versions, and each bot's last `sets` sets (with a link to each
    one's logs: any game of theirs is a click away)."""
    author = signed_in(found)
    bots = [
        {
            "name": bot.name,
            "versions": [
                {**rated(version), "number": version.number, "reason": version.reason}
                for version in reversed(bot.versions)
            ],
            "sets": [
                {
                    "id": played.id,
                    "finished_at": played.finished_at,
                    "seats": [
                        seat_name(s.version.bot.name, s.version.number) for s in played.seats
                    ],
                }
                for played in repository.sets_of(db, bot, sets)
            ],
        }
        for bot in author.bots
    ]
    return render(
        request,
        "me.html",
        author=author.name,
        organizer=author.organizer,
        bots=bots,
        csrf=found.csrf,
        more=min(sets * 10, MAX_SETS) if sets < MAX_SETS else None,
    )


@router.get("/me/versions/{version_id}", response_class=HTMLResponse)
def version(
    request: Request, version_id: VersionId, db: Db, ladder: Ladder, found: SignedBrowser
) -> Response:
    """One of the author's versions: its reason, build log, check-bot lines, and its faults
    and per-turn logs in its recent sets."""
    chosen = own_version(db, version_id, signed_in(found))
    logs = recent_logs(db, ladder.folder, chosen)
    return render(
        request,
        "version.html",
        bot=chosen.bot.name,
        version={**rated(chosen), "number": chosen.number, "reason": chosen.reason},
        build_log=chosen.build_log,
        check_bot=check_lines(chosen),
        logs=_shown(logs),
        vetting=chosen.status in VETTING,
    )


@router.get("/me/sets/{set_id}", response_class=HTMLResponse)
def set_logs(
    request: Request, set_id: SetId, db: Db, ladder: Ladder, found: SignedBrowser
) -> Response:
    """A set's faults and per-turn logs of the author's own seats (never an opponent's)."""
    played, seats = own_seats(db, set_id, signed_in(found))
    names = [seat_name(seat.version.bot.name, seat.version.number) for seat in seats]
    logs = read_seats(ladder.folder, played.id, names, SeatLogs())
    return render(request, "set_logs.html", set_id=played.id, names=names, logs=_shown(logs))


def _shown(logs: SeatLogs) -> dict[str, list[dict[str, object]]]:
    """Faults and lines as the pages' tables show them: each line with where it was written
    (`2.7`: round 2, turn 7; `start`; `-` between games), the arena's own notes marked."""
    lines: list[dict[str, object]] = [
        {
            "set": set_id,
            "game": line.game_id or "between games",
            "where": where(line),
            "bot": line.bot,
            "text": text_of(line),
            "arena": line.source == ARENA,
        }
        for set_id, line in logs.lines
    ]
    return {"faults": logs.faults, "lines": lines}


@router.post("/me/upload", response_class=HTMLResponse)
async def upload(request: Request, db: Db, ladder: Ladder, found: SignedBrowser) -> Response:
    """A new version from the page: the bot's name and its archive (`.tar.gz` or `.zip`),
    checked as `arena submit`'s upload is; then the version's page, where vetting shows."""
    author = signed_in(found)
    form = await read_form(request, (ladder.settings.upload_cap_mb << 20) + UPLOAD_ROOM, files=1)
    check_csrf(found, form)
    name = text_field(form, "bot").strip()
    archive = file_field(form, "archive")
    if archive is None:
        raise Refused(
            400, "choose the archive to upload (a .tar.gz or a .zip of your bot's folder)"
        )
    data = await archive.read()
    check_open(db, ladder, name, author)
    version = await take(db, ladder, author, name, data)
    return _see_other(f"/me/versions/{version.id}")
