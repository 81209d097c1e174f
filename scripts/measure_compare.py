"""Measure `arena compare`'s design and test on simulated comparisons, with fresh games throughout.

In-process (`arena.tournament.simulate`: the games `arena compare` plays, deal for deal, seat for
seat, through `play_local`), the heuristic sample bot and its noisy twin (30% of its cards at
random) at 4-player tables against the default field (heuristic, lowest, random).

1. The test (`--comparisons` each, 200 by default, every comparison its own fresh deals, one
   round a game, margin 1, alpha = beta = 0.05, at most 4,000 games): the noisy twin against
   itself (each copy its own random stream: the true mean difference is 0, the edge of H0), how
   often H1 is accepted (a false positive), and the heuristic against the twin (about 1.4
   bullheads a game better, beyond the margin), how often H1 is accepted (the power); the mean
   games to a verdict of each.
2. The design: the paired games against two unpaired designs, on `--design-pool` deals (2,000:
   400 left the shares 15 points wide) of each kind of game. "Unpaired, rotated" is today's
   tournament: NEW and OLD each play every rotation of their own deals; "unpaired, single"
   plays each game on a deal of its own. The games needed for a given precision go as the
   variance of the statistic per game played, so the ratio of those variances is the paired
   design's share of the unpaired games; the script also runs
   the sequential test on each design's statistic (drawn from its pool) and compares the mean
   games to a verdict. Measured with one-round and whole games, and with the field's random bot
   drawing from the seeds the arena sends (`View.random`: the random sample bot as it is; NEW's
   and OLD's game give a seat the same seed at the same decision, even once they part), from a
   stream of its own per game (identical in NEW's and OLD's game, but a row choice in one game
   and not the other shifts it), seeded from its view (the random sample bot before the arena
   sent seeds: the same view gives the same card, but the views part as soon as NEW and OLD
   do), or replaced by the highest-card bot (no randomness in the field at all); and a field
   that plays the same cards in NEW's and OLD's game whatever the rows (lowest, highest, and the
   random bot on the seeds: no heuristic following the rows). Each share by the variance comes
   with a 95% bootstrap interval (each design's deals resampled apart), and each pool with the
   correlation of NEW's bullheads with OLD's in a pair, which sets the share (about 1 minus it;
   `scripts/measure_pairing.py` shows where it is lost). `--design` measures this part alone.
3. The test against the GSPRT alone (the test before the always-valid interval) and against a
   fixed-size test of the same alpha and beta (the z-test with the deals' deviation known: the
   fewest deals a fixed size can take), on a pool of `--pool` deals of the noisy twin against
   itself (one-round and whole games), centred and shifted to each true difference
   (`arena.tournament.stats.operating`): how often H1 is accepted and the mean deals to a
   verdict at the edge of H0, at the edge of H1 and at 2, 5, 10 and 30 times the margin,
   `--runs` / 2 comparisons each. `--test-table` measures this part alone.

Run from the repository's root (part 2 alone, `--design`, took 24 minutes on 2 loaded cores, and
parts 1 and 3 about 10 more; --quick checks in seconds that it runs):

    .venv/bin/python scripts/measure_compare.py [--comparisons 200] [--pool 400] [--json]
        [--design-pool 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import correlation, fmean, variance
from types import ModuleType
from typing import Any

from tabulate import tabulate

from arena.players import Highest, Lowest, Random, Strategy
from arena.rules import Settings, View
from arena.tournament.simulate import DealResult, Maker, Noisy, play_deal
from arena.tournament.stats.operating import (
    Operating,
    centred,
    deviation,
    fixed_size_deals,
    operate,
)
from arena.tournament.stats.sprt import Hypotheses, SequentialTest, SprtState, Verdict, run_test

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"
HYPOTHESES = Hypotheses(margin=1.0, alpha=0.05, beta=0.05)
MAX_GAMES = 4000
SHARE = 0.3
"""How often the twin plays a random card."""


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BOTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_HEURISTIC = _load("heuristic_bot").HeuristicBot()
_RANDOM = _load("random_bot").RandomBot()


class Heuristic(Strategy):
    def choose_card(self, view: View) -> int:
        card: int = _HEURISTIC.choose_card(view)
        return card


class SharedSeeds(Strategy):
    """The random sample bot in-process: each choice drawn from the view's seed."""

    def choose_card(self, view: View) -> int:
        card: int = _RANDOM.choose_card(view)
        return card

    def choose_row(self, view: View) -> int:
        row: int = _RANDOM.choose_row(view)
        return row


class ViewSeeded(Strategy):
    """The random sample bot as it was before the arena sent seeds: each choice seeded from what
    it sees."""

    def _rng(self, view: View) -> random.Random:
        return random.Random(repr((view.round, view.turn, view.seat, view.hand, view.rows)))

    def choose_card(self, view: View) -> int:
        return self._rng(view).choice(view.hand)

    def choose_row(self, view: View) -> int:
        return self._rng(view).randrange(len(view.rows))


