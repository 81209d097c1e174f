"""A fixed-seed tournament of real bot processes gives, byte for byte, the files kept in
tests/golden: the replays and the standings, a disqualification for illegal cards included.

The golden copy was written by the arena before the decision path was redesigned (issue 12), so
this test holds the redesign to "behaviour unchanged". Regenerate it only for a change that is
meant to change results, and say so in the commit: run this test's command (`arena run` with
BOTS, ARGS, `--concurrency 1 --quiet --output DIR`) and copy DIR's replays.jsonl and
standings.json here. Regenerated once since, for issue 15: the replays stayed byte for byte the
same; the standings rank the disqualified bot last, name the game it was put out in, and carry
the run's problems. Answer times (issue 14) are kept out of the replays and compared apart.
Regenerated for issue 26: every stored spec holds its game's `bot_seed`, and the random sample
bot draws from the seeds the views carry, so its 18 games were played otherwise (the 6 without
it differ in their `bot_seed` alone).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
GOLDEN = ROOT / "tests" / "golden"
BOTS = {
    "heuristic": ROOT / "sample_bots" / "python" / "heuristic_bot.py",
    "random": ROOT / "sample_bots" / "python" / "random_bot.py",
    "lowest": ROOT / "sample_bots" / "python" / "lowest_bot.py",
    "illegal": ROOT / "tests" / "bots" / "illegal_card_bot.py",
}
ARGS = ["--players", "3", "--games", "6", "--seed", "7", "--max-rounds", "3"]


def test_a_fixed_seed_tournament_matches_its_golden_copy(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    entries = [arg for name, path in BOTS.items() for arg in ("--bot", f"{name}={path}")]
    arena = Path(sys.executable).parent / "arena"
    # One game at a time: the game in which the faulting bot reaches its 20th fault (and is
    # disqualified) then depends on the schedule alone.
    command = [str(arena), "run", *entries, *ARGS, "--concurrency", "1", "--quiet"]
    run = subprocess.run([*command, "--output", str(tmp_path / "out")], timeout=240)
    assert run.returncode == 3  # the illegal bot is disqualified: not every bot played
    # How the run played (its seed, whether the bots ran sealed) is the machine's, not the games'.
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    run = standings.pop("run")
    assert run["seed"] == 7 and run["seed_chosen"] is True
    # So are the answer times (issue 14): every bot's decisions were timed.
    times = {line["bot"]: line for line in standings.pop("times")}
    assert sorted(times) == sorted(BOTS)
    assert all(line["decisions"] > 0 and line["median_ms"] is not None for line in times.values())
    produced = {
        "replays.jsonl": (tmp_path / "out" / "replays.jsonl").read_text(),
        "standings.json": json.dumps(standings, indent=2) + "\n",
    }
    for name, text in produced.items():
        assert text == (GOLDEN / name).read_text(), f"{name} differs from tests/golden"
