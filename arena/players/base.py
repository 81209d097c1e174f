"""The one interface the engine's driver talks to, and the faults a player can commit.

A player is anything that answers a decision: an in-process strategy or a remote bot. Both look
alike to the driver because the interface is async. A player only answers or raises a fault; what
a fault costs is the referee's (`referee`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum

from arena.rules import Decision, RoundRecord, Settings, TurnRecord, View


class FaultKind(StrEnum):
    """Every way a player can fail a decision; each has a defined outcome (the fallback)."""

    TIMEOUT = "timeout"
    """No answer within the deadline."""
    CRASHED = "crashed"
    """The bot's process died or its connection dropped."""
    NOT_CONNECTED = "not-connected"
    """The bot never connected (or not within the start-up timeout)."""
    MALFORMED = "malformed"
    """An answer that is not an answer to this request (wrong kind, wrong request id)."""
    ILLEGAL = "illegal"
    """A card not in hand, a row that does not exist, a draft card not on the table."""
    DISQUALIFIED = "disqualified"
    """Too many faults: the fallback plays for the bot from now on."""


class PlayerFault(Exception):
    """Raised by a player that could not give an answer; the driver records it and falls back."""

    def __init__(self, kind: FaultKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True, slots=True)
class Fault:
    """One recorded fault, and where in the game it happened."""

    seat: int
    """The faulting seat."""
    kind: FaultKind
    """What went wrong."""
    decision: Decision
    """The decision that was being asked."""
    round: int
    """The round, counting from 0."""
    turn: int
    """The turn, counting from 0."""
    message: str
    """What happened, for the bot's author."""


@dataclass(frozen=True, slots=True)
class DecisionTime:
    """How long one seat took over one decision, as the arena measured it."""

    seat: int
    """The deciding seat."""
    decision: Decision
    """What it decided."""
    round: int
    """The round, counting from 0."""
    turn: int
    """The turn, counting from 0 (0 in the draft)."""
    seconds: float
    """From when the request was written to the bot's stream to when its answer was read, less
    the arena's own stalls: what the deadline judged (its whole allowance when it timed out)."""
    cpu: float | None
    """Seconds of CPU the bot's processes used meanwhile; None where that is not measured."""
    bank: float = 0.0
    """Seconds of the game's time bank the decision drew on."""
    neighbours: float | None = None
    """Seconds of CPU the table's other bots used meanwhile (0 in fair mode, where they are
    frozen: the proof that nobody took this bot's time); None where that is not measured."""


class Player(ABC):
    """One seat's decision maker. The events are optional notifications and must not block."""

    @abstractmethod
    async def decide(self, decision: Decision, view: View) -> int:
        """The answer to `decision` (a card, a row 0 to 3, or a draft card) for the seat `view`
        shows; raises PlayerFault when it has none to give."""

    def timed(self) -> DecisionTime | None:
        """How long the decision it was last asked took, as it measured it (a remote bot: its
        clock's seconds and bank, its pacer's CPU), whether it answered or faulted; None where it
        measures nothing (an in-process strategy, a decision it gave no time to). The driver
        records it in the game's times (`GameResult.times`) as the decision ends."""
        return None

    def absence(self) -> PlayerFault | None:
        """Why the player cannot be asked at all (it crashed, or never connected); None when it
        can. Asked before every decision, even of a disqualified bot, so that a game it misses
        records why."""
        return None

    def game_started(self, seat: int, settings: Settings) -> None:
        """The game begins; this player sits at `seat`."""

    def turn_revealed(self, round: int, turn: int, record: TurnRecord) -> None:
        """Turn `turn` of round `round` (both from 0) was revealed and placed."""

    def round_ended(self, round: int, record: RoundRecord, totals: tuple[int, ...]) -> None:
        """Round `round` ended; `totals` are the game totals after it."""

    def game_ended(self, totals: tuple[int, ...], winners: tuple[int, ...]) -> None:
        """The game ended."""

    def faulted(self, fault: Fault) -> None:
        """This player committed `fault` (or, of kind DISQUALIFIED, is out for its faults)."""
