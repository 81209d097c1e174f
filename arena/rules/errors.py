"""The rules engine's one error family: a decision or a setting the rules do not allow."""

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


class IllegalDecisionError(RulesError):
    """A player's decision that the rules forbid; the engine never silently fixes one."""

    def __init__(self, seat: int, decision: Decision, value: object, reason: str) -> None:
        super().__init__(f"seat {seat}: illegal {decision} {value!r}: {reason}")
        self.seat = seat
        """The seat that decided."""
        self.decision = decision
        """What was being decided."""
        self.value = value
        """The offending answer, as given."""
        self.reason = reason
        """Why it is illegal, for a person to read."""
