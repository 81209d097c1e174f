"""The ladder's FastAPI application: its routers (the JSON API's and the pages'), and every
refusal as one line.

FastAPI's own answer to a malformed request (a path parameter that is not a number, a query
out of range) is a list of pydantic's errors; the ladder's callers get what every refusal of the
arena is, one line naming the problem and the fix, in `{"detail": ...}`."""

from __future__ import annotations

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.requests import ClientDisconnect

from arena.ladder.access import Refused
from arena.ladder.api import public, versions
from arena.ladder.api.deps import Served
from arena.ladder.api.schemas import Problem
from arena.ladder.web import organizer, private
from arena.ladder.web import public as pages
from arena.ladder.web.render import STATIC
from arena.ladder.web.signin import browser

DESCRIPTION = (
    "A 6 nimmt! bot ladder: authors upload versions of their bots (`arena submit`), the match "
    "loop plays them in duplicate sets and rates them (openskill's Plackett-Luce, shown as mu - "
    "3 sigma). Public routes need no token; an upload and a version's logs need the author's "
    "`Authorization: Bearer TOKEN`."
)


def create_app(served: Served) -> FastAPI:
    """The API and the pages over one ladder (its folder, database, settings and match loop's
    report); the pages' stylesheet and scripts at `/static`."""
    app = FastAPI(
        title="arena ladder",
        description=DESCRIPTION,
        version="1",
        responses={422: {"model": Problem, "description": "A malformed request, in one line"}},
    )
    app.state.served = served
    app.include_router(public.router)
    app.include_router(versions.router)
    app.include_router(pages.router, dependencies=[Depends(browser)])  # the nav's "Me"
    app.include_router(private.router)
    app.include_router(organizer.router)
    # The replay viewer's script and styles are the report's own, served as they are.
    viewer = StaticFiles(packages=[("arena.spectate", "assets")])
    app.mount(f"{STATIC}/viewer", viewer, name="viewer")
    app.mount(STATIC, StaticFiles(packages=[("arena.ladder.web", "static")]), name="static")
    app.add_exception_handler(RequestValidationError, _one_line)  # type: ignore[arg-type]
    app.add_exception_handler(Refused, _refused)  # type: ignore[arg-type]
    app.add_exception_handler(ClientDisconnect, _cut_off)
    return app


async def _refused(request: Request, error: Refused) -> Response:
    """A refusal of `access`'s rules (or of a page's form): one line, as JSON for the API, as
    a page for a browser (`private.refused`: a sign-in for a browser not signed in)."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": str(error)}, status_code=error.status)
    return private.refused(request, error)


async def _cut_off(request: Request, error: Exception) -> Response:
    """A body its client stopped sending (the connection closed before its length, an upload
    or a form cut off): a refusal like any malformed body, which no one may read. Unhandled,
    it was an error of the application, a traceback in the serve's log that any client could
    write as often as it liked."""
    return await _refused(request, Refused(400, "the body ended before its length: send it whole"))


async def _one_line(request: Request, error: RequestValidationError) -> Response:
    """A malformed request as one line: where, and what was wrong; as JSON for the API (the
    OpenAPI page documents it as `Problem`, not FastAPI's list of errors), as a page for a
    browser (a page's URL with a malformed id, say)."""
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "request"
    message = str(first.get("msg", "malformed")).rstrip(".").lower()
    if not request.url.path.startswith("/api/"):
        return private.refused(request, Refused(422, f"{where}: {message}"))
    detail = f"{where}: {message}: see the API's reference at /docs"
    return JSONResponse({"detail": detail}, status_code=422)
