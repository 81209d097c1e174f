"""What the API answers, as pydantic models: they are the OpenAPI page's reference of every
field, and FastAPI checks each answer against them."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class Problem(BaseModel):
    """Every 4xx: one line naming the problem and the fix."""

    detail: str


class Standing(BaseModel):
    """A version's line of the leaderboard."""

    rank: int = Field(description="1 for the best rating")
    bot: str
    author: str
    version: int = Field(description="the version's number within its bot (1, 2, ...)")
    id: int = Field(description="the version's id, for /api/versions/{id}")
    rating: float = Field(description="mu - 3 sigma: what the ranks are by")
    mu: float
    sigma: float
    sets: int
    status: str
    last_played: dt.datetime | None


class VersionLine(BaseModel):
    """One version of a bot."""

    id: int
    number: int
    status: str
    rating: float
    mu: float
    sigma: float
    sets: int
    created_at: dt.datetime


class HistoryPoint(BaseModel):
    """A version's rating after one of its sets."""

    set: int
    version: int = Field(description="the version's number")
    finished_at: dt.datetime | None
    rating: float
    mu: float
    sigma: float


class BotPage(BaseModel):
    """A bot: its versions and its rating history, set by set."""

    bot: str
    author: str
    versions: list[VersionLine]
    history: list[HistoryPoint]


class SeatLine(BaseModel):
    """A seat of a set."""

    seat: int
    bot: str
    version: int = Field(description="the version's number")
    version_id: int
    bullheads: int | None = Field(description="summed over the set's games (fewest is best)")
    faults: int | None
    mu_before: float | None
    sigma_before: float | None
    mu_after: float | None
    sigma_after: float | None


class SetLine(BaseModel):
    """A set: one table's duplicate set (one deal, every seat rotation)."""

    id: int
    status: str
    seed: int | None = Field(description="the deal's seed, once the set is done")
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    seats: list[SeatLine]


class SetPage(SetLine):
    """A set with its games: each game's record as the replay file holds it."""

    games: list[dict[str, object]]


class VersionPage(VersionLine):
    """A version: its status for all; its logs for its author alone."""

    bot: str
    reason: str | None = Field(default=None, description="why error or benched: its author only")
    build_log: str | None = Field(default=None, description="its author only")
    check_bot: list[str] | None = Field(
        default=None, description="check-bot's lines: its author only"
    )
    faults: list[dict[str, object]] | None = Field(
        default=None, description="its faults in its recent sets: its author only"
    )
    logs: list[dict[str, object]] | None = Field(
        default=None, description="what it wrote in its recent sets, turn by turn: its author only"
    )


class Received(BaseModel):
    """A version received: vetting comes next (follow it at /api/versions/{id})."""

    id: int
    bot: str
    number: int
    status: str


class Status(BaseModel):
    """How the ladder is doing."""

    sets_played: int = Field(description="sets done, since the ladder began")
    sets_per_hour: float = Field(description="sets this serve recorded, per hour it has run")
    queue: int = Field(description="versions waiting to be vetted")
    running: int = Field(description="sets playing now")
    workers: int = Field(
        description="where games run: 1 on this machine, else the cluster's workers up now"
    )
    workers_lost: list[str] = Field(
        description="the cluster's workers lost while playing a set (their games played again)"
    )
    benched: list[str] = Field(description="the benched versions, as bot.vN")
