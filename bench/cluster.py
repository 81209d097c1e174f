"""The cluster executor against the local one: the same tournament on this machine (its arena
session, and in fair mode its core hosts, whose CPU counts as the organizer's here), and on a
local Dask cluster of 1 or 2 worker processes (`arena run --workers N`).

Run as `python -m bench.cluster --games N --workers W [--threads T] [--max-rounds R]
[--players P] [--reuse-processes]` in a process of its own (`--workers 0`: the local executor);
prints one JSON object (`--games 4,8`, as the quick bench does: a tournament of each, in turn on
one cluster, and `{"runs": [...]}`). The table is end to end's (`bench.e2e`: 4 seats, 2 for the
quick bench). The rate is taken over the steady state, from the end of the first games (which
start the cluster's workers and the bots) to the end of the last. For a cluster it also gives
each worker's peak resident memory (what `dask worker` holds for the run: its arena session,
Dask's own state) and CPU time, and the organizer's (the client, and for a local cluster the
scheduler too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import run_tournament
from bench.cpu import arena_and_bots
from bench.e2e import SEATS, STARTUP, TABLE, entries

if TYPE_CHECKING:  # the local executor's runs load no Dask
    from arena.tournament.cluster import Cluster


def _worker_usage() -> dict[str, float]:
    """Run on a worker: its peak resident memory and its CPU time so far."""
    return {
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "cpu_s": time.process_time(),
    }


@dataclass(frozen=True)
class Shape:
    """Where and how a tournament of the section is played."""

    workers: int
    """Local worker processes; 0: the local executor."""
    threads: int
    """Game slots per worker (or of the local executor)."""
    max_rounds: int | None = None
    players: int = TABLE
    reuse_processes: bool = False
    """One process per bot for all the games (the quick bench's), not one per seat rotation."""

    def config(self, games: int, output: Path) -> TournamentConfig:
        """The tournament of `games` games in this shape, writing to `output`."""
        return TournamentConfig(
            bots=entries(self.players),
            players=self.players,
            games=games,
            seed=2026,
            concurrency=self.threads * max(1, self.workers),
            max_rounds=self.max_rounds,
            output=output,
            startup_timeout=STARTUP,
            workers=self.workers or None,
            reuse_processes=self.reuse_processes,
        )


async def tournaments(games: Sequence[int], shape: Shape) -> list[dict[str, Any]]:
    """Play a tournament of each of `games` games in turn, in `shape`, all on the local executor
    or on one local cluster, and return the figures of each. Several on one cluster are the
    quick bench's: it starts one cluster, not one for each (a cluster's worker processes are
    most of a quick tournament's cost), and the workers' memory of each then includes the
    tournaments before."""
    if not shape.workers:
        return [await tournament(count, shape) for count in games]
    from arena.tournament.cluster import open_cluster

    began: float | None = time.perf_counter()  # the first's wall time includes the cluster's start
    found = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as scratch:
        async with open_cluster(shape.config(games[0], Path(scratch))) as cluster:
            for count in games:
                found.append(await tournament(count, shape, cluster, began))
                began = None
    return found


async def tournament(
    games: int, shape: Shape, cluster: Cluster | None = None, began: float | None = None
) -> dict[str, Any]:
    """Play `games` games at one table, on this machine (`shape.workers` 0) or on `cluster`, a
    local cluster of that shape, and return the figures; its wall time from `began` (the
    cluster's start), or from now."""
    marks: dict[str, float] = {}
    slots = shape.threads * max(1, shape.workers)
    # By the end of the warm-up every rotation's bots have started.
    warm = max(1, min(shape.players * 2 * slots, games // shape.players, games - 1))
    usage: list[dict[str, dict[str, float]]] = []

    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as scratch:
        config = shape.config(games, Path(scratch) / "out")
        own = [0.0, 0.0]
        pending: list[asyncio.Task[Any]] = []

        def progress(done: int, total: int) -> None:
            if done in (warm, total):
                marks["warm" if done == warm else "end"] = time.perf_counter()
                local = cluster is None  # on this machine, the core hosts are the arena too
                own[done == total] = arena_and_bots()[0] if local else time.process_time()
                if cluster is not None:
                    pending.append(asyncio.ensure_future(cluster.client.run(_worker_usage)))

        started = time.perf_counter() if began is None else began
        summary = await run_tournament(config, observer=Observer(progress=progress), venue=cluster)
        usage.extend(await asyncio.gather(*pending))
        ended = time.perf_counter()
    steady = games - warm
    seconds = marks["end"] - marks["warm"]
    result: dict[str, Any] = {
        "games": summary.played,
        "players": shape.players,
        "workers": shape.workers,
        "threads": shape.threads,
        "max_rounds": shape.max_rounds,
        "wall_s": ended - started,
        "steady_games": steady,
        "games_per_s": steady / seconds,
        "ms_per_game": seconds / steady * 1000,
        "organizer_cpu_ms_per_game": (own[1] - own[0]) / steady * 1000,
        "organizer_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    if shape.workers and len(usage) == 2:
        first, last = usage
        result["worker_peak_rss_bytes"] = max(u["peak_rss_bytes"] for u in last.values())
        result["worker_cpu_ms_per_game"] = (
            sum(last[a]["cpu_s"] - first.get(a, {"cpu_s": 0.0})["cpu_s"] for a in last)
            / steady
            * 1000
        )
        result["games_per_worker"] = dict(summary.workers.games) if summary.workers else {}
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, play, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--games", required=True, help="a multiple of --players; several (4,8): one cluster"
    )
    parser.add_argument("--workers", type=int, default=0, help="0: the local executor")
    parser.add_argument("--threads", type=int, default=None, help="game slots per worker")
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--players", type=int, choices=SEATS, default=TABLE)
    parser.add_argument("--reuse-processes", action="store_true", help="one process per bot")
    options = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    shape = Shape(
        workers=options.workers,
        threads=options.threads or max(1, cores // max(1, options.workers)),
        max_rounds=options.max_rounds,
        players=options.players,
        reuse_processes=options.reuse_processes,
    )
    games = [int(count) for count in options.games.split(",")]
    found = asyncio.run(tournaments(games, shape))
    print(json.dumps(found[0] if len(found) == 1 else {"runs": found}))


if __name__ == "__main__":
    main()
