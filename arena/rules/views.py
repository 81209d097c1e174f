"""What one seat is shown when asked to decide: exactly what a player at a real table knows.

That is every card the seat has seen this round, and nothing it has not: its own hand, the rows
as they began the round and as they are, every card revealed in its turns, what each seat took,
and in the draft variant the face-up table and every hand. A stateless bot can count cards from
one view alone. Earlier rounds are gone (every round is dealt afresh) but for their totals.
"""

from dataclasses import dataclass
from typing import Any

from arena.rules.settings import Settings

Rows = tuple[tuple[int, ...], ...]
"""The table's rows, row 0 first, each left to right (the last card is the row end)."""


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge at one decision. It never holds another player's secret hand."""

    settings: Settings
    """The game's agreed rules."""
    seat: int
    """The seat being asked, 0-based."""
    round: int
    """The round, counting from 0."""
    turn: int
    """The turn within the round, 0 to 9 (0 during the draft)."""
    hand: tuple[int, ...]
    """The seat's own cards, ascending."""
    rows: Rows
    """The rows as they are at this moment."""
    penalties: tuple[int, ...]
    """Bullheads each seat has taken so far this round."""
    totals: tuple[int, ...]
    """Bullheads each seat took in the earlier rounds of this game."""
    played: tuple[tuple[int, ...], ...]
    """Cards revealed in the earlier turns of this round: one tuple per turn, by seat."""
    revealed: tuple[int, ...] = ()
    """At a row choice: every card revealed this turn, by seat. Empty otherwise."""
    table: tuple[int, ...] = ()
    """In the draft: the cards still face up on the table, ascending. Empty otherwise."""
    hands: tuple[tuple[int, ...], ...] = ()
    """In the draft variant every hand is public: all hands by seat. Empty otherwise."""
    start_rows: Rows = ()
    """The rows as this round's play began (turn 0): each row's starting card as dealt, or in the
    draft variant the 4 cards left after it. Empty during the draft."""
    taken: tuple[tuple[int, ...], ...] = ()
    """The cards each seat has taken this round, by seat, each seat's in the order taken."""
    names: tuple[str, ...] = ()
    """The players' names, by seat: opaque to the rules, given to the game by whoever runs it."""


class _Unfrozen:
    """A View's exact memory layout without its frozen guard: see `make_view`."""

    __slots__ = View.__slots__


def make_view(
    settings: Settings,
    seat: int,
    round: int,
    turn: int,
    hand: tuple[int, ...],
    rows: Rows,
    penalties: tuple[int, ...],
    totals: tuple[int, ...],
    played: tuple[tuple[int, ...], ...],
    revealed: tuple[int, ...],
    table: tuple[int, ...],
    hands: tuple[tuple[int, ...], ...],
    start_rows: Rows,
    taken: tuple[tuple[int, ...], ...],
    names: tuple[str, ...],
) -> View:
    """`View(...)` with every field given, about five times faster: for the engine, which
    builds a view for every decision.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`, which made
    building views most of the engine's time. Here the fields are set plainly on an object of
    the same layout, which then becomes a View (CPython allows `__class__` assignment between
    classes with identical `__slots__`). The result cannot be told from `View(...)`: same type,
    equal, frozen.
    """
    view: Any = _Unfrozen()  # typed loosely: mypy cannot see slots named in a tuple
    view.settings = settings
    view.seat = seat
    view.round = round
    view.turn = turn
    view.hand = hand
    view.rows = rows
    view.penalties = penalties
    view.totals = totals
    view.played = played
    view.revealed = revealed
    view.table = table
    view.hands = hands
    view.start_rows = start_rows
    view.taken = taken
    view.names = names
    view.__class__ = View
    built: View = view  # not typing.cast, which is a call at run time
    return built
