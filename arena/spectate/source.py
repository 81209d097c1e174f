"""Where spectators' games come from: a tournament's output folder or a replay file.

An output folder is read through its SQLite store rather than its replay file, because the store
is written game by game while a tournament runs and the replay file only at its end. The store is
opened read-only (SQLite's `mode=ro`): a spectator can never disturb the run, and WAL mode lets
the reader see every committed game without blocking the writer. (On a finished database the
reader leaves SQLite's empty `-wal` and `-shm` files behind: harmless, as a resumed run uses
them.) A `replays.jsonl` file, or a folder holding only one, is read as it is.
"""

from __future__ import annotations

import json
import os
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.errors import ArenaError
from arena.server.botlog import LogLine
from arena.tournament import GameOutcome
from arena.tournament.store import (
    DATABASE,
    PLANNED,
    REPLAYS,
    Entry,
    decode_outcome,
    has_times,
    read_entries,
    read_notes,
)

_IDS_PER_QUERY = 500
"""Game ids asked for in one query: well under SQLite's cap on a statement's parameters."""


class SpectateError(ArenaError, ValueError):
    """Games that cannot be shown, with what to do about it: one line for a person (the
    spectators' branch of the error family; a ValueError too, as it was)."""


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One game in a listing: enough to choose it, without its record."""

    number: int
    """Its place in schedule order among the stored games, counting from 1."""
    game_id: str
    """Its stable id, e.g. "t000-d01-r2"."""
    seats: tuple[str, ...]
    """The bots, by seat."""
    totals: tuple[int, ...]
    """Each seat's bullheads over the game."""
    winners: tuple[str, ...]
    """The bots with the fewest bullheads."""
    faults: int
    """Faults committed in the game."""


class GameSource(ABC):
    """Stored games, in schedule order (table, deal, rotation), read one at a time."""

    def __init__(self, path: Path, shown: Path | None = None) -> None:
        self.path = path
        self.shown = shown or path
        """The path as the person gave it, for messages."""

    @abstractmethod
    def entries(self) -> Iterator[GameEntry]:
        """Every game, for a listing."""

    @abstractmethod
    def outcomes(self, ids: Collection[str] | None = None) -> Iterator[GameOutcome]:
        """Every game with its record (or only those in `ids`), in schedule order."""

    @abstractmethod
    def settings(self) -> dict[str, Any] | None:
        """The tournament's settings as `arena run` stored them; None when the source has none."""

    def bots(self) -> dict[str, Entry]:
        """The bots `arena run` entered, by name, as the results database keeps them (how each
        was started, when it was disqualified); empty for a replay file."""
        return {}

    def notes(self) -> dict[str, Any]:
        """The notes of the tournament's latest run (games planned, submissions left out);
        empty for a replay file."""
        return {}

    def bot_lines(
        self, bot: str | None = None, games: Collection[str] | None = None
    ) -> Iterator[LogLine]:
        """The lines of the bots' logs, in the order written: those of `bot` (else every bot's)
        in `games` (else in every game and between games). A replay file holds none: asking it
        is a SpectateError that says where they are."""
        raise SpectateError(
            f"{self.shown} is a replay file: the bots' logs are in the output folder's "
            f"{DATABASE} (give the folder)"
        )

    def outcome(self, key: str) -> GameOutcome:
        """One game by id, or by its number in the listing; SpectateError if there is none."""
        key = key.strip()
        if key.isdigit():
            number = int(key)
            found = self._id_of(number) if number > 0 else None
            if found is None:
                count = self._count()
                if not count:
                    raise SpectateError(f"{self.shown} holds no finished game yet")
                raise SpectateError(
                    f"there is no game {number} in {self.shown}: games are numbered 1 to "
                    f"{count} (run `arena replay {self.shown}` to list them)"
                )
            key = found
        for outcome in self.outcomes([key]):
            return outcome
        raise SpectateError(
            f"there is no game {key!r} in {self.shown}: give a game id or number from "
            f"`arena replay {self.shown}`"
        )

    def _id_of(self, number: int) -> str | None:
        """The id of the game numbered `number` in the listing; None past the last game."""
        return next((e.game_id for e in self.entries() if e.number == number), None)

    def _count(self) -> int:
        return sum(1 for _ in self.entries())

    def close(self) -> None:
        """Let go of the source; a no-op unless it holds a connection."""

    def __enter__(self) -> GameSource:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_games(path: Path | str) -> GameSource:
    """The games of an output folder (its results database) or of a replay file."""
    path = Path(path)
    if path.is_dir():
        if (path / DATABASE).is_file():
            return StoreSource(path / DATABASE, path)
        if (path / REPLAYS).is_file():
            return ReplayFileSource(path / REPLAYS, path)
        raise SpectateError(
            f"{path} holds no results: expected {DATABASE} or {REPLAYS} from `arena run`"
        )
    if not path.exists():
        raise SpectateError(f"{path} does not exist: give an output folder of `arena run`")
    if path.suffix == ".jsonl":
        return ReplayFileSource(path)
    return StoreSource(path)


