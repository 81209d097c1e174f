"""Bots in JavaScript and C play real tournaments beside Python ones, with no faults.

The Node.js and C sample bots implement the Python heuristic bot's strategy, so a game among the
three is exactly the game three in-process heuristic bots play: every decision, in every
language, is checked by the record, not only its legality.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.outcome import GameOutcome
from arena.tournament.runner import run_tournament
from arena.tournament.store import LOGS, REPLAYS, STANDINGS_JSON
from tests.anybot.conftest import ROOT
from tests.server.helpers import SAMPLE_BOTS, load_strategy, play_locally

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

CALM = "--deadline 5 --startup-timeout 30"
"""Generous limits: the games must not fault even on a busy machine."""
ONCE = "--reuse-processes --concurrency 1"
"""One process a bot, playing every game in turn: what is tested is that the languages play,
not that each seat rotation is sealed apart (a process a rotation was four times the starts)."""


def arena(command: str) -> subprocess.CompletedProcess[str]:
    """`arena COMMAND` as a person types it in the repository's folder."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *shlex.split(command)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def logs_of(output: Path) -> dict[str, str]:
    """The bots' logs, to show why a test failed."""
    return {log.name: log.read_text()[-2000:] for log in (output / LOGS).glob("*.log")}


def test_python_node_and_c_at_one_table_play_the_python_heuristic_exactly(
    tmp_path: Path, node_bot: Path, line_bot: Path
) -> None:
    config = TournamentConfig(
        bots=(
            parse_bot(f"python={SAMPLE_BOTS / 'heuristic_bot.py'}"),
            parse_bot(f"node=node {node_bot}"),
            parse_bot(f"c=stdio:{line_bot}"),
        ),
        players=3,
        games=3,
        seed=5,
        deadline=5.0,  # generous: these games must not fault even on a busy machine
        startup_timeout=30.0,
        concurrency=1,
        reuse_processes=True,  # one process a bot plays all three games: see `ONCE`
        output=tmp_path,
    )
    summary = asyncio.run(run_tournament(config))
    assert summary.played == 3 and not summary.interrupted
    heuristic = load_strategy(SAMPLE_BOTS / "heuristic_bot.py", "HeuristicBot")
    for line in (tmp_path / REPLAYS).read_text().splitlines():
        outcome = GameOutcome.from_dict(json.loads(line))
        spec = outcome.spec
        expected = play_locally(spec.settings, [heuristic] * 3, spec.seed, spec.rotation)
        assert outcome.faults == (), [spec.seats, outcome.faults, logs_of(tmp_path)]
        assert outcome.record == expected.record, spec.game_id
        assert len(outcome.record.rounds) > 1  # whole games


def test_the_languages_tournament_file_runs_as_documented(
    tmp_path: Path, node_bot: Path, line_bot: Path
) -> None:
    """`arena run tournaments/languages.toml`: Node.js against the Python sample bots, and C."""
    output = tmp_path / "languages"
    run = arena(f"run tournaments/languages.toml --games 4 --output {output} --json {CALM} {ONCE}")
    assert run.returncode == 0, run.stderr
    standings = json.loads(run.stdout)
    # What --json prints is the standings file, and what this run played of the tournament.
    assert standings["games"].pop("played") == standings["games"].pop("tournament") == 4
    assert standings == json.loads((output / STANDINGS_JSON).read_text())
    rows = {row["bot"]: row for row in standings["standings"]}
    assert set(rows) == {"python", "node", "c", "random"}
    assert {name: row["faults"] for name, row in rows.items()} == dict.fromkeys(rows, 0)
    assert {row["games"] for row in rows.values()} == {4}


def test_a_line_protocol_bot_plays_a_tournament_against_python_bots(
    tmp_path: Path, line_bot: Path
) -> None:
    run = arena(
        "run --bot c=stdio:build/line_bot --bot sample_bots/python/random_bot.py "
        "--bot sample_bots/python/lowest_bot.py --players 3 --games 3 --seed 1 --json "
        f"--output {tmp_path / 'out'} {CALM} {ONCE}"
    )
    assert run.returncode == 0, run.stderr
    rows = {row["bot"]: row for row in json.loads(run.stdout)["standings"]}
    assert rows["c"]["games"] == 3
    assert [row["faults"] for row in rows.values()] == [0, 0, 0]
