"""End to end: a real tournament of the Python sample bots over gRPC, timed as the arena sees it.

Run as `python -m bench.e2e --games N --concurrency C [--max-rounds R] [--players P]` in a
process of its own, so that its peak resident memory is the arena's alone (the bots are its
children, and RUSAGE_SELF does not count them). Prints one JSON object. The table has 4 seats;
the quick bench's has 2 (`--players 2`), which starts a quarter of the bot processes (a process
per bot and seat rotation: 16 at 4 seats, 4 at 2), most of its cost.

Each decision is timed as the arena records it for the standings' answer times, from when its
request was written to the bot's stream to when its answer was read (`DecisionTime`), wherever
the game was played (in fair mode with two games at once, in the core hosts: an arena process a
core). Row decisions, asked one seat at a time, are also timed apart from card decisions. Rates
are taken over the steady state: from the end of the first `concurrency` games, which include
the start-up of the bot processes, to the end of the last; so is the CPU time of the arena (this
process and its core hosts) and of its bots per decision, which shows where the time goes. The
arena's peak resident memory is this process's and its core hosts', added up.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from arena.players import DecisionTime
from arena.rules import Decision
from arena.server.isolation.sandbox import SandboxMode
from arena.server.lobby import Bot, BotSpec, Instance, Lobby
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome
from arena.tournament.runner import run_tournament
from bench.cpu import arena_and_bots, hosts_peak_memory

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_BOTS = ROOT / "sample_bots" / "python"
BOTS = ("random", "lowest")
"""The sample bots entered, half the table each: twice each at a 4-player table."""
TABLE = 4
"""Seats at the table of every tournament of the bench (but for fair's accuracy)."""
SEATS = (2, TABLE)
"""The tables a tournament of the bench may have: 2 seats for the quick bench."""
STARTUP = 60.0
"""Seconds a bench bot has to connect: the rates are taken after the bots started, and on a
loaded machine (or the quick check, which starts everything at once) a start may take longer
than the arena's default, which would leave the fallback playing and nothing to measure."""


def entries(players: int = TABLE) -> tuple[BotSpec, ...]:
    """The random and the lowest sample bot, as `arena run` would start them, to fill a table of
    `players` seats (one of SEATS): two copies each, or one."""
    return tuple(
        BotSpec(f"{name}-{copy}", (sys.executable, str(SAMPLE_BOTS / f"{name}_bot.py")))
        for name in BOTS
        for copy in "ab"[: players // 2]
    )


def reaped_cpu() -> float:
    """CPU seconds of every process this one has waited for (and of those they waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def quantile(values: Sequence[float], fraction: float) -> float:
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index]


PROCESSES = ("rotation", "game", "reuse")
"""How bot processes are used: one per seat rotation (the default), a fresh one for every game
(what the sealing section compares it with), or one for every game of the tournament
(`--reuse-processes`, for trusted bots: the speed before sealing)."""


@contextmanager
def fresh_process_per_game() -> Iterator[None]:
    """Give every game fresh bot processes, in this process only: each seat is asked for under a
    key of its own (so no idle process fits and one is launched), and once the game is over its
    stream is closed, so that the bot exits (an SDK bot does so at once) and is retired.

    A measurement of the other way of keeping no memory across the games of a deal, which the
    lobby does not offer: it keys processes by rotation instead, which costs far fewer starts."""
    acquire, release = Lobby.acquire, Lobby.release
    keys = itertools.count(10**6)

    async def fresh(self: Lobby, name: str, rotation: int = 0, *more: Any) -> Instance | None:
        return await acquire(self, name, next(keys), *more)

    async def retire(self: Lobby, bot: Bot, instance: Instance) -> None:
        await release(self, bot, instance)
        if instance.connection is not None:
            instance.connection.close("a fresh process for every game")

    setattr(Lobby, "acquire", fresh)  # noqa: B010 (mypy forbids assigning a method)
    setattr(Lobby, "release", retire)  # noqa: B010
    try:
        yield
    finally:
        setattr(Lobby, "acquire", acquire)  # noqa: B010
        setattr(Lobby, "release", release)  # noqa: B010


async def tournament(
    games: int,
    concurrency: int,
    max_rounds: int | None,
    timed: bool = True,
    sandbox: SandboxMode = SandboxMode.AUTO,
    processes: str = "rotation",
    players: int = TABLE,
    one_process: bool = False,
) -> dict[str, Any]:
    """Play `games` games at one table of `players` seats and return the figures; untimed, only
    those whose keeping takes no memory per decision (for the memory figures). `sandbox` and
    `processes` (one of PROCESSES) say how the bots run; `one_process`, every game in this
    process even in fair mode (`--no-core-processes`: `fresh_process_per_game` works only
    here)."""
    games_ended: list[tuple[float, tuple[DecisionTime, ...]]] = []  # when, and its decisions
    finished = [0.0, 0.0]  # when the warm-up ended, when the last game did
    warm = max(1, min(concurrency, games - 1))
    cpu: list[tuple[float, dict[int, float], float]] = []  # the arena's, each bot's, the reaped
    peaks: dict[int, int] = {}  # the core hosts' peak resident memory, by pid

    def progress(done: int, total: int) -> None:
        if done in (warm, total):
            finished[done == total] = time.perf_counter()
            arena, bots = arena_and_bots()
            cpu.append((arena, bots, reaped_cpu()))
            peaks.update(hosts_peak_memory(os.getpid()))  # high-water marks: the last look counts

    def saved(outcome: GameOutcome) -> None:
        if timed:
            games_ended.append((time.perf_counter(), outcome.times))

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as scratch:
        config = TournamentConfig(
            bots=entries(players),
            players=players,
            games=games,
            seed=2026,
            concurrency=concurrency,
            max_rounds=max_rounds,
            output=Path(scratch) / "out",
            startup_timeout=STARTUP,
            sandbox=sandbox,
            reuse_processes=processes == "reuse",
            core_processes=not one_process,
        )
        started = time.perf_counter()
        with ExitStack() as stack:
            if processes == "game":
                stack.enter_context(fresh_process_per_game())
            observer = Observer(progress=progress, saved=saved)
            summary = await run_tournament(config, observer=observer)
        ended = time.perf_counter()
    kinds: Counter[str] = Counter()
    for standing in summary.standings.bots:
        kinds.update({kind.value: n for kind, n in standing.faults_by_kind.items()})
    result: dict[str, Any] = {
        "games": summary.played,
        "players": players,
        "concurrency": concurrency,
        "sandbox": str(sandbox),
        "sealed": bool(summary.run.get("sealed")),
        "cpu": summary.run.get("cpu", {}).get("mode", ""),
        "processes": processes,
        "max_rounds": max_rounds,
        "faults": sum(kinds.values()),
        "faults_by_kind": dict(kinds),
        "wall_s": ended - started,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        + sum(peaks.values()),
        "core_hosts": len(peaks),
    }
    if not timed:
        return result
    window_start, window_end = finished
    steady = [
        decision
        for at, decisions in games_ended
        if window_start < at <= window_end
        for decision in decisions
    ]
    times = [decision.seconds for decision in steady]
    rows = [decision.seconds for decision in steady if decision.decision is Decision.ROW]
    seconds = window_end - window_start
    (arena_start, bots_start, reaped_start), (arena_end, bots_end, reaped_end) = cpu
    # The bots still running, plus those that ended meanwhile (reaped: in RUSAGE_CHILDREN,
    # less what they had used by the start of the window).
    bots_cpu = sum(used - bots_start.get(pid, 0.0) for pid, used in bots_end.items())
    bots_cpu += reaped_end - reaped_start
    bots_cpu -= sum(used for pid, used in bots_start.items() if pid not in bots_end)
    result.update(
        {
            "decisions": sum(len(decisions) for _, decisions in games_ended),
            "steady_games": games - warm,
            "steady_decisions": len(steady),
            "steady_s": seconds,
            "decisions_per_s": len(steady) / seconds,
            "games_per_s": (games - warm) / seconds,
            "median_latency_s": statistics.median(times),
            "p99_latency_s": quantile(times, 0.99),
            "median_row_latency_s": statistics.median(rows) if rows else None,
            "arena_cpu_per_decision_s": (arena_end - arena_start) / len(steady),
            "bots_cpu_per_decision_s": bots_cpu / len(steady),
        }
    )
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, play, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, required=True, help="a multiple of --players")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--untimed", action="store_true", help="for the memory figures")
    parser.add_argument("--sandbox", choices=[str(mode) for mode in SandboxMode], default="auto")
    parser.add_argument("--processes", choices=PROCESSES, default="rotation")
    parser.add_argument("--players", type=int, choices=SEATS, default=TABLE)
    parser.add_argument("--one-process", action="store_true", help="--no-core-processes")
    options = parser.parse_args(argv)
    result = asyncio.run(
        tournament(
            options.games,
            options.concurrency,
            options.max_rounds,
            not options.untimed,
            SandboxMode(options.sandbox),
            options.processes,
            options.players,
            options.one_process,
        )
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
