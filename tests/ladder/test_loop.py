"""The match loop over a real database and real bot processes: sets played, recorded once and
rated in order (rerate equals stored), placement then active, restart safety, the bench rule."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.errors import MachineError
from arena.ladder.db import repository as repo
from arena.ladder.db.engine import open_database, upgrade
from arena.ladder.db.models import LadderSet, Version
from arena.ladder.db.repository import DONE, RUNNING
from arena.ladder.history import differences
from arena.ladder.intake import Intake
from arena.ladder.loop import MatchLoop, record_set, set_folder
from arena.ladder.match import SetResult
from arena.ladder.rating import initial
from arena.ladder.settings import LadderSettings
from arena.tournament.config import TournamentConfig
from bench.ladder import play, seed_ladder

SETTINGS = LadderSettings(players=2, max_rounds=1, deadline=5.0, placement_sets=2)
UTC = dt.UTC


def now() -> dt.datetime:
    return dt.datetime.now(UTC)


def template(folder: Path) -> TournamentConfig:
    """A set's games one at a time, each bot's one process playing them all: two games at once
    started a process per seat for each, twice the start-ups, most of a set's CPU."""
    config = SETTINGS.tournament_config(folder / "sets", (), 0)
    return replace(config, reuse_processes=True, concurrency=1)


def done_sets(engine: Engine) -> list[LadderSet]:
    with Session(engine) as db:
        found = db.scalars(select(LadderSet).where(LadderSet.status == DONE)).all()
        for ladder_set in found:
            _ = ladder_set.seats
        return list(found)


