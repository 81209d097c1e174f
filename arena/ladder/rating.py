"""Ratings: openskill's Plackett-Luce, one player per team, a set's seats ranked by bullheads.

A set is rated as one result, not game by game: its games are one deal played in every seat
rotation, so each seat's luck is everyone's, and the sum of a seat's bullheads over the set is
its result. Fewest bullheads is rank 1, equal sums are equal ranks (a tie, which Plackett-Luce
takes as such), so a set of four is one four-way result rather than six duels. openskill 6's
ties are its own: seats tied first may gain less mu than the one seat after them (its issue #155:
ranks 1, 1, 1, 2, 3 from equal ratings give 25.44, 25.44, 25.44, 26.00, 22.67). Summed over a
set's games exact ties are rare, and the ladder rates as openskill does rather than patch its
arithmetic, so that its ratings are openskill's own; a test pins these floats, so an upgrade that
changes them is seen before a ladder's `rerate` differs from what it stored.

A rating is shown as its `ordinal`, mu - 3 sigma: a version that has played little has a wide
sigma and a low ordinal, and climbs as its sets narrow it, so a new version is never on top by
the luck of one set (Halite's and openskill's convention).

`tau` is openskill's: before every set each seat's sigma grows to sqrt(sigma^2 + tau^2), so a
rating never freezes and a bot that improves is seen to. With tau 0 a set only ever narrows a
sigma. It is the model's, never passed per call: openskill's `rate` takes a `tau` of 0 there as
"use the model's", which would silently be its default.

Deterministic: openskill's arithmetic is plain floats in a fixed order, so the same sets in the
same order give the same floats, bit for bit; `rerate` recomputes a ladder's ratings from its
stored sets and must equal what is stored (`arena ladder rerate`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.ladder.errors import LadderError

MU = 25.0
"""A new version's mu: openskill's default."""
SIGMA = 25.0 / 3.0
"""A new version's sigma: openskill's default, mu / 3, so a new ordinal is 0."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A version's rating: the mean of its skill's estimate and that estimate's spread."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """What the leaderboard ranks by: mu - 3 sigma, a skill the version very likely has
        at least (about 99.7%)."""
        return self.mu - 3 * self.sigma


def initial() -> Rating:
    """The rating of a version that has played no set: ordinal 0."""
    return Rating(MU, SIGMA)


@lru_cache(maxsize=8)
def _model(tau: float) -> PlackettLuce:
    """openskill's Plackett-Luce with openskill's defaults but `tau` (a ladder has one)."""
    return PlackettLuce(mu=MU, sigma=SIGMA, tau=tau)


def ranks(bullheads: Sequence[int]) -> list[int]:
    """Each seat's rank in a set: 1 for the fewest bullheads, equal sums an equal rank, the
    next sum the next rank (dense: 1, 1, 2, not 1, 1, 3; Plackett-Luce reads only the order
    and the ties)."""
    order = sorted(set(bullheads))
    return [order.index(heads) + 1 for heads in bullheads]


def rate_set(before: Sequence[Rating], bullheads: Sequence[int], tau: float) -> list[Rating]:
    """The seats' ratings after one set, seat by seat as `before` and `bullheads` give them.
    LadderError for a set that cannot be rated (fewer than two seats, a bullhead count per seat
    missing, a count below 0, a rating or tau that is not a finite number, sigma not above 0)."""
    _check(before, bullheads, tau)
    model = _model(float(tau))
    teams = [[model.rating(mu=rating.mu, sigma=rating.sigma)] for rating in before]
    rated = model.rate(teams, ranks=[float(rank) for rank in ranks(bullheads)])
    return [_of(team[0]) for team in rated]


def _of(rated: PlackettLuceRating) -> Rating:
    return Rating(float(rated.mu), float(rated.sigma))


def _check(before: Sequence[Rating], bullheads: Sequence[int], tau: float) -> None:
    if len(before) < 2:
        raise LadderError(f"a set is rated among 2 seats or more, not {len(before)}")
    if len(bullheads) != len(before):
        raise LadderError(
            f"a set of {len(before)} seats needs {len(before)} bullhead counts, not "
            f"{len(bullheads)}"
        )
    for heads in bullheads:
        if isinstance(heads, bool) or not isinstance(heads, int) or heads < 0:
            raise LadderError(f"a seat's bullheads are a whole number of 0 or more, not {heads!r}")
    for rating in before:
        if not (math.isfinite(rating.mu) and math.isfinite(rating.sigma) and rating.sigma > 0):
            raise LadderError(f"{rating} is no rating: mu finite, sigma finite and above 0")
    if isinstance(tau, bool) or not math.isfinite(tau) or tau < 0:
        raise LadderError(f"tau is {tau!r}, not a finite number of 0 or more")


SetResult = tuple[Sequence[int], Sequence[int]]
"""One stored set: the version id of each seat, and each seat's bullheads summed over the set."""


def replay(sets: Iterable[SetResult], tau: float) -> Iterator[tuple[list[Rating], list[Rating]]]:
    """Every set's ratings before and after, seat by seat, in order, from nothing but the sets:
    each version starts at `initial()` and carries its rating from set to set. What `rerate`
    and a check of each stored seat's before and after both read. LadderError for a set that
    seats one version twice (a set is rated among distinct versions)."""
    current: dict[int, Rating] = {}
    for versions, bullheads in sets:
        if len(set(versions)) != len(versions):
            raise LadderError(f"a set seats a version twice ({list(versions)}): it cannot be rated")
        before = [current.get(version, initial()) for version in versions]
        after = rate_set(before, bullheads, tau)
        current.update(zip(versions, after, strict=True))
        yield before, after


def rerate(sets: Iterable[SetResult], tau: float) -> dict[int, Rating]:
    """Each version's rating after `sets` (by version id), played in the order given from
    `initial()`: what a ladder's stored ratings must equal."""
    played = list(sets)
    final: dict[int, Rating] = {}
    for (versions, _), (_, after) in zip(played, replay(played, tau), strict=True):
        final.update(zip(versions, after, strict=True))
    return final
