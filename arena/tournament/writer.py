"""The files a tournament leaves in its output folder, written from what the store holds.

The one module of the tournament package that writes files besides the store: the standings are
computed by pure functions (`standings`), and written here.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from arena.players import FaultKind
from arena.tournament.outcome import GameOutcome
from arena.tournament.standings import Standings, compute_standings
from arena.tournament.store import REPLAYS, STANDINGS_CSV, STANDINGS_JSON, ResultStore


def write_results(store: ResultStore, output: Path) -> Standings:
    """Write the standings (JSON, CSV) and the replay file from what the store holds.

    One pass over the store: each game goes into the replay file as the standings take it in.
    """
    with (output / REPLAYS).open("w") as replays:

        def replayed() -> Iterator[GameOutcome]:
            for outcome in store.outcomes():
                replays.write(json.dumps(outcome.to_dict(), separators=(",", ":")) + "\n")
                yield outcome

        standings = compute_standings(replayed())
    (output / STANDINGS_JSON).write_text(json.dumps(standings.to_dict(), indent=2) + "\n")
    write_csv(output / STANDINGS_CSV, standings)
    return standings


def write_csv(path: Path | str, standings: Standings) -> None:
    """Write the standings as CSV for spreadsheets: one row per bot, one column per fault kind."""
    kinds = list(FaultKind)
    with Path(path).open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["rank", "bot", "games", "bullheads", "mean", "ci_low", "ci_high", "wins", "faults"]
            + [f"faults_{kind.value}" for kind in kinds]
            + ["disqualified"]
        )
        for line in standings.bots:
            writer.writerow(
                [line.rank, line.bot, line.games, line.bullheads, line.mean, *line.ci, line.wins]
                + [line.faults]
                + [line.faults_by_kind.get(kind, 0) for kind in kinds]
                + [line.disqualified]
            )
