"""The results database: one SQLite file, the tournament's fixed settings, its bots, and one row
per finished game.

Each game is written in one transaction, in WAL mode, so a run killed at any moment (Ctrl-C,
SIGKILL, a crash of the arena) keeps every game it saved and nothing half-written. Rows are keyed
by the game's stable id, which makes saving idempotent and lets a resumed run skip what is
finished.

What a tournament is made of comes in two parts. What must never change, or stored games would
no longer be comparable (the rules, the seed, the deadlines, the fault limit, the sample), is the
`tournament` row, checked on every open. What may grow is kept beside it: every bot entered, with
its fingerprint (the content hash of its program or submission folder, which must not change
either, `bots`), and notes on the latest run (`notes`: the games it planned, the submissions it
left out). A run with more deals or more bots adds games; the games already stored stay.

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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.server.botlog import LogLine
from arena.tournament.errors import TournamentMismatchError as TournamentMismatchError
from arena.tournament.outcome import (
    Disqualification,
    GameOutcome,
    times_from_json,
    times_to_json,
)

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
BUILDS = "builds"
"""Each submission is copied and built in builds/NAME-HASH, never in the folder submitted."""

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
    # Every line of the bots' logs, in the order written (`id`), with where its bot was: the
    # game, round and turn (NULL between games, before a game's first decision, in the draft).
    """CREATE TABLE IF NOT EXISTS bot_logs (
        id INTEGER PRIMARY KEY,
        bot TEXT NOT NULL,
        game_id TEXT,
        round INTEGER,
        turn INTEGER,
        source TEXT NOT NULL,
        text TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS bot_logs_by_game ON bot_logs (game_id, bot)",
    # How long each seat took over each decision of a game (`outcome.times_to_json`), kept out
    # of the games' own columns: the same tournament gives the same games, never the same times.
    """CREATE TABLE IF NOT EXISTS decision_times (
        game_id TEXT PRIMARY KEY,
        times TEXT NOT NULL
    )""",
    # Every bot entered, what it must stay (its fingerprint), how it was started, and when (the
    # game, and the rowid of that game: the order games were saved in) it was disqualified.
    """CREATE TABLE IF NOT EXISTS bots (
        name TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        command TEXT NOT NULL,
        start TEXT NOT NULL,
        disqualified TEXT NOT NULL DEFAULT '',
        disqualified_in TEXT NOT NULL DEFAULT '',
        disqualified_order INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # The number of every seating that has had a game stored, by its bots in seat order (JSON):
    # kept when its games are dropped (`replace`), so that they keep their ids when played again.
    """CREATE TABLE IF NOT EXISTS seatings (
        seating INTEGER PRIMARY KEY,
        seats TEXT NOT NULL UNIQUE
    )""",
)

_BUSY_TIMEOUT = 30.0
"""Seconds to wait for another connection's write lock before giving up."""

PLANNED = "planned"
"""The note of how many games the whole tournament has, as the latest run planned it: every
table's, a gauntlet's run too (which plays only some of them)."""
LEFT_OUT = "left_out"
"""The note of the submissions the latest run left out: [[folder, reason], ...]."""
RUN = "run"
"""The note of how the latest run played, for the organizer (standings.json shows it): its seed,
whether the organizer chose it, and whether the bots ran sealed and in cgroups, and if not why
(`{"seed": N, "seed_chosen": false, "sealed": true, "cgroups": true, "notes": []}`)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """A bot as the store knows it."""

    name: str
    fingerprint: str
    """What must not change between runs: its command and the content hash of its files."""
    command: str
    """How it was entered, for people."""
    argv: tuple[str, ...] | None
    """What started it (None for an external bot): `arena play --game` starts it again."""
    cwd: str | None
    """Its working folder, when it has its own (a submission's build)."""
    disqualified: Disqualification | None = None
    """When and why it was put out of the tournament; None while it plays."""


def decode_outcome(spec: str, outcome: str, record: str, times: str | None = None) -> GameOutcome:
    """A game as stored in its row's three JSON columns (for every reader of the database), with
    its decision times when they are given (`decision_times`)."""
    data = json.loads(outcome)
    data["spec"] = json.loads(spec)
    data["record"] = json.loads(record)
    return _timed(GameOutcome.from_dict(data), times)


def _timed(outcome: GameOutcome, times: str | None) -> GameOutcome:
    if not times:
        return outcome
    return replace(outcome, times=times_from_json(json.loads(times)))


def has_times(db: sqlite3.Connection) -> bool:
    """Whether a results database keeps decision times (one made before they were kept does
    not)."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'decision_times'"
    ).fetchone()
    return found is not None


SCHEDULE = "games.table_index, games.deal, games.rotation"
"""The order games are read in: the schedule's (table, deal, rotation), whenever they were
played."""


def select_games(
    columns: str, db: sqlite3.Connection, where: str = "", order: str = SCHEDULE
) -> str:
    """A query of `columns` of the games (each `games.NAME`) and their times (NULL when none
    are kept), in schedule order (or `order`)."""
    times = "decision_times.times" if has_times(db) else "NULL"
    join = " LEFT JOIN decision_times USING (game_id)" if has_times(db) else ""
    return f"SELECT {columns}, {times} FROM games{join} {where} ORDER BY {order}"


def decode_result(spec: str, outcome: str, times: str | None = None) -> GameOutcome:
    """A game as its spec and outcome columns hold it, without reading its record: its rounds
    are left empty, its totals and winners come from the outcome's copy. What standings need,
    at a fraction of the cost."""
    data = json.loads(outcome)
    game = data["spec"] = json.loads(spec)
    seats, scores, names = game["seats"], data["scores"], data["winners"]
    data["record"] = {
        "settings": game["settings"],
        "rotation": game["rotation"],
        "rounds": (),
        "totals": [scores[bot] for bot in seats],
        "winners": [seat for seat, bot in enumerate(seats) if bot in names],
    }
    return _timed(GameOutcome.from_dict(data), times)


def decode_entry(row: tuple[str, str, str, str, str, str, int]) -> Entry:
    """A row of the `bots` table."""
    name, fingerprint, command, start, why, game_id, order = row
    started = json.loads(start)
    argv = started.get("argv")
    disqualified = Disqualification(name, why, game_id, order) if why else None
    return Entry(
        name,
        fingerprint,
        command,
        tuple(argv) if argv is not None else None,
        started.get("cwd"),
        disqualified,
    )


def read_only_uri(path: Path, held: bool = False) -> str:
    """The URI that opens the database at `path` to read it only.

    SQLite makes a write-ahead log and its index beside a database in WAL mode that it reads,
    and a reader cannot remove them: a run refused after reading its folder's database would
    leave its folder changed. A database closed cleanly has no log beside it, and all of it is
    in its file; when no run may write it meanwhile (`held`: the caller holds the folder), it is
    read as immutable, which writes nothing. One with a log (a run going on, or one killed) is
    read through its log."""
    uri = path.resolve().as_uri() + "?mode=ro"
    if held and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return uri


def read_entries(db: sqlite3.Connection) -> dict[str, Entry]:
    """Every bot in a results database, by name; none in one made before bots were stored."""
    try:
        rows = db.execute(
            "SELECT name, fingerprint, command, start, disqualified, disqualified_in, "
            "disqualified_order FROM bots ORDER BY name"
        ).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return {}
        raise
    return {row[0]: decode_entry(row) for row in rows}


def read_notes(db: sqlite3.Connection) -> dict[str, Any]:
    """The notes of the latest run (JSON values by key); empty when there are none."""
    try:
        rows = db.execute("SELECT key, value FROM notes").fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return {}
        raise
    return {key: json.loads(value) for key, value in rows}


class ResultStore:
    """A tournament's results database, opened (or created) on a file in the output folder.

    `ResultStore.reader(path)` opens an existing one read-only, for a reader beside the writer
    (the live standings, written from another thread, and spectators).
    """

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
                self._number_seatings()
        except BaseException:
            self._db.close()
            raise

    @classmethod
    def reader(cls, path: Path | str, *, held: bool = False) -> ResultStore:
        """An existing database opened read-only: the reading methods work, writes fail.

        `held`: the caller holds the output folder (`arena.tournament.folder`), so that no run
        writes the database meanwhile; reading it then writes nothing at all (`read_only_uri`).
        """
        store = cls.__new__(cls)
        store.path = Path(path)
        uri = read_only_uri(store.path, held)
        store._db = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT, isolation_level=None)
        return store

    @property
    def settings(self) -> dict[str, Any]:
        """The tournament's settings, as stored."""
        (text,) = self._db.execute("SELECT settings FROM tournament").fetchone()
        settings: dict[str, Any] = json.loads(text)
        return settings

    def save(self, outcome: GameOutcome, disqualified: Iterable[Disqualification] = ()) -> bool:
        """Store one finished game in one transaction; False if it was stored already.

        `disqualified` are the bots put out in this game: stored with it, in the same transaction,
        with the game's place in the order games were saved (unless one was stored already).
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
                    spec.seating,
                    spec.deal,
                    spec.rotation,
                    spec_json,
                    result_json,
                    record_json,
                ),
            )
            if cursor.rowcount:
                self._db.execute(
                    "INSERT OR IGNORE INTO seatings (seating, seats) VALUES (?, ?)",
                    (spec.seating, _canonical(list(spec.seats))),
                )
                self._write_lines(outcome.logs)
                if outcome.times:
                    self._db.execute(
                        "INSERT OR REPLACE INTO decision_times (game_id, times) VALUES (?, ?)",
                        (spec.game_id, _canonical(times_to_json(outcome.times))),
                    )
                order = cursor.lastrowid or 0
                for out in disqualified:
                    self._db.execute(
                        "UPDATE bots SET disqualified = ?, disqualified_in = ?, "
                        "disqualified_order = ? WHERE name = ? AND disqualified = ''",
                        (out.reason, spec.game_id, order, out.bot),
                    )
                return True
            (stored,) = self._db.execute(
                "SELECT spec FROM games WHERE game_id = ?", (spec.game_id,)
            ).fetchone()
        if stored != spec_json:
            raise TournamentMismatchError(
                f"{self.path}: game {spec.game_id!r} is stored with another spec: {stored}"
            )
        return False

    def save_lines(self, lines: Iterable[LogLine]) -> None:
        """Store lines of the bots' logs that came with no game (written between games, or after
        the last), in one transaction."""
        with self._transaction():
            self._write_lines(lines)

    def _write_lines(self, lines: Iterable[LogLine]) -> None:
        self._db.executemany(
            "INSERT INTO bot_logs (bot, game_id, round, turn, source, text)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            ((x.bot, x.game_id, x.round, x.turn, x.source, x.text) for x in lines),
        )

    def finished_ids(self) -> set[str]:
        """The ids of every stored game: a resumed run skips them."""
        return {game_id for (game_id,) in self._db.execute("SELECT game_id FROM games")}

    def count(self) -> int:
        """How many games are stored."""
        (count,) = self._db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(count)

    def outcomes(self) -> Iterator[GameOutcome]:
        """Every stored game in schedule order (table, deal, rotation), read one row at a time."""
        query = select_games("games.spec, games.outcome, games.record", self._db)
        for spec, result, record, times in self._db.execute(query):
            yield decode_outcome(spec, result, record, times)

    def results(self) -> Iterator[GameOutcome]:
        """Every stored game as `outcomes` gives it, but without the rounds of its record
        (`decode_result`): enough for standings, several times faster to read."""
        query = select_games("games.spec, games.outcome", self._db)
        for spec, result, times in self._db.execute(query):
            yield decode_result(spec, result, times)

    def results_since(self, saved: int) -> Iterator[tuple[int, GameOutcome]]:
        """The games saved after the one saved as `saved` (0: every game), as `results` gives
        them but in the order they were saved, each with its own number: a reader that keeps a
        tally of them (the live standings) reads each game once. Games are only ever added
        while a run goes on, under numbers that only grow (SQLite's rowid)."""
        columns = "games.rowid, games.spec, games.outcome"
        query = select_games(columns, self._db, "WHERE games.rowid > ?", order="games.rowid")
        for number, spec, result, times in self._db.execute(query, (saved,)):
            yield number, decode_result(spec, result, times)

    def seatings(self) -> dict[tuple[str, ...], int]:
        """The number of every seating that has had a game stored, by its bots in seat order,
        its games dropped by `replace` since or not: a grown tournament keeps these, and numbers
        its new seatings after them, so that a stored game's id never changes."""
        rows = self._db.execute("SELECT seating, seats FROM seatings")
        return {tuple(json.loads(seats)): index for index, seats in rows}

    def deals(self) -> int:
        """Deals per table in the stored games: one more than the highest deal index."""
        (deal,) = self._db.execute("SELECT MAX(deal) FROM games").fetchone()
        return 0 if deal is None else int(deal) + 1

    def entries(self) -> dict[str, Entry]:
        """Every bot entered so far, by name."""
        return read_entries(self._db)

    def notes(self) -> dict[str, Any]:
        """The latest run's notes (`PLANNED`, `LEFT_OUT`)."""
        return read_notes(self._db)

    def enter(self, entries: Iterable[Entry], notes: Mapping[str, Any]) -> None:
        """Record the bots of a run (new ones added, known ones' start updated; a fingerprint
        is only ever set for a new bot or by `replace`) and its notes, in one transaction."""
        with self._transaction():
            for entry in entries:
                start = _canonical({"argv": entry.argv, "cwd": entry.cwd})
                self._db.execute(
                    "INSERT INTO bots (name, fingerprint, command, start) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET command = excluded.command, "
                    "start = excluded.start",
                    (entry.name, entry.fingerprint, entry.command, start),
                )
            for key, value in notes.items():
                self._db.execute(
                    "INSERT INTO notes (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, _canonical(value)),
                )

    def disqualify(self, out: Disqualification) -> None:
        """Record a bot put out outside any stored game, as after every game stored so far
        (unless it is on record already)."""
        with self._transaction():
            (last,) = self._db.execute("SELECT COALESCE(MAX(rowid), 0) FROM games").fetchone()
            self._db.execute(
                "UPDATE bots SET disqualified = ?, disqualified_in = ?, disqualified_order = ? "
                "WHERE name = ? AND disqualified = ''",
                (out.reason, out.game_id, out.order or int(last) + 1, out.bot),
            )

    def replace(self, name: str, fingerprint: str) -> int:
        """Drop every game of bot `name` and forget its disqualification, taking `fingerprint`
        as its own from now on; returns how many games were dropped. One transaction. Their
        seatings keep their numbers (`seatings`): played again, the games have the same ids.

        A bot put out in one of the dropped games is no longer out: its games are played again.
        """
        with self._transaction():
            rows = self._db.execute("SELECT game_id, spec FROM games").fetchall()
            dropped = [game_id for game_id, spec in rows if name in json.loads(spec)["seats"]]
            for game_id in dropped:
                self._db.execute("DELETE FROM games WHERE game_id = ?", (game_id,))
                self._db.execute("DELETE FROM decision_times WHERE game_id = ?", (game_id,))
                self._db.execute(
                    "UPDATE bots SET disqualified = '', disqualified_in = '', "
                    "disqualified_order = 0 WHERE disqualified_in = ?",
                    (game_id,),
                )
            self._db.execute(
                "UPDATE bots SET fingerprint = ?, disqualified = '', disqualified_in = '', "
                "disqualified_order = 0 WHERE name = ?",
                (fingerprint, name),
            )
        return len(dropped)

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

    def mismatch(self, settings: Mapping[str, Any]) -> str | None:
        """How the tournament stored here differs from `settings` ("key: stored -> given"), for
        a reader that checks a run before it writes anything; None if it does not (the same
        settings, none stored yet, or no game stored: see `_claim`)."""
        try:
            row = self._db.execute("SELECT settings FROM tournament").fetchone()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return None
            raise
        given = _canonical(settings)
        if row is None or row[0] == given or not self.count():
            return None
        return _differences(row[0], given)

    def _number_seatings(self) -> None:
        """Fill the `seatings` table of a database made before it was kept, from its games."""
        if self._db.execute("SELECT 1 FROM seatings LIMIT 1").fetchone() is not None:
            return
        rows = self._db.execute("SELECT table_index, MIN(spec) FROM games GROUP BY table_index")
        self._db.executemany(
            "INSERT OR IGNORE INTO seatings (seating, seats) VALUES (?, ?)",
            ((index, _canonical(json.loads(spec)["seats"])) for index, spec in rows.fetchall()),
        )

    def _claim(self, settings: str) -> None:
        """Store the settings of a new database; check them against an existing one's.

        A database that holds no game yet takes the new settings: it has no game whose rules
        they must stay, and a run stopped before its first game (killed, or refused by what it
        met at its start) must not lock its folder to the settings it was given."""
        row = self._db.execute("SELECT settings FROM tournament").fetchone()
        if row is None:
            self._db.execute("INSERT INTO tournament (id, settings) VALUES (1, ?)", (settings,))
        elif row[0] != settings and not self.count():
            self._db.execute("UPDATE tournament SET settings = ? WHERE id = 1", (settings,))
        elif row[0] != settings:
            raise TournamentMismatchError(_differences(row[0], settings))


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
