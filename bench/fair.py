"""Fair CPU (issue 14): what it costs, and how true the recorded times are.

Run as `python -m bench.fair --games N [--max-rounds R] [--cycles C] [--trials T] [--players P]
[--accuracy-games N] [--accuracy-players P] [--accuracy-reuse]` in a process of its own; prints
one JSON object with three parts:

- `rates`: the random and lowest sample bots (`bench.e2e`'s entries: two copies each at a
  4-player table, one each at the quick bench's 2-player table), played at the default
  concurrency in fair mode (a core per game, seats asked one at a time, each bot thawed for its
  own decision alone) and in shared mode (every seat at once), alternately `trials` times;
  decisions/s over the steady state (after the first games, which start the bots: with
  `--reuse-processes`, no bot starts after them), each mode's median. The ratio fair / shared
  is the fair mode's cost for fast bots.
- `freeze`: a bot's cgroup frozen and thawed `cycles` times, as the pacer does around every
  decision (thaw, then freeze and wait until frozen): an idle bot (the lowest sample bot) and a
  busy one (16 processes spinning); the median and 99th percentile of a cycle, in µs. Where a
  cgroup v2 hierarchy lies beside the v1 ones the arena uses (systemd's hybrid mode), an idle
  process shaped like a gRPC bot is cycled on v2 too (`idle_v2`).
- `accuracy`: a bot that keeps the CPU busy for half its deadline and logs how long it took by
  its own clock, from receiving the request to returning its answer, at a 3-player table with
  the random and lowest sample bots (the quick bench's has 2 seats: no lowest bot); the arena's
  recorded answer time of each of its decisions minus the bot's own figure (median, 99th
  percentile, largest), in fair and in shared mode. What the arena adds: the trip both ways,
  the bot's SDK, and in fair mode the thaw. `--accuracy-reuse` (the quick bench's): a process
  per bot for all its games, not one per seat rotation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.rules import Decision
from arena.server.isolation.cgroups import ROOT as CGROUPS
from arena.server.isolation.cgroups import BotCgroup, CgroupLimits, RunCgroups
from arena.server.isolation.fairness import CpuMode
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.session import open_session
from arena.tournament import GameOutcome
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import run_tournament
from arena.tournament.store import DATABASE, LOGS, ResultStore
from bench.cpu import arena_and_bots
from bench.e2e import SEATS, STARTUP, TABLE, entries

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_BOTS = ROOT / "sample_bots" / "python"
TEST_BOTS = ROOT / "tests" / "bots"
ACCURACY_TABLE = 3
"""Seats at the accuracy's table: the bot that measures itself and two fast sample bots."""
LAST_CORE = str((os.cpu_count() or 1) - 1)
"""The core the freeze cycles' bots are pinned to."""
_OWN = re.compile(r"punctual: deadline=\S+ answered=(\S+)")


def quantile(values: Sequence[float], fraction: float) -> float:
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def _bot(name: str, path: Path, *args: str) -> BotSpec:
    return BotSpec(name, (sys.executable, str(path), *args))


async def rate(
    cpu: CpuMode, games: int, max_rounds: int | None, players: int = TABLE
) -> dict[str, Any]:
    """One tournament of fast bots; decisions/s after the first games (which start the bots),
    and the arena's CPU per decision meanwhile: the figure a loaded machine moves least."""
    ended: list[tuple[float, int]] = []  # (when, decisions timed) a game
    concurrency = os.cpu_count() or 1  # the default
    warm = max(1, min(concurrency, games - 1))
    used: list[float] = []  # the arena's CPU (this process's and its core hosts'), after `warm`
    # games and after the last: read only then, for a look at every process costs CPU too

    def saved(outcome: GameOutcome) -> None:
        ended.append((time.perf_counter(), len(outcome.times)))
        if len(ended) in (warm, games):
            used.append(arena_and_bots()[0])

    with tempfile.TemporaryDirectory(prefix="arena-bench-fair-") as scratch:
        config = TournamentConfig(
            bots=entries(players),
            players=players,
            games=games,
            seed=2026,
            max_rounds=max_rounds,
            cpu=cpu,
            concurrency=concurrency,
            reuse_processes=True,  # no bot starts up after the first games: pacing alone
            output=Path(scratch) / "out",
            startup_timeout=STARTUP,
        )
        summary = await run_tournament(config, observer=Observer(saved=saved))
    (start, _), *steady = ended[warm - 1 :]
    seconds = steady[-1][0] - start
    decisions = sum(decisions for _, decisions in steady)
    return {
        "mode": summary.run.get("cpu", {}).get("mode", cpu.value),
        "games": summary.played,
        "decisions_per_s": decisions / seconds,
        "arena_cpu_per_decision_s": (used[-1] - used[0]) / decisions,
        "faults": sum(line.faults for line in summary.standings.bots),
    }


