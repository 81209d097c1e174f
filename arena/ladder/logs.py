"""What an author reads of their bots' play: each seat's faults and per-turn log lines, read
from the set's own results (`DIR/sets/<id>/results.sqlite`, a tournament's output folder) as
`arena logs` reads a tournament's. Who may read which seat is `access`'s to say; this module
reads only the seats it is given."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.orm import Session

from arena.ladder.db import repository
from arena.ladder.db.models import Version
from arena.ladder.loop import seat_name, set_folder
from arena.server.botlog import LogLine
from arena.spectate.source import open_games
from arena.tournament.store import DATABASE

RECENT_SETS = 10
"""The sets whose faults and logs a version's page shows its author."""


@dataclass
class SeatLogs:
    """Faults (as the outcome's JSON holds them, with their set, game and seat's name) and log
    lines (with their set), of some seats."""

    faults: list[dict[str, object]] = field(default_factory=list)
    lines: list[tuple[int, LogLine]] = field(default_factory=list)

    def line_dicts(self) -> list[dict[str, object]]:
        """The lines as the API answers them: `LogLine.to_dict` with the set."""
        return [{"set": set_id, **line.to_dict()} for set_id, line in self.lines]


def read_seats(folder: Path, set_id: int, names: Iterable[str], into: SeatLogs) -> SeatLogs:
    """Add the faults and lines of the seats `names` (their table names, `bot.vN`) in set
    `set_id` to `into`; nothing for a set whose games are not stored (queued, abandoned)."""
    where = set_folder(folder, set_id)
    if not (where / DATABASE).is_file():
        return into
    source = open_games(where)
    try:
        for name in names:
            for outcome in source.outcomes():
                if name not in outcome.spec.seats:
                    continue
                seat = outcome.spec.seats.index(name)
                into.faults.extend(
                    {"set": set_id, "game": outcome.game_id, "bot": name, **fault}
                    for fault in outcome.to_dict()["faults"]
                    if fault["seat"] == seat
                )
            into.lines.extend((set_id, line) for line in source.bot_lines(name))
    finally:
        source.close()
    return into


def recent_logs(db: Session, folder: Path, version: Version) -> SeatLogs:
    """The version's faults and log lines in its `RECENT_SETS` most recent sets."""
    recent = [
        played
        for played in repository.sets_of(db, version.bot, RECENT_SETS * 2)
        if any(seat.version_id == version.id for seat in played.seats)
    ][:RECENT_SETS]
    found = SeatLogs()
    for played in recent:
        read_seats(folder, played.id, [seat_name(version.bot.name, version.number)], found)
    return found
