"""Fair mode's core hosts for real: an arena process a core, pinned there with its games' bots,
playing the same games a single process plays; a host killed mid-run ends the run in one line,
keeping every game stored, and the resume completes; an interrupted run stops its hosts, each
after its bots.

Skipped where fair mode cannot run or the machine has one core (no hosts are started there)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.isolate import isolate
from arena.server.isolation.sandbox import SandboxMode
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import run_tournament
from arena.tournament.store import DATABASE, REPLAYS, WORK
from bench.cpu import descendants
from tests.server.isolation.leftovers import clear, leftovers, running, with_hosts
from tests.tournament.test_run import results, stored

pytestmark = pytest.mark.integration

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
ENTRIES = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "random", "lowest")]
PATIENCE = 180.0
"""Seconds a loaded machine may take to store a game (a bound, not a measurement)."""


@pytest.fixture(autouse=True)
def fair_on_two_cores() -> None:
    async def what_is_on() -> tuple[tuple[str, ...], tuple[int, ...]]:
        async with isolate(SandboxMode.AUTO, CpuMode.AUTO) as isolation:
            return isolation.on, isolation.cpu.cores

    on, cores = asyncio.run(what_is_on())
    if "fair CPU" not in on or len(cores) < 2:
        pytest.skip(f"no core hosts here: {', '.join(on)}; cores {cores}")


def hosts_of(pid: int) -> list[int]:
    """The core hosts the arena of `pid` started."""
    return sorted(with_hosts(pid) - {pid})


def config(output: Path, **changes: object) -> TournamentConfig:
    base = TournamentConfig(
        bots=tuple(parse_bot(entry) for entry in ENTRIES),
        players=3,
        games=12,
        seed=11,
        deadline=5.0,
        startup_timeout=60.0,
        concurrency=2,
        cpu=CpuMode.FAIR,
        max_rounds=2,
        output=output,
    )
    return replace(base, **changes)


def test_each_cores_games_are_played_by_a_process_there_as_one_process_plays_them(
    tmp_path: Path,
) -> None:
    pinned: list[dict[int, set[int]]] = []  # each host's cores and its bots', at a game's end

    def look(done: int, total: int) -> None:
        if done == 2:
            pinned.extend(
                {p: os.sched_getaffinity(p) for p in (host, *descendants(host))}
                for host in hosts_of(os.getpid())
            )

    summary = asyncio.run(
        run_tournament(config(tmp_path / "hosts"), observer=Observer(progress=look))
    )
    assert summary.played == 12 and summary.run["cpu"]["mode"] == "fair"
    assert len(pinned) == 2, "a host a core, for two games at once"
    cores = [set(next(iter(seen.values()))) for seen in pinned]
    assert all(len(host) == 1 for host in cores) and cores[0] != cores[1]
    for seen, core in zip(pinned, cores, strict=True):
        assert len(seen) > 1, "its bots run below it"
        assert all(used == core for used in seen.values()), "every process on its core alone"
    assert hosts_of(os.getpid()) == []  # all stopped with the run

    one = asyncio.run(run_tournament(config(tmp_path / "one", core_processes=False)))
    assert one.played == 12
    assert results(tmp_path / "hosts") == results(tmp_path / "one")
    assert all(
        (tmp_path / "hosts" / WORK / f"_host-{c}.log").read_text() == ""
        for c in cores[0] | cores[1]
    )
    replays = (tmp_path / "hosts" / REPLAYS).read_text().splitlines()
    assert len({json.loads(line)["spec"]["game_id"] for line in replays}) == 12


def arena_run(output: Path, games: int) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "arena.cli", "run", "--players", "3", "--games", str(games)]
    args += ["--seed", "11", "--concurrency", "2", "--cpu", "fair", "--deadline", "5"]
    args += ["--startup-timeout", "60", "--max-rounds", "1", "--quiet", "--output", str(output)]
    for entry in ENTRIES:
        args += ["--bot", entry]
    return subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """The runs a test starts, each stopped whatever happens, with whatever its hosts left."""
    runs: list[subprocess.Popen[str]] = []
    seen: set[int] = set()
    yield runs
    for run in runs:
        seen.update(hosts_of(run.pid))
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(60)
    clear(*seen, *(run.pid for run in runs))


def under_way(tmp_path: Path, started: list[subprocess.Popen[str]]) -> tuple[Path, list[int]]:
    """A run of 300 one-round games with 3 stored: its folder and its two core hosts."""
    output = tmp_path / "out"
    run = arena_run(output, 300)
    started.append(run)
    give_up = time.monotonic() + PATIENCE
    while stored(output / DATABASE) < 3:
        assert run.poll() is None, run.communicate()[1]
        assert time.monotonic() < give_up, "no games stored"
        time.sleep(0.05)
    hosts = hosts_of(run.pid)
    assert len(hosts) == 2
    return output, hosts


def test_a_host_killed_mid_run_ends_it_in_one_line_and_the_resume_completes(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    output, hosts = under_way(tmp_path, started)
    run = started[0]
    os.kill(hosts[0], signal.SIGKILL)
    _, err = run.communicate(timeout=PATIENCE)
    assert run.returncode == 2, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "arena process of core" in line]
    assert "it ended unasked (killed by SIGKILL)" in line and "run the same command again" in line
    kept = stored(output / DATABASE)
    assert kept >= 3
    assert running(frozenset(hosts)) == {}  # the other host stopped with the run

    again = arena_run(output, 300)
    started.append(again)
    _, err = again.communicate(timeout=600)
    assert again.returncode == 0, err
    assert stored(output / DATABASE) == 300
    assert leftovers(*hosts).parents == ()  # the killed host's cgroups swept by the resume


def test_an_interrupted_run_stops_its_hosts_each_after_its_bots(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    output, hosts = under_way(tmp_path, started)
    run = started[0]
    os.killpg(run.pid, signal.SIGINT)  # the terminal's Ctrl-C: hosts are not in its group
    _, err = run.communicate(timeout=PATIENCE)
    assert run.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert running(frozenset(hosts)) == {}
    assert leftovers(*hosts).parents == ()  # each host removed its bots' cgroups itself
    logs = "".join(path.read_text() for path in (output / "logs").glob("*.log"))
    assert "exited with status" in logs  # the bots stopped by their hosts, and said so


def test_the_organizer_counts_a_bots_faults_over_every_host(tmp_path: Path) -> None:
    """A bot that plays a card it does not hold faults at every decision: a host puts it out at
    the limit, the organizer's referee for the whole tournament, and the other host learns it
    with its next game (as a cluster's workers do)."""
    illegal = parse_bot(f"illegal={Path(__file__).parents[1] / 'bots' / 'illegal_card_bot.py'}")
    bots = (illegal, *(parse_bot(entry) for entry in ENTRIES[:2]))
    changes = {"bots": bots, "max_faults": 3, "allow_faults": True, "games": 6}
    summary = asyncio.run(run_tournament(config(tmp_path / "out", **changes)))
    assert summary.played == 6 and not summary.interrupted
    lines = {line.bot: line for line in summary.standings.bots}
    assert lines["illegal"].disqualified
    assert 3 <= lines["illegal"].faults <= 3 * 2  # at most the limit on each host
    assert lines["heuristic"].faults == lines["random"].faults == 0
    assert "is disqualified after" in (tmp_path / "out" / "logs" / "illegal.log").read_text()
