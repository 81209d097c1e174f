"""The results database: round trips, idempotent saves, resumes, refusals, and crashes."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import Fault, FaultKind
from arena.rules import Decision, Settings
from arena.tournament import GameOutcome, ResultStore, TournamentMismatchError, schedule
from tests.tournament.helpers import played

BOTS = ["ann", "bob", "cyd", "dan"]
SETTINGS = {"bots": BOTS, "players": 3, "deals": 2, "seed": 5}
SPECS = schedule(BOTS, Settings(players=3, end_score=20), 2, 5)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def outcomes() -> list[GameOutcome]:
    """Every game of a small tournament, played in-process; one with a fault."""
    fault = Fault(2, FaultKind.ILLEGAL, Decision.CARD, 0, 1, "card 105 is not in hand")
    return [played(spec, [fault] if index == 3 else []) for index, spec in enumerate(SPECS)]


def test_round_trip_in_schedule_order(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    shuffled = outcomes[:]
    random.Random(1).shuffle(shuffled)
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        for outcome in shuffled:
            assert store.save(outcome)
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        assert list(store.outcomes()) == outcomes
        assert store.count() == len(outcomes)
        assert store.settings == SETTINGS


def test_games_saved_since_a_number_are_read_in_the_order_saved(
    tmp_path: Path, outcomes: list[GameOutcome]
) -> None:
    shuffled = outcomes[:]
    random.Random(2).shuffle(shuffled)
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        for outcome in shuffled[:4]:
            store.save(outcome)
        first = list(store.results_since(0))
        for outcome in shuffled[4:]:
            store.save(outcome)
        later = list(store.results_since(first[-1][0]))
        results = {outcome.game_id: outcome for outcome in store.results()}
    numbers = [number for number, _ in first + later]
    assert numbers == sorted(set(numbers))
    assert [outcome.game_id for _, outcome in first + later] == [o.game_id for o in shuffled]
    assert [outcome for _, outcome in first + later] == [results[o.game_id] for o in shuffled]


def test_saving_twice_keeps_one_row(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        assert store.save(outcomes[0])
        assert not store.save(outcomes[0])
        assert store.count() == 1


def test_saving_another_game_under_a_stored_id_fails(
    tmp_path: Path, outcomes: list[GameOutcome]
) -> None:
    first, second = outcomes[0], outcomes[3]
    impostor = played(replace(second.spec, game_id=first.game_id))
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        store.save(first)
        with pytest.raises(TournamentMismatchError, match="stored with another spec"):
            store.save(impostor)
        assert list(store.outcomes()) == [first]


def test_resume_sees_finished_games(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        for outcome in outcomes[:5]:
            store.save(outcome)
    with ResultStore(tmp_path / "results.sqlite", dict(SETTINGS)) as store:
        assert store.finished_ids() == {outcome.game_id for outcome in outcomes[:5]}


def test_refuses_another_tournament(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        store.save(outcomes[0])
    other = {**SETTINGS, "seed": 6}
    with pytest.raises(TournamentMismatchError, match=r"^seed: 5 -> 6$"):
        ResultStore(tmp_path / "results.sqlite", other)
    with ResultStore.reader(tmp_path / "results.sqlite") as reader:
        assert reader.mismatch(other) == "seed: 5 -> 6" and reader.mismatch(SETTINGS) is None


def test_a_database_without_a_game_takes_the_settings_of_the_run_that_plays_it(
    tmp_path: Path,
) -> None:
    """A run stopped before its first game (killed, or refused by what it met at its start)
    must not lock its folder to the settings it was given."""
    ResultStore(tmp_path / "results.sqlite", SETTINGS).close()
    other = {**SETTINGS, "seed": 6}
    with ResultStore.reader(tmp_path / "results.sqlite") as reader:
        assert reader.mismatch(other) is None
    with ResultStore(tmp_path / "results.sqlite", other) as store:
        assert store.settings == other


def test_outcomes_stream(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        for outcome in outcomes:
            store.save(outcome)
        stream = store.outcomes()
        assert next(stream) == outcomes[0]
        assert next(stream) == outcomes[1]


def test_database_is_in_wal_mode_and_queryable(tmp_path: Path, outcomes: list[GameOutcome]) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        store.save(outcomes[3])
    db = sqlite3.connect(tmp_path / "results.sqlite")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        faults, record = db.execute(
            "SELECT json_array_length(outcome, '$.faults'), record FROM games"
        ).fetchone()
    finally:
        db.close()
    assert faults == 1
    assert record == outcomes[3].record.to_json()


CRASHER = """
import sys
from arena.tournament import ResultStore
from tests.tournament.helpers import made_up

with ResultStore(sys.argv[1], {"crash": True}) as store:
    for index in range(100_000):
        store.save(made_up(["ann", "bob"], [index, 66], seating=index))
        print(index, flush=True)
"""


@pytest.mark.integration
def test_every_saved_game_survives_a_kill(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    saved = [int(child.stdout.readline()) for _ in range(30)]
    child.send_signal(signal.SIGKILL)  # mid-stream: it is saving more games as we kill it
    child.wait()
    with ResultStore(path, {"crash": True}) as store:
        finished = store.finished_ids()
        stored = list(store.outcomes())
    assert {f"t{index:03d}-d00-r0" for index in saved} <= finished
    assert len(stored) == len(finished) >= 30
    assert [outcome.totals[0] for outcome in stored] == list(range(len(stored)))


def test_a_database_made_before_seatings_were_kept_numbers_them_from_its_games(
    tmp_path: Path, outcomes: list[GameOutcome]
) -> None:
    path = tmp_path / "results.sqlite"
    with ResultStore(path, SETTINGS) as store:
        for outcome in outcomes:
            store.save(outcome)
        numbered = store.seatings()
    assert len(numbered) > 1
    db = sqlite3.connect(path)
    db.execute("DROP TABLE seatings")
    db.close()
    with ResultStore(path, SETTINGS) as store:
        assert store.seatings() == numbered