class StoreSource(GameSource):
    """A tournament's results database, read-only, safe to read while the tournament runs."""

    def __init__(self, path: Path, shown: Path | None = None) -> None:
        super().__init__(path, shown)
        uri = path.resolve().as_uri() + "?mode=ro"
        try:
            self._db = _connect(uri)
        except sqlite3.OperationalError as error:
            # A WAL database needs its -shm file, which SQLite cannot make in a folder it may
            # not write to (a read-only copy, a finished tournament's archive): nothing can
            # change such a database, so it is read as immutable. Never one that can change:
            # read without locks, a database being written could read torn.
            if os.access(path.resolve().parent, os.W_OK):
                raise SpectateError(f"cannot read {path}: {error}") from None
            try:
                self._db = _connect(uri + "&immutable=1")
            except sqlite3.DatabaseError as again:
                raise SpectateError(f"cannot read {path}: {again}") from None
        except sqlite3.DatabaseError as error:
            raise SpectateError(f"{path} is not a results database: {error}") from None

    def settings(self) -> dict[str, Any] | None:
        """The stored rules, with the games the latest run planned (`planned`), if it said."""
        row = self._query("SELECT settings FROM tournament").fetchone()
        if row is None:
            return None
        settings: dict[str, Any] = json.loads(row[0])
        planned = self.notes().get(PLANNED)
        if planned is not None:
            settings[PLANNED] = planned
        return settings

    def bots(self) -> dict[str, Entry]:
        try:
            return read_entries(self._db)
        except sqlite3.Error as error:
            raise SpectateError(f"cannot read {self.path}: {error}") from None

    def notes(self) -> dict[str, Any]:
        try:
            return read_notes(self._db)
        except sqlite3.Error as error:
            raise SpectateError(f"cannot read {self.path}: {error}") from None

    def entries(self) -> Iterator[GameEntry]:
        rows = self._query(
            "SELECT game_id, spec, outcome FROM games ORDER BY table_index, deal, rotation"
        )
        for number, (game_id, spec, result) in enumerate(rows, start=1):
            seats = tuple(json.loads(spec)["seats"])
            data = json.loads(result)
            scores = data["scores"]
            yield GameEntry(
                number,
                game_id,
                seats,
                tuple(scores[bot] for bot in seats),
                tuple(data["winners"]),
                len(data["faults"]),
            )

    def _id_of(self, number: int) -> str | None:
        # Straight off the schedule-order index, without reading the games before it.
        row = self._query(
            "SELECT game_id FROM games ORDER BY table_index, deal, rotation LIMIT 1 OFFSET ?",
            (number - 1,),
        ).fetchone()
        return None if row is None else str(row[0])

    def _count(self) -> int:
        row = self._query("SELECT count(*) FROM games").fetchone()
        return 0 if row is None else int(row[0])

    def outcomes(self, ids: Collection[str] | None = None) -> Iterator[GameOutcome]:
        # With each game's decision times, where the database keeps them (issue 14).
        timed = self._timed()
        columns = (
            "SELECT games.spec, games.outcome, games.record, "
            + ("decision_times.times" if timed else "NULL")
            + ", games.table_index, games.deal, games.rotation FROM games"
            + (" LEFT JOIN decision_times USING (game_id)" if timed else "")
        )
        if ids is None:
            rows: Iterable[tuple[str, str, str, str | None, int, int, int]] = self._query(
                columns + " ORDER BY games.table_index, games.deal, games.rotation"
            )
        else:
            # A few hundred ids at a time (SQLite caps a statement's parameters), then sorted:
            # asked-for games are few enough to hold.
            wanted = list(dict.fromkeys(ids))
            found = []
            for start in range(0, len(wanted), _IDS_PER_QUERY):
                chunk = wanted[start : start + _IDS_PER_QUERY]
                marks = ", ".join("?" * len(chunk))
                sql = f"{columns} WHERE games.game_id IN ({marks})"
                found += self._query(sql, chunk).fetchall()
            rows = sorted(found, key=lambda row: row[4:])
        for spec, result, record, times, *_ in rows:
            yield decode_outcome(spec, result, record, times)

    def _timed(self) -> bool:
        try:
            return has_times(self._db)
        except sqlite3.Error as error:
            raise SpectateError(f"cannot read {self.path}: {error}") from None

    def bot_lines(
        self, bot: str | None = None, games: Collection[str] | None = None
    ) -> Iterator[LogLine]:
        select = "SELECT id, bot, game_id, round, turn, source, text FROM bot_logs"
        of_bot, bots = (" AND bot = ?", [bot]) if bot is not None else ("", [])
        rows: Iterable[tuple[Any, ...]]
        if games is None:
            rows = self._query(f"{select} WHERE 1{of_bot} ORDER BY id", bots)
        else:  # a few hundred ids at a time, as `outcomes`; then in the order written
            wanted, found = list(dict.fromkeys(games)), []
            for start in range(0, len(wanted), _IDS_PER_QUERY):
                chunk = wanted[start : start + _IDS_PER_QUERY]
                sql = f"{select} WHERE game_id IN ({', '.join('?' * len(chunk))}){of_bot}"
                found += self._query(sql, [*chunk, *bots]).fetchall()
            rows = sorted(found)
        for _, *line in rows:
            yield LogLine(*line)

    def close(self) -> None:
        self._db.close()

    def _query(self, sql: str, params: Sequence[str | int] = ()) -> sqlite3.Cursor:
        """Run a query; a database whose run has not yet created its tables has no games."""
        try:
            return self._db.execute(sql, params)
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return self._db.execute("SELECT 1 WHERE 0")
            raise SpectateError(f"cannot read {self.path}: {error}") from None


