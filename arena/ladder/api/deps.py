"""The API's dependencies: the database session of a request, the ladder it serves, and the
signed-in author (a bearer token, looked up by its hash and compared in constant time).

Kept apart from the routers so that each route says what it needs in its signature, as FastAPI's
"bigger applications" pattern has it, and the tests can hand the app a ladder of their own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi import Path as InPath
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from arena.ladder import authors
from arena.ladder.db.models import Author
from arena.ladder.loop import LoopReport
from arena.ladder.sessions import LoginThrottle
from arena.ladder.settings import LadderSettings


@dataclass
class Served:
    """What the API serves: the ladder's folder, database and settings, and the match loop's
    report (the app and the loop share one process and one asyncio loop)."""

    folder: Path
    engine: Engine
    settings: LadderSettings
    report: LoopReport = field(default_factory=LoopReport)
    """What the loop has done, and the workers it plays on (up and lost)."""
    started: float = 0.0
    """When the serve started (`time.monotonic`), for the sets per hour."""
    wake: Callable[[], None] = lambda: None
    """Called when a version comes in, on the serve's event loop (the upload's worker thread
    hands it there): the vetting task looks at once."""
    throttle: LoginThrottle = field(default_factory=LoginThrottle)
    """Wrong tokens at `/login`, per client address."""


def served(request: Request) -> Served:
    """The ladder this app serves."""
    found: Served = request.app.state.served
    return found


def session(request: Request) -> Iterator[Session]:
    """One database session per request, closed after it."""
    with Session(served(request).engine) as opened:
        yield opened


Ladder = Annotated[Served, Depends(served)]
Db = Annotated[Session, Depends(session)]
_BEARER = HTTPBearer(auto_error=False, description="The author's token: `arena ladder author add`.")


def signed_in(
    db: Db, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]
) -> Author:
    """The author the bearer token names (`authors.signed_in`: looked up by its hash, compared
    in constant time); 401 (one line) without one, or for a wrong or revoked token."""
    if credentials is None:
        raise HTTPException(
            401,
            "no token: send the header Authorization: Bearer TOKEN (the token "
            "`arena ladder author add` printed)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    try:
        return authors.signed_in(db, credentials.credentials)
    except authors.TokenRefused as error:
        raise HTTPException(401, str(error), headers={"WWW-Authenticate": "Bearer"}) from None


SignedIn = Annotated[Author, Depends(signed_in)]


def maybe_signed_in(
    db: Db, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]
) -> Author | None:
    """The author of a public route that shows its author more (a version's logs): None when
    no token is sent; a wrong or revoked one is still refused (401)."""
    if credentials is None:
        return None
    return signed_in(db, credentials)


MaybeSignedIn = Annotated[Author | None, Depends(maybe_signed_in)]


ROW_ID_MAX = 2**63 - 1
"""The largest id a row can have: SQLite's INTEGER and PostgreSQL's BIGINT are 64-bit. A larger
number in a URL names no row, yet the database is never asked for it: SQLite's driver cannot
even bind it (OverflowError, which was a 500). So a row's id in a path is bounded where the
route declares it, and one past the bound is a 422 naming the bound like any malformed path."""
SetId = Annotated[int, InPath(ge=1, le=ROW_ID_MAX, description="a set's id (1, 2, ...)")]
VersionId = Annotated[int, InPath(ge=1, le=ROW_ID_MAX, description="a version's id (1, 2, ...)")]
