"""A tournament game as a job: the spec that goes in, and the outcome that comes out.

Both are plain values with a JSON-ready form, so a game can be played anywhere (another process,
another machine), stored, and read back equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.players import DecisionTime, Fault, FaultKind
from arena.rules import Decision, GameRecord, Settings
from arena.server.botlog import LogLine


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game of a tournament: everything needed to play it, and where it sits in the schedule."""

    game_id: str
    """Stable, readable and unique in the tournament, e.g. "t003-d01-r2"."""
    seating: int
    """The index of its seating (its bots, one table of the game) in the schedule: stored as
    `table`, as it always was, and shown in its id as `tNNN`."""
    deal: int
    """The deal's index within its table."""
    rotation: int
    """Seat rotation: seat s holds the hand dealt to seat (s + rotation) mod players."""
    seats: tuple[str, ...]
    """The bots' names, by seat."""
    seed: int
    """The deal's seed: the same for every rotation of one deal."""
    settings: Settings
    """The rules of the game."""
    bot_seed: int | None = None
    """The key of the seeds of the bots' own random choices, one per decision in every view
    (`arena.rules.Game`): derived from the tournament seed (`schedule.bot_seed`), secret as it
    is, the same for NEW's and OLD's game of one deal and rotation in `arena compare`. None in a
    game stored by an older arena, which sent no seeds: played again, it sends none either."""

    def __post_init__(self) -> None:
        if len(self.seats) != self.settings.players:
            raise ValueError(f"{self.game_id}: {self.settings.players} seats but {self.seats!r}")
        if not 0 <= self.rotation < self.settings.players:
            raise ValueError(f"{self.game_id}: rotation {self.rotation!r} is out of range")

    @property
    def duplicate_set(self) -> tuple[int, int]:
        """The (seating, deal) this game belongs to: its rotations form one duplicate set."""
        return self.seating, self.deal

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; `from_dict` reads it back to an equal spec. A spec without a
        `bot_seed` has no key for it, as an older arena stored it."""
        data: dict[str, Any] = {
            "game_id": self.game_id,
            "table": self.seating,  # the stored key: older results folders resume
            "deal": self.deal,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "seed": self.seed,
            "settings": self.settings.to_dict(),
        }
        if self.bot_seed is not None:
            data["bot_seed"] = self.bot_seed
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSpec:
        """Rebuild a spec written by `to_dict` (or read back from JSON)."""
        return cls(
            game_id=data["game_id"],
            seating=data["table"],
            deal=data["deal"],
            rotation=data["rotation"],
            seats=tuple(data["seats"]),
            seed=data["seed"],
            settings=Settings.from_dict(data["settings"]),
            bot_seed=data.get("bot_seed"),
        )


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game job: its spec, its record and what the bots did wrong."""

    spec: GameSpec
    """The game that was played."""
    record: GameRecord
    """The full record, as played (fallback decisions included)."""
    faults: tuple[Fault, ...]
    """Every fault committed in the game, in order; `Fault.seat` indexes `spec.seats`."""
    disqualified: tuple[str, ...]
    """The bots of this table disqualified by the end of this game (in this game or before)."""
    logs: tuple[LogLine, ...] = field(default=(), compare=False, repr=False)
    """What its bots wrote during it, and between games since their last game was saved: kept in
    the store's own table, not in the outcome's JSON form (nor in the replay file)."""
    times: tuple[DecisionTime, ...] = field(default=(), compare=False, repr=False)
    """How long each seat took over each decision, in the order they ended (`times_to_json`):
    kept in the store's own table, not in the outcome's JSON form, so that the replay file of a
    tournament stays the same from run to run (times never are)."""

    def __post_init__(self) -> None:
        spec, record = self.spec, self.record
        if record.settings != spec.settings or record.rotation != spec.rotation:
            raise ValueError(f"{spec.game_id}: the record is of another game than the spec")

    @property
    def game_id(self) -> str:
        """The game's stable id."""
        return self.spec.game_id

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's bullheads over the game."""
        return self.record.totals

    @property
    def scores(self) -> dict[str, int]:
        """Each bot's bullheads over the game, by name."""
        return dict(zip(self.spec.seats, self.record.totals, strict=True))

    @property
    def winners(self) -> tuple[str, ...]:
        """The bots with the fewest bullheads (all of them on a tie)."""
        return tuple(self.spec.seats[seat] for seat in self.record.winners)

    def seat_of(self, bot: str) -> int:
        """The seat `bot` sat at; ValueError if it did not play this game."""
        try:
            return self.spec.seats.index(bot)
        except ValueError:
            raise ValueError(f"{bot!r} did not play {self.game_id}") from None

    def bullheads_of(self, bot: str) -> int:
        """What `bot` took over the game."""
        return self.record.totals[self.seat_of(bot)]

    def faults_of(self, bot: str) -> tuple[Fault, ...]:
        """The faults `bot` committed in this game."""
        seat = self.seat_of(bot)
        return tuple(fault for fault in self.faults if fault.seat == seat)

    def times_of(self, bot: str) -> tuple[DecisionTime, ...]:
        """How long `bot` took over each of its decisions in this game."""
        seat = self.seat_of(bot)
        return tuple(time for time in self.times if time.seat == seat)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; `from_dict` reads it back to an equal outcome."""
        return {
            "spec": self.spec.to_dict(),
            "record": self.record.to_dict(),
            "faults": [_fault_to_dict(fault) for fault in self.faults],
            "disqualified": list(self.disqualified),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOutcome:
        """Rebuild an outcome written by `to_dict` (or read back from JSON)."""
        return cls(
            spec=GameSpec.from_dict(data["spec"]),
            record=GameRecord.from_dict(data["record"]),
            faults=tuple(_fault_from_dict(fault) for fault in data["faults"]),
            disqualified=tuple(data["disqualified"]),
        )


@dataclass(frozen=True, slots=True)
class Disqualification:
    """A bot put out of a tournament: why, and when (the game in which it happened)."""

    bot: str
    reason: str
    """Why, as the referee or the lobby said it."""
    game_id: str
    """The game in which it happened; empty when not known."""
    order: int
    """When: that game's place in the order games were saved (larger is later); 0 if unknown."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"bot": self.bot, "reason": self.reason, "game": self.game_id, "order": self.order}


