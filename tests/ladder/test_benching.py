"""A version benched and restored by an organizer (`benching`), over a real database: its status
moves as versions.py says, its author reads why, and who did what is kept; the loop's count of
workers (a unit test of the loop alone: the count is a stand-in)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from arena.ladder.access import Refused
from arena.ladder.benching import bench_by, restore_by
from arena.ladder.db import repository
from arena.ladder.db.models import Author, Version
from arena.ladder.loop import MatchLoop
from arena.ladder.settings import LadderSettings
from bench.ladder import seed_ladder


def test_an_organizer_benches_and_restores_a_version_and_it_is_recorded(tmp_path: Path) -> None:
    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest"})
    with Session(engine) as db, db.begin():
        boss = repository.add_author(db, "boss", "f" * 64, organizer=True)
        version = db.get(Version, 1)
        assert version is not None
        bench_by(db, version, boss, "  it floods its log  ")
        assert version.status == "benched"
        assert version.reason == "benched by the organizer boss: it floods its log"
        with pytest.raises(Refused, match="only a version in placement or active") as again:
            bench_by(db, version, boss, "twice")
        assert again.value.status == 409
        restore_by(db, version, boss, "fixed upstream")
        assert version.status == "placement" and version.reason is None
        with pytest.raises(Refused, match="only a benched one can be restored"):
            restore_by(db, version, boss, "again")
    with Session(engine) as db:
        actions = repository.organizer_actions(db)
        assert [(a.action, a.reason, a.organizer.name, a.version_id) for a in actions] == [
            ("restored", "fixed upstream", "boss", 1),
            ("benched", "it floods its log", "boss", 1),
        ]
    engine.dispose()


@pytest.mark.parametrize(
    ("reason", "says"),
    [("", "say why"), ("   ", "say why"), ("a\nb", "one line"), ("x" * 501, "one line")],
)
def test_an_organizers_reason_is_one_line_of_text(tmp_path: Path, reason: str, says: str) -> None:
    engine = seed_ladder(tmp_path, {"lowest": "lowest"})
    with Session(engine) as db, db.begin():
        boss = repository.add_author(db, "boss", "f" * 64, organizer=True)
        version = db.get(Version, 1)
        assert version is not None
        with pytest.raises(Refused, match=says) as refused:
            bench_by(db, version, boss, reason)
        assert refused.value.status == 400 and version.status == "placement"
        assert db.query(Author).count() == 2
    engine.dispose()


def test_the_loop_counts_the_workers_up_and_zero_when_the_scheduler_is_silent(
    tmp_path: Path,
) -> None:
    """A unit test of the loop alone: the count is a stand-in for a cluster's."""
    answers: list[int | Exception] = [3, OSError("scheduler gone"), 2]

    async def count() -> int:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    engine = seed_ladder(tmp_path, {"lowest": "lowest"})
    settings = LadderSettings(players=2)
    loop = MatchLoop(tmp_path, engine, settings, settings.tournament_config(tmp_path, (), 0))
    assert loop.report.workers_up == 1  # this machine, without a count
    asyncio.run(loop.count_workers())
    assert loop.report.workers_up == 1
    loop.workers = count
    seen = []
    for _ in range(3):
        asyncio.run(loop.count_workers())
        seen.append(loop.report.workers_up)
    assert seen == [3, 0, 2]
    engine.dispose()


def test_the_loop_reports_the_workers_a_set_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit test of the loop alone: `play_set` is a stand-in that says a worker was lost."""
    import arena.ladder.loop as loop_module
    from arena.ladder.match import SetResult

    async def played(*args: object, **kwargs: object) -> SetResult:
        return SetResult((3, 5), (0, 0), 2, 0.0, lost=("worker-b",))

    monkeypatch.setattr(loop_module, "play_set", played)
    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest"})
    settings = LadderSettings(players=2)
    loop = MatchLoop(tmp_path, engine, settings, settings.tournament_config(tmp_path, (), 0))
    table = loop.next_table()
    assert table is not None
    asyncio.run(loop.play(table, asyncio.Event()))
    assert loop.report.workers_lost == ["worker-b"] and loop.report.played == 1
    engine.dispose()
