"""A ladder set played for real: one deal in every rotation through the tournament runner, its
result summed per seat, and a set stopped midway reported as unfinished."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.ladder.match import SetDesign, play_set, read_set
from arena.server.lobby import BotSpec
from arena.server.specs import bot_spec
from arena.tournament.config import TournamentConfig
from arena.tournament.store import DATABASE, ResultStore

pytestmark = pytest.mark.integration

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
TEMPLATE = TournamentConfig(max_rounds=1, deadline=5.0, reuse_processes=True, concurrency=1)
"""One game at a time, each bot's one process playing them all (two games at once started a
process per seat for each: twice the start-ups, most of a set's CPU)."""


def seats(*names: str) -> list[BotSpec]:
    return [bot_spec(f"{name}.v1", str(BOTS / f"{name}_bot.py")) for name in names]


def test_a_set_is_one_deal_in_every_rotation_summed_per_seat(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    table = seats("heuristic", "lowest", "random")
    result = asyncio.run(play_set(TEMPLATE, tmp_path / "sets" / "1", table, 77))
    assert result is not None
    assert result.games == 3
    assert result.faults == (0, 0, 0)
    with ResultStore.reader(tmp_path / "sets" / "1" / DATABASE) as store:
        outcomes = list(store.outcomes())
    assert {o.spec.seed for o in outcomes} == {77}
    assert sorted(o.spec.rotation for o in outcomes) == [0, 1, 2]
    names = [bot.name for bot in table]
    assert result.bullheads == tuple(sum(o.scores[n] for o in outcomes) for n in names)
    assert read_set(tmp_path / "sets" / "1" / DATABASE, names) == result


def test_the_same_seed_deals_the_same_cards(tmp_path: Path, no_leftover_processes: None) -> None:
    table = seats("lowest", "highest")
    one = asyncio.run(play_set(TEMPLATE, tmp_path / "a", table, 5))
    two = asyncio.run(play_set(TEMPLATE, tmp_path / "b", table, 5))
    assert one is not None and two is not None
    assert one.bullheads == two.bullheads  # deterministic bots, one deal


def test_a_stopped_set_is_unfinished(tmp_path: Path, no_leftover_processes: None) -> None:
    async def stopped() -> object:
        stop = asyncio.Event()
        stop.set()
        return await play_set(TEMPLATE, tmp_path / "s", seats("lowest", "highest"), 5, stop=stop)

    assert asyncio.run(stopped()) is None


def test_the_design_plans_every_rotation_of_one_deal() -> None:
    config = TournamentConfig(bots=tuple(seats("lowest", "highest")), players=2, seed=3)
    specs = SetDesign(9).plan(config, None)  # type: ignore[arg-type]  # the plan reads no store
    assert [(s.game_id, s.rotation, s.seed) for s in specs] == [
        ("t000-d00-r0", 0, 9),
        ("t000-d00-r1", 1, 9),
    ]
    assert all(s.seats == ("lowest.v1", "highest.v1") for s in specs)