async def freeze_cycles(cycles: int) -> dict[str, Any]:
    """Thaw and freeze an idle and a busy bot's cgroup, as around every decision."""
    cgroups = RunCgroups.create()
    if isinstance(cgroups, str) or not cgroups.freezable:
        return {"skipped": f"no freezer: {cgroups}"}
    await cgroups.close()
    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="arena-bench-freeze-") as scratch:
        bots = [
            _bot("idle", SAMPLE_BOTS / "lowest_bot.py"),
            _bot("busy", TEST_BOTS / "hog_bot.py", "hog"),
        ]
        options = BotOptions(cpu=CpuMode.SHARED, startup_timeout=60)
        async with open_session(bots, Path(scratch), options) as session:
            for spec in bots:
                # Pinned to one core, as fair mode pins every bot: the hog's 16 spinners, which
                # run until it is frozen, must not take every core from all else running.
                instance = await session.lobby.acquire(spec.name, cpus=LAST_CORE)
                assert instance is not None and instance.process is not None
                cgroup = instance.process.cgroup
                assert cgroup is not None
                await cgroup.freeze()
                found[spec.name] = await _cycles(cgroup, cycles)
                # Stopped at once, frozen as it is (stop thaws it to kill it): thawed until the
                # session's close, the hog's 16 spinners took both cores from all else running.
                await instance.process.stop()
    if (v2 := await v2_cycles(cycles)) is not None:
        found["idle_v2"] = v2
    return found


IDLE_PROCESS = (
    "import select, threading, time\n"
    "poller = select.epoll()\n"
    "for _ in range(3): threading.Thread(target=poller.poll, daemon=True).start()\n"
    "for _ in range(4): threading.Thread(target=time.sleep, args=(1e6,), daemon=True).start()\n"
    "poller.poll()\n"
)
"""An idle process shaped like a gRPC bot: threads asleep in epoll, which a freezer must wake to
freeze and again to thaw, and in plain sleeps, frozen where they sleep."""


async def v2_cycles(cycles: int) -> dict[str, float] | None:
    """The idle cycles on cgroup v2 too, where a v2 hierarchy lies beside the v1 ones the arena
    uses (systemd's hybrid mode, `/sys/fs/cgroup/unified`): v2's freeze is waited on otherwise
    (its `cgroup.events` notices, which the kernel sends at most every 10-20 ms). None where
    there is no such hierarchy, or none writable."""
    mount = CGROUPS / "unified"
    if (CGROUPS / "cgroup.controllers").exists() or not (mount / "cgroup.controllers").exists():
        return None
    try:
        run = RunCgroups.create_v2(mount)
    except OSError:
        return None
    try:
        cgroup = run.child(CgroupLimits())
        process = await asyncio.create_subprocess_exec(sys.executable, "-c", IDLE_PROCESS)
        try:
            (cgroup.directories[0] / "cgroup.procs").write_text(str(process.pid))
            await asyncio.sleep(0.3)  # its threads started, and asleep
            for task in os.listdir(f"/proc/{process.pid}/task"):  # no cpuset here: by hand
                os.sched_setaffinity(int(task), {int(LAST_CORE)})
            await cgroup.freeze()
            return await _cycles(cgroup, cycles)
        finally:
            await cgroup.kill()
            await process.wait()
    finally:
        await run.close()


async def _cycles(cgroup: BotCgroup, cycles: int) -> dict[str, float]:
    """Each cycle's wall time, and the CPU the arena's thread spent on it (writes and looks;
    a loaded machine moves it least)."""
    took, spent = [], []
    for _ in range(cycles):
        began, cpu = time.perf_counter(), time.thread_time()
        cgroup.thaw()
        await cgroup.freeze()
        took.append(time.perf_counter() - began)
        spent.append(time.thread_time() - cpu)
        await asyncio.sleep(0.002)  # as between decisions: the bot frozen a moment
    return {
        "cycles": cycles,
        "median_us": statistics.median(took) * 1e6,
        "p99_us": quantile(took, 0.99) * 1e6,
        "cpu_median_us": statistics.median(spent) * 1e6,
    }


