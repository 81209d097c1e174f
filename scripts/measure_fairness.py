"""Measure what fair CPU buys (issue 14): the Monte Carlo bot's deals per decision beside a quiet
and beside a hostile neighbour, in fair and in shared mode, and every bot's timeouts.

The table of `tests/tournament/test_fair_cpu.py` (the Monte Carlo bot, searching until its
deadline less 0.1 s; the neighbour, quiet or running 16 busy processes in sessions of their
own and renicing everything it can; a bot that answers at 90% of its deadline), one deal in its
three seat rotations, one round a game, 0.3 s deadlines. For each mode the quiet tournament,
then the hostile one, one game at a time (in fair mode both on the same core; in shared mode the
hog's busy processes run throughout the hostile tournament, and only there). Run from the
repository's root:

    .venv/bin/python scripts/measure_fairness.py            # about a minute
    .venv/bin/python scripts/measure_fairness.py --deals 2 --modes fair
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from arena.server.isolation.fairness import CpuMode
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import DATABASE, LOGS, REPLAYS, ResultStore

ROOT = Path(__file__).resolve().parents[1]
MONTECARLO = ROOT / "sample_bots" / "python" / "montecarlo_bot.py"
BOTS = ROOT / "tests" / "bots"
DEALS = re.compile(r"montecarlo: decision=\w+ turn=\d+ budget=\S+ used=\S+ deals=(\d+)")


def config(
    neighbour: str, mode: CpuMode, deals: int, deadline: float, output: Path
) -> TournamentConfig:
    """The test's table with `neighbour` (quiet or hog), in `mode`."""
    return TournamentConfig(
        bots=(
            parse_bot(f"montecarlo={MONTECARLO} --margin 0.1 --timing"),
            parse_bot(f"neighbour={BOTS / 'hog_bot.py'} {neighbour}"),
            parse_bot(f"punctual={BOTS / 'punctual_bot.py'} 0.9"),
        ),
        players=3,
        games=3 * deals,
        seed=3,
        max_rounds=1,
        deadline=deadline,
        first_deadline=deadline,
        concurrency=1,
        cpu=mode,
        startup_timeout=60.0,
        output=output,
    )


def timeouts(output: Path) -> Counter[str]:
    """Timeouts of each bot in a run."""
    found: Counter[str] = Counter()
    for line in (output / REPLAYS).read_text().splitlines():
        game = json.loads(line)
        for fault in game["faults"]:
            if fault["kind"] == "timeout":
                found[game["spec"]["seats"][fault["seat"]]] += 1
    return found


async def both(mode: CpuMode, deals: int, deadline: float, folder: Path) -> dict[str, object]:
    """The quiet tournament, then the hostile one, in `mode`; their figures."""
    outputs = {name: folder / f"{mode.value}-{name}" for name in ("quiet", "hog")}
    runs = [config(name, mode, deals, deadline, out) for name, out in outputs.items()]
    summaries: list[RunSummary] = [await run_tournament(c) for c in runs]
    figures: dict[str, object] = {"ran_as": summaries[0].run.get("cpu", {}).get("mode")}
    for (name, output), summary in zip(outputs.items(), summaries, strict=True):
        log = (output / LOGS / "montecarlo.log").read_text()
        deals_seen = [int(found) for found in DEALS.findall(log)]
        cpu = {line.bot: line.cpu_median for line in summary.standings.times}
        with ResultStore.reader(output / DATABASE) as store:
            taken = [
                time.neighbours or 0.0
                for outcome in store.outcomes()
                for time in outcome.times
                if outcome.spec.seats[time.seat] == "montecarlo"
            ]
        figures[name] = {
            "deals_per_decision": statistics.mean(deals_seen),
            "decisions": len(deals_seen),
            "montecarlo_cpu_median_ms": (cpu.get("montecarlo") or 0.0) * 1000,
            "neighbours_cpu_while_montecarlo_decided_ms": sum(taken) * 1000,
            "timeouts": dict(timeouts(output)),
        }
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Run both modes, print a line each and the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--deals", type=int, default=1, help="deals (3 games each)")
    parser.add_argument("--deadline", type=float, default=0.3)
    parser.add_argument("--modes", default="fair,shared")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="arena-fairness-") as scratch:
        for mode in (CpuMode(name) for name in args.modes.split(",")):
            figures = asyncio.run(both(mode, args.deals, args.deadline, Path(scratch)))
            results[mode.value] = figures
            quiet, hog = figures["quiet"], figures["hog"]
            assert isinstance(quiet, dict) and isinstance(hog, dict)
            ratio = hog["deals_per_decision"] / quiet["deals_per_decision"]
            print(
                f"{mode.value} (ran as {figures['ran_as']}): Monte Carlo deals per decision "
                f"{quiet['deals_per_decision']:,.0f} beside a quiet neighbour, "
                f"{hog['deals_per_decision']:,.0f} beside the hog ({ratio:.2f}); CPU per "
                f"decision {quiet['montecarlo_cpu_median_ms']:.0f} / "
                f"{hog['montecarlo_cpu_median_ms']:.0f} ms; the others' CPU meanwhile "
                f"{quiet['neighbours_cpu_while_montecarlo_decided_ms']:.0f} / "
                f"{hog['neighbours_cpu_while_montecarlo_decided_ms']:.0f} ms; timeouts "
                f"{quiet['timeouts'] or 'none'} / {hog['timeouts'] or 'none'}",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
