"""The public pages: the leaderboard (`/`), a bot (`/bots/NAME`) and a set (`/sets/ID`).

They show what the public JSON routes answer (`arena.ladder.api.public`), built by the same
functions from the same queries (`arena.ladder.db.repository`), rendered as HTML; no token,
nothing an author alone may see: a set's fault messages and its bots' logs are their authors'
(`/me`), so the set page shows each fault's kind and place, not its message.

The leaderboard updates by polling, not server-sent events: its script asks `/leaderboard/rows`
every few seconds with the stamp of what it shows (`If-None-Match`), and the server answers 304
after two small queries (`repository.leaderboard_stamp`) or the table's rows rendered by the
same template as the page. Polling holds no connection open per open tab in the one process
that also plays the sets, passes through any proxy, and needs no loop watching the database;
a few seconds late is soon enough for a ladder that rates a set every few seconds at most."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from arena.ladder.api import public as api
from arena.ladder.api.deps import Db, Ladder, SetId
from arena.ladder.api.schemas import SeatLine, SetLine
from arena.ladder.db import repository
from arena.ladder.db.models import LadderSet
from arena.ladder.db.repository import DONE
from arena.ladder.finals import standings_file
from arena.ladder.loop import seat_name, set_folder
from arena.ladder.rating import Rating
from arena.ladder.web.render import ENVIRONMENT, render
from arena.spectate import charts
from arena.spectate.series import SeriesPoint, series_chart
from arena.spectate.source import SpectateError, open_games
from arena.spectate.viewer import compact, script_json, viewer_data, viewer_markup

router = APIRouter(include_in_schema=False)
RECENT = 20
"""Sets listed on a bot's page (its graph shows them all)."""
POLL_SECONDS = 5
"""How often the leaderboard's script asks whether it changed."""


def not_found(request: Request, what: str) -> HTMLResponse:
    """A page for a bot or set that is not there: 404, and where to look instead."""
    return render(request, "not_found.html", status_code=404, what=what)


def finals_table(ladder: Ladder) -> dict[str, Any] | None:
    """The finals' standings once `arena ladder finals` has written them (what `/api/finals`
    answers), else None."""
    path = standings_file(ladder.folder)
    return api.finals(ladder) if path.is_file() else None


@router.get("/", response_class=HTMLResponse)
def leaderboard(request: Request, db: Db, ladder: Ladder) -> HTMLResponse:
    """Every version that plays (and the benched), best rating first; the finals' table once
    there is one. Its script keeps the table live (the module's note)."""
    return render(
        request,
        "leaderboard.html",
        standings=api.leaderboard(db),
        stamp=repository.leaderboard_stamp(db),
        poll=POLL_SECONDS,
        finals=finals_table(ladder),
    )


@router.get("/leaderboard/rows", response_class=HTMLResponse)
def leaderboard_rows(request: Request, db: Db) -> Response:
    """The leaderboard's rows for its script: 304 if its stamp is the one the script has."""
    stamp = repository.leaderboard_stamp(db)
    etag = f'"{stamp}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    rows = ENVIRONMENT.get_template("leaderboard_rows.html").render(standings=api.leaderboard(db))
    return HTMLResponse(rows, headers=headers)


@dataclass(frozen=True)
class Played:
    """One of a bot's sets as its page lists it: the bot's seat, the others, its change."""

    line: SetLine
    seat: SeatLine
    others: list[SeatLine]

    @property
    def change(self) -> float | None:
        """The rating's change over the set (mu - 3 sigma after, less before)."""
        seat = self.seat
        if None in (seat.mu_before, seat.sigma_before, seat.mu_after, seat.sigma_after):
            return None
        after = Rating(seat.mu_after or 0.0, seat.sigma_after or 0.0).ordinal
        return after - Rating(seat.mu_before or 0.0, seat.sigma_before or 0.0).ordinal


def played_sets(lines: list[SetLine], bot: str) -> list[Played]:
    """The sets, each split into the bot's seat and the others'."""
    found = []
    for line in lines:
        mine = [seat for seat in line.seats if seat.bot == bot]
        if mine:
            others = [seat for seat in line.seats if seat.bot != bot]
            found.append(Played(line, mine[0], others))
    return found


@router.get("/bots/{name:path}", response_class=HTMLResponse)
def bot(request: Request, name: str, db: Db) -> HTMLResponse:
    """A bot: its rating set by set (each version's start marked), its versions, its recent
    sets and its record against every bot it met."""
    found = repository.bot_named(db, name)
    if found is None:
        return not_found(request, f"no bot {name!r} on this ladder")
    page = api.bot_page(name, db)
    points = [
        SeriesPoint(
            value=point.rating,
            stretch=f"v{point.version}",
            tooltip=f"set {point.set}, v{point.version}: {point.rating:.1f}",
            link=f"/sets/{point.set}",
            key=str(point.set),
        )
        for point in page.history
    ]
    chart = series_chart(
        points,
        "rating (\N{GREEK SMALL LETTER MU} \N{MINUS SIGN} 3\N{GREEK SMALL LETTER SIGMA})",
        "No set played yet.",
        chart_id="rating",
        legend="Its rating after each set; a dashed line where each version began. "
        "A point opens its set.",
    )
    recent = [api.set_line(played) for played in repository.sets_of(db, found, RECENT)]
    return render(
        request,
        "bot.html",
        page=page,
        chart=Markup(chart),
        recent=played_sets(recent, name),
        meetings=repository.head_to_head(db, found),
    )


def set_games(ladder: Ladder, played: SetLine) -> tuple[list[dict[str, Any]], list[str]]:
    """A done set's games as the replay viewer reads them (its bots the set's seats, by the
    names they played under), without what is their authors' alone (fault messages, logs);
    and those names. No games for a set whose results are not stored."""
    names = [seat_name(seat.bot, seat.version) for seat in played.seats]
    folder = set_folder(ladder.folder, played.id)
    if played.status != DONE or not folder.is_dir():
        return [], names
    index = {name: seat for seat, name in enumerate(names)}
    try:
        source = open_games(folder)
    except SpectateError:
        return [], names
    try:
        games = [
            compact(outcome, number, index)
            for number, outcome in enumerate(source.outcomes(), 1)
            if all(seat in index for seat in outcome.spec.seats)
        ]
    finally:
        source.close()
    for game in games:
        for mark in game["marks"]:
            mark[5] = ""  # the fallback's message: for the bot's author (`/me`)
    return games, names


@router.get("/sets/{set_id}", response_class=HTMLResponse)
def set_page(request: Request, set_id: SetId, db: Db, ladder: Ladder) -> HTMLResponse:
    """A set: its table, bullheads and rating changes, its faults, and each game's replay in
    the report's viewer."""
    ladder_set = db.get(LadderSet, set_id)
    if ladder_set is None:
        return not_found(request, f"no set {set_id} on this ladder")
    played = api.set_line(ladder_set)
    games, names = set_games(ladder, played)
    colours = charts.bot_colours(names)
    faults = [
        {"game": game["n"], "bot": played.seats[seat].bot, "kind": kind, "round": r, "turn": t}
        for game in games
        for seat, kind, r, t in game["faults"]
    ]
    data = script_json(viewer_data(names, colours, games)) if games else ""
    return render(
        request,
        "set.html",
        played=played,
        games=len(games),
        faults=faults,
        viewer=Markup(viewer_markup()) if games else "",
        data=Markup(data),
    )
