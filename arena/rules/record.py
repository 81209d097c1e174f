"""The record of a game: enough to replay it and re-check every result.

`json` is imported by the two methods that use it: a bot's SDK loads this module (its events
carry turn records) but never writes or reads a record as JSON, and every bot's start-up would
pay for the import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.rules.cards import penalty
from arena.rules.settings import Settings


@dataclass(frozen=True, slots=True)
class Placement:
    """One revealed card put on the table."""

    seat: int
    """Whose card it is."""
    card: int
    """The card."""
    row: int
    """The row it went to, 0-based."""
    taken: tuple[int, ...]
    """The cards its player took (rule 3 or 4); empty when none."""
    chosen: bool
    """True when the card was too low and its player chose the row (rule 4)."""

    @property
    def bullheads(self) -> int:
        """What the player took with this card."""
        return penalty(self.taken)


class _Unfrozen:
    """A Placement's exact memory layout without its frozen guard: see `make_placement`."""

    __slots__ = Placement.__slots__


def make_placement(
    seat: int, card: int, row: int, taken: tuple[int, ...], chosen: bool
) -> Placement:
    """`Placement(...)` about five times faster, for the engine, which places every card.

    Built as `arena.rules.views.make_view` builds a view: the fields set plainly on an object of
    the same layout, which then becomes a Placement, indistinguishable from `Placement(...)`.
    """
    placement: Any = _Unfrozen()  # typed loosely: mypy cannot see slots named in a tuple
    placement.seat = seat
    placement.card = card
    placement.row = row
    placement.taken = taken
    placement.chosen = chosen
    placement.__class__ = Placement
    built: Placement = placement
    return built


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn: the cards revealed together, then placed lowest first."""

    cards: tuple[int, ...]
    """The card each seat played, by seat."""
    placements: tuple[Placement, ...]
    """What happened to each card, in the order they were placed."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round from its set-up to its scores."""

    rows: tuple[tuple[int, ...], ...]
    """The rows as play began, row 0 first: one card each in a real game."""
    hands: tuple[tuple[int, ...], ...]
    """Each seat's 10 cards at the start of play (after the draft, in the draft variant)."""
    picks: tuple[int, ...]
    """Draft variant: the cards in the order they were picked; empty otherwise."""
    first_picker: int
    """Draft variant: the seat that picked first (then seat order); 0 otherwise."""
    turns: tuple[TurnRecord, ...]
    """The 10 turns."""
    penalties: tuple[int, ...]
    """Bullheads each seat took this round."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game."""

    settings: Settings
    """The rules it was played under."""
    rotation: int
    """Seat rotation of the deal: seat s got the hand dealt to seat (s + rotation) mod players."""
    rounds: tuple[RoundRecord, ...]
    """Every round, in order."""
    totals: tuple[int, ...]
    """Each seat's bullheads over the game."""
    winners: tuple[int, ...]
    """The seats with the fewest bullheads (all of them on a tie)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; `from_dict` reads it back to an equal record.

        Equal to what `dataclasses.asdict` returns (the same keys in the same order, tuples kept
        as tuples; the settings in their own dict form, whose variant is the enum's value),
        written out: asdict's generic deep copy cost milliseconds a game, and every game is
        stored. The tuples, immutable, are shared instead of copied.
        """
        return {
            "settings": self.settings.to_dict(),
            "rotation": self.rotation,
            "rounds": tuple([_round_to_dict(round_) for round_ in self.rounds]),
            "totals": self.totals,
            "winners": self.winners,
        }

    def to_json(self) -> str:
        """One line of JSON, the same bytes for the same game."""
        import json

        return json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Rebuild a record written by `to_dict` (or read back from JSON)."""
        return cls(
            settings=Settings.from_dict(data["settings"]),
            rotation=data["rotation"],
            rounds=tuple(_round_from_dict(r) for r in data["rounds"]),
            totals=tuple(data["totals"]),
            winners=tuple(data["winners"]),
        )

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Rebuild a record from `to_json`'s output."""
        import json

        return cls.from_dict(json.loads(text))


def _round_to_dict(record: RoundRecord) -> dict[str, Any]:
    return {
        "rows": record.rows,
        "hands": record.hands,
        "picks": record.picks,
        "first_picker": record.first_picker,
        "turns": tuple(
            [
                {
                    "cards": turn.cards,
                    "placements": tuple(
                        [
                            {
                                "seat": p.seat,
                                "card": p.card,
                                "row": p.row,
                                "taken": p.taken,
                                "chosen": p.chosen,
                            }
                            for p in turn.placements
                        ]
                    ),
                }
                for turn in record.turns
            ]
        ),
        "penalties": record.penalties,
    }


def _round_from_dict(data: dict[str, Any]) -> RoundRecord:
    return RoundRecord(
        rows=tuple([tuple(row) for row in data["rows"]]),
        hands=tuple([tuple(hand) for hand in data["hands"]]),
        picks=tuple(data["picks"]),
        first_picker=data["first_picker"],
        turns=tuple(
            [
                TurnRecord(
                    tuple(turn["cards"]),
                    tuple(
                        [
                            make_placement(
                                p["seat"], p["card"], p["row"], tuple(p["taken"]), p["chosen"]
                            )
                            for p in turn["placements"]
                        ]
                    ),
                )
                for turn in data["turns"]
            ]
        ),
        penalties=tuple(data["penalties"]),
    )