def heuristic(seed: str) -> Strategy:
    return Heuristic()


def lowest(seed: str) -> Strategy:
    return Lowest()


def view_seeded(seed: str) -> Strategy:
    return ViewSeeded()


def shared_seeds(seed: str) -> Strategy:
    return SharedSeeds()


def highest(seed: str) -> Strategy:
    return Highest()


def noisy(salt: str, share: float = SHARE) -> Maker:
    return lambda seed: Noisy(Heuristic(), share, salt + seed)


FIELDS: dict[str, tuple[Maker, ...]] = {
    "shared seeds": (heuristic, lowest, shared_seeds),
    "own stream": (heuristic, lowest, Random),
    "view-seeded": (heuristic, lowest, view_seeded),
    "none": (heuristic, lowest, highest),
    "row-blind": (lowest, highest, shared_seeds),
}
"""The field's third seat: the random sample bot (drawing from the arena's seeds), the random
bot with a stream of its own per game, the random bot seeded from its view, or no random bot at
all (the highest card); or a field that plays the same cards in NEW's and OLD's game whatever
the rows (lowest, highest and the random bot on the shared seeds: no heuristic following the
rows)."""
PAIRS: dict[str, tuple[Maker, Maker]] = {
    "itself": (noisy("new:"), noisy("old:")),
    "twin": (heuristic, noisy("")),
}
TWIN_SHARES = (0.05, 0.1, 0.3, 0.6)
"""How often measure_pairing.py's twins play at random: how long their games run alike with the
heuristic's (0.3 is the twin of PAIRS)."""
TWINS = {f"twin {share:.0%}": (heuristic, noisy("", share)) for share in TWIN_SHARES}


def _settings(rounds: int | None) -> Settings:
    return Settings(players=4, max_rounds=rounds)


# -- 1. the test, fresh games for every comparison ----------------------------------------------


def one_comparison(task: tuple[str, int]) -> tuple[str, str, int]:
    """One comparison of fresh deals (seeded by its number), one round a game."""
    pair, number = task
    new, old = PAIRS[pair]
    settings = _settings(1)
    test = SequentialTest(HYPOTHESES)
    deals = MAX_GAMES // (2 * settings.players)
    for deal in range(deals):
        seed = hash_seed(pair, number, deal)
        if test.add(play_deal(settings, new, old, FIELDS["own stream"], deal, seed).difference):
            break
    verdict = test.verdict or Verdict.UNDECIDED
    return pair, verdict.value, test.deals * 2 * settings.players


def hash_seed(*parts: object) -> int:
    return random.Random(repr(parts)).getrandbits(63)


# -- 2. the design: paired against unpaired -----------------------------------------------------


Pool = tuple[str, str, int | None, list[DealResult]]
"""A pair's name, the field's, the rounds a game (None: whole games) and the deals played."""


def pool_of(task: tuple[str, str, int | None, int]) -> Pool:
    """`count` deals of one pair, field and game length, each played paired (every rotation,
    NEW and OLD in the same seat with the same seed and generators)."""
    pair, field, rounds, count = task
    new, old = {**PAIRS, **TWINS}[pair]
    settings = _settings(rounds)
    results = [
        play_deal(settings, new, old, FIELDS[field], deal, hash_seed("pool", rounds, deal))
        for deal in range(count)
    ]
    return pair, field, rounds, results


@dataclass(frozen=True)
class Design:
    """One design's statistic: its observations and the games each costs."""

    observations: list[float]
    games: int


def designs(pool: Sequence[DealResult], players: int, symmetric: bool) -> dict[str, Design]:
    """The paired statistic, and the unpaired ones from the same games: NEW's games of one deal
    against OLD's of the next (independent deals, so independent games). `symmetric`: NEW and
    OLD are exchangeable (a bot against itself), so each difference and its negative are as
    likely, and the pools take both: their mean is then exactly 0, as the true one is."""
    shifted = [*pool[1:], pool[0]]
    if symmetric:
        return {
            name: Design([*d.observations, *(-x for x in d.observations)], d.games)
            for name, d in designs(pool, players, symmetric=False).items()
        }
    return {
        "paired": Design([deal.difference for deal in pool], 2 * players),
        "unpaired, rotated": Design(
            [fmean(a.new) - fmean(b.old) for a, b in zip(pool, shifted, strict=True)],
            2 * players,
        ),
        "unpaired, single": Design(
            [a.new[0] - b.old[0] for a, b in zip(pool, shifted, strict=True)], 2
        ),
    }


