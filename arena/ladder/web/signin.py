"""A browser signed in: its session cookie, the CSRF token of its forms, and the forms' bodies
read with a cap. The rules are `arena.ladder.sessions`' (pure) and the database's part is
`arena.ladder.authors`'; this module is their HTTP side, shared by every page that signs in.

Cookies: the session's (`SESSION_COOKIE`) is HttpOnly (no script reads it), SameSite=Lax (no
other site's form or script sends it; a link from elsewhere still arrives signed in), Secure
whenever the request came over TLS, and lives as long as the session. The login form's own
(`PRE_SESSION_COOKIE`) is the same but Strict and for `/login` alone, for the hour a form may
wait. A body is read as it streams and cut off at its cap, whatever `Content-Length` says.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Response
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import FormParser, MultiPartException, MultiPartParser

from arena.ladder import authors
from arena.ladder.access import Refused
from arena.ladder.api.deps import Db
from arena.ladder.db.models import Author
from arena.ladder.sessions import (
    CSRF_FIELD,
    LIFETIME,
    PRE_SESSION_COOKIE,
    SESSION_COOKIE,
    csrf_matches,
    csrf_token,
    well_formed,
)

FORM_CAP = 16 << 10
"""Bytes a form without a file may take: a token, a reason, a bot's name."""
LOGIN_FORM_AGE = 3600
"""Seconds a login form's own cookie lasts: the form is filled in within the hour."""


@dataclass(frozen=True)
class Browser:
    """Who a request's browser is: its author when signed in (else None), and the secret its
    forms' CSRF token comes from (its session's id, else its login form's, else None)."""

    author: Author | None
    secret: str | None

    @property
    def csrf(self) -> str:
        """The CSRF token its forms carry (empty before the browser has a secret)."""
        return csrf_token(self.secret) if self.secret is not None else ""


def browser(request: Request, db: Db) -> Browser:
    """The request's browser (see `Browser`); a session its author's revocation ended is ended
    in the database here. Also tells the pages' nav who is signed in (`request.state.me`)."""
    secret = request.cookies.get(SESSION_COOKIE)
    author = authors.session_author(db, secret)
    db.commit()  # a revoked author's session, ended
    request.state.me = author.name if author is not None else None
    if author is not None:
        return Browser(author, secret)
    login = request.cookies.get(PRE_SESSION_COOKIE)
    return Browser(None, login if well_formed(login) else None)


SignedBrowser = Annotated[Browser, Depends(browser)]


def signed_in(found: Browser) -> Author:
    """The browser's author; Refused (401) for a browser not signed in (the pages send it to
    `/login`)."""
    if found.author is None:
        raise Refused(401, "sign in first, with the token `arena ladder author add` printed")
    return found.author


def check_csrf(found: Browser, form: FormData) -> None:
    """Refused (403) unless the form carries its browser's CSRF token: a form another site made
    the browser post has none."""
    offered = form.get(CSRF_FIELD)
    if not isinstance(offered, str) or not csrf_matches(found.secret, offered):
        raise Refused(
            403,
            "this form's security token is missing or stale (another site may have sent it): "
            "reload the page and send the form again",
        )


async def read_form(request: Request, cap: int = FORM_CAP, files: int = 0) -> FormData:
    """The request's form (urlencoded, or multipart with up to `files` files), its body read
    with a hard cap as it streams; Refused: 413 past `cap`, 415 for another type, 400 for a
    malformed body."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()

    async def capped() -> AsyncGenerator[bytes, None]:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise Refused(
                    413, f"the form is over {cap >> 10} KiB, the most this page takes: send less"
                )
            yield chunk

    if not kind:  # no body at all (a bare POST): a form with no field, refused by its checks
        return FormData()
    try:
        if kind == "application/x-www-form-urlencoded":
            return await FormParser(request.headers, capped(), max_fields=20).parse()
        if kind == "multipart/form-data" and files:
            parser = MultiPartParser(
                request.headers, capped(), max_files=files, max_fields=20, max_part_size=FORM_CAP
            )
            return await parser.parse()
    except MultiPartException as error:
        raise Refused(400, f"the form is malformed ({error}): send it from the page") from None
    raise Refused(415, f"a form is sent as a page's form sends it, not as {kind or 'nothing'!r}")


def text_field(form: FormData, name: str) -> str:
    """A form's text field, empty if absent (or a file where text was due)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


def file_field(form: FormData, name: str) -> UploadFile | None:
    """A form's file field, None if absent."""
    value = form.get(name)
    return value if isinstance(value, UploadFile) else None


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def give_session(response: Response, request: Request, secret: str) -> None:
    """The session cookie, set (see the module's doc); the login form's own one, dropped."""
    response.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=int(LIFETIME.total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )
    response.delete_cookie(PRE_SESSION_COOKIE, path="/login")


def drop_session(response: Response, request: Request) -> None:
    """The session cookie, taken back from the browser."""
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(request)
    )


def give_login_secret(response: Response, request: Request, secret: str) -> None:
    """The login form's own cookie (see the module's doc), for a browser that had none."""
    response.set_cookie(
        PRE_SESSION_COOKIE,
        secret,
        max_age=LOGIN_FORM_AGE,
        path="/login",
        httponly=True,
        samesite="strict",
        secure=_secure(request),
    )
