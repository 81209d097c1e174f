"""Load: many bots, many tables at once, and the smallest and largest tables the rules allow."""

from __future__ import annotations

import asyncio
import json
import resource
from dataclasses import replace
from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import run_tournament

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).parents[2] / "sample_bots" / "python"
KINDS = ("heuristic", "random", "lowest", "highest")
DEADLINE, STARTUP = 5.0, 60.0
"""What is tested is many processes and tables at once, not their speed: no sample bot comes near
this deadline, nor ten of them starting at once this start-up timeout, however loaded the
machine. Nor is keeping each seat rotation's processes apart (the sealed tests' subject): a bot's
processes play every rotation, so a table starts each of its bots once, not once per rotation.
Nor is the length of a game: one round each (every card of a ten-player table is dealt in it),
for a bot start costs more CPU than a whole game."""


def bots(count: int) -> tuple:  # type: ignore[type-arg]
    """`count` bot entries cycling through the sample bots, each under its own name."""
    return tuple(
        parse_bot(f"{KINDS[i % 4]}{i}={SAMPLES / f'{KINDS[i % 4]}_bot.py'}") for i in range(count)
    )


LOAD = TournamentConfig(deadline=DEADLINE, startup_timeout=STARTUP, reuse_processes=True)
"""What every tournament here shares (see above): each names its bots, output and size."""


def test_twelve_bots_at_four_player_tables_four_games_at_once(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """Six tables, each bot at two of them; four games at once where the machine has the cores
    (fair CPU plays one game a core)."""
    config = replace(
        LOAD,
        bots=bots(12),
        output=tmp_path,
        players=4,
        games=4,
        sample=6,
        seed=3,
        max_rounds=1,
        concurrency=4,
    )
    summary = asyncio.run(run_tournament(config))
    assert summary.played == summary.total == 24
    assert all(bot.games == 8 for bot in summary.standings.bots)
    faults = [f for line in (tmp_path / "replays.jsonl").open() for f in json.loads(line)["faults"]]
    assert faults == []
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"\npeak resident memory of the arena (test process): {peak} MiB")


def test_a_ten_player_table(tmp_path: Path, no_leftover_processes: None) -> None:
    # one process of each bot plays every game
    config = replace(
        LOAD, bots=bots(10), output=tmp_path, games=10, seed=4, max_rounds=1, concurrency=1
    )
    summary = asyncio.run(run_tournament(config))
    assert summary.played == 10
    assert all(bot.faults == 0 and bot.games == 10 for bot in summary.standings.bots)


def test_a_two_player_table(tmp_path: Path, no_leftover_processes: None) -> None:
    config = replace(LOAD, bots=bots(2), output=tmp_path, games=4, seed=5, concurrency=1)
    summary = asyncio.run(run_tournament(config))
    assert summary.played == 4
    assert all(bot.faults == 0 and bot.games == 4 for bot in summary.standings.bots)
