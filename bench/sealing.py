"""What sealing costs: a sealed bot's start-up against an unsealed one's, and end-to-end
decisions/s with and without the sandbox, with a process per seat rotation (the default), a
fresh process per game, and one process for all the games (`--reuse-processes`: how bots ran
before sealing, the baseline), all in this one run.

Run as `python -m bench.sealing [--trials N] [--games N] [--per-game-games N] [--max-rounds R]
[--repeats N] [--players P] [--in-process]`; prints one JSON object. Start-up is timed as the
arena sees it: from asking the lobby for a process of the lowest sample bot to its hello, sealed
and unsealed in turn (so both see the same load), each time a new process. The tournaments are
`bench.e2e`'s (the random and lowest sample bots, two copies each, at a 4-player table, at the
default concurrency, every game in that process: `--one-process`, for a fresh process per game
is made there), each in a process of its own; their rates are taken after the warm-up
games, as there, so they include every process the steady state starts (a fresh process per
game: four every game). The quick bench plays them at a 2-player table and `--in-process`: each
in this process, one after the other (the start-up of five interpreters saved; each figure but
its peak memory, which the section does not show, is taken as in a process of its own).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.server.isolation.sandbox import NoSandbox, SandboxMode, find_sandbox
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.session import open_session
from bench import e2e

ROOT = Path(__file__).resolve().parents[1]
LOWEST = ROOT / "sample_bots" / "python" / "lowest_bot.py"
RUNS: tuple[tuple[str, str, str], ...] = (
    ("unsealed, one process for all games", "off", "reuse"),
    ("unsealed, a process per rotation", "off", "rotation"),
    ("sealed, one process for all games", "on", "reuse"),
    ("sealed, a process per rotation (default)", "on", "rotation"),
    ("sealed, a fresh process per game", "on", "game"),
)
"""(label, --sandbox, --processes) of each tournament; the first is the baseline."""


async def startups(trials: int) -> dict[str, list[float]]:
    """Seconds from asking for a new process of the lowest bot to its hello, `trials` times
    sealed and unsealed, alternately."""
    spec = BotSpec("lowest", (sys.executable, str(LOWEST)))
    times: dict[str, list[float]] = {"sealed": [], "unsealed": []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as scratch:
        sealed_options = BotOptions(startup_timeout=60.0, sandbox=SandboxMode.ON)
        unsealed_options = BotOptions(startup_timeout=60.0, sandbox=SandboxMode.OFF)
        async with (
            open_session([spec], Path(scratch) / "sealed", sealed_options) as sealed,
            open_session([spec], Path(scratch) / "unsealed", unsealed_options) as unsealed,
        ):
            for trial in range(trials):
                for name, session in (("sealed", sealed), ("unsealed", unsealed)):
                    began = time.perf_counter()
                    instance = await session.lobby.acquire("lowest", rotation=trial)
                    times[name].append(time.perf_counter() - began)
                    assert instance is not None, f"the {name} bot did not start"
                    await session.lobby.release(session.lobby.bots["lowest"], instance)
                    if instance.connection is not None:  # it exits: no idle processes pile up
                        instance.connection.close("measured")
    return times


def tournament(
    games: int, sandbox: str, processes: str, max_rounds: int | None, players: int = e2e.TABLE
) -> dict[str, Any]:
    """One of `bench.e2e`'s tournaments, in a process of its own."""
    args = [f"--games={games}", f"--sandbox={sandbox}", f"--processes={processes}"]
    args += [f"--concurrency={os.cpu_count() or 1}", f"--players={players}", "--one-process"]
    if max_rounds is not None:
        args.append(f"--max-rounds={max_rounds}")
    done = subprocess.run(
        [sys.executable, "-m", "bench.e2e", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.e2e {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(
    trials: int,
    games: int,
    per_game_games: int,
    max_rounds: int | None,
    repeats: int = 3,
    players: int = e2e.TABLE,
    in_process: bool = False,
) -> dict[str, Any]:
    """Every figure of the section. The tournaments run `repeats` times, interleaved (every
    way once, then again), and each way's figure is its median; its ratio is the median of its
    ratios to the baseline of the same round, which a shared machine's load moves least.
    `in_process` (the quick bench): every tournament in this process."""
    try:
        asyncio.run(find_sandbox())
    except NoSandbox as why:
        return {"skipped": f"this machine cannot seal bots: {why}"}
    plan = [
        (per_game_games if processes == "game" else games, mode, processes)
        for _ in range(repeats)
        for _, mode, processes in RUNS
    ]
    started = asyncio.run(startups(trials))
    if in_process:
        cores = os.cpu_count() or 1
        found = [
            asyncio.run(
                e2e.tournament(
                    games,
                    cores,
                    max_rounds,
                    sandbox=SandboxMode(mode),
                    processes=processes,
                    players=players,
                    one_process=True,
                )
            )
            for games, mode, processes in plan
        ]
    else:
        found = [tournament(*run, max_rounds, players) for run in plan]
    rounds = [found[start : start + len(RUNS)] for start in range(0, len(found), len(RUNS))]
    runs = []
    for index, (label, _, _) in enumerate(RUNS):
        tries = [played[index] for played in rounds]
        ratios = [
            played[index]["decisions_per_s"] / played[0]["decisions_per_s"] for played in rounds
        ]
        middle = sorted(tries, key=lambda run: run["decisions_per_s"])[len(tries) // 2]
        runs.append(
            {
                **middle,
                "label": label,
                "decisions_per_s": statistics.median(run["decisions_per_s"] for run in tries),
                "ratio": statistics.median(ratios),
                "repeats": len(tries),
            }
        )
    return {
        "startup": {
            name: {
                "median_s": statistics.median(values),
                "min_s": min(values),
                "trials": len(values),
            }
            for name, values in started.items()
        },
        "runs": runs,
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=10, help="start-ups of each kind")
    parser.add_argument("--games", type=int, default=40, help="games of each tournament")
    parser.add_argument(
        "--per-game-games", type=int, default=16, help="games with a fresh process per game"
    )
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the tournaments")
    parser.add_argument("--players", type=int, choices=e2e.SEATS, default=e2e.TABLE)
    parser.add_argument("--in-process", action="store_true", help="no process a tournament")
    options = parser.parse_args(argv)
    result = measure(
        options.trials,
        options.games,
        options.per_game_games,
        options.max_rounds,
        options.repeats,
        options.players,
        options.in_process,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