@dataclass(frozen=True)
class AccuracyRun:
    """The tournament of the accuracy part, in each mode."""

    games: int = 3
    players: int = ACCURACY_TABLE
    reuse_processes: bool = False
    """One process per bot for all its games (the quick bench's), not one per seat rotation."""


async def accuracy(cpu: CpuMode, run: AccuracyRun) -> dict[str, Any]:
    """The arena's recorded times of a bot's decisions against the bot's own measurement."""
    bots = (
        _bot("punctual", TEST_BOTS / "punctual_bot.py", "0.5"),
        _bot("random", SAMPLE_BOTS / "random_bot.py"),
        _bot("lowest", SAMPLE_BOTS / "lowest_bot.py"),
    )[: run.players]
    with tempfile.TemporaryDirectory(prefix="arena-bench-accuracy-") as scratch:
        config = TournamentConfig(
            bots=bots,
            players=run.players,
            games=run.games,
            seed=7,
            max_rounds=1,
            deadline=0.1,
            first_deadline=0.1,
            concurrency=1,  # one game after the other: the bot's log is in the games' order
            cpu=cpu,
            output=Path(scratch) / "out",
            startup_timeout=STARTUP,
            reuse_processes=run.reuse_processes,
        )
        summary = await run_tournament(config)
        own = [float(x) for x in _OWN.findall((config.output / LOGS / "punctual.log").read_text())]
        with ResultStore.reader(config.output / DATABASE) as store:
            arena = []
            for outcome in store.outcomes():  # in schedule order: the order they were played
                seat = outcome.seat_of("punctual")
                arena += [
                    t.seconds
                    for t in outcome.times
                    if t.seat == seat and t.decision is Decision.CARD
                ]
    differences = [a - b for a, b in zip(arena, own, strict=True)]
    return {
        "mode": summary.run.get("cpu", {}).get("mode", cpu.value),
        "decisions": len(differences),
        "median_us": statistics.median(differences) * 1e6,
        "p99_us": quantile(differences, 0.99) * 1e6,
        "max_us": max(differences) * 1e6,
        "own_median_ms": statistics.median(own) * 1000,
    }


async def measure(
    games: int,
    max_rounds: int | None,
    cycles: int,
    trials: int,
    accuracy_run: AccuracyRun,
    players: int = TABLE,
) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {"fair": [], "shared": []}
    for _ in range(trials):  # alternately, so that the machine's load weighs on both alike
        for mode in (CpuMode.FAIR, CpuMode.SHARED):
            runs[mode.value].append(await rate(mode, games, max_rounds, players))
    rates = {
        mode: {
            "decisions_per_s": statistics.median(run["decisions_per_s"] for run in found),
            "trials": [run["decisions_per_s"] for run in found],
            "arena_cpu_per_decision_s": statistics.median(
                run["arena_cpu_per_decision_s"] for run in found
            ),
            "faults": sum(run["faults"] for run in found),
            "ran_as": sorted({run["mode"] for run in found}),
        }
        for mode, found in runs.items()
    }
    ratio = rates["fair"]["decisions_per_s"] / rates["shared"]["decisions_per_s"]
    return {
        "rates": {**rates, "ratio": ratio, "games": games},
        "freeze": await freeze_cycles(cycles),
        "accuracy": [await accuracy(mode, accuracy_run) for mode in (CpuMode.FAIR, CpuMode.SHARED)],
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, required=True, help="a multiple of --players")
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--players", type=int, choices=SEATS, default=TABLE)
    parser.add_argument(
        "--accuracy-games", type=int, default=3, help="a multiple of --accuracy-players"
    )
    parser.add_argument(
        "--accuracy-players", type=int, choices=(2, ACCURACY_TABLE), default=ACCURACY_TABLE
    )
    parser.add_argument(
        "--accuracy-reuse", action="store_true", help="one process per bot for all its games"
    )
    options = parser.parse_args(argv)
    result = asyncio.run(
        measure(
            options.games,
            options.max_rounds,
            options.cycles,
            options.trials,
            AccuracyRun(options.accuracy_games, options.accuracy_players, options.accuracy_reuse),
            options.players,
        )
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
