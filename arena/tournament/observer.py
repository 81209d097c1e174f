"""What a run tells whoever watches it: one `Observer` for the progress bar, the lines the
organizer must act on, the live standings, the workers up and each game as it is stored.

Each is a plain callable that does nothing by default, so a caller gives only those it shows
(`Observer(announce=lines.append)`) and the runner tells every one without asking which."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.tournament.outcome import GameOutcome
    from arena.tournament.standings import Standings


def _nothing(*_: object) -> None:
    """Told something, shows nothing."""


@dataclass(frozen=True)
class Observer:
    """Everything a run tells as it goes, each to its own callable."""

    progress: Callable[[int, int], None] = _nothing
    """Told (games done, games in the tournament) at the start and after every game."""
    announce: Callable[[str], None] = _nothing
    """Told a line for the organizer to act on or know (the seed; start an external bot; how the
    bots are sealed; a worker lost; the tournament complete)."""
    standings: Callable[[Standings], None] = _nothing
    """Told the standings each time the live standings are written."""
    workers: Callable[[int], None] = _nothing
    """Told how many workers are up, each time that changes (on a cluster)."""
    saved: Callable[[GameOutcome], None] = _nothing
    """Told every game of this run as it is stored."""
