"""The same ladder on a local Dask cluster (`arena ladder serve --workers 2`, the cluster opened
once for the whole serve): its sets are played and rated as on this machine. Every set it stored
is played again here, on the local executor, from its seats and seed: the bots are
deterministic, so each seat's bullheads must come out the same; and `rerate` equals its
ratings."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.ladder.loop import seat_name, version_bot
from arena.ladder.match import play_set
from arena.ladder.settings import LadderSettings
from tests.ladder.serving import add_author, arena, bot_folder, make_ladder, serving, submit

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

SAMPLES = {"alice": "heuristic", "bob": "lowest", "carol": "random"}
SETS = 3


def stored_sets(folder: Path) -> list[tuple[int, int, list[tuple[int, str, int, int]]]]:
    """Every done set: its id, seed and seats (version id, bot, number, bullheads)."""
    with sqlite3.connect(folder / "ladder.sqlite") as db:
        sets = db.execute("SELECT id, seed FROM sets WHERE status = 'done' ORDER BY id").fetchall()
        return [
            (
                set_id,
                seed,
                db.execute(
                    "SELECT versions.id, bots.name, versions.number, set_seats.bullheads "
                    "FROM set_seats JOIN versions ON versions.id = set_seats.version_id "
                    "JOIN bots ON bots.id = versions.bot_id WHERE set_id = ? ORDER BY seat",
                    (set_id,),
                ).fetchall(),
            )
            for set_id, seed in sets
        ]


def test_two_local_workers_play_and_rate_the_sets_as_this_machine_does(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    folder = tmp_path / "contest"
    settings: LadderSettings = make_ladder(folder, players=2, placement_sets=2)
    tokens = {author: add_author(folder, author) for author in SAMPLES}
    options = ("--workers", "2", "--reuse-processes", "--seed", "7", "--concurrency", "2")
    with serving(folder, *options) as served:
        for author, sample in SAMPLES.items():
            done = submit(bot_folder(tmp_path / "bots", sample), served.url, sample, tokens[author])
            assert done.returncode == 0, done.stdout + done.stderr
        served.wait_for(f"{SETS} sets", lambda: served.status()["sets_played"] >= SETS)
        assert served.status()["workers"] == 2
        assert served.stop() == 0
    rerated = arena("ladder", "rerate", str(folder))
    assert rerated.returncode == 0, rerated.stdout + rerated.stderr
    sets = stored_sets(folder)
    assert len(sets) >= SETS
    template = replace(
        settings.tournament_config(tmp_path / "again", (), 0), reuse_processes=True, concurrency=1
    )  # one game at a time: each bot starts once a set, not once per game at once

    async def again(seed: int, seats: list[tuple[int, str, int, int]], at: Path) -> list[int]:
        bots = [version_bot(folder, v, seat_name(bot, n)) for v, bot, n, _ in seats]
        result = await play_set(template, at, bots, seed)
        assert result is not None
        return list(result.bullheads)

    for set_id, seed, seats in sets:
        here = asyncio.run(again(seed, seats, tmp_path / "again" / str(set_id)))
        assert here == [bullheads for *_, bullheads in seats], set_id
