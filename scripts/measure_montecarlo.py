"""Measure the Monte Carlo sample bot against the bar of issue 9, with `arena run` itself.

Three tournaments, each a fresh `arena run` in its own folder under --output, 4 players a table:

1. vs-random: montecarlo and three random bots. The bar: at most 9.0 bullheads per ROUND,
   checked on the upper end of the 95% interval. The standings count per game, so the rounds
   come from the records in replays.jsonl.
2. field: montecarlo, heuristic, lowest, random. The bar: montecarlo ranks first by total
   bullheads, its 95% interval (per game, from the standings) clear of the second's.
3. full-time: montecarlo with no thinking cap of its own, so it thinks for the whole deadline
   less its margin, against three random bots. The bar: no timeouts. Its log gives the time
   used per decision against the budget.

All run at the arena's default deadline (1 s) and concurrency (the machine's cores) unless told
otherwise. In the first two, montecarlo thinks at most --think seconds a decision (0.05: 70 to
230 deals a decision on 2 busy cores; in-process trials found 60 and 200 deals about as strong)
so that enough games fit in a few minutes; the third run shows it keeps to the deadline when it
uses all of it. The field needs its 128 games (32 duplicate sets): at 64, the intervals of
montecarlo and heuristic still overlapped. Run from the repository's root:

    .venv/bin/python scripts/measure_montecarlo.py            # a few minutes on 2 cores
    .venv/bin/python scripts/measure_montecarlo.py --games 40 --field-games 160 --full-games 8
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.rules import winners
from arena.tournament import GameOutcome, Standings, compute_standings

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"
BOT = "montecarlo"
ROUND_BAR = 9.0
"""Issue 9: at most this many bullheads per round against three random bots."""
TIMING = re.compile(r"decision=(\w+) turn=(\d+) budget=(\S+) used=(\S+) deals=(\d+) left=(\S+)")
"""A line the bot logs per decision with --timing."""


@dataclass(frozen=True)
class Result:
    """One finished tournament: its standings per game and per round, and the bot's timing."""

    name: str
    games: int
    seconds: float
    """Wall time of the `arena run`."""
    per_game: Standings
    per_round: Standings
    rounds: int
    """Rounds the bot played."""
    timing: list[tuple[float, float, int, float]]
    """(budget, used, deals, left) of each decision of the bot that had a choice."""

    def line(self, bot: str, per_round: bool = False) -> str:
        """One bot's mean, interval, rank and faults, per game or per round."""
        standings = self.per_round if per_round else self.per_game
        row = next(s for s in standings.bots if s.bot == bot)
        kinds = next(s for s in self.per_game.bots if s.bot == bot).faults_by_kind
        faults = ", ".join(f"{kind} {count}" for kind, count in kinds.items()) or "none"
        unit = "round" if per_round else "game"
        return (
            f"  {row.rank}. {bot:<11} {row.mean:6.2f} per {unit}, 95% CI "
            f"{row.ci[0]:.2f}-{row.ci[1]:.2f}; faults: {faults}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three tournaments, print the figures; exit status 1 if a bar is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=16, help="games vs three random bots")
    parser.add_argument("--field-games", type=int, default=128, help="games vs the field")
    parser.add_argument("--full-games", type=int, default=4, help="games at full time; 0: none")
    parser.add_argument("--think", type=float, default=0.05, help="montecarlo's cap, seconds")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed")
    parser.add_argument("--deadline", type=float, help="seconds per decision (arena default)")
    parser.add_argument("--concurrency", type=int, help="games at once (arena default)")
    parser.add_argument("--output", type=Path, default=ROOT / "out" / "measure-montecarlo")
    args = parser.parse_args(argv)

    print(f"machine: {os.cpu_count()} cores, load average {_load()} at the start", flush=True)
    capped = f"{BOTS / 'montecarlo_bot.py'} --think {args.think} --timing"
    randoms = [f"rnd{n}={BOTS / 'random_bot.py'}" for n in (1, 2, 3)]
    field = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "lowest", "random")]
    runs = [
        ("vs-random", [f"{BOT}={capped}", *randoms], args.games),
        ("field", [f"{BOT}={capped}", *field], args.field_games),
        ("full-time", [f"{BOT}={BOTS / 'montecarlo_bot.py'} --timing", *randoms], args.full_games),
    ]
    results = {name: tournament(name, bots, games, args) for name, bots, games in runs if games > 0}
    print(f"load average {_load()} at the end\n")
    return report(results, args)


