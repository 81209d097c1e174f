"""The pages section's ladder: stored with the shapes of a real one, and rated exactly as the
match loop rates (what `arena ladder rerate` checks). In-process, on SQLite in a temporary
folder; the section itself runs in `test_bench.py`'s quick bench."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ladder.db import repository
from arena.ladder.db.engine import open_database, upgrade
from arena.ladder.db.models import LadderSet, SetSeat, Version
from arena.ladder.history import differences
from arena.ladder.settings import LadderSettings
from arena.ladder.versions import VersionStatus
from bench.pages import SEATS, VERSIONS, Route, seed_ladder, summary


def test_the_stored_ladder_has_real_shapes_and_its_ratings_replay_equal(tmp_path: Path) -> None:
    engine = open_database(tmp_path)
    upgrade(engine)
    seeded = seed_ladder(engine, bots=12, sets=150, rng=random.Random(3))
    try:
        assert seeded.recorded == 15 and seeded.record_cpu_s > 0  # the last tenth, one by one
        assert differences(engine, LadderSettings().tau) == (150, [])  # rerate: nothing differs
        with Session(engine) as db:
            versions = list(db.scalars(select(Version)))
            per_bot = Counter(version.bot.name for version in versions)
            assert len(per_bot) == 12 and set(per_bot.values()) <= set(VERSIONS)
            assert len(set(per_bot.values())) > 1  # several versions for some bots, not all
            for version in versions:  # the newest plays (or waits, or is benched); older retired
                newest = version.number == per_bot[version.bot.name]
                assert (version.status == VersionStatus.RETIRED) != newest
            seats = Counter(db.scalars(select(SetSeat.set_id)))
            assert len(seats) == 150 and set(seats.values()) == set(SEATS)
            assert sum(seats.values()) == seeded.seats
            rated = list(db.scalars(select(LadderSet.rated).order_by(LadderSet.rated)))
            assert rated == list(range(1, 151))
            assert all(s.status == repository.DONE for s in db.scalars(select(LadderSet)))
            played = Counter(db.scalars(select(SetSeat.version_id)))
            assert {v.id: v.sets for v in versions if v.sets} == dict(played)
            history = repository.rating_history(db, versions[0].bot)
            marks = {seat.version.number for _, seat in history}
            assert len(marks) == per_bot[versions[0].bot.name]  # each version played its sets
    finally:
        engine.dispose()


def test_a_route_s_figures_are_beside_its_baseline() -> None:
    route = Route("page", "/", [0.01 * n for n in range(1, 101)], [2_000_000] * 100)
    base = Route("static file", "/static", [0.005] * 100, [1_000_000] * 100)
    found = summary(route, base)
    assert (found["p50_s"], found["p99_s"]) == (0.5, 0.99)
    assert found["p50_over_baseline"] == 100 and found["cpu_over_baseline"] == 2
