"""What an organizer acts on, with real bots in real tournaments (issue 15): an exit status and a
summary that tell the truth, tournaments that grow, a gauntlet, any game played again, and
standings that can be read while the tournament runs.

Small tournaments: two or three seats, one round a game (`--max-rounds 1`), sample bots.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.specs import parse_bot
from arena.tournament import ConfigError
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import run_tournament
from arena.tournament.store import DATABASE, STANDINGS_JSON

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
SAMPLES = ROOT / "sample_bots" / "python"
TEST_BOTS = ROOT / "tests" / "bots"
ARENA = [sys.executable, "-m", "arena.cli"]


def config(output: Path, *names: str, **changes: object) -> TournamentConfig:
    """A small tournament of sample bots: two seats a table, one round a game."""
    bots = tuple(parse_bot(f"{name}={SAMPLES / f'{name}_bot.py'}") for name in names)
    base = TournamentConfig(
        bots=bots,
        players=2,
        games=2,
        max_rounds=1,
        seed=3,
        deadline=5.0,  # not what is tested: no sample bot may time out on a loaded machine
        concurrency=2,
        reuse_processes=True,  # nor is sealing each rotation apart: one process per bot
        output=output,
    )
    return replace(base, **changes)


def run(configured: TournamentConfig) -> tuple[int, int]:
    """Run a tournament; (games it played, games stored)."""
    summary = asyncio.run(run_tournament(configured))
    assert not summary.interrupted
    return summary.played, summary.stored


def games_by_table(output: Path) -> dict[tuple[tuple[str, ...], int, int], tuple[str, str]]:
    """Every stored game by (its bots, deal, rotation): its id and its record."""
    with sqlite3.connect(output / DATABASE) as db:
        rows = db.execute("SELECT game_id, spec, record FROM games").fetchall()
    found = {}
    for game_id, spec, record in rows:
        data = json.loads(spec)
        found[tuple(data["seats"]), data["deal"], data["rotation"]] = (game_id, record)
    return found


def test_growing_by_games_and_by_a_bot_plays_only_what_is_missing(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """More deals, then a new bot (whose name sorts first, shifting the round-robin), then a
    gauntlet: each run plays only its new games, keeps every stored one and its id, and ends
    with exactly the games of a tournament that had them all from the start."""
    grown = tmp_path / "grown"
    assert run(config(grown, "heuristic", "random", "lowest")) == (6, 6)
    first = games_by_table(grown)
    assert run(config(grown, "heuristic", "random", "lowest", games=4)) == (6, 12)
    assert run(config(grown, "heuristic", "random", "lowest", games=4)) == (0, 12)
    # "highest" sorts before "lowest": its tables go after the stored ones, their ids unchanged.
    four = ("heuristic", "random", "lowest", "highest")
    assert run(config(grown, *four, games=4, gauntlet="highest")) == (12, 24)
    after = games_by_table(grown)
    assert {key: after[key] for key in first} == first
    assert {game_id[:4] for (seats, _, _), (game_id, _) in after.items() if "highest" in seats} == {
        "t003",
        "t004",
        "t005",
    }
    assert run(config(grown, *four, games=4)) == (0, 24)  # the gauntlet completed the round-robin

    fresh = tmp_path / "fresh"
    assert run(config(fresh, *four, games=4)) == (24, 24)
    from_scratch = games_by_table(fresh)
    assert {key: record for key, (_, record) in after.items()} == {
        key: record for key, (_, record) in from_scratch.items()
    }


def test_a_gauntlet_plays_only_the_tables_of_its_bot(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    played, _ = run(config(tmp_path, "heuristic", "random", "lowest", gauntlet="lowest"))
    assert played == 4  # two tables of two seats, one deal of two rotations each
    seats = {key[0] for key in games_by_table(tmp_path)}
    assert seats == {("heuristic", "lowest"), ("lowest", "random")}


def test_a_changed_bot_is_refused_then_replaced(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    mine = tmp_path / "mine.py"
    shutil.copy(SAMPLES / "lowest_bot.py", mine)
    output = tmp_path / "out"
    base = config(output, "heuristic")
    entered = replace(base, bots=(*base.bots, parse_bot(f"mine={mine}")))
    assert run(entered) == (2, 2)
    shutil.copy(SAMPLES / "highest_bot.py", mine)  # a new version of it
    with pytest.raises(ConfigError) as refused:
        run(entered)
    assert str(refused.value) == (
        f"bot 'mine' has changed since it played in {output} (the content of mine.py): choose "
        "a new --output folder, or --replace mine to drop its games and play them again"
    )
    with pytest.raises(ConfigError, match=r"other rules \(deadline: 5.0 -> 4.0\)"):
        run(replace(entered, deadline=4.0))
    summary = asyncio.run(run_tournament(replace(entered, replace="mine")))
    assert (summary.replaced, summary.played, summary.stored) == (2, 2, 2)
    assert run(entered) == (0, 2)  # the new version is the one on record now


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ARENA, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_a_bot_that_never_connects_and_one_disqualified_for_timeouts(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """Both rank last, in the order they were put out, and are named with why: the one that
    never connected with the end of its log; the run exits 3 (0 with --allow-faults)."""
    output = tmp_path / "out"
    args = ["run", "--bot", f"heuristic={SAMPLES / 'heuristic_bot.py'}"]
    args += ["--bot", f"lowest={SAMPLES / 'lowest_bot.py'}"]
    args += ["--bot", f"ghost={TEST_BOTS / 'silent_bot.py'} exit"]
    args += ["--bot", f"slow={TEST_BOTS / 'slow_bot.py'} 5"]
    args += ["--players", "2", "--games", "2", "--max-rounds", "1", "--seed", "4"]
    # Deadlines a loaded machine keeps for the sample bots; the slow one misses every one.
    args += ["--deadline", "1", "--first-deadline", "3", "--max-faults", "2"]
    args += ["--concurrency", "1", "--output", str(output)]
    result = arena(*args, "--json", timeout=240)
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    document = json.loads(result.stdout)
    ranks = [row["bot"] for row in document["standings"]]
    assert ranks[:2] == ["heuristic", "lowest"] or ranks[:2] == ["lowest", "heuristic"]
    problems = document["problems"]
    out = {row["bot"]: row for row in problems["disqualified"]}
    assert set(out) == {"ghost", "slow"}
    assert out["slow"]["reason"] == "is disqualified after 2 faults: the fallback plays for it"
    assert out["ghost"]["reason"] == "is disqualified: it failed to start twice in a row"
    order = [row["bot"] for row in problems["disqualified"]]  # the first one out ranks last
    assert ranks[2:] == order[::-1]
    rows = {row["bot"]: row for row in document["standings"]}
    for name in ("ghost", "slow"):
        assert rows[name]["disqualified"] and rows[name]["disqualified_in"] == out[name]["game"]
    (absent,) = problems["never_connected"]
    assert absent["bot"] == "ghost"
    assert any("giving up before connecting" in line for line in absent["log_tail"])
    assert problems["faults"]["slow"]["timeout"] >= 2
    assert json.loads((output / STANDINGS_JSON).read_text())["problems"] == problems

    # The summary for people says the same; run again, the tournament is complete.
    again = arena(*args, "--quiet")
    assert again.returncode == 3
    assert "the tournament is complete: all 12 games are stored" in again.stderr
    text = again.stdout
    assert "disqualified in game " in text and "slow is disqualified after 2 faults" in text
    assert "never connected: ghost (the fallback played its 6 games), its log ends:" in text
    assert "    | giving up before connecting" in text
    assert "yes, in t" in text  # the standings table marks the disqualified with their game
    allowed = arena(*args, "--quiet", "--allow-faults")
    assert allowed.returncode == 0, allowed.stderr


@pytest.fixture
def readable() -> Iterator[Path]:
    """A folder every user may read: a sealed bot runs as a user of its own, and pytest's own
    temporary folders are its user's alone."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def test_a_rotation_2_game_played_again_comes_out_the_same(
    tmp_path: Path, readable: Path, no_leftover_processes: None
) -> None:
    mine = readable / "mine.py"
    shutil.copy(SAMPLES / "lowest_bot.py", mine)
    mine.chmod(0o644)
    output = tmp_path / "out"
    base = config(output, "heuristic", "random", players=3, games=3)
    run(replace(base, bots=(*base.bots, parse_bot(f"mine={mine}"))))
    again = CliRunner().invoke(main, ["play", "--game", "t000-d00-r2", str(output)])
    assert again.exit_code == 0, again.output
    assert "seat rotation 2" in again.stderr
    assert "the same game: t000-d00-r2's record is identical to the stored one" in again.stdout
    by_number = CliRunner().invoke(main, ["play", "--game", "3", str(output)])
    assert by_number.exit_code == 0 and "t000-d00-r2's record is identical" in by_number.stdout
    shutil.copy(SAMPLES / "highest_bot.py", mine)  # another program under the same name
    changed = CliRunner().invoke(main, ["play", "--game", "t000-d00-r2", str(output)])
    assert changed.exit_code == 4, changed.output
    assert "note: bot 'mine' has changed since it played this game" in changed.stderr
    assert "not the same game: t000-d00-r2 differs from the stored record from round 1" in (
        changed.stdout
    )
    mine.write_text("import sys\nsys.exit(2)\n")  # one that never connects: the fallback plays
    gone = CliRunner().invoke(main, ["play", "--game", "t000-d00-r2", str(output)])
    assert gone.exit_code == 4, gone.output
    assert "differs from the stored record in its faults (none then; mine not-connected" in (
        gone.stdout
    )


