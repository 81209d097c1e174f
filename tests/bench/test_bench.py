"""`make bench` runs and reports every section (at tiny sizes); its baseline plays the engine's
games. No timings are asserted: they belong to the machine, not to the code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.e2e import TABLE
from bench.engine import check_same_games
from bench.fair import ACCURACY_TABLE
from bench.run import SECTIONS, Sizes, report

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("players", [2, 4, 10])
def test_the_baseline_plays_the_engines_games(players: int) -> None:
    check_same_games(players, games=5)  # raises if any of the three differs


@pytest.mark.integration
def test_the_quick_bench_reports_every_section(no_leftover_processes: None) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=420,  # on a loaded machine: two local clusters, some 70 bot processes
    )
    results = json.loads(done.stdout)
    assert set(SECTIONS) <= set(results)
    assert [entry["players"] for entry in results["engine"]] == [2]
    assert [level["in_flight"] for level in results["floor"]["levels"]] == [1, 4]
    assert all(target["met"] in (True, False) for target in results["targets"])
    assert [entry["concurrency"] for entry in results["e2e"]] == [1, 2]
    assert {entry["players"] for entry in [*results["e2e"], *results["memory"]]} == {2}
    assert all(entry["decisions_per_s"] > 0 for entry in results["e2e"])
    assert [entry["games"] for entry in results["memory"]] == [4, 8]
    expected = {
        "engine / baseline",
        "e2e decisions/s / floor's best round trips/s",
        "e2e median decision latency / floor round trip",
        "peak memory",
        "worker peak memory",
        "fast bots",  # issue 23's: fair mode's figures, where the machine has it
    }
    if "idle" in results["fair"]["freeze"]:
        expected.add("thaw and freeze of an idle bot")
    if results["e2e"][-1]["sealed"] and results["e2e"][-1]["cpu"] == "fair":
        expected |= {"e2e decisions/s", "e2e arena CPU a decision / floor server's a round trip"}
    assert {target["target"].split(",")[0] for target in results["targets"]} == expected
    assert [entry["workers"] for entry in results["cluster"]["speed"]] == [0, 1, 2]
    assert [entry["games"] for entry in results["cluster"]["memory"]] == [4, 8]
    text = report(results)
    assert "gRPC floor, 1 in flight" in text and "arena memory, 8 games" in text
    assert "cluster, 2 workers x 1 thread" in text and "worker memory, 8 games" in text
    sealing = results["sealing"]
    if "skipped" not in sealing:  # a machine that cannot seal says so instead
        assert set(sealing["startup"]) == {"sealed", "unsealed"}
        assert [run["processes"] for run in sealing["runs"]] == [
            "reuse",
            "rotation",
            "reuse",
            "rotation",
            "game",
        ]
        assert all(run["decisions_per_s"] > 0 for run in sealing["runs"])
        assert "bot start-up to hello, sealed" in text
    fair = results["fair"]
    assert fair["rates"]["ratio"] > 0 and fair["rates"]["fair"]["ran_as"] in (["fair"], ["shared"])
    assert [entry["decisions"] for entry in fair["accuracy"]] == [20, 20]  # 2 games of 10 turns
    assert "fast bots, fair CPU" in text and "recorded answer time - the bot's own" in text
    # The freeze cycles on cgroup v2 where this machine has a v2 hierarchy beside v1, reported.
    assert ("idle_v2" in fair["freeze"]) == ("an idle process, cgroup v2" in text)
    ladder = results["ladder"]
    assert (ladder["sets"], ladder["players"]) == (3, 2) and ladder["sets_per_hour"] > 0
    assert "ladder, 3 sets at 2 seats" in text and "server's CPU per set" in text
    pages = results["pages"]
    assert (pages["bots"], pages["sets"], pages["requests"]) == (8, 60, 5)
    assert [route["route"] for route in pages["routes"]] == [
        "leaderboard page",
        "bot page",
        "leaderboard API",
        "bot API",
        "sets API",
        "static file",
    ]
    assert all(route["p99_s"] >= route["p50_s"] > 0 for route in pages["routes"])
    assert all(route["cpu_over_baseline"] is not None for route in pages["routes"])
    assert "bot page, 8 bots, 60 sets" in text and "server's CPU a request" in text
    assert "record_set, 8 bots, 60 sets stored" in text
    convergence = results["ladder-convergence"]
    assert (convergence["bots"], convergence["seeds"], convergence["cap"]) == (8, 2, 40)
    assert len(convergence["matchmaking"]["sets"]) == len(convergence["uniform"]["sets"]) == 2
    assert "ladder convergence, 8 bots at 4 seats" in text


def test_the_full_bench_plays_at_the_childrens_own_tables() -> None:
    assert (Sizes().table, Sizes().fair_accuracy_players) == (TABLE, ACCURACY_TABLE)
