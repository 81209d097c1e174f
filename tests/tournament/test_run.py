"""Real tournaments of sample-bot processes over gRPC: reproducible, resumable, fair."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import DATABASE, REPLAYS, STANDINGS_JSON

pytestmark = pytest.mark.integration

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
ENTRIES = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "random", "lowest")]


def config(output: Path, concurrency: int = 2, **changes: object) -> TournamentConfig:
    base = TournamentConfig(
        bots=tuple(parse_bot(entry) for entry in ENTRIES),
        players=3,
        games=6,
        seed=11,
        deadline=5.0,  # not what is tested: no sample bot may time out on a loaded machine
        startup_timeout=60.0,  # nor may it fail to start, a dozen at once (concurrency 4)
        concurrency=concurrency,
        reuse_processes=True,  # nor is sealing each rotation apart: one process a bot at a time
        output=output,
    )
    return replace(base, **changes)


def results(output: Path) -> tuple[str, str]:
    """The replay file and standings a run left, the two things that must match (but for the
    bots' answer times, which are measured)."""
    standings = json.loads((output / STANDINGS_JSON).read_text())
    assert standings.pop("times")  # every bot's, whatever they are
    return (output / REPLAYS).read_text(), json.dumps(standings, indent=2)


@pytest.fixture(scope="module")
def twelve(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunSummary]:
    """A tournament of 12 whole games, one at a time: its folder and summary, which several tests
    read (each copies the folder before it runs there again)."""
    output = tmp_path_factory.mktemp("twelve") / "out"
    summary = asyncio.run(run_tournament(config(output, concurrency=1, games=12)))
    assert summary.played == 12 and not summary.interrupted
    return output, summary


def test_same_seed_same_results_whatever_the_concurrency(
    tmp_path: Path, twelve: tuple[Path, RunSummary], no_leftover_processes: None
) -> None:
    one, _ = twelve
    four = asyncio.run(run_tournament(config(tmp_path / "c4", concurrency=4, games=12)))
    assert four.played == 12 and not four.interrupted
    assert results(one) == results(tmp_path / "c4")
    assert all(bot.faults == 0 for bot in four.standings.bots)
    replays = (one / REPLAYS).read_text().splitlines()
    assert len(replays) == 12
    assert len({json.loads(line)["spec"]["game_id"] for line in replays}) == 12


def test_a_finished_tournament_run_again_plays_nothing(
    tmp_path: Path, twelve: tuple[Path, RunSummary]
) -> None:
    shutil.copytree(twelve[0], tmp_path / "out")
    again = asyncio.run(run_tournament(config(tmp_path / "out", concurrency=1, games=12)))
    assert again.played == 0 and again.stored == 12


def test_the_heuristic_bot_beats_random(twelve: tuple[Path, RunSummary]) -> None:
    """A fixed seed: with 12 duplicate games the gap is far wider than any noise between runs
    (one process a bot for them all: what is tested is the ranking, not the sealing)."""
    _, summary = twelve
    ranks = {bot.bot: bot for bot in summary.standings.bots}
    assert ranks["heuristic"].rank < ranks["random"].rank
    assert ranks["heuristic"].ci[1] < ranks["random"].ci[0], "the 95% intervals overlap"


def stored(database: Path) -> int:
    if not database.exists():
        return 0
    with sqlite3.connect(database) as db:
        try:
            return int(db.execute("select count(*) from games").fetchone()[0])
        except sqlite3.OperationalError:  # the schema is not written yet
            return 0


def arena_run(output: Path, *extra: str, games: int = 12) -> subprocess.Popen[str]:
    """`arena run` of the three sample bots, one game of one round at a time, each bot one
    process, with limits no sample bot comes near on a loaded machine (none of which is what is
    tested: the games are the same at any concurrency). Once 3 games are stored it still has 9
    rounds to play one after another, as many as two-round games two at once had, and far more
    than the test takes to send its signal."""
    args = [sys.executable, "-m", "arena.cli", "run", "--players", "3", "--games", str(games)]
    args += ["--seed", "11", "--concurrency", "1", "--deadline", "5"]
    args += ["--startup-timeout", "60", "--max-rounds", "1", "--reuse-processes", "--quiet"]
    args += ["--output", str(output)]
    for entry in ENTRIES:
        args += ["--bot", entry]
    return subprocess.Popen(
        [*args, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_interrupt_then_resume_equals_an_uninterrupted_run(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    whole = arena_run(tmp_path / "whole")
    assert whole.wait(timeout=120) == 0, whole.stderr.read()

    cut = tmp_path / "cut"
    first = arena_run(cut)
    try:
        # Waits for games, not for a time: a run that hangs is ended by pytest's own timeout.
        while stored(cut / DATABASE) < 3 and first.poll() is None:
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGINT)
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert first.returncode == 130, err
    assert "interrupted" in err and "run the same command again" in err
    assert 3 <= stored(cut / DATABASE) < 12
    assert "rank" in out, "partial standings are printed"
    second = arena_run(cut)
    assert second.wait(timeout=120) == 0, second.stderr.read()
    assert results(cut) == results(tmp_path / "whole")


def test_an_external_bot_in_a_tournament(tmp_path: Path, no_leftover_processes: None) -> None:
    """`arena run` tells the organizer the address and token; the bot started by hand plays."""
    run = arena_run(tmp_path, "--bot", "mine=external", games=3)  # 60 s to connect
    by_hand = None
    try:
        assert run.stderr is not None
        line = run.stderr.readline()
        while line.startswith(("seed ", "bots run ")):  # the organizer's notes come first
            line = run.stderr.readline()
        assert "start bot 'mine' yourself" in line, line
        env = dict(item.split("=", 1) for item in line.split() if item.startswith("ARENA_"))
        by_hand = subprocess.Popen(
            [sys.executable, str(BOTS / "lowest_bot.py")],
            env={"PATH": os.environ["PATH"], **env},
            start_new_session=True,
        )
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert "mine" in out
        standings = json.loads((tmp_path / STANDINGS_JSON).read_text())
        mine = next(s for s in standings["standings"] if s["bot"] == "mine")
        assert mine["games"] > 0 and mine["faults"] == 0
    finally:
        for process in (run, by_hand):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            if process is not None:
                process.wait()