def _connect(uri: str) -> sqlite3.Connection:
    """A read-only connection to a results database, checked by reading from it."""
    db = sqlite3.connect(uri, uri=True, timeout=30.0)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        db.close()
        raise
    return db


class ReplayFileSource(GameSource):
    """A replay file: one game's outcome (as JSON) a line, in schedule order."""

    def settings(self) -> dict[str, Any] | None:
        return None

    def entries(self) -> Iterator[GameEntry]:
        for number, outcome in enumerate(self.outcomes(), start=1):
            yield GameEntry(
                number,
                outcome.game_id,
                outcome.spec.seats,
                outcome.totals,
                outcome.winners,
                len(outcome.faults),
            )

    def outcomes(self, ids: Collection[str] | None = None) -> Iterator[GameOutcome]:
        with self.path.open("rb") as lines:  # bytes: a line that is not UTF-8 is named too
            for line_number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    outcome = GameOutcome.from_dict(json.loads(line.decode()))
                except UnicodeDecodeError:
                    raise SpectateError(
                        f"{self.path}:{line_number} is not a game of `arena run`: not UTF-8 text"
                    ) from None
                except (ValueError, KeyError, TypeError) as error:
                    raise SpectateError(
                        f"{self.path}:{line_number} is not a game of `arena run`: {error}"
                    ) from None
                if ids is None or outcome.game_id in ids:
                    yield outcome
