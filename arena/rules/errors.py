"""The rules engine's one error family: a decision or a setting the rules do not allow."""

from dataclasses import dataclass
from enum import StrEnum


class RulesError(ValueError):
    """Base of every error the rules engine raises."""


class InvalidSettingsError(RulesError):
    """Game settings the rules cannot play (e.g. 11 players)."""


class Decision(StrEnum):
    """The three kinds of decision a player makes."""

    CARD = "card"
    """Choose the card to play this turn (all players at once)."""
    ROW = "row"
    """Choose the row to take when one's card is lower than every row end (rule 4)."""
    DRAFT = "draft"
    """Choose a face-up card for one's hand (the professional draft)."""


@dataclass(frozen=True)
class IllegalDecisionError(RulesError):
    """A player's decision that the rules forbid; the engine never silently fixes one."""

    seat: int
    """The seat that decided."""
    decision: Decision
    """What was being decided."""
    value: object
    """The offending answer, as given."""
    reason: str
    """Why it is illegal, for a person to read."""

    def __str__(self) -> str:
        return f"seat {self.seat}: illegal {self.decision} {self.value!r}: {self.reason}"
