"""The heuristic sample bot played in-process (`bench.heuristic`, which the ladder's convergence
figure plays too): a decent strategy for simulated comparisons (the built-in ones, lowest, highest
and random, are all weak enough that playing 30% of their cards at random does not make them
clearly worse)."""

from __future__ import annotations

from arena.players import Lowest, Random, Strategy
from arena.tournament.simulate import Maker, Noisy
from bench.heuristic import Heuristic

__all__ = ["FIELD", "Heuristic", "heuristic", "lowest", "noisy"]


def heuristic(seed: str) -> Strategy:
    return Heuristic()


def noisy(share: float, salt: str = "") -> Maker:
    """The heuristic playing `share` of its cards at random, from a generator seeded per game."""
    return lambda seed: Noisy(Heuristic(), share, salt + seed)


def lowest(seed: str) -> Strategy:
    return Lowest()


FIELD: tuple[Maker, ...] = (heuristic, lowest, Random)
"""The default field of `arena compare` in-process: heuristic, lowest and random."""
