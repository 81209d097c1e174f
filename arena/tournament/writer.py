"""The files a tournament leaves in its output folder, written from what the store holds.

The one module of the tournament package that writes files besides the store: the standings and
the problems are computed by pure functions (`standings`, `problems`), and written here. Every
file is written aside and renamed into place (`os.replace`), so that a reader (a spreadsheet, a
web page polling `standings.json`, `arena report`) never sees half of one, even while a
tournament rewrites its standings every few games.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from arena.players import FaultKind
from arena.tournament.outcome import GameOutcome
from arena.tournament.problems import LOG_LINES, LeftOut, Problems, find_problems
from arena.tournament.standings import Standings, StandingsTally
from arena.tournament.store import (
    LEFT_OUT,
    LOGS,
    PLANNED,
    REPLAYS,
    RUN,
    STANDINGS_CSV,
    STANDINGS_JSON,
    ResultStore,
)

_TAIL_BYTES = 16384
"""How much of the end of a log is read for its last lines."""
_FAULT_NOTE = re.compile(r"\[arena: \S+ fault \(")
"""The arena's note of one fault in a bot's log."""


def write_results(
    store: ResultStore, output: Path, entered: Iterable[str] = ()
) -> tuple[Standings, Problems]:
    """Write the standings (JSON, CSV) and the replay file from what the store holds.

    One pass over the store: each game goes into the replay file as the standings take it in.
    `entered` are the bots of the run, listed even before they have played.
    """
    with _replacing(output / REPLAYS) as replays:

        def replayed() -> Iterator[GameOutcome]:
            for outcome in store.outcomes():
                replays.write(json.dumps(outcome.to_dict(), separators=(",", ":")) + "\n")
                yield outcome

        return write_standings(store, output, entered, replayed())


def write_standings(
    store: ResultStore,
    output: Path,
    entered: Iterable[str] = (),
    outcomes: Iterable[GameOutcome] | StandingsTally | None = None,
) -> tuple[Standings, Problems]:
    """Write standings.json and standings.csv from the store's games (or from `outcomes`: the
    store's games as they are read for another purpose, or a tally of them kept as they were
    saved), each replaced whole; the live standings of a running tournament are written so,
    from a reader of the store in another thread, with the tally it keeps (`runner._Live`)."""
    entries = store.entries()
    out = {name: entry.disqualified for name, entry in entries.items() if entry.disqualified}
    if not isinstance(outcomes, StandingsTally):
        outcomes = StandingsTally().extend(store.results() if outcomes is None else outcomes)
    standings = outcomes.standings(
        entered=[*entered, *entries], disqualified=out if entries else None
    )
    left_out = [LeftOut(folder, reason) for folder, reason in store.notes().get(LEFT_OUT, [])]
    logs = {line.bot: log_tail(output / LOGS / f"{line.bot}.log") for line in standings.bots}
    problems = find_problems(standings, list(out.values()), left_out, logs)
    document = {**standings.to_dict(), "problems": problems.to_dict()}
    document["games"] = {"stored": store.count(), "planned": store.notes().get(PLANNED)}
    run = store.notes().get(RUN)
    if run is not None:  # the seed, and whether the bots ran sealed: for the organizer
        document["run"] = run
    with _replacing(output / STANDINGS_JSON) as file:
        file.write(json.dumps(document, indent=2) + "\n")
    write_csv(output / STANDINGS_CSV, standings)
    return standings, problems


def write_csv(path: Path | str, standings: Standings) -> None:
    """Write the standings as CSV for spreadsheets: one row per bot, one column per fault kind."""
    kinds = list(FaultKind)
    with _replacing(Path(path), newline="") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["rank", "bot", "games", "bullheads", "mean", "ci_low", "ci_high", "wins", "faults"]
            + [f"faults_{kind.value}" for kind in kinds]
            + ["disqualified", "disqualified_in"]
            + ["whole_deals", "strength", "strength_ci_low", "strength_ci_high", "los"]
            + ["median_ms", "p99_ms", "bank_used_s"]
        )
        times = {line.bot: line.to_dict() for line in standings.times}
        for line in standings.bots:
            numbers = [line.mean if line.games else "", *(line.interval or ("", ""))]
            fitted = [line.strength, *(line.strength_ci or (None, None)), line.los]
            timed = times.get(line.bot, {})
            answers = [timed.get(key) for key in ("median_ms", "p99_ms", "bank_used_s")]
            writer.writerow(
                [line.rank, line.bot, line.games, line.bullheads, *numbers, line.wins]
                + [line.faults]
                + [line.faults_by_kind.get(kind, 0) for kind in kinds]
                + [line.disqualified, line.disqualified_in]
                + [line.whole_deals, *("" if value is None else value for value in fitted)]
                + ["" if value is None else value for value in answers]
            )


def log_tail(path: Path, lines: int = LOG_LINES) -> list[str]:
    """The last `lines` lines of a bot's log, control characters escaped; none if it has none.

    A bot writes its log, so what is read is bounded and made safe to print.
    """
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            size = file.tell()
            file.seek(max(0, size - _TAIL_BYTES))
            data = file.read()
    except OSError:
        return []
    text = data.decode("utf-8", "replace").splitlines()
    if size > _TAIL_BYTES and text:
        text = text[1:]  # the first line read is likely cut
    # The arena notes each fault in the log as well; the faults are counted elsewhere, and the
    # bot's own last words (an import error, a crash) are what its author needs to see.
    kept = [line for line in text if line.strip() and not _FAULT_NOTE.match(line)]
    return [_printable(line) for line in kept][-lines:]


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)[:300]


class _replacing:
    """A text file written aside (`.NAME.tmp` beside it) and renamed over `path` on success;
    on failure the partial file goes and `path` is left as it was."""

    def __init__(self, path: Path, newline: str | None = None) -> None:
        self.path = path
        self.partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        self.newline = newline
        self._file: io.TextIOWrapper | None = None

    def __enter__(self) -> io.TextIOWrapper:
        self._file = self.partial.open("w", newline=self.newline, encoding="utf-8")
        return self._file

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        assert self._file is not None
        try:
            self._file.close()
            if kind is None:
                os.replace(self.partial, self.path)
        finally:
            if self.partial.exists():
                self.partial.unlink()
