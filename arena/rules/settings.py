"""What is agreed before a game: players, variant, end score, round cap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.rules.cards import DECK_SIZE, HAND_SIZE, ROW_COUNT
from arena.rules.errors import InvalidSettingsError

MIN_PLAYERS = 2
MAX_PLAYERS = 10
DEFAULT_END_SCORE = 66


class Variant(StrEnum):
    """How the cards of a round are set up; the turns play the same in all of them."""

    STANDARD = "standard"
    """All 104 cards shuffled; 10 dealt to each player, 4 start the rows, the rest unused."""
    PROFESSIONAL = "professional"
    """Only cards 1..10*players+4, shuffled and all dealt (Dutch edition)."""
    PROFESSIONAL_DRAFT = "professional-draft"
    """Only cards 1..10*players+4, face up and drafted one at a time in the open (Thai edition)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The house rules of one game."""

    players: int
    """Seats at the table, 2 to 10."""
    variant: Variant = Variant.STANDARD
    """How each round's cards are set up."""
    end_score: int = DEFAULT_END_SCORE
    """The game ends after the round in which someone reaches this many bullheads."""
    max_rounds: int | None = None
    """The game also ends after this many rounds; None for no cap."""

    def __post_init__(self) -> None:
        for name in ("players", "end_score", "max_rounds"):
            value = getattr(self, name)
            if not (isinstance(value, int) and not isinstance(value, bool)) and not (
                value is None and name == "max_rounds"
            ):
                raise InvalidSettingsError(f"{name} must be a whole number, not {value!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidSettingsError(
                f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players!r}"
            )
        if not isinstance(self.variant, Variant):
            raise InvalidSettingsError(f"unknown variant {self.variant!r}")
        if self.end_score < 1:
            raise InvalidSettingsError(f"end score must be at least 1, not {self.end_score!r}")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise InvalidSettingsError(
                f"max rounds must be at least 1 (or none), not {self.max_rounds!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON values, every key always present, in this order (records,
        specs and tournament identities all use this form); `from_dict` reads it back."""
        return {
            "players": self.players,
            "variant": self.variant.value,
            "end_score": self.end_score,
            "max_rounds": self.max_rounds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Settings from `to_dict`'s form; InvalidSettingsError for a missing or unknown key, or a
        value the rules cannot play (checked as the constructor checks it)."""
        if not isinstance(data, Mapping):
            raise InvalidSettingsError(f"settings must be a dict of {_KNOWN}, not {data!r}")
        unknown = [key for key in data if key not in _KEYS]
        if unknown:
            raise InvalidSettingsError(f"unknown setting {unknown[0]!r} (known: {_KNOWN})")
        missing = [key for key in _KEYS if key not in data]
        if missing:
            raise InvalidSettingsError(f"missing setting {missing[0]!r} (known: {_KNOWN})")
        variant = data["variant"]
        if isinstance(variant, str) and variant in _VARIANTS:
            variant = Variant(variant)  # anything else the constructor refuses, naming it
        return cls(data["players"], variant, data["end_score"], data["max_rounds"])

    @property
    def deck_size(self) -> int:
        """The highest card in play: 104, or 10 per player plus 4 in the professional variants."""
        if self.variant is Variant.STANDARD:
            return DECK_SIZE
        return HAND_SIZE * self.players + ROW_COUNT


_KEYS = ("players", "variant", "end_score", "max_rounds")
"""The keys of the settings' dict form, in order."""
_KNOWN = ", ".join(_KEYS)
_VARIANTS = frozenset(variant.value for variant in Variant)
