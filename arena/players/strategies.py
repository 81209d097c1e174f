"""Decision makers that run in the arena's own process: the fallback and the built-in strategies.

A `Strategy` is plain synchronous Python over a `View`; `LocalPlayer` makes one a `Player`.
Bot authors write the same kind of object with the SDK.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.players.base import Player
from arena.rules import BULLHEADS, Decision, Rows, View


def cheapest_row(rows: Rows) -> int:
    """The row with the fewest bullheads, lowest index on ties: the fallback's row choice."""
    costs = [sum(map(BULLHEADS.__getitem__, row)) for row in rows]
    return costs.index(min(costs))


class Strategy:
    """A synchronous strategy: subclasses implement `choose_card`; the rest has defaults."""

    def choose_card(self, view: View) -> int:
        """The card to play this turn; must be in `view.hand`."""
        raise NotImplementedError

    def choose_row(self, view: View) -> int:
        """The row to take when this seat's card is too low: by default the cheapest."""
        return cheapest_row(view.rows)

    def choose_draft(self, view: View) -> int:
        """The face-up card to draft: by default the lowest."""
        return view.table[0]


class Lowest(Strategy):
    """Plays its lowest card. Also the arena's fallback: the decision made for a faulting bot."""

    def choose_card(self, view: View) -> int:
        return view.hand[0]


class Highest(Strategy):
    """Plays its highest card."""

    def choose_card(self, view: View) -> int:
        return view.hand[-1]


class Random(Strategy):
    """Plays a random card and takes a random row, from its own seeded generator."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_card(self, view: View) -> int:
        return self.rng.choice(view.hand)

    def choose_row(self, view: View) -> int:
        return self.rng.randrange(len(view.rows))

    def choose_draft(self, view: View) -> int:
        return self.rng.choice(view.table)


FALLBACK = Lowest()
"""What decides for a bot that faulted: lowest card, cheapest row, lowest draft card."""


def fallback(decision: Decision, view: View) -> int:
    """The fallback's answer to any decision."""
    if decision is Decision.CARD:
        return FALLBACK.choose_card(view)
    if decision is Decision.ROW:
        return FALLBACK.choose_row(view)
    return FALLBACK.choose_draft(view)


BUILTIN: dict[str, Callable[[str], Strategy]] = {
    "lowest": lambda seed: Lowest(),
    "highest": lambda seed: Highest(),
    "random": Random,
}
"""The built-in strategies by name, each made from a seed (used by those that draw at random)."""


class LocalPlayer(Player):
    """A `Strategy` running in the arena's process."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    async def choose_card(self, view: View) -> int:
        return self.strategy.choose_card(view)

    async def choose_row(self, view: View) -> int:
        return self.strategy.choose_row(view)

    async def choose_draft(self, view: View) -> int:
        return self.strategy.choose_draft(view)
