"""`make bench`: every figure of the arena's speed, each beside the baseline it is judged against.

Run as `python -m bench.run [--json] [--quick] [--only SECTION,...]`. Sections:

- engine: games to 66 per CPU-second with in-process strategies, 2, 4 and 10 players, against
  the straightforward loop of `bench.baseline` (`bench.engine`);
- floor: a bare gRPC stream echoing card-request-sized bytes between two processes, one
  message at a time and several in flight (`bench.floor`);
- e2e: tournaments of the random and lowest sample bots over gRPC at a 4-player table, at
  concurrency 1 and the default, timed as the arena sees each decision (`bench.e2e`);
- memory: the arena's peak resident memory for 100 and for 2,000 games (`bench.e2e`);
- cluster: the same tournament on the local executor and on a local Dask cluster of 1 and 2
  worker processes: games/s and ms a game (the cluster executor's overhead), and a worker's peak
  resident memory for 100 and for 2,000 games (`bench.cluster`);
- sealing: a sealed bot's start-up against an unsealed one's, and the e2e tournament unsealed and
  sealed, with one process for all games (the baseline: how bots ran before sealing), a process
  per seat rotation (the default) and a fresh process per game (`bench.sealing`);
- fair: fast bots' decisions/s in fair CPU mode (one decider at a time, the others frozen)
  against shared mode, the cost of thawing and freezing a bot around a decision, and how far
  the recorded answer times are from a bot's own measurement of its think time (`bench.fair`);
- ladder: the ladder's match loop, as `arena ladder serve` plays: sets per hour, and the
  server's own CPU per set against its games' (`bench.ladder`);
- pages: the ladder's pages and JSON API with 100 bots and 10,000 sets stored: the leaderboard
  and a bot's page, as HTML and as JSON, and the last 50 sets, p50 and p99 over 100 requests
  each and the server's CPU for each, against a static file from the same server
  (`bench.pages`);
- ladder-convergence: sets until the ladder's leaderboard finds the true order of eight bots
  (Kendall's tau >= 0.9), with its matchmaking against uniformly random tables, played in
  process (`bench.convergence`).

Everything is measured in this one run, so every ratio compares figures taken under the same
load: on a shared machine the absolute figures move, the ratios much less. Each timed section
runs in processes of its own.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bench import convergence, engine
from bench.cpu import machine_busy
from bench.report import best_floor, one_at_a_time, report


@dataclass(frozen=True)
class Sizes:
    """How much of each measurement to do: the full bench, or a quick check that it runs."""

    players: tuple[int, ...] = (2, 4, 10)
    engine_seconds: float = 0.4
    """Roughly how long one trial of the slowest engine player lasts."""
    trials: int = 3
    floor_seconds: float = 1.0
    in_flight: tuple[int, ...] = (1, 2, 4, 16)
    table: int = 4
    """Seats at the table of every tournament (e2e, memory, cluster, sealing, fair's rates; the
    children's own default, `bench.e2e.TABLE`, which this module does not import: it loads
    gRPC), as many bots as seats. The bot processes they start, one per bot and seat rotation,
    are most of their cost: 16 at 4 seats, 4 at 2."""
    reuse_processes: bool = False
    """One process per bot for all the games of the e2e, memory, cluster and fair accuracy
    tournaments, not one per bot and seat rotation: the quick check's, which starts half as many
    at 2 seats (sealing still plays every way, and fair's rates always reuse)."""
    e2e_games: tuple[tuple[int, int], ...] = ((1, 40), (os.cpu_count() or 1, 100))
    """(concurrency, games) of each end-to-end tournament; the last is the default concurrency."""
    e2e_max_rounds: int | None = None
    memory_games: tuple[int, int] = (100, 2000)
    memory_max_rounds: int = 1
    """Games of one round: memory must not grow with the number of games, whatever their length,
    and 2,000 games to 66 would take most of the five minutes the bench may take."""
    cluster_games: int = 80
    """Games of each speed run of the cluster section (local, 1 worker, 2 workers)."""
    cluster_max_rounds: int | None = None
    cluster_memory_games: tuple[int, int] = (100, 2000)
    """Games of one round on one worker, for its memory."""
    share_clusters: bool = False
    """Play the cluster section's tournaments of as many workers and rounds on one cluster, in
    turn (its workers' memory then includes the tournaments before): for the quick check alone,
    where starting a cluster costs more than its tournaments."""
    sealing_trials: int = 10
    """Start-ups of a sealed and of an unsealed bot, alternately."""
    sealing_games: int = 40
    """Games of each sealing tournament (at the default concurrency)..."""
    sealing_per_game_games: int = 16
    """...but for the one with a fresh process per game, which starts four a game."""
    sealing_max_rounds: int | None = None
    sealing_repeats: int = 3
    """Rounds of the five tournaments, interleaved: each figure is the median of its rounds."""
    sealing_in_process: bool = False
    """Play them in the sealing section's own process, not each in one of its own: the quick
    check's, which saves five interpreters' start-ups."""
    fair_games: int = 40
    """Games of each fair and shared tournament of fast bots (see `bench.fair`)."""
    fair_max_rounds: int | None = None
    fair_trials: int = 2
    """Fair and shared tournaments, alternately: each mode's figure is its median."""
    fair_cycles: int = 200
    """Freezes and thaws of a bot's cgroup."""
    fair_accuracy_games: int = 6
    """Games of the bot that measures its own think time, in each mode..."""
    fair_accuracy_players: int = 3
    """...at a table of this many seats (`bench.fair.ACCURACY_TABLE`)."""
    ladder_sets: int = 20
    """Sets of the ladder section's match loop (four sample bots at 4-seat tables)."""
    pages_bots: int = 100
    pages_sets: int = 10_000
    """The ladder the pages section stores (`bench.pages`)..."""
    pages_requests: int = 100
    """...and the requests of each route it measures."""
    ladder_convergence: convergence.Sizes = field(default_factory=convergence.Sizes)
    """Runs of the ladder's convergence (`bench.convergence`): seeds, the cap, the hold."""
    at_once: bool = False
    """Run every section, and every process of a section, at the same time: for the quick check
    alone, whose figures are not worth reading anyway (most of its time is processes starting
    and stopping). A real measurement takes one figure at a time, each on a machine that does
    nothing else of its own."""


QUICK = Sizes(
    players=(2,),
    engine_seconds=0.05,
    trials=1,
    floor_seconds=0.2,
    in_flight=(1, 4),
    table=2,
    reuse_processes=True,
    e2e_games=((1, 4), (2, 4)),
    e2e_max_rounds=1,
    memory_games=(4, 8),
    cluster_games=8,
    cluster_max_rounds=1,
    cluster_memory_games=(4, 8),
    share_clusters=True,
    sealing_trials=1,
    sealing_games=4,
    sealing_per_game_games=2,
    sealing_max_rounds=1,
    sealing_repeats=1,
    sealing_in_process=True,
    fair_games=4,
    fair_max_rounds=1,
    fair_trials=1,
    fair_cycles=5,
    fair_accuracy_games=2,
    fair_accuracy_players=2,
    ladder_sets=3,
    pages_bots=8,
    pages_sets=60,
    pages_requests=5,
    ladder_convergence=convergence.QUICK,
    at_once=True,
)
"""Tiny sizes: every section runs and reports, nothing is worth reading (the smoke test). What
it costs is processes starting: bots (a quarter of a CPU second each, 236 of them at 4-player
tables), interpreters and Dask clusters. So it plays at 2-player tables, one process a bot (but
where sealing compares the ways), the 1-worker cluster runs on one cluster, and sealing's
tournaments in its own process: 70 bots, 12 interpreters and 2 clusters (bench/NOTES.md)."""

SECTIONS = (
    *("engine", "floor", "e2e", "memory", "cluster", "sealing", "fair"),
    "ladder",
    "pages",
    "ladder-convergence",
)


Child = tuple[str, tuple[str, ...]]
"""A measurement in a process of its own: `python -m module args`."""


def _children(sizes: Sizes, children: Sequence[Child]) -> list[dict[str, Any]]:
    """Each child's JSON object, in order: one after the other, or all at once (`at_once`).
    A child named twice runs once (at quick sizes the cluster's 1-worker speed run is the
    same tournament as its longer memory run)."""
    distinct = list(dict.fromkeys(children))
    if sizes.at_once:
        with ThreadPoolExecutor(max(1, len(distinct))) as pool:
            found = list(pool.map(lambda child: _child(child[0], *child[1]), distinct))
    else:
        found = [_child(module, *args) for module, args in distinct]
    by_child = dict(zip(distinct, found, strict=True))
    return [by_child[child] for child in children]


def _child(module: str, *args: str) -> dict[str, Any]:
    """Run `python -m module args` and return the JSON object it prints last."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GRPC_VERBOSITY": "ERROR"},  # no fork notices from gRPC
    )
    if done.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_engine(sizes: Sizes) -> list[dict[str, Any]]:
    """The engine section: one entry per table size."""
    seconds, trials = sizes.engine_seconds, sizes.trials
    return [engine.measure(players, seconds, trials) for players in sizes.players]


def run_floor(sizes: Sizes) -> dict[str, Any]:
    """The floor section: one entry per number of messages in flight."""
    levels = ",".join(str(level) for level in sizes.in_flight)
    return _child(
        "bench.floor",
        f"--seconds={sizes.floor_seconds}",
        f"--trials={sizes.trials}",
        f"--in-flight={levels}",
    )


def _tournament(
    sizes: Sizes, games: int, concurrency: int, max_rounds: int | None, timed: bool = True
) -> Child:
    args = [f"--games={games}", f"--concurrency={concurrency}", f"--players={sizes.table}"]
    if sizes.reuse_processes:
        args.append("--processes=reuse")
    if max_rounds is not None:
        args.append(f"--max-rounds={max_rounds}")
    if not timed:
        args.append("--untimed")
    return "bench.e2e", tuple(args)


def run_e2e(sizes: Sizes) -> list[dict[str, Any]]:
    """The end-to-end section: one tournament per concurrency."""
    return _children(
        sizes,
        [
            _tournament(sizes, games, concurrency, sizes.e2e_max_rounds)
            for concurrency, games in sizes.e2e_games
        ],
    )


def run_memory(sizes: Sizes) -> list[dict[str, Any]]:
    """The memory section: a short and a long tournament at the default concurrency."""
    concurrency = sizes.e2e_games[-1][0]
    return _children(
        sizes,
        [
            _tournament(sizes, games, concurrency, sizes.memory_max_rounds, timed=False)
            for games in sizes.memory_games
        ],
    )


ClusterRun = tuple[int, int, int | None]
"""A tournament of the cluster section: games, worker processes (0: the local executor) and
rounds of each game (None: to 66)."""


def run_cluster(sizes: Sizes) -> dict[str, Any]:
    """The cluster section: the local executor, then 1 and 2 local workers, on the same games;
    then one worker's memory for a short and a long tournament of one-round games."""
    speed = [(sizes.cluster_games, workers, sizes.cluster_max_rounds) for workers in (0, 1, 2)]
    memory = [(games, 1, 1) for games in sizes.cluster_memory_games]
    found = _cluster_runs(sizes, [*speed, *memory])
    return {"speed": found[: len(speed)], "memory": found[len(speed) :]}


def _cluster_runs(sizes: Sizes, runs: Sequence[ClusterRun]) -> list[dict[str, Any]]:
    """Each run's figures, each run in a `bench.cluster` process of its own; with
    `share_clusters`, the runs of as many workers and rounds in one, on one cluster, in turn,
    shortest first."""
    distinct = list(dict.fromkeys(runs))
    plan: list[tuple[list[int], int, int | None]] = []
    if sizes.share_clusters:
        batches: dict[tuple[int, int | None], list[int]] = {}
        for games, workers, rounds in distinct:
            batches.setdefault((workers, rounds), []).append(games)
        plan = [(sorted(counts), workers, rounds) for (workers, rounds), counts in batches.items()]
    else:
        plan = [([games], workers, rounds) for games, workers, rounds in distinct]
    children: list[Child] = []
    for counts, workers, rounds in plan:
        args = [f"--games={','.join(str(count) for count in counts)}", f"--workers={workers}"]
        args += [] if rounds is None else [f"--max-rounds={rounds}"]
        args += ["--reuse-processes"] if sizes.reuse_processes else []
        children.append(("bench.cluster", (*args, f"--players={sizes.table}")))
    by_run: dict[ClusterRun, dict[str, Any]] = {}
    for (counts, workers, rounds), found in zip(plan, _children(sizes, children), strict=True):
        played = found["runs"] if len(counts) > 1 else [found]
        by_run.update(
            {(count, workers, rounds): run for count, run in zip(counts, played, strict=True)}
        )
    return [by_run[run] for run in runs]


def run_sealing(sizes: Sizes) -> dict[str, Any]:
    """The sealing section: start-ups, then its five tournaments (see `bench.sealing`)."""
    args = [
        f"--trials={sizes.sealing_trials}",
        f"--games={sizes.sealing_games}",
        f"--per-game-games={sizes.sealing_per_game_games}",
        f"--repeats={sizes.sealing_repeats}",
        f"--players={sizes.table}",
    ]
    if sizes.sealing_max_rounds is not None:
        args.append(f"--max-rounds={sizes.sealing_max_rounds}")
    if sizes.sealing_in_process:
        args.append("--in-process")
    return _child("bench.sealing", *args)


def run_fair(sizes: Sizes) -> dict[str, Any]:
    """The fair-CPU section: fast bots fair and shared, freezing, time accuracy (`bench.fair`)."""
    args = [
        f"--games={sizes.fair_games}",
        f"--trials={sizes.fair_trials}",
        f"--cycles={sizes.fair_cycles}",
        f"--accuracy-games={sizes.fair_accuracy_games}",
        f"--players={sizes.table}",
        f"--accuracy-players={sizes.fair_accuracy_players}",
    ]
    if sizes.reuse_processes:
        args.append("--accuracy-reuse")
    if sizes.fair_max_rounds is not None:
        args.append(f"--max-rounds={sizes.fair_max_rounds}")
    return _child("bench.fair", *args)


def run_ladder(sizes: Sizes) -> dict[str, Any]:
    """The ladder's match loop (`bench.ladder`), in a process of its own: its CPU is the
    server's, its children's the games'."""
    args = [f"--sets={sizes.ladder_sets}", f"--players={sizes.table}"]
    if sizes.reuse_processes:
        args.append("--reuse-processes")
    return _child("bench.ladder", *args)


def run_pages(sizes: Sizes) -> dict[str, Any]:
    """The ladder's pages and API under a stored ladder (`bench.pages`), in a process of its
    own, which starts the server in another."""
    args = [
        f"--bots={sizes.pages_bots}",
        f"--sets={sizes.pages_sets}",
        f"--requests={sizes.pages_requests}",
    ]
    return _child("bench.pages", *args)


def run_convergence(sizes: Sizes) -> dict[str, Any]:
    """The ladder's convergence: matchmaking against uniform tables (`bench.convergence`), in
    a process of its own, as the timed sections are (its figure is sets, not seconds, but its
    games would slow the others' at once)."""
    chosen = sizes.ladder_convergence
    args = [f"--seeds={chosen.seeds}", f"--cap={chosen.cap}", f"--hold={chosen.hold}"]
    if chosen.max_rounds is not None:
        args.append(f"--max-rounds={chosen.max_rounds}")
    return _child("bench.convergence", *args)


RUNNERS: dict[str, Callable[[Sizes], Any]] = {
    "engine": run_engine,
    "floor": run_floor,
    "e2e": run_e2e,
    "memory": run_memory,
    "cluster": run_cluster,
    "sealing": run_sealing,
    "fair": run_fair,
    "ladder": run_ladder,
    "pages": run_pages,
    "ladder-convergence": run_convergence,
}


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "date": datetime.date.today().isoformat(),
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(sizes: Sizes, sections: Sequence[str]) -> dict[str, Any]:
    """Run the sections and return every figure, the targets and the machine's load."""
    busy_start, wall_start = machine_busy(), time.perf_counter()
    own_start = _own_cpu()
    load_start = os.getloadavg()
    results: dict[str, Any] = {"machine": machine()}
    if sizes.at_once:
        with ThreadPoolExecutor(max(1, len(sections))) as pool:
            running = {section: pool.submit(RUNNERS[section], sizes) for section in sections}
            results.update({section: done.result() for section, done in running.items()})
    else:
        for section in sections:
            results[section] = RUNNERS[section](sizes)
    wall = time.perf_counter() - wall_start
    others = (machine_busy() - busy_start) - (_own_cpu() - own_start)
    results["load"] = {
        "seconds": wall,
        "load_average_before": load_start[0],
        "load_average_after": os.getloadavg()[0],
        "other_processes_cores": max(0.0, others / wall),
    }
    results["targets"] = targets(results)
    return results


def _own_cpu() -> float:
    """CPU seconds of this process and of every child it waited for (and theirs)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of issues 7 and 23 that the measured sections allow to judge, and whether it
    is met."""
    found = []

    def add(name: str, ratio: float, limit: float, at_least: bool) -> None:
        found.append(_target(name, ratio, limit, at_least))

    for entry in results.get("engine", []):
        ratio = entry["engine_games_per_s"] / entry["baseline_games_per_s"]
        add(f"engine / baseline, {entry['players']} players", ratio, 1.0, at_least=True)
    if "floor" in results and "e2e" in results:
        first, default = results["e2e"][0], results["e2e"][-1]
        best = best_floor(results)["round_trips_per_s"]
        add(
            "e2e decisions/s / floor's best round trips/s, default concurrency",
            default["decisions_per_s"] / best,
            0.6,
            at_least=True,
        )
        rtt = one_at_a_time(results)["median_rtt_s"]
        add(
            "e2e median decision latency / floor round trip, concurrency 1",
            first["median_latency_s"] / rtt,
            1.5,
            at_least=False,
        )
    found.extend(_fair_targets(results))
    if "memory" in results:
        short, long = results["memory"]
        add(
            f"peak memory, {long['games']} / {short['games']} games",
            long["peak_rss_bytes"] / short["peak_rss_bytes"],
            1.1,
            at_least=False,
        )
    if "cluster" in results:
        short, long = results["cluster"]["memory"]
        add(
            f"worker peak memory, {long['games']} / {short['games']} games",
            long["worker_peak_rss_bytes"] / short["worker_peak_rss_bytes"],
            1.1,
            at_least=False,
        )
    return found


def _target(name: str, ratio: float, limit: float, at_least: bool) -> dict[str, Any]:
    """One target: met when `ratio` is at least (or at most) `limit`."""
    met = ratio >= limit if at_least else ratio <= limit
    return {"target": name, "ratio": ratio, "limit": limit, "at_least": at_least, "met": met}


def _fair_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 23's: fair and sealed play at nearly the price of shared play. The arena's CPU a
    decision is set against the floor's server at as many messages in flight as the default
    concurrency's fair games have (one each), or the nearest level measured."""
    found = []

    def add(name: str, ratio: float, limit: float, at_least: bool) -> None:
        found.append(_target(name, ratio, limit, at_least))

    fair = results.get("fair", {})
    if "rates" in fair:
        add("fast bots, fair / shared decisions/s", fair["rates"]["ratio"], 0.85, at_least=True)
    if "median_us" in fair.get("freeze", {}).get("idle", {}):
        add(
            "thaw and freeze of an idle bot, median us",
            fair["freeze"]["idle"]["median_us"],
            100,
            at_least=False,
        )
    default = results["e2e"][-1] if results.get("e2e") else None
    if default is None or not (default.get("sealed") and default.get("cpu") == "fair"):
        return found
    add(
        "e2e decisions/s, default concurrency, sealed and fair",
        default["decisions_per_s"],
        2000,
        at_least=True,
    )
    if "floor" in results:
        levels = results["floor"]["levels"]
        level = min(levels, key=lambda entry: abs(entry["in_flight"] - default["concurrency"]))
        add(
            f"e2e arena CPU a decision / floor server's a round trip, "
            f"{level['in_flight']} in flight",
            default["arena_cpu_per_decision_s"] / level["server_cpu_per_round_trip_s"],
            2.5,
            at_least=False,
        )
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, measure, print the table (or JSON)."""
    parser = argparse.ArgumentParser(description="Measure the arena against its baselines.")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: check that it runs")
    parser.add_argument("--only", default=",".join(SECTIONS), help="sections to run")
    options = parser.parse_args(argv)
    sections = [section for section in options.only.split(",") if section]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}: choose from {', '.join(SECTIONS)}")
    results = measure(QUICK if options.quick else Sizes(), sections)
    print(json.dumps(results, indent=2) if options.json else report(results))


if __name__ == "__main__":
    main()
