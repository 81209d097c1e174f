"""What one seat is shown when asked to decide: exactly what a player at a real table knows.

That is every card the seat has seen this round, and nothing it has not: its own hand, the rows
as they began the round and as they are, every card revealed in its turns, what each seat took,
and in the draft variant the face-up table and every hand. A stateless bot can count cards from
one view alone. Earlier rounds are gone (every round is dealt afresh) but for their totals.

`hashlib` is imported by `decision_seed`, the one function that uses it: a bot's SDK loads this
module but never derives a seed (the arena sends it), and hashlib's import (OpenSSL's digests)
would cost every bot's start-up some 2 ms of CPU.
"""

from dataclasses import dataclass
from random import Random
from typing import Any

from arena.rules.errors import Decision
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
    seed: int = 0
    """The seed of this decision's random choices (`decision_seed`), below 2**53; 0 when the game
    has none (`Game`'s `bot_seed`). Private to the seat, like its hand."""

    def random(self, salt: int | str = 0) -> Random:
        """A generator for this decision's random choices, seeded from `seed` (and `salt`, when
        given, for a bot that wants streams of its own): the same view gives the same draws.

        Drawing from it, not from a generator of the bot's own, is what makes a randomized bot
        replay exactly (`arena play --game`), and what lets `arena compare` pair its games: a
        seat of NEW's game and the same seat of OLD's game draw alike at every decision.
        """
        return Random(f"{self.seed}:{salt}" if salt else self.seed)


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
    seed: int = 0,
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
    view.seed = seed
    view.__class__ = View
    built: View = view  # not typing.cast, which is a call at run time
    return built


SEED_BITS = 53
"""A decision's seed is below 2**53, so that every language reads it exactly: a double holds it
(JavaScript's numbers, and the JSON readers that keep numbers as doubles)."""

_SEED_PERSON = b"arena.choice/1"
"""BLAKE2b's personalization of the decisions' seeds; changing how they derive must change it."""


def seed_key(bot_seed: int) -> bytes:
    """The BLAKE2b key of a game's decision seeds, from the game's `bot_seed` (0 to 2**64 - 1)."""
    return bot_seed.to_bytes(8, "big")


def decision_seed(
    key: bytes, seat: int, round: int, turn: int, decision: Decision | None, held: int
) -> int:
    """The seed of one decision's random choices: BLAKE2b keyed with the game's `seed_key`, over
    the decision's place (seat, round, turn, kind, and the cards the seat holds, which tells a
    draft's picks apart), cut to `SEED_BITS`.

    Keyed, so that a bot that sees its own seeds learns nothing of the key, and so of the other
    seats' seeds or of another game's; by the decision's place, so that two games with one key
    (NEW's and OLD's in `arena compare`) give a seat the same seed at the same decision, even
    once their cards have parted, while a stateless bot needs no generator of its own.
    """
    import hashlib

    data = f"{seat}:{round}:{turn}:{decision or ''}:{held}".encode()
    digest = hashlib.blake2b(data, digest_size=8, key=key, person=_SEED_PERSON).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)
