"""The stored sets, replayed: `arena ladder rerate` recomputes every rating from them.

Each set's rating changes are stored (`set_seats`), and each version keeps its current rating;
both come from the sets in the order they were rated (`sets.rated`, which `record_set`
numbers). Replaying those sets from the initial rating (`rating.rerate`) must
give every version exactly the rating it has, to the last bit: the arithmetic is the same in
the same order. A difference means a set rated twice, one lost, or a rating changed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder.db import repository
from arena.ladder.db.models import Version
from arena.ladder.loop import seat_name
from arena.ladder.rating import Rating, initial, rerate


@dataclass(frozen=True)
class Difference:
    """A version whose stored rating is not what its sets give."""

    version: str
    stored: Rating
    recomputed: Rating

    def __str__(self) -> str:
        return (
            f"{self.version}: stored mu {self.stored.mu!r} sigma {self.stored.sigma!r}, its "
            f"sets give mu {self.recomputed.mu!r} sigma {self.recomputed.sigma!r}"
        )


def differences(engine: Engine, tau: float) -> tuple[int, list[Difference]]:
    """The sets replayed, and every version whose stored rating differs from the replay's."""
    with Session(engine) as db:
        sets = repository.stored_sets(db)
        replayed = rerate(sets, tau)
        found = []
        for version in db.scalars(select(Version).order_by(Version.id)):
            stored = Rating(version.mu, version.sigma)
            again = replayed.get(version.id, initial())
            if (stored.mu, stored.sigma) != (again.mu, again.sigma):
                name = seat_name(version.bot.name, version.number)
                found.append(Difference(name, stored, again))
        return len(sets), found
