"""The public routes: the leaderboard, a bot's page, the sets, the ladder's status and the
finals. No token: what they show is what every author may see."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from sqlalchemy.orm import Session

from arena.ladder.api.deps import Db, Ladder, SetId
from arena.ladder.api.schemas import (
    BotPage,
    HistoryPoint,
    Problem,
    SeatLine,
    SetLine,
    SetPage,
    Standing,
    Status,
    VersionLine,
)
from arena.ladder.db import repository
from arena.ladder.db.models import Bot, LadderSet, Version
from arena.ladder.db.repository import DONE
from arena.ladder.loop import seat_name, set_folder
from arena.ladder.rating import Rating
from arena.ladder.versions import PLAYABLE, VersionStatus
from arena.tournament.store import REPLAYS

router = APIRouter(prefix="/api", tags=["public"])
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}
SHOWN = (*PLAYABLE, VersionStatus.BENCHED)
"""The statuses the leaderboard shows: the versions that play, and the benched."""
WAITING = (VersionStatus.RECEIVED, VersionStatus.BUILDING, VersionStatus.CHECKING)
"""The statuses of a version waiting to be vetted, or being vetted."""
MAX_LIMIT = 1000


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown: mu - 3 sigma."""
    return Rating(mu, sigma).ordinal


def rated(version: Version) -> dict[str, Any]:
    """What every view of a version shows of its standing."""
    return {
        "id": version.id,
        "status": version.status,
        "rating": ordinal(version.mu, version.sigma),
        "mu": version.mu,
        "sigma": version.sigma,
        "sets": version.sets,
    }


@router.get("/leaderboard", response_model=list[Standing])
def leaderboard(db: Db) -> list[Standing]:
    """The versions that play (and the benched), best rating first."""
    return [
        Standing(
            rank=rank,
            bot=version.bot.name,
            author=version.bot.author.name,
            version=version.number,
            last_played=version.last_played,
            **rated(version),
        )
        for rank, version in enumerate(repository.leaderboard(db, SHOWN), 1)
    ]


def find_bot(db: Session, name: str) -> Bot:
    """The bot named `name`; 404 (one line) if there is none."""
    bot = repository.bot_named(db, name)
    if bot is None:
        raise HTTPException(404, f"no bot {name!r} on this ladder: see /api/leaderboard")
    return bot


@router.get("/bots/{name}", response_model=BotPage, responses=NOT_FOUND)
def bot_page(name: str, db: Db) -> BotPage:
    """A bot's versions and its rating history, set by set (every version's)."""
    bot = find_bot(db, name)
    history = [
        HistoryPoint(
            set=ladder_set.id,
            version=seat.version.number,
            finished_at=ladder_set.finished_at,
            rating=ordinal(seat.mu_after or 0.0, seat.sigma_after or 0.0),
            mu=seat.mu_after or 0.0,
            sigma=seat.sigma_after or 0.0,
        )
        for ladder_set, seat in repository.rating_history(db, bot)
    ]
    versions = [
        VersionLine(number=version.number, created_at=version.created_at, **rated(version))
        for version in bot.versions
    ]
    return BotPage(bot=bot.name, author=bot.author.name, versions=versions, history=history)


def set_line(ladder_set: LadderSet) -> SetLine:
    """A set as the API shows it; its seed only once it is done (a running set's seed would
    tell its deal)."""
    seats = [
        SeatLine(
            seat=seat.seat,
            bot=seat.version.bot.name,
            version=seat.version.number,
            version_id=seat.version_id,
            bullheads=seat.bullheads,
            faults=seat.faults,
            mu_before=seat.mu_before,
            sigma_before=seat.sigma_before,
            mu_after=seat.mu_after,
            sigma_after=seat.sigma_after,
        )
        for seat in sorted(ladder_set.seats, key=lambda seat: seat.seat)
    ]
    return SetLine(
        id=ladder_set.id,
        status=ladder_set.status,
        seed=ladder_set.seed if ladder_set.status == DONE else None,
        started_at=ladder_set.started_at,
        finished_at=ladder_set.finished_at,
        seats=seats,
    )


@router.get("/sets", response_model=list[SetLine], responses=NOT_FOUND)
def sets(
    db: Db,
    bot: Annotated[str | None, Query(description="only this bot's sets")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
) -> list[SetLine]:
    """The sets played, newest first (a bot's alone with `bot`)."""
    found = find_bot(db, bot) if bot is not None else None
    return [set_line(ladder_set) for ladder_set in repository.sets_of(db, found, limit)]


@router.get("/sets/{set_id}", response_model=SetPage, responses=NOT_FOUND)
def set_page(set_id: SetId, db: Db, ladder: Ladder) -> SetPage:
    """A set: its seats, bullheads and rating changes, and its games' records (the replay)."""
    ladder_set = db.get(LadderSet, set_id)
    if ladder_set is None:
        raise HTTPException(404, f"no set {set_id} on this ladder: see /api/sets")
    games: list[dict[str, object]] = []
    replays = set_folder(ladder.folder, set_id) / REPLAYS
    if ladder_set.status == DONE and replays.is_file():
        games = [json.loads(line) for line in replays.read_text().splitlines() if line.strip()]
    return SetPage(**set_line(ladder_set).model_dump(), games=games)


@router.get("/status", response_model=Status)
def status(db: Db, ladder: Ladder) -> Status:
    """Sets played, sets per hour (this serve's), the vetting queue, the workers, the benched."""
    played = repository.count_sets(db, DONE)
    queue = repository.count_versions(db, WAITING)
    benched = repository.versions_with_status(db, [VersionStatus.BENCHED])
    hours = max(time.monotonic() - ladder.started, 1e-9) / 3600
    return Status(
        sets_played=played,
        sets_per_hour=ladder.report.played / hours if ladder.started else 0.0,
        queue=queue,
        running=len(ladder.report.running),
        workers=ladder.report.workers_up,
        workers_lost=list(ladder.report.workers_lost),
        benched=[seat_name(v.bot.name, v.number) for v in benched],
    )


@router.get("/finals", responses=NOT_FOUND)
def finals(ladder: Ladder) -> dict[str, Any]:
    """The finals' standings (`arena ladder finals`): fitted strengths, intervals, LOS."""
    from arena.ladder.finals import FINALS, standings_file

    path = standings_file(ladder.folder)
    if not path.is_file():
        raise HTTPException(
            404, f"no finals yet: the organizer plays them with `arena ladder finals` ({FINALS}/)"
        )
    found: dict[str, Any] = json.loads(path.read_text())
    return found
