"""`arena compare` for real: bot processes over gRPC, the test stopping at its verdict, the results
stored and resumed.

- The heuristic sample bot (NEW) against the random one (OLD) at the default margin of 1, one
  round a game: stopped by SIGTERM after its first games, it says it was interrupted and the
  exact command to go on; that command goes on from the games stored and reaches H1 within 15
  deals, by the always-valid interval (the GSPRT alone took 29 deals of one-round games, 114 of
  whole games).
- The heuristic against its noisy twin (OLD, 60% of its cards at random, two rounds a game, a
  margin of 3 bullheads, about half the difference): H1.
- The heuristic against an identical copy: every deal's difference is exactly 0, and the test
  accepts H0 after its minimum of 10 deals, its LLR finite; first stopped undecided by a small
  --max-games, with the command that raises it, then carried on from what was stored. Exactly 0
  against any field: a field of one (the lowest sample bot), two seats, 4 games a deal.

Each is kept to a few hundred one- or two-round games, well under a minute on two cores.
"""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.exits import EXIT_INTERRUPTED
from arena.tournament.stats.sprt import MIN_DEALS
from tests.server.helpers import SAMPLE_BOTS

pytestmark = pytest.mark.integration

ARENA = Path(sys.executable).parent / "arena"
HEURISTIC = str(SAMPLE_BOTS / "heuristic_bot.py")
NOISY = str(SAMPLE_BOTS / "noisy_heuristic_bot.py")
RANDOM = str(SAMPLE_BOTS / "random_bot.py")
FAST = ["--seed", "3", "--reuse-processes", "--concurrency", "1", "--cpu", "shared", "--json"]
FAST += ["--deadline", "5", "--startup-timeout", "60"]
"""A deadline and a start-up timeout no sample bot comes near however loaded the machine (neither
is what is tested): the verdicts are the same whichever game finishes first, beside any tests.
One game at a time, each bot one process, sharing the CPU unpaced: the verdict does not depend
on the concurrency or on how the bots share the CPU, and this way a comparison of the default
field starts five bot processes, not ten, and spends no CPU pacing them."""


def compare(output: Path, *args: str) -> dict[str, Any]:
    """`arena compare ... --json`, its exit status 0, its result."""
    command = [str(ARENA), "compare", *args, *FAST, "--output", str(output)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["problems"]["faults"] == {}, result["problems"]
    return result


def stored_games(output: Path) -> int:
    """Games in the comparison's results database so far (0 before it exists)."""
    path = output / "results.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
        try:
            (count,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        except sqlite3.OperationalError:  # its tables not made yet
            return 0
    return int(count)


def test_interrupted_it_says_how_to_go_on_and_the_heuristic_beats_random_within_15_deals(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    output = tmp_path / "out"
    typed = [str(ARENA), "compare", f"new={HEURISTIC}", f"old={RANDOM}", "--max-rounds", "1"]
    typed += [*FAST, "--output", str(output)]
    running = subprocess.Popen(typed, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180  # not what is tested: a guard against a hang
        while stored_games(output) < 1 and running.poll() is None:
            assert time.monotonic() < deadline, "no game stored in 3 minutes"
            time.sleep(0.05)
        running.send_signal(signal.SIGTERM)  # a deal is 8 games: the verdict is 80 away
        out, err = running.communicate(timeout=120)
    finally:
        if running.poll() is None:
            running.kill()
            running.communicate()
    assert running.returncode == EXIT_INTERRUPTED, err
    first = json.loads(out)
    command = shlex.join(typed)
    assert first["interrupted"] and first["verdict"] == "undecided"
    assert first["continue_with"] == command
    assert f"interrupted: {first['stored']} games stored; to go on, run: {command}" in err
    assert "Traceback" not in err and "--max-games" not in err

    again = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert (result["verdict"], result["decided_by"]) == ("H1", "interval")
    assert MIN_DEALS <= result["deals"] <= 15 and result["games"] == 8 * result["deals"]
    assert result["always_valid_high"] < 0 < first["stored"]
    assert result["stored"] == first["stored"] + result["played"]  # the stored games kept
    assert result["continue_with"] is None and not result["interrupted"]
    assert result["problems"]["faults"] == {}


def test_the_heuristic_is_better_than_its_noisy_twin(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    args = [f"new={HEURISTIC}", f"old={NOISY} --share 0.6", "--max-rounds", "2", "--margin", "3"]
    result = compare(tmp_path / "out", *args)
    assert result["verdict"] == "H1"
    assert result["upper_bound"] == pytest.approx(3.178, abs=1e-3)  # log(0.96 / 0.04)
    if result["decided_by"] == "sprt":
        assert result["llr"] >= result["upper_bound"]
    else:
        assert result["decided_by"] == "interval" and result["always_valid_high"] < 0
    assert result["games"] == result["deals"] * 8 and result["deals"] >= MIN_DEALS
    assert result["ci_high"] < 0 and result["ci_low"] < result["mean_difference"]
    assert result["stored"] >= result["games"]
    assert result["field"] == ["heuristic", "lowest", "random"]
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert standings["games"] == {"stored": result["stored"], "planned": None}  # none planned
    fitted = {line["bot"]: line["strength"] for line in standings["standings"]}
    assert fitted["new"] < fitted["old"]  # NEW and OLD never met: the fit ranks them all the same
    again = compare(tmp_path / "out", *args)  # resumed: decided already, nothing to play
    assert again["played"] == 0
    assert {key: again[key] for key in ("verdict", "games", "llr")} == {
        key: result[key] for key in ("verdict", "games", "llr")
    }


def test_an_identical_copy_is_no_better(tmp_path: Path, no_leftover_processes: None) -> None:
    field = ["--field", f"lowest={SAMPLE_BOTS / 'lowest_bot.py'}"]  # see the module's note
    args = [f"new={HEURISTIC}", f"old={HEURISTIC}", *field, "--max-rounds", "1"]
    deal = 4  # games: two rotations, each with NEW and with OLD
    first = compare(tmp_path / "out", *args, "--max-games", "24")  # 6 deals: too few to decide
    assert (first["verdict"], first["games"], first["played"]) == ("undecided", 24, 24)
    assert first["field"] == ["lowest"]
    assert "--max-games 48" in first["continue_with"]  # the cap, raised
    result = compare(tmp_path / "out", *args)
    assert result["verdict"] == "H0"
    assert result["deals"] == MIN_DEALS and result["games"] == deal * MIN_DEALS
    # Carried on: the 24 stored games were kept, not played again. How many games after the
    # tenth deal were under way when the verdict came depends on the concurrency (and, at more
    # than one, on which game finished first), so the bound is what replaying the stored games
    # would exceed, not a count of them.
    assert result["stored"] == 24 + result["played"] and result["played"] < deal * MIN_DEALS
    assert result["mean_difference"] == 0 and (result["ci_low"], result["ci_high"]) == (0, 0)
    assert result["llr"] == pytest.approx(MIN_DEALS / 2 * -2.3978952728, rel=1e-6)  # log(1/11)


def test_bad_input_is_one_line() -> None:
    result = CliRunner().invoke(main, ["compare", f"a={HEURISTIC}", f"heuristic={HEURISTIC}"])
    assert result.exit_code == 2
    assert "two bots are named 'heuristic'" in result.output
    result = CliRunner().invoke(
        main, ["compare", f"a={HEURISTIC}", f"b={HEURISTIC}", "--max-games", "7"]
    )
    assert result.exit_code == 2 and "less than one deal" in result.output