@pytest.mark.integration
def test_sets_are_played_recorded_once_and_rerate_equals_stored(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    import random

    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest", "random": "random"})
    loop = MatchLoop(tmp_path, engine, SETTINGS, template(tmp_path), rng=random.Random(1))
    asyncio.run(play(loop, 4))
    sets = done_sets(engine)
    assert len(sets) >= 4
    assert all(
        len(s.seats) == 2 and all(seat.bullheads is not None for seat in s.seats) for s in sets
    )
    assert all(set_folder(tmp_path, s.id).is_dir() for s in sets)
    count, found = differences(engine, SETTINGS.tau)
    assert count == len(sets) and found == []
    with Session(engine) as db:
        versions = db.scalars(select(Version)).all()
        assert sum(v.sets for v in versions) == 2 * len(sets)
        assert {v.status for v in versions if v.sets >= 2} <= {"active"}
    # a set recorded again changes nothing: it is done
    with Session(engine) as db, db.begin():
        again = record_set(db, sets[0].id, SetResult((1, 2), (0, 0), 2, 0.0), SETTINGS)
    assert not again
    assert differences(engine, SETTINGS.tau)[1] == []


@pytest.mark.integration
def test_a_running_set_left_by_a_killed_server_is_played_again(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    import random

    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest"})
    loop = MatchLoop(tmp_path, engine, SETTINGS, template(tmp_path), rng=random.Random(2))
    table = loop.next_table()  # as a killed server leaves it: running, half a folder
    assert table is not None
    set_folder(tmp_path, table.set_id).mkdir(parents=True)
    (set_folder(tmp_path, table.set_id) / "results.sqlite").write_bytes(b"half")
    fresh = MatchLoop(tmp_path, engine, SETTINGS, template(tmp_path), rng=random.Random(3))
    asyncio.run(play(fresh, 1))
    with Session(engine) as db:
        first = db.get(LadderSet, table.set_id)
        assert first is not None and first.status == DONE
        assert db.scalars(select(LadderSet).where(LadderSet.status == RUNNING)).all() == []
    assert differences(engine, SETTINGS.tau)[1] == []


@pytest.mark.integration
def test_a_faulting_version_is_benched_with_its_faults_and_logs_shown_to_its_author(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    import random

    from fastapi.testclient import TestClient

    from arena.ladder.api.app import create_app
    from arena.ladder.api.deps import Served
    from arena.ladder.authors import hash_token, new_token
    from arena.ladder.db.models import Author

    illegal = Path(__file__).parents[1] / "bots" / "illegal_card_bot.py"
    settings = replace(SETTINGS, bench_window=2, bench_fault_share=0.5, placement_sets=5)
    # two bots at two seats: the illegal one plays every set, so it is benched after two
    engine = seed_ladder(tmp_path, {"lowest": "lowest", "illegal": illegal})
    token = new_token()
    with Session(engine) as db, db.begin():
        author = db.scalars(select(Author).where(Author.name == "author1")).one()
        author.token_hash = hash_token(token)
    loop = MatchLoop(tmp_path, engine, settings, template(tmp_path), rng=random.Random(4))

    async def until_benched() -> None:
        stop = asyncio.Event()
        running = asyncio.ensure_future(loop.run(stop))
        while not running.done():
            with Session(engine) as db:
                if db.get(Version, 2).status == "benched":  # type: ignore[union-attr]
                    break
            await asyncio.sleep(0.2)
        stop.set()
        await running

    asyncio.run(until_benched())
    client = TestClient(create_app(Served(tmp_path, engine, settings)))
    page = client.get("/api/versions/2", headers={"Authorization": f"Bearer {token}"}).json()
    assert page["status"] == "benched"
    assert "faulted in 2 of its last 2 sets" in page["reason"]
    assert page["faults"] and all(fault["kind"] for fault in page["faults"])
    assert any("asked for a card" in line["text"] for line in page["logs"])
    assert client.get("/api/versions/2").json()["reason"] is None  # its author's alone
    board = client.get("/api/leaderboard").json()
    assert {line["bot"]: line["status"] for line in board}["illegal"] == "benched"


@pytest.mark.integration
def test_two_sets_at_once_are_each_rated_once_in_the_order_recorded(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    import random

    settings = replace(SETTINGS, sets_at_once=2)
    bots = {"lowest": "lowest", "highest": "highest", "random": "random", "heuristic": "heuristic"}
    engine = seed_ladder(tmp_path, bots)
    loop = MatchLoop(tmp_path, engine, settings, template(tmp_path), rng=random.Random(5))
    asyncio.run(play(loop, 4))  # two at once, twice over
    sets = done_sets(engine)
    assert len(sets) >= 4
    assert sorted(s.rated for s in sets) == list(range(1, len(sets) + 1))
    assert differences(engine, settings.tau) == (len(sets), [])


def test_a_machine_fault_ends_the_serve_a_versions_does_not() -> None:
    import errno

    from sqlalchemy.exc import OperationalError

    from arena.errors import MachineError
    from arena.ladder.loop import machine_fault

    assert machine_fault(OSError(errno.ENOSPC, "No space left on device"))
    assert machine_fault(OperationalError("SELECT 1", {}, Exception("gone")))
    assert machine_fault(MachineError("no sandbox"))
    assert not machine_fault(FileNotFoundError(errno.ENOENT, "No such file or directory"))
    assert not machine_fault(PermissionError(errno.EACCES, "Permission denied"))
    assert not machine_fault(IndexError("empty"))


@dataclass
class Looks:
    """How many times a run looked for work: the hook the test puts in it counts."""

    count: int = 0

    def seen(self) -> None:
        self.count += 1


def looks_under_two_loops(
    run: Callable[[asyncio.Event], Awaitable[None]], looks: Looks
) -> list[int]:
    """How many times `run` looked in each of two `asyncio.run`s, each stopped 0.2 s in: a run
    that waits looks once (its wait ends only at `stop`), one that spins looks thousands of
    times."""
    counts = []

    async def once() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.2, stop.set)
        await run(stop)

    for _ in range(2):
        before = looks.count
        asyncio.run(once())
        counts.append(looks.count - before)
    return counts


def test_the_match_loop_waits_under_a_second_event_loop_rather_than_spin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its wake-up Event was made in `__init__` and bound to the first loop: under the second,
    its wait failed at once, and the loop looked again at once, over and over (44 looks in
    0.2 s here, each asking the database; some 26,000 a second when a look is cheap).
    A ladder with no version: nothing to play, so a turn is a look (`count_workers`, asked
    once a turn) and a wait, which no poll ends within the test (POLL an hour), only `stop`."""
    monkeypatch.setattr("arena.ladder.loop.POLL", 3600.0)
    engine = open_database(tmp_path)
    upgrade(engine)
    looks = Looks()

    async def workers() -> int:
        looks.seen()
        return 1

    matches = MatchLoop(tmp_path, engine, SETTINGS, template(tmp_path), workers=workers)
    assert looks_under_two_loops(matches.run, looks) == [1, 1]
    engine.dispose()


def test_the_vetting_task_waits_under_a_second_event_loop_rather_than_spin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for `Intake`, whose wake-up Event was made the same way: nothing received, so a
    turn is a look (`_next`) and a wait that only `stop` ends."""
    monkeypatch.setattr("arena.ladder.intake.POLL", 3600.0)
    engine = open_database(tmp_path)
    upgrade(engine)
    intake = Intake(tmp_path, engine, SETTINGS)
    looks = Looks()
    look = intake._next

    def counted() -> int | None:
        looks.seen()
        return look()

    monkeypatch.setattr(intake, "_next", counted)
    assert looks_under_two_loops(intake.run, looks) == [1, 1]
    engine.dispose()


def test_a_version_whose_vetting_raises_is_an_error_and_the_serve_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload is hostile input: whatever vetting raises on it that is not the machine's ends
    that version as `error` (its author told without the server's paths, the organizer given
    the traceback), where it ended the serve, and every restart after it. The machine's own
    faults still end the serve."""
    engine = open_database(tmp_path)
    upgrade(engine)
    with Session(engine) as db, db.begin():
        author = repo.add_author(db, "ann", "h1")
        broken = repo.add_version(db, author, "bot", "a" * 64, "building", initial()).id
        machine = repo.add_version(db, author, "bot", "b" * 64, "building", initial()).id
    said: list[str] = []
    intake = Intake(tmp_path, engine, SETTINGS, say=said.append)

    async def raising(version_id: int) -> None:
        if version_id == broken:
            raise ValueError("File name too long: '/srv/ladder/built/1/x...'")
        raise MachineError("no sandbox: install bubblewrap")

    monkeypatch.setattr(intake, "vet", raising)
    asyncio.run(intake.vet_or_refuse(broken))
    with pytest.raises(MachineError):
        asyncio.run(intake.vet_or_refuse(machine))
    with Session(engine) as db:
        refused, kept = db.get_one(Version, broken), db.get_one(Version, machine)
        assert refused.status == "error" and "ValueError" in (refused.reason or "")
        assert "/srv" not in (refused.reason or "")
        assert kept.status == "building"  # vetted again once the machine is mended
    assert any("Traceback" in line and "File name too long" in line for line in said)
    engine.dispose()
