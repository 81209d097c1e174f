"""Why a paired `arena compare` of the heuristic against its noisy twin needs more than half the
games of an unpaired one, measured (issue 26's last goal: at most 50%).

The paired design needs about 1 - r of an unpaired design's games, r the correlation of NEW's
bullheads with OLD's in the same deal, seat and rotation (`measure_compare.pair_correlation`), so
at most half needs r of 0.5 or more. Part 2 of measure_compare.py gives r by field: the shared
seeds raise it as far as the field's randomness allows (a field of no randomness, or one that
plays the same cards whatever the rows, is not much higher). This script shows where r is lost
and what a sound adjustment can win back, on `--pool` deals of the pair against the default
field (its random bot drawing from the arena's seeds), one-round and whole games, played as
`arena compare` plays them (`arena.tournament.simulate`):

1. By the turn the two games of a pair first differ (`simulate.parting_turn`): until then they
   are one game, after it two. How many pairs part at each turn, r among them, and their share
   of the squared differences (what the paired design's variance is made of).
2. Other ways to use the same deals. Pairing one rotation a deal (two games a deal) against
   every rotation (today's), by the variance per game: the same expectation, so the better of
   the two would do. A regression adjustment (a control variate) on what the candidate's seat
   is dealt, its hand and the rows: the only quantities of the same expectation under any NEW
   and OLD that the arena sees (anything after the first card that differs depends on the
   candidates; a control variate on the field's random draws needs their probabilities, which a
   bot process does not tell, and could win at most what a field of no randomness has). Fitted
   on one half of the deals and applied to the other (a fit on the deals it adjusts flatters
   itself); the paired statistic's variance after it, as a share of its variance before.
3. By how often the twin plays at random (5%, 10%, 30%, 60% of its cards): the pairs that never
   part, r, and the paired share of the unpaired games (by the variance per game, as part 2).

Run from the repository's root (about 3 minutes of CPU; --quick checks in seconds that it runs):

    .venv/bin/python scripts/measure_pairing.py [--pool 2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from statistics import correlation, fmean, pstdev, variance
from typing import Any

from measure_compare import (
    MAX_GAMES,
    RESAMPLES,
    TWINS,
    _settings,
    designs,
    hash_seed,
    pair_correlation,
    pool_of,
)

from arena.rules import BULLHEADS
from arena.rules import deal as dealt
from arena.tournament.simulate import DealResult
from arena.tournament.stats.fit import solve
from arena.tournament.stats.pairs import candidate_seat

PARTINGS = ((0, 0), (1, 1), (2, 2), (3, 4), (5, 9), (10, MAX_GAMES))
"""Spans of the turn at which a pair's two games part (from 0, over the game: 10 on is a later
round)."""


def by_parting(pool: Sequence[DealResult]) -> list[dict[str, Any]]:
    """The pairs by the turn their games part (and those that never do): how many part then,
    the correlation of NEW's bullheads with OLD's among them, and their share of the squared
    differences (what the paired design's variance is made of)."""
    pairs = [
        (turn, new, old)
        for deal in pool
        for turn, new, old in zip(deal.parted, deal.new, deal.old, strict=True)
    ]
    squares = sum((new - old) ** 2 for _, new, old in pairs) or 1
    spans: list[tuple[str, list[tuple[int, int]]]] = [
        (
            f"turn {low + 1}" + (f"-{high + 1}" if high > low else ""),
            [(new, old) for turn, new, old in pairs if turn is not None and low <= turn <= high],
        )
        for low, high in PARTINGS
    ]
    spans[-1] = ("a later round", spans[-1][1])
    spans.append(("never", [(new, old) for turn, new, old in pairs if turn is None]))
    found = []
    for name, alike in spans:
        news, olds = [new for new, _ in alike], [old for _, old in alike]
        related = len(set(news)) > 1 and len(set(olds)) > 1 and news != olds
        found.append(
            {
                "parted at": name,
                "pairs": len(alike) / len(pairs),
                "correlation": correlation(news, olds) if related else None,
                "squares": sum((new - old) ** 2 for new, old in alike) / squares,
            }
        )
    return [entry for entry in found if entry["pairs"]]


def deal_features(rounds: int | None, number: int, rotation: int) -> list[float]:
    """What the candidate's seat is dealt in a rotation of a pool's deal (`pool_of`), its hand
    and the rows: fixed before NEW or OLD plays a card, so the same for both, with a mean over
    deals that the rules fix (a control variate's known expectation)."""
    rng = random.Random(hash_seed("pool", rounds, number))
    rows, hands = dealt(_settings(rounds), rng, rotation)
    hand = hands[candidate_seat(number, 4)]
    gaps = [card - max((row for row in rows if row < card), default=card) for card in hand]
    heads = [BULLHEADS[card] for card in hand]
    return [
        *map(float, (sum(heads), sum(h >= 2 for h in heads), sum(c < min(rows) for c in hand))),
        *map(
            float, (sum(c > 90 for c in hand), sum(g < 5 for g in gaps), sum(g > 30 for g in gaps))
        ),
        fmean(hand),
        pstdev(hand),
        fmean(gaps),
        fmean(rows),
        pstdev(rows),
        min(rows),
        max(rows),
        float(sum(BULLHEADS[row] for row in rows)),
    ]


def adjusted_share(pool: Sequence[DealResult], rounds: int | None) -> float:
    """The paired statistic's variance after a regression adjustment on `deal_features`, as a
    share of its variance without: each half of the deals adjusted by least squares fitted on
    the other half (cross-fitting: a fit that saw the deals it adjusts flatters itself). The
    features are centred on the pool's own means, not the rules' exact ones: for a share of
    variance the difference is of the order of 1 / deals."""
    features = [[deal_features(rounds, d, r) for r in range(4)] for d in range(len(pool))]
    width = len(features[0][0])
    centre = [fmean(rot[k] for deal in features for rot in deal) for k in range(width)]
    adjusted = []
    for half in (0, 1):
        rows = [
            ([x - c for x, c in zip(rot, centre, strict=True)], new - old)
            for d, deal in enumerate(pool)
            if d % 2 != half
            for rot, new, old in zip(features[d], deal.new, deal.old, strict=True)
        ]
        level = fmean(y for _, y in rows)
        normal = [[sum(x[i] * x[j] for x, _ in rows) for j in range(width)] for i in range(width)]
        right = [sum(x[i] * (y - level) for x, y in rows) for i in range(width)]
        beta = solve(normal, right) or [0.0] * width
        for d in range(half, len(pool), 2):
            fitted = fmean(
                sum(b * (x - c) for b, x, c in zip(beta, rot, centre, strict=True))
                for rot in features[d]
            )
            adjusted.append(pool[d].difference - fitted)
    return variance(adjusted) / variance([deal.difference for deal in pool])


def one_rotation_share(pool: Sequence[DealResult]) -> tuple[float, float, float]:
    """The variance per game of a paired design that plays one rotation of each deal (its first
    pair), as a share of the variance per game of the design that plays them all: another way
    to pair, with the same expectation (a rotation of a random deal is a random deal), better
    only if the rotations' differences were correlated within a deal. With a 95% bootstrap
    interval: both designs read the same deals, so they are resampled together."""

    def share(deals: Sequence[DealResult]) -> float:
        one = variance([deal.new[0] - deal.old[0] for deal in deals]) * 2
        return one / (variance([deal.difference for deal in deals]) * 2 * len(deals[0].new))

    rng = random.Random(2)
    shares = sorted(share(rng.choices(pool, k=len(pool))) for _ in range(RESAMPLES))
    return share(pool), shares[int(0.025 * RESAMPLES)], shares[int(0.975 * RESAMPLES) - 1]


def measure(
    executor: ProcessPoolExecutor, args: argparse.Namespace, say: Callable[[str], None]
) -> dict[str, Any]:
    """Parts 1 and 2 for one-round and whole games, then part 3."""
    say(f"The heuristic against its twin, pools of {args.pool} deals")
    figures: dict[str, Any] = {}
    tasks = [("twin", "shared seeds", rounds, args.pool) for rounds in (1, None)]
    for _, _, rounds, pool in executor.map(pool_of, tasks):
        length = "one round" if rounds else "whole games"
        spans = by_parting(pool)
        share = adjusted_share(pool, rounds)
        single = one_rotation_share(pool)
        figures[length] = {
            "by parting": spans,
            "regression adjusted variance": share,
            "one rotation a deal": single,
        }
        say(f"   {length}, by the turn its games part (shared seeds):")
        for span in spans:
            related = "alike" if span["correlation"] is None else f"{span['correlation']:.2f}"
            say(
                f"     {span['parted at']:>13}: {span['pairs']:6.1%} of pairs, correlation "
                f"{related:>5}, {span['squares']:6.1%} of the squared differences"
            )
        say(
            f"   {length}, regression on {len(deal_features(1, 0, 0))} features of the deal "
            f"(cross-fitted): the paired variance x {share:.3f}"
        )
        say(
            f"   {length}, pairing one rotation a deal: the paired variance a game x "
            f"{single[0]:.2f} ({single[1]:.2f}-{single[2]:.2f})"
        )
    tasks = [(name, "shared seeds", 1, args.pool) for name in TWINS]
    say("   one round, shared seeds, by how often the twin plays at random:")
    for name, _, _, pool in executor.map(pool_of, tasks):
        by_design = designs(pool, 4, symmetric=False)
        per_game = {key: variance(d.observations) * d.games for key, d in by_design.items()}
        entry = {
            "correlation": pair_correlation(pool),
            "never parted": sum(t is None for d in pool for t in d.parted) / (4 * len(pool)),
            **{
                f"share of {key}": per_game["paired"] / per_game[key]
                for key in by_design
                if key != "paired"
            },
        }
        figures[name] = entry
        say(
            f"     {name:>9}: never parted {entry['never parted']:.0%}, correlation "
            f"{entry['correlation']:.2f}; paired needs {entry['share of unpaired, rotated']:.0%} "
            f"of rotated, {entry['share of unpaired, single']:.0%} of single"
        )
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", type=int, default=2000, help="deals per pool")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="small pools")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.pool = 20
    say: Callable[[str], None] = (lambda line: None) if args.json else print
    with ProcessPoolExecutor(args.processes) as executor:
        figures = {"settings": vars(args), **measure(executor, args, say)}
    if args.json:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
