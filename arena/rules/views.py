"""What one seat is shown when asked to decide: exactly what a player at a real table knows."""

from dataclasses import dataclass

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
