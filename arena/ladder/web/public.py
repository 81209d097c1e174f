"""The public pages: the leaderboard (`/`), a bot (`/bots/NAME`) and a set (`/sets/ID`).

They show what the public JSON routes answer (`arena.ladder.api.public`), built by the same
functions from the same queries (`arena.ladder.db.repository`), rendered as HTML; no token,
nothing an author alone may see."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.ladder.api import public as api
from arena.ladder.api.deps import Db
from arena.ladder.db import repository
from arena.ladder.db.models import LadderSet
from arena.ladder.web.render import render

router = APIRouter(include_in_schema=False)


def not_found(request: Request, what: str) -> HTMLResponse:
    """A page for a bot or set that is not there: 404, and where to look instead."""
    return render(request, "not_found.html", status_code=404, what=what)


@router.get("/", response_class=HTMLResponse)
def leaderboard(request: Request, db: Db) -> HTMLResponse:
    """Every version that plays (and the benched), best rating first."""
    return render(request, "leaderboard.html", standings=api.leaderboard(db))


@router.get("/bots/{name}", response_class=HTMLResponse)
def bot(request: Request, name: str, db: Db) -> HTMLResponse:
    """A bot: its versions and its rating set by set."""
    if repository.bot_named(db, name) is None:
        return not_found(request, f"no bot {name!r} on this ladder")
    return render(request, "bot.html", page=api.bot_page(name, db))


@router.get("/sets/{set_id}", response_class=HTMLResponse)
def set_page(request: Request, set_id: int, db: Db) -> HTMLResponse:
    """A set: its table, bullheads and rating changes."""
    ladder_set = db.get(LadderSet, set_id)
    if ladder_set is None:
        return not_found(request, f"no set {set_id} on this ladder")
    return render(request, "set.html", played=api.set_line(ladder_set))
