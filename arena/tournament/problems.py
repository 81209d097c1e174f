"""What an organizer must act on after a run: the bots that did not really play, and why.

Pure, like the standings it reads: bots disqualified (why, and in which game), bots that never
connected (with the last lines of their log, which the writer reads), submissions left out (and
why), and the faults of every bot that committed any. `serious` says whether any entered bot did
not play as entered: `arena run` then exits with its own status, unless told to allow it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.outcome import Disqualification
from arena.tournament.standings import Standings

LOG_LINES = 5
"""Lines of a bot's log shown for a bot that never connected."""


@dataclass(frozen=True, slots=True)
class Absent:
    """A bot that never connected: in none of its games did it answer anything."""

    bot: str
    games: int
    """Games its seat was played by the fallback."""
    log_tail: tuple[str, ...]
    """The last lines of its log, where its own error usually is."""

    def to_dict(self) -> dict[str, Any]:
        return {"bot": self.bot, "games": self.games, "log_tail": list(self.log_tail)}


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A submission that was not entered: its folder's name, and why."""

    folder: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"folder": self.folder, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Problems:
    """Everything a run's summary, `standings.json` and `--json` report beyond the ranking."""

    disqualified: tuple[Disqualification, ...] = ()
    """In the order it happened, the first first."""
    never_connected: tuple[Absent, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    faults: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Faults by bot and by kind, for the bots that committed any, in rank order."""

    @property
    def serious(self) -> bool:
        """Whether an entered bot was disqualified, never connected, or left out."""
        return bool(self.disqualified or self.never_connected or self.left_out)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: the "problems" of standings.json and of `arena run --json`."""
        return {
            "disqualified": [out.to_dict() for out in self.disqualified],
            "never_connected": [absent.to_dict() for absent in self.never_connected],
            "left_out": [left.to_dict() for left in self.left_out],
            "faults": {bot: dict(kinds) for bot, kinds in self.faults.items()},
        }

    def lines(self) -> list[str]:
        """The summary for people: one line per problem, a log's lines indented under it."""
        lines = []
        for out in self.disqualified:
            where = f" in game {out.game_id}" if out.game_id else ""
            lines.append(f"disqualified{where}: {out.bot} {out.reason}".rstrip())
        for absent in self.never_connected:
            games = f"{absent.games} game{'s' if absent.games != 1 else ''}"
            ends = ", its log ends:" if absent.log_tail else " (its log is empty)"
            lines.append(f"never connected: {absent.bot} (the fallback played its {games}){ends}")
            lines.extend(f"    | {line}" for line in absent.log_tail)
        for left in self.left_out:
            lines.append(f"left out: submission {left.folder!r}: {left.reason}")
        if self.faults:
            counts = "; ".join(
                f"{bot} {sum(kinds.values())} ("
                + ", ".join(f"{kind} {count}" for kind, count in kinds.items())
                + ")"
                for bot, kinds in self.faults.items()
            )
            lines.append(f"faults: {counts}")
        return lines


def find_problems(
    standings: Standings,
    disqualified: Sequence[Disqualification],
    left_out: Sequence[LeftOut] = (),
    logs: Mapping[str, Sequence[str]] | None = None,
) -> Problems:
    """The problems of a tournament from its standings, its disqualifications, the submissions
    its latest run left out, and the last lines of each bot's log (`logs`, by name)."""
    tails = logs or {}
    absent = tuple(
        Absent(line.bot, line.games, tuple(tails.get(line.bot, ())))
        for line in standings.bots
        if line.games and line.absent == line.games
    )
    faults = {
        line.bot: {str(kind): count for kind, count in line.faults_by_kind.items()}
        for line in standings.bots
        if line.faults
    }
    return Problems(
        tuple(sorted(disqualified, key=lambda out: (out.order, out.bot))),
        absent,
        tuple(left_out),
        faults,
    )