def mean_games(design: Design, runs: int, seed: int) -> tuple[float, float]:
    """Mean games to a verdict, and the share of H1, over `runs` tests drawn from the design."""
    rng = random.Random(seed)
    cap = MAX_GAMES * 5 // design.games
    states: list[SprtState] = [
        run_test((rng.choice(design.observations) for _ in range(cap)), HYPOTHESES, cap)
        for _ in range(runs)
    ]
    games = fmean(state.deals for state in states) * design.games
    h1 = sum(state.verdict is Verdict.H1 for state in states) / runs
    return games, h1


# -- 3. the test against the GSPRT alone and a fixed-size test ----------------------------------

TIMES = (0, 1, 2, 5, 10, 30)
"""True differences, in margins: the edge of H0, the edge of H1, and clearer improvements."""
TESTS = {"test": HYPOTHESES, "GSPRT alone": replace(HYPOTHESES, interval_share=0.0)}


def operating_cell(task: tuple[str, list[float], float, str, int, int]) -> tuple[Any, ...]:
    """One length of game, true difference and test: its operating characteristic."""
    length, pool, times, test, runs, cap = task
    difference = -times * HYPOTHESES.margin
    operating = operate(pool, difference, TESTS[test], comparisons=runs, max_deals=cap, seed=3)
    return length, times, test, operating


