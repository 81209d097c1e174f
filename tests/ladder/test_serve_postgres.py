"""`arena ladder serve --database postgresql://...` for real: `init`, `author add`, `serve` and
`rerate` on a real PostgreSQL server (`conftest.postgres`, skipped with the reason where it cannot
run), three sample bots submitted over HTTP, a handful of two-seat sets played and rated; the
leaderboard read back and every rating replayed from the stored sets. Kept small (one-round
games, reused processes): what it checks is the database, not the play."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ladder.postgres import Server
from tests.ladder.serving import (
    add_author,
    arena,
    bot_folder,
    make_ladder,
    processes_in,
    serving,
    submit,
)
from tests.ladder.test_serve import sets_played, version_id

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

SAMPLES = {"alice": "heuristic", "bob": "highest", "carol": "random"}
SETS = 3
OPTIONS = ("--reuse-processes", "--seed", "5", "--concurrency", "1")
"""A set's games one at a time: each bot starts once a set, not once per game at once."""


@pytest.fixture
def url(postgres: Server) -> Iterator[str]:
    """A fresh PostgreSQL database for the ladder, dropped after, as `postgresql://` (the
    form an organizer types: the ladder picks psycopg 3 itself)."""
    name = f"served_{os.getpid()}"
    postgres.execute(f"CREATE DATABASE {name}")
    try:
        yield postgres.url(name).replace("postgresql+psycopg://", "postgresql://")
    finally:
        postgres.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_a_ladder_served_on_postgresql_plays_rates_and_rerates(tmp_path: Path, url: str) -> None:
    folder = tmp_path / "contest"
    make_ladder(folder, database=url, players=2, placement_sets=2)
    tokens = {name: add_author(folder, name, url) for name in SAMPLES}
    with serving(folder, "--database", url, *OPTIONS) as served:
        for author, sample in SAMPLES.items():
            done = submit(bot_folder(tmp_path / "bots", sample), served.url, sample, tokens[author])
            assert done.returncode == 0, done.stdout + done.stderr
            assert version_id(done.stdout) > 0
        served.wait_for(f"{SETS} sets", lambda: sets_played(served) >= SETS)
        board = served.get("/api/leaderboard").json()
        assert served.stop() == 0
    assert sorted(line["bot"] for line in board) == sorted(SAMPLES.values())
    assert [line["rank"] for line in board] == [1, 2, 3]
    ratings = [line["rating"] for line in board]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(line["sets"] for line in board) >= 2 * SETS  # two seats a set
    assert not (folder / "ladder.sqlite").exists()  # it was all in PostgreSQL
    rerated = arena("ladder", "rerate", str(folder), "--database", url)
    assert rerated.returncode == 0, rerated.stdout + rerated.stderr
    assert "every rating equals its" in rerated.stdout
    assert processes_in(folder) == []
