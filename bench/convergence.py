"""The ladder's convergence: how many sets its matchmaking takes to find the true order of a
field, against uniformly random tables (issue 24's must-show).

Eight bots of known order, the heuristic sample bot playing 0%, 10%, ..., 70% of its cards at
random (`bench.heuristic`, `arena.tournament.simulate.Noisy`), each its own author, are entered
at once, new. Set after set a table is chosen (`arena.ladder.matchmaking.choose_table`, or
`uniform_table` for the baseline), played as the ladder plays a set (one deal in every seat
rotation, at the ladder's default table of 4 and its rules) and rated as the ladder rates it
(`arena.ladder.rating.rate_set`, the default tau). The figure is the sets played until the
leaderboard's order (by ordinal, mu - 3 sigma) has Kendall's tau of at least 0.9 against the
true order and keeps it for the next `hold` sets, so that a lucky moment does not count; a run
that never does within `cap` sets counts as `cap` (and is counted as not settled).

Played in process through the rules engine (`play_local`), no bot processes: this measures
matchmaking and rating, not the server (the ladder's sets per hour is the serve section's). Each
run is seeded (its tables, deals and the bots' random cards), so a run plays the same sets every
time, and the same seeds serve both policies; the figure is the median over the seeds, and the
ratio is matchmaking's median over uniform tables' (below 1: matchmaking settles sooner).

With 8 bots, tau >= 0.9 allows one pair of the 28 out of order (26/28 = 0.93; two are 0.86).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.ladder.matchmaking import Candidate, choose_table, uniform_table
from arena.ladder.rating import initial, rate_set
from arena.ladder.settings import LadderSettings
from arena.players import play_local
from arena.tournament.simulate import Noisy
from bench.heuristic import Heuristic

SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
"""Each bot's share of random cards, best first: the true order."""
TARGET = 0.9
"""The Kendall's tau the leaderboard must reach and keep."""

Policy = Callable[[Sequence[Candidate], int, random.Random], tuple[int, ...] | None]


@dataclass(frozen=True)
class Sizes:
    """How much to play: the full bench's, or `QUICK`'s (a check that it runs)."""

    seeds: int = 7
    cap: int = 600
    """Sets a run may play before it counts as not settled."""
    hold: int = 20
    """Sets the order must keep tau >= 0.9 for, after the set that reached it."""
    max_rounds: int | None = None
    """Rounds per game: None for the ladder's games to 66."""


QUICK = Sizes(seeds=2, cap=40, hold=5, max_rounds=1)


def kendall_tau(ordinals: Sequence[float]) -> float:
    """Kendall's tau of the leaderboard's order (by `ordinals`, bot i's at i) against the true
    order (bot 0 best): +1 for each pair in order, -1 out of order, 0 for a tie, over the pairs."""
    pairs = [(i, j) for i in range(len(ordinals)) for j in range(i + 1, len(ordinals))]
    score = sum((ordinals[i] > ordinals[j]) - (ordinals[i] < ordinals[j]) for i, j in pairs)
    return score / len(pairs)


def policies(settings: LadderSettings) -> dict[str, Policy]:
    """The two ways of choosing a table, by the name their figures go under."""
    return {
        "matchmaking": lambda field, players, rng: choose_table(field, players, rng, settings),
        "uniform": uniform_table,
    }


def play_set(settings: LadderSettings, shares: Sequence[float], seed: str) -> list[int]:
    """One set of bots of these `shares` (a seat each): one deal, seeded by `seed`, in every
    seat rotation; each seat's bullheads summed over the set."""
    rules = settings.rules()
    totals = [0] * len(shares)
    for rotation in range(len(shares)):
        strategies = [
            Noisy(Heuristic(), share, f"{seed}:{rotation}:{seat}")
            for seat, share in enumerate(shares)
        ]
        result = play_local(rules, strategies, random.Random(seed), rotation)
        totals = [mine + theirs for mine, theirs in zip(totals, result.record.totals, strict=True)]
    return totals


def run(policy: Policy, seed: int, sizes: Sizes, settings: LadderSettings) -> int | None:
    """Sets until the order settles (the module's note) in the run of `seed`; None if it does
    not within `sizes.cap`."""
    rng = random.Random(f"tables:{seed}")
    ratings = [initial() for _ in SHARES]
    sets = [0] * len(SHARES)
    last: list[float | None] = [None] * len(SHARES)
    reached: int | None = None
    for played in range(1, sizes.cap + 1):
        field = [
            Candidate(bot, f"noisy-{bot}", f"author-{bot}", ratings[bot], sets[bot], last[bot])
            for bot in range(len(SHARES))
        ]
        table = policy(field, settings.players, rng)
        assert table is not None, "eight authors always fill a table"
        bullheads = play_set(settings, [SHARES[bot] for bot in table], f"deal:{seed}:{played}")
        after = rate_set([ratings[bot] for bot in table], bullheads, settings.tau)
        for bot, rating in zip(table, after, strict=True):
            ratings[bot], sets[bot], last[bot] = rating, sets[bot] + 1, float(played)
        if kendall_tau([rating.ordinal for rating in ratings]) < TARGET:
            reached = None
        elif reached is None:
            reached = played
        if reached is not None and played - reached >= sizes.hold:
            return reached
    return None


def measure(sizes: Sizes) -> dict[str, Any]:
    """Each policy's sets to settle in every seeded run, their medians and the ratio."""
    settings = replace(LadderSettings(), max_rounds=sizes.max_rounds)
    found: dict[str, Any] = {
        "bots": len(SHARES),
        "random_shares": list(SHARES),
        "players": settings.players,
        "max_rounds": sizes.max_rounds,
        "target_tau": TARGET,
        "hold": sizes.hold,
        "cap": sizes.cap,
        "seeds": sizes.seeds,
    }
    for name, policy in policies(settings).items():
        runs = [run(policy, seed, sizes, settings) for seed in range(sizes.seeds)]
        counted = [sizes.cap if sets is None else sets for sets in runs]
        found[name] = {
            "sets": runs,
            "unsettled": runs.count(None),
            "median_sets": statistics.median(counted),
        }
    found["ratio"] = found["matchmaking"]["median_sets"] / found["uniform"]["median_sets"]
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m bench.convergence [--quick] [--seeds N] [--cap SETS] [--hold SETS]
    [--max-rounds N]`: the section alone (as `bench.run` runs it), its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: check that it runs")
    parser.add_argument("--seeds", type=int, help="runs of each policy")
    parser.add_argument("--cap", type=int, help="sets a run may play")
    parser.add_argument("--hold", type=int, help="sets the order must keep")
    parser.add_argument("--max-rounds", type=int, help="rounds per game (default: to 66)")
    options = parser.parse_args(argv)
    sizes = QUICK if options.quick else Sizes()
    given = {
        name: getattr(options, name)
        for name in ("seeds", "cap", "hold", "max_rounds")
        if getattr(options, name) is not None
    }
    print(json.dumps(measure(replace(sizes, **given))))


if __name__ == "__main__":
    main()
