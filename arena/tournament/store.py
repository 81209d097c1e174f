"""The results database: one SQLite file, the tournament's settings and one row per finished game.

Each game is written in one transaction, in WAL mode, so a run killed at any moment (Ctrl-C,
SIGKILL, a crash of the arena) keeps every game it saved and nothing half-written. Rows are keyed
by the game's stable id, which makes saving idempotent and lets a resumed run skip what is
finished.

Durability is `synchronous=NORMAL`: a commit is in the write-ahead log, in the operating
system's hands, when `save` returns, so it survives the arena's process whatever happens to it.
A power loss or kernel crash may lose the last games saved (never the database: WAL keeps it
consistent), and a resumed run plays those again. `FULL` would also survive that, for an fsync
per game that blocks the arena's event loop, and so every game in progress, for as long as the
disk takes: 0.5 to 3 ms on the machine of `make bench`, where the rest of a save takes 0.6 ms.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.tournament.errors import TournamentMismatchError as TournamentMismatchError
from arena.tournament.outcome import GameOutcome

DATABASE = "results.sqlite"
"""The results database in a tournament's output folder; the other names are its neighbours."""
STANDINGS_JSON = "standings.json"
STANDINGS_CSV = "standings.csv"
REPLAYS = "replays.jsonl"
"""One finished game a line, as JSON: what spectators replay without the database."""
LOGS = "logs"
"""The bots' logs: logs/NAME.log."""
WORK = "work"
"""Each bot's working folder is work/NAME in the output folder."""

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS tournament (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        settings TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS games (
        game_id TEXT PRIMARY KEY,
        table_index INTEGER NOT NULL,
        deal INTEGER NOT NULL,
        rotation INTEGER NOT NULL,
        spec TEXT NOT NULL,
        outcome TEXT NOT NULL,
        record TEXT NOT NULL
    )""",
    # Lets `outcomes` stream in schedule order straight off the index, without a sort.
    "CREATE INDEX IF NOT EXISTS games_order ON games (table_index, deal, rotation)",
)

_BUSY_TIMEOUT = 30.0
"""Seconds to wait for another connection's write lock before giving up."""


def decode_outcome(spec: str, outcome: str, record: str) -> GameOutcome:
    """A game as stored in its row's three JSON columns (for every reader of the database)."""
    data = json.loads(outcome)
    data["spec"] = json.loads(spec)
    data["record"] = json.loads(record)
    return GameOutcome.from_dict(data)


class ResultStore:
    """A tournament's results database, opened (or created) on a file in the output folder."""

    def __init__(self, path: Path | str, settings: Mapping[str, Any]) -> None:
        """Open `path` for the tournament `settings` (JSON values); refuse another tournament's."""
        self.path = Path(path)
        # Autocommit: transactions are begun and ended explicitly, one per write.
        self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a committed game survives any crash of this process; see the module's note.
            self._db.execute("PRAGMA synchronous=NORMAL")
            with self._transaction():
                for statement in _SCHEMA:
                    self._db.execute(statement)
                self._claim(_canonical(settings))
        except BaseException:
            self._db.close()
            raise

    @property
    def settings(self) -> dict[str, Any]:
        """The tournament's settings, as stored."""
        (text,) = self._db.execute("SELECT settings FROM tournament").fetchone()
        settings: dict[str, Any] = json.loads(text)
        return settings

    def save(self, outcome: GameOutcome) -> bool:
        """Store one finished game in one transaction; False if it was stored already.

        A game stored twice keeps its first result, so what was stored (and maybe reported)
        never changes. The same id with another spec means two tournaments are being mixed.
        """
        spec = outcome.spec
        spec_json, result_json, record_json = _columns(outcome)
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO games (game_id, table_index, deal, rotation, spec, outcome, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                (
                    spec.game_id,
                    spec.table,
                    spec.deal,
                    spec.rotation,
                    spec_json,
                    result_json,
                    record_json,
                ),
            )
            if cursor.rowcount:
                return True
            (stored,) = self._db.execute(
                "SELECT spec FROM games WHERE game_id = ?", (spec.game_id,)
            ).fetchone()
        if stored != spec_json:
            raise TournamentMismatchError(
                f"{self.path}: game {spec.game_id!r} is stored with another spec: {stored}"
            )
        return False

    def finished_ids(self) -> set[str]:
        """The ids of every stored game: a resumed run skips them."""
        return {game_id for (game_id,) in self._db.execute("SELECT game_id FROM games")}

    def count(self) -> int:
        """How many games are stored."""
        (count,) = self._db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(count)

    def outcomes(self) -> Iterator[GameOutcome]:
        """Every stored game in schedule order (table, deal, rotation), read one row at a time."""
        rows = self._db.execute(
            "SELECT spec, outcome, record FROM games ORDER BY table_index, deal, rotation"
        )
        for spec, result, record in rows:
            yield decode_outcome(spec, result, record)

    def close(self) -> None:
        """Close the database; every saved game is already on disk."""
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        # IMMEDIATE takes the write lock up front, so two writers wait instead of failing midway.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _claim(self, settings: str) -> None:
        """Store the settings of a new database; check them against an existing one's."""
        row = self._db.execute("SELECT settings FROM tournament").fetchone()
        if row is None:
            self._db.execute("INSERT INTO tournament (id, settings) VALUES (1, ?)", (settings,))
        elif row[0] != settings:
            raise TournamentMismatchError(
                f"{self.path} holds another tournament ({_differences(row[0], settings)}): "
                "use another output folder, or the same settings to resume"
            )


def _columns(outcome: GameOutcome) -> tuple[str, str, str]:
    """The spec, the outcome's own part and the record, each as canonical JSON.

    The outcome's part repeats the scores and winners by name from the record, so that the
    database can be queried with SQLite's JSON functions without reading records.
    """
    data = outcome.to_dict()
    spec, record = data.pop("spec"), data.pop("record")
    data["scores"] = outcome.scores
    data["winners"] = list(outcome.winners)
    # The record's column holds exactly `GameRecord.to_json()`: the same canonical form.
    return _canonical(spec), _canonical(data), _canonical(record)


def _canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _differences(stored: str, given: str) -> str:
    """Which settings differ, as "key: stored -> given" for a person to read."""
    old, new = json.loads(stored), json.loads(given)
    keys = sorted(set(old) | set(new))
    return ", ".join(
        f"{key}: {old.get(key)!r} -> {new.get(key)!r}"
        for key in keys
        if old.get(key) != new.get(key)
    )