def test_table(executor: ProcessPoolExecutor, args: argparse.Namespace, say: Any) -> Any:
    """Part 3: the table of the test, the GSPRT alone and the fixed size, by length of game."""
    tasks = [("itself", "own stream", rounds, args.pool) for rounds in (1, None)]
    pools = {
        "one round" if rounds else "whole games": centred([deal.difference for deal in deals])
        for _, _, rounds, deals in executor.map(pool_of, tasks)
    }
    fixed = {
        length: fixed_size_deals(deviation(pool), HYPOTHESES) for length, pool in pools.items()
    }
    runs = max(args.runs // 2, 1)
    cells = [
        (length, pool, times, test, runs, 10 * fixed[length])
        for length, pool in pools.items()
        for times in TIMES
        for test in TESTS
    ]
    found: dict[tuple[str, float, str], Operating] = {}
    for length, times, test, operating in executor.map(operating_cell, cells):
        found[length, times, test] = operating
    say(
        f"3. The test against the GSPRT alone and a fixed size: pools of {args.pool} deals, "
        f"centred and shifted, {runs} comparisons each (margin 1, alpha = beta = 0.05)"
    )
    figures: dict[str, Any] = {}
    for length, pool in pools.items():
        say(
            f"   {length}: deviation {deviation(pool):.1f} a deal, fixed size {fixed[length]} deals"
        )
        rows = []
        for times in TIMES:
            ours, alone = found[length, times, "test"], found[length, times, "GSPRT alone"]
            rows.append(
                [
                    {0: "0 (edge of H0)", 1: "1 (edge of H1)"}.get(times, f"{times} x margin"),
                    f"{ours.h1:.1%} +- {ours.standard_error:.1%}",
                    f"{ours.mean_deals:.1f}",
                    f"{ours.by_interval:.0%}",
                    f"{alone.h1:.1%}",
                    f"{alone.mean_deals:.1f}",
                    str(fixed[length]),
                ]
            )
            figures[f"{length}/{times}"] = {
                "test": {
                    "h1": ours.h1,
                    "mean_deals": ours.mean_deals,
                    "by_interval": ours.by_interval,
                },
                "gsprt": {"h1": alone.h1, "mean_deals": alone.mean_deals},
                "fixed_deals": fixed[length],
            }
        headers = ["true difference", "H1", "deals", "by interval", "GSPRT: H1", "deals", "fixed"]
        for line in tabulate(rows, headers, tablefmt="github").splitlines():
            say(f"   {line}")
    return figures


RESAMPLES = 400
"""Bootstrap resamples of each share's interval."""


def share_interval(paired: Design, unpaired: Design, seed: int) -> tuple[float, float]:
    """A 95% bootstrap interval of the paired design's share of `unpaired`'s games (by the
    variance per game): each design's observations resampled apart, as they are apart."""
    rng = random.Random(seed)
    shares = sorted(
        variance(rng.choices(paired.observations, k=len(paired.observations)))
        * paired.games
        / (
            variance(rng.choices(unpaired.observations, k=len(unpaired.observations)))
            * unpaired.games
        )
        for _ in range(RESAMPLES)
    )
    return shares[int(0.025 * RESAMPLES)], shares[int(0.975 * RESAMPLES) - 1]


def pair_correlation(pool: Sequence[DealResult]) -> float:
    """The correlation of NEW's bullheads with OLD's in the same seat and rotation. The paired
    design needs about 1 minus this of an unpaired design's games (of `unpaired, single`
    exactly, were NEW's and OLD's variances equal, the rotations of a deal being uncorrelated),
    so half of them needs a correlation of 0.5 at least."""
    return correlation(
        [x for deal in pool for x in deal.new], [x for deal in pool for x in deal.old]
    )


def measure_designs(
    executor: ProcessPoolExecutor,
    args: argparse.Namespace,
    say: Callable[[str], None],
    figures: dict[str, Any],
) -> None:
    """Part 2: the paired design's share of the unpaired designs' games, for every pair, field
    and game length, into `figures` (`design/PAIR/FIELD/LENGTH`) and a line each."""
    say(f"2. The design: pools of {args.design_pool} deals, {args.runs} tests drawn from each")
    tasks = [
        (pair, field, rounds, args.design_pool)
        for rounds in (1, None)
        for field in FIELDS
        for pair in PAIRS
    ]
    for pair, field, rounds, deals in executor.map(pool_of, tasks):
        length = "one round" if rounds else "whole games"
        by_design = designs(deals, 4, symmetric=pair == "itself")
        per_game = {
            name: variance(design.observations) * design.games for name, design in by_design.items()
        }
        tested = {name: mean_games(design, args.runs, 1) for name, design in by_design.items()}
        entry: dict[str, Any] = {}
        for name in by_design:
            entry[name] = {
                "variance_per_game": per_game[name],
                "mean_games": tested[name][0],
                "h1": tested[name][1],
            }
        entry["paired share of unpaired games"] = {
            name: {
                "by variance": per_game["paired"] / per_game[name],
                "interval": share_interval(by_design["paired"], by_design[name], 1),
                "by the test": tested["paired"][0] / tested[name][0],
            }
            for name in by_design
            if name != "paired"
        }
        entry["correlation"] = pair_correlation(deals)
        figures[f"design/{pair}/{field}/{length}"] = entry
        shares = entry["paired share of unpaired games"]
        say(
            f"   {pair:>6}, field {field:>12}, {length:>11}: correlation "
            f"{entry['correlation']:.2f}; paired needs "
            + "; ".join(
                f"{value['by variance']:.0%} ({value['interval'][0]:.0%}-"
                f"{value['interval'][1]:.0%}; test: {value['by the test']:.0%}) of {name}"
                for name, value in shares.items()
            )
        )


def measure_test(executor: ProcessPoolExecutor, args: argparse.Namespace, say: Any) -> Any:
    """Part 1: the test's false positives and power on fresh deals, by pair (`test/PAIR`)."""
    figures = {}
    tasks = [(pair, number) for pair in PAIRS for number in range(args.comparisons)]
    verdicts: dict[str, list[tuple[str, int]]] = {pair: [] for pair in PAIRS}
    for pair, verdict, games in executor.map(one_comparison, tasks, chunksize=4):
        verdicts[pair].append((verdict, games))
    say(f"1. The test: {args.comparisons} comparisons each, fresh deals, one-round games")
    for pair, ended in verdicts.items():
        share = sum(verdict == "H1" for verdict, _ in ended) / len(ended)
        error = math.sqrt(max(share * (1 - share), 1e-12) / len(ended))
        average = fmean(games for _, games in ended)
        undecided = sum(verdict == "undecided" for verdict, _ in ended)
        figures[f"test/{pair}"] = {
            "h1": share,
            "standard_error": error,
            "mean_games": average,
            "undecided": undecided,
        }
        what = "false positives" if pair == "itself" else "power"
        say(
            f"   {pair:>6}: H1 in {share:6.1%} (+-{error:.1%}, {what}), mean games to a "
            f"verdict {average:6.0f}, undecided {undecided}"
        )
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comparisons", type=int, default=200)
    parser.add_argument("--pool", type=int, default=400, help="deals per pool")
    parser.add_argument("--runs", type=int, default=2000, help="tests drawn from each pool")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="a few of everything")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--test-table", action="store_true", help="part 3 alone")
    parser.add_argument("--design-pool", type=int, default=2000, help="deals per pool, part 2")
    parser.add_argument("--design", action="store_true", help="part 2 alone")
    args = parser.parse_args(argv)
    if args.quick:
        args.comparisons, args.pool, args.runs, args.design_pool = 4, 20, 50, 20
    say: Callable[[str], None] = (lambda line: None) if args.json else print
    figures: dict[str, Any] = {"settings": vars(args)}
    began = time.monotonic()
    with ProcessPoolExecutor(args.processes) as pool:
        if not (args.test_table or args.design):
            figures |= measure_test(pool, args, say)
        if not args.test_table:
            measure_designs(pool, args, say, figures)
        if not args.design:
            figures["test table"] = test_table(pool, args, say)
    figures["seconds"] = time.monotonic() - began
    say(f"{figures['seconds']:.0f} s")
    if args.json:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