def tournament(name: str, bots: list[str], games: int, args: argparse.Namespace) -> Result:
    """Play one tournament afresh with `arena run` and read back what it wrote."""
    output: Path = args.output / name
    shutil.rmtree(output, ignore_errors=True)  # a fresh measurement, never a resumed one
    command = [sys.executable, "-m", "arena.cli", "run", "--players", "4", "--games", str(games)]
    command += ["--seed", str(args.seed), "--output", str(output), "--json", "--quiet"]
    # On a busy machine a bot may take longer than the default 10 s to start; that is not what
    # is measured here, and a bot that missed it would leave the fallback in its seat.
    command += ["--startup-timeout", "60"]
    for bot in bots:
        command += ["--bot", bot]
    if args.deadline is not None:
        command += ["--deadline", str(args.deadline)]
    if args.concurrency is not None:
        command += ["--concurrency", str(args.concurrency)]
    print(f"{name}: {games} games ...", end=" ", flush=True)
    start = time.monotonic()
    # Quiet unless it fails: gRPC logs a line on stderr each time the arena starts a bot.
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    if done.returncode:
        sys.exit(f"{name}: arena run failed ({done.returncode}):\n{done.stderr.decode()}")
    seconds = time.monotonic() - start
    print(f"{seconds:.0f} s", flush=True)
    outcomes = [
        GameOutcome.from_dict(json.loads(line))
        for line in (output / "replays.jsonl").read_text().splitlines()
    ]
    rounds = sum(len(outcome.record.rounds) for outcome in outcomes)
    timing = [
        (float(budget), float(used), int(deals), float(left))
        for _, _, budget, used, deals, left in TIMING.findall(
            (output / "logs" / f"{BOT}.log").read_text()
        )
        if int(deals) > 0
    ]
    return Result(
        name,
        len(outcomes),
        seconds,
        compute_standings(outcomes),
        compute_standings(by_round(outcomes)),
        rounds,
        timing,
    )


def by_round(outcomes: list[GameOutcome]) -> list[GameOutcome]:
    """Each round as a one-round game of its own, so the standings' statistics (means, and
    intervals bootstrapped over duplicate sets) come out per round instead of per game."""
    return [
        replace(
            outcome,
            record=replace(
                outcome.record,
                rounds=(played,),
                totals=played.penalties,
                winners=winners(played.penalties),
            ),
            faults=(),
        )
        for outcome in outcomes
        for played in outcome.record.rounds
    ]


def report(results: dict[str, Result], args: argparse.Namespace) -> int:
    """Print the figures and the bars; 0 when every bar measured is cleared."""
    missed = []
    for result in results.values():
        print(
            f"{result.name}: {result.games} games, {result.rounds} rounds in {result.seconds:.0f} s"
        )
        for standing in result.per_game.bots:
            print(result.line(standing.bot))
        print(result.line(BOT, per_round=True))
        if result.name == "vs-random":
            mc = next(s for s in result.per_round.bots if s.bot == BOT)
            if mc.ci[1] > ROUND_BAR:
                missed.append(f"vs-random: {mc.ci[1]:.2f} per round (upper CI) > {ROUND_BAR}")
        if result.name == "field":
            first, second = result.per_game.bots[:2]
            if first.bot != BOT or first.ci[1] >= second.ci[0]:
                missed.append(
                    f"field: {first.bot} first, CI up to {first.ci[1]:.2f}, "
                    f"{second.bot} second from {second.ci[0]:.2f}"
                )
        timeouts = next(s for s in result.per_game.bots if s.bot == BOT).faults
        if timeouts:
            missed.append(f"{result.name}: {BOT} committed {timeouts} faults")
        print(timing_line(result.timing))
        print()
    think = f"--think {args.think}" if args.think else "no cap"
    print(
        f"settings: seed {args.seed}, deadline {args.deadline or 'default (1 s)'}, "
        f"concurrency {args.concurrency or 'default (cores)'}, montecarlo {think}"
    )
    for miss in missed:
        print(f"MISSED {miss}")
    print("every bar cleared" if not missed else f"{len(missed)} bar(s) missed")
    return 1 if missed else 0


def timing_line(timing: list[tuple[float, float, int, float]]) -> str:
    """The budget per decision, how far past it the bot answered, and its closest call."""
    if len(timing) < 2:
        return "  timing: too few decisions logged"
    budget, used, deals, left = (list(column) for column in zip(*timing, strict=True))
    over = [(u - b) * 1000 for b, u in zip(budget, used, strict=True)]
    p99 = statistics.quantiles(over, n=100, method="inclusive")[98]
    return (
        f"  timing, {len(timing)} decisions: budget median {statistics.median(budget):.3f} s;"
        f" used minus budget median {statistics.median(over):.1f} ms, p99 {p99:.1f} ms,"
        f" max {max(over):.1f} ms; least time left at answer {min(left):.3f} s;"
        f" deals median {statistics.median(deals):.0f}"
    )


def _load() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
