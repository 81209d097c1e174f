"""Decision makers that run in the arena's own process: the fallback and the built-in strategies.

A `Strategy` is plain synchronous Python over a `View`; `LocalPlayer` makes one a `Player`.
Bot authors write the same kind of object with the SDK. Both answer a decision through `choose`,
the players' one switch over the kinds of decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol, TypeVar

from arena.players.base import Player
from arena.rules import BULLHEADS, Decision, Rows, View

Answer_co = TypeVar("Answer_co", covariant=True)


class Chooser(Protocol[Answer_co]):
    """Anything with a method per decision: a `Strategy` (answers at once) or an SDK bot (whose
    answers may be awaitable)."""

    def choose_card(self, view: View) -> Answer_co:
        """The card to play this turn."""
        ...

    def choose_row(self, view: View) -> Answer_co:
        """The row to take when this seat's card is too low."""
        ...

    def choose_draft(self, view: View) -> Answer_co:
        """The face-up card to draft."""
        ...


def method_for(chooser: Chooser[Answer_co], decision: Decision) -> Callable[[View], Answer_co]:
    """The method of `chooser` that answers `decision`: the players' one switch over the kinds
    of decision."""
    if decision is Decision.CARD:
        return chooser.choose_card
    if decision is Decision.ROW:
        return chooser.choose_row
    return chooser.choose_draft


def choose(chooser: Chooser[Answer_co], decision: Decision, view: View) -> Answer_co:
    """Ask `chooser` the method that answers `decision`."""
    return method_for(chooser, decision)(view)


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

    def decide(self, decision: Decision, view: View) -> int:
        """The answer to any decision."""
        return choose(self, decision, view)


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


fallback = FALLBACK.decide
"""The fallback's answer to any decision."""


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

    async def decide(self, decision: Decision, view: View) -> int:
        return self.strategy.decide(decision, view)