def times_to_json(times: tuple[DecisionTime, ...]) -> list[list[Any]]:
    """Decision times as compact JSON: [seat, decision, round, turn, microseconds, CPU
    microseconds or null, bank microseconds, the neighbours' CPU microseconds or null] each."""
    return [
        [
            time.seat,
            time.decision.value,
            time.round,
            time.turn,
            round(time.seconds * 1e6),
            _micros(time.cpu),
            round(time.bank * 1e6),
            _micros(time.neighbours),
        ]
        for time in times
    ]


def times_from_json(data: list[list[Any]]) -> tuple[DecisionTime, ...]:
    """Decision times from `times_to_json`'s form (the neighbours' CPU may be missing: kept
    since a later version)."""
    return tuple(
        DecisionTime(
            seat,
            Decision(decision),
            round_,
            turn,
            micros / 1e6,
            None if cpu is None else cpu / 1e6,
            bank / 1e6,
            None if not rest or rest[0] is None else rest[0] / 1e6,
        )
        for seat, decision, round_, turn, micros, cpu, bank, *rest in data
    )


def _micros(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1e6)


def _fault_to_dict(fault: Fault) -> dict[str, Any]:
    """A fault as plain JSON values."""
    return {
        "seat": fault.seat,
        "kind": fault.kind.value,
        "decision": fault.decision.value,
        "round": fault.round,
        "turn": fault.turn,
        "message": fault.message,
    }


def _fault_from_dict(data: dict[str, Any]) -> Fault:
    """A fault from `_fault_to_dict`'s form."""
    return Fault(
        seat=data["seat"],
        kind=FaultKind(data["kind"]),
        decision=Decision(data["decision"]),
        round=data["round"],
        turn=data["turn"],
        message=data["message"],
    )
