"""The cluster executor against the local one: the same tournament on this machine's one arena
session, and on a local Dask cluster of 1 or 2 worker processes (`arena run --workers N`).

Run as `python -m bench.cluster --games N --workers W [--threads T] [--max-rounds R]` in a
process of its own (`--workers 0`: the local executor); prints one JSON object. The rate is
taken over the steady state, from the end of the first games (which start the cluster's workers
and the bots) to the end of the last. For a cluster it also gives each worker's peak resident
memory (what `dask worker` holds for the run: its arena session, Dask's own state) and CPU time,
and the organizer's (the client, and for a local cluster the scheduler too).
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
from pathlib import Path
from typing import Any

from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import run_tournament
from bench.e2e import STARTUP, entries


def _worker_usage() -> dict[str, float]:
    """Run on a worker: its peak resident memory and its CPU time so far."""
    return {
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "cpu_s": time.process_time(),
    }


async def tournament(
    games: int, workers: int, threads: int, max_rounds: int | None
) -> dict[str, Any]:
    """Play `games` games at one 4-player table, on this machine (`workers` 0) or on a local
    cluster of `workers` processes of `threads` threads each, and return the figures."""
    from arena.tournament.cluster import open_cluster

    marks: dict[str, float] = {}
    slots = threads * max(1, workers)
    warm = max(1, min(4 * 2 * slots, games // 4, games - 1))  # every rotation's bots started
    usage: list[dict[str, dict[str, float]]] = []

    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as scratch:
        config = TournamentConfig(
            bots=entries(),
            players=4,
            games=games,
            seed=2026,
            concurrency=slots,
            max_rounds=max_rounds,
            output=Path(scratch) / "out",
            startup_timeout=STARTUP,
            workers=workers or None,
        )
        own = [0.0, 0.0]

        async def play() -> Any:
            if not workers:

                def progress(done: int, total: int) -> None:
                    if done in (warm, total):
                        marks["warm" if done == warm else "end"] = time.perf_counter()
                        own[done == total] = time.process_time()

                return await run_tournament(config, observer=Observer(progress=progress))
            async with open_cluster(config) as cluster:
                pending: list[asyncio.Task[Any]] = []

                def progress(done: int, total: int) -> None:
                    if done in (warm, total):
                        marks["warm" if done == warm else "end"] = time.perf_counter()
                        own[done == total] = time.process_time()
                        pending.append(asyncio.ensure_future(cluster.client.run(_worker_usage)))

                observer = Observer(progress=progress)
                summary = await run_tournament(config, observer=observer, venue=cluster)
                usage.extend(await asyncio.gather(*pending))
                return summary

        started = time.perf_counter()
        summary = await play()
        ended = time.perf_counter()
    steady = games - warm
    seconds = marks["end"] - marks["warm"]
    result: dict[str, Any] = {
        "games": summary.played,
        "workers": workers,
        "threads": threads,
        "max_rounds": max_rounds,
        "wall_s": ended - started,
        "steady_games": steady,
        "games_per_s": steady / seconds,
        "ms_per_game": seconds / steady * 1000,
        "organizer_cpu_ms_per_game": (own[1] - own[0]) / steady * 1000,
        "organizer_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    if workers and len(usage) == 2:
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
    parser.add_argument("--games", type=int, required=True, help="a multiple of 4")
    parser.add_argument("--workers", type=int, default=0, help="0: the local executor")
    parser.add_argument("--threads", type=int, default=None, help="game slots per worker")
    parser.add_argument("--max-rounds", type=int, default=None)
    options = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    threads = options.threads or max(1, cores // max(1, options.workers))
    result = asyncio.run(tournament(options.games, options.workers, threads, options.max_rounds))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
