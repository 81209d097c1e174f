"""The rules engine's one error family: a decision, a setting, a deal or a record the rules do
not allow, or the engine asked out of turn. The engine raises nothing else."""

import re
from enum import StrEnum

from arena.errors import ArenaError


class RulesError(ArenaError, ValueError):
    """Base of every error the rules engine raises (a ValueError too, as it always was)."""


class InvalidSettingsError(RulesError):
    """Game settings the rules cannot play (e.g. 11 players), or a dict that is not settings."""


class UnknownCardError(RulesError):
    """A card number that is not in the deck (cards are 1 to 104)."""


class InvalidDealError(RulesError):
    """A deal of the wrong shape: not 4 rows, or not one hand of 10 cards per seat."""


class RecordError(RulesError):
    """A game record that does not replay: it ends before the game does, or goes on after."""


class MisuseError(RulesError):
    """The engine was called wrongly (e.g. with one card too few): a bug in its caller, never a
    player's decision, which is checked and raises IllegalDecisionError instead."""


class PhaseError(MisuseError, RuntimeError):
    """The engine was asked for what its phase does not wait for (a row while it waits for the
    cards, the record of a game still going). A RuntimeError too, as it always was."""


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


def told(message: str) -> str:
    """A fault's message for people, shown beside the bot's name: the bot's own notice (which
    speaks the protocol's numbers, counting seats from 0, as `IllegalDecisionError` writes it)
    without its leading `seat N: `, so that no seat number from 0 stands among the displays'
    rounds, turns and rows from 1 (nor among check-bot's lines)."""
    return _NOTICE_SEAT.sub("", message, count=1)


_NOTICE_SEAT = re.compile(r"^seat \d+: ")