def test_live_standings_are_read_while_the_tournament_runs(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """standings.json is rewritten whole every game (--standings-every 1): read mid-run, it is
    valid and partial, and lists every bot, those yet to play too; `arena report` works then."""
    output = tmp_path / "out"
    args = [*ARENA, "run", "--players", "2", "--games", "2", "--max-rounds", "1"]
    args += ["--bot", f"lowest={SAMPLES / 'lowest_bot.py'}"]
    args += ["--bot", f"random={SAMPLES / 'random_bot.py'}"]
    args += ["--bot", f"slow={TEST_BOTS / 'slow_bot.py'} 0.1"]  # a game lasts a second or so
    args += ["--concurrency", "1", "--standings-every", "1", "--output", str(output)]
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    seen = None
    try:
        # Waits for the file, not for a time: a run that hangs is ended by pytest's timeout.
        while process.poll() is None and seen is None:
            if (output / STANDINGS_JSON).exists():
                standings = json.loads((output / STANDINGS_JSON).read_text())
                played = sum(row["games"] for row in standings["standings"]) // 2
                if played < 6:
                    seen = standings
                    report = CliRunner().invoke(main, ["report", str(output)])
            time.sleep(0.02)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0, err
    assert seen is not None, "the tournament ended before its standings were read"
    assert {row["bot"] for row in seen["standings"]} == {"lowest", "random", "slow"}
    assert report.exit_code == 0, report.output
    assert "in progress:" in (output / "report.html").read_text()
    assert "leader " in err  # the progress bar shows the current leader
    final = json.loads((output / STANDINGS_JSON).read_text())
    assert sum(row["games"] for row in final["standings"]) == 12
