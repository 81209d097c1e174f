"""`arena ladder finals DIR --top N`: the contest's final table.

Submissions close first (`CLOSED` is written in the ladder's folder: the API refuses uploads
from then on), then the top N active versions by rating play a full duplicate round-robin
through `run_tournament`, exactly as `arena run` plays one (every seating, every deal in every
seat rotation, sealed and paced; fitted standings with their intervals and LOS), into
`DIR/finals/`, a tournament's output folder beside the ladder's sets. The API serves its
standings (`/api/finals`). Run again, it resumes: the same versions, the games missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder import versions as statuses
from arena.ladder.db.models import Version
from arena.ladder.db.repository import now
from arena.ladder.errors import LadderError
from arena.ladder.loop import seat_name, version_bot
from arena.ladder.rating import Rating
from arena.ladder.settings import LadderSettings
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import QUIET, RunSummary, run_tournament
from arena.tournament.store import STANDINGS_JSON

FINALS = "finals"
"""The finals' folder in the ladder's: a tournament's output folder."""
CLOSED = "CLOSED"
"""Written in the ladder's folder when the finals begin: submissions are closed."""


def standings_file(folder: Path) -> Path:
    """The finals' standings, once played."""
    return folder / FINALS / STANDINGS_JSON


def closed(folder: Path) -> bool:
    """Whether submissions are closed (the finals have begun)."""
    return (folder / CLOSED).is_file()


def finalists(engine: Engine, top: int) -> list[tuple[int, str]]:
    """The top `top` active versions by rating (mu - 3 sigma), as (id, name at the table)."""
    with Session(engine) as db:
        active = db.scalars(
            select(Version).where(Version.status == statuses.VersionStatus.ACTIVE.value)
        ).all()
        best = sorted(active, key=lambda v: (-Rating(v.mu, v.sigma).ordinal, v.id))[:top]
        return [(v.id, seat_name(v.bot.name, v.number)) for v in best]


def finals_config(
    folder: Path, settings: LadderSettings, chosen: list[tuple[int, str]], deals: int
) -> TournamentConfig:
    """The finals as a tournament: the chosen versions at tables of the ladder's size (or all
    of them, if fewer), `deals` deals a table, into `DIR/finals/`."""
    bots = tuple(version_bot(folder, version, name) for version, name in chosen)
    players = min(settings.players, len(bots))
    base = settings.tournament_config(folder / FINALS, bots, 0)
    return replace(base, players=players, games=players * deals, seed=None)


async def play_finals(
    folder: Path,
    engine: Engine,
    settings: LadderSettings,
    top: int,
    deals: int = 1,
    *,
    observer: Observer = QUIET,
    template: TournamentConfig | None = None,
) -> RunSummary:
    """Close submissions and play the finals (see the module's note); LadderError (one line)
    when fewer than two versions are active."""
    chosen = finalists(engine, top)
    if len(chosen) < 2:
        raise LadderError(
            f"{len(chosen)} active version{'s' if len(chosen) != 1 else ''}: the finals need "
            "at least 2; let the ladder play until versions leave their placement"
        )
    (folder / CLOSED).write_text(f"submissions closed for the finals at {now().isoformat()}\n")
    config = finals_config(folder, settings, chosen, deals)
    if template is not None:  # where the games run, from the command's options
        config = replace(
            config,
            concurrency=template.concurrency,
            workers=template.workers,
            cluster=template.cluster,
            reuse_processes=template.reuse_processes,
        )
    return await run_tournament(config, observer=observer)
