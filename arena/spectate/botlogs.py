"""The bots' per-turn logs as their authors read them: `arena logs`, and beside each turn in
`arena replay --bot` (the report's viewer has its own copy, `report.py`).

Every line is a bot's own text, so it is escaped before it reaches a terminal (`safe`): a bot
cannot move the cursor, recolour or clear the screen of whoever reads its log.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.server.botlog import ARENA, LogLine
from arena.spectate.display import LOG, Logs, safe


def text_of(line: LogLine) -> str:
    """A line as shown: the arena's own marked `[arena]`; not yet escaped."""
    return f"[arena] {line.text}" if line.source == ARENA else line.text


def where(line: LogLine) -> str:
    """Where a line was written, for people: `2.7` (round 2, turn 7, from 1), `2.draft`,
    `start` (in a game, before its first decision), or `-` (between games)."""
    if line.game_id is None:
        return "-"
    if line.round is None:
        return "start"
    turn = "draft" if line.turn is None else str(line.turn + 1)
    return f"{line.round + 1}.{turn}"


@dataclass(frozen=True)
class BotLines:
    """One bot's lines in one game, for a replay."""

    bot: str
    lines: tuple[LogLine, ...]

    def by_turn(self) -> Logs:
        """The lines by (round, turn), as the renderer takes them."""
        found: dict[tuple[int | None, int | None], list[str]] = {}
        for line in self.lines:
            found.setdefault((line.round, line.turn), []).append(text_of(line))
        return found

    def legend(self) -> str:
        """The line above a replay that shows them."""
        count = f"{len(self.lines)} line{'s' if len(self.lines) != 1 else ''}"
        return (
            f"Under each turn, after '{LOG.strip()}': what {safe(self.bot)} wrote while it was "
            f"deciding it, and the arena's notes on it ({count} in this game)."
        )


def listing(lines: Iterable[LogLine]) -> str:
    """`arena logs`: one line a line, with its game and where in it (see `where`), in order."""
    rows = [
        f"{line.game_id or 'between games':<14} {where(line):<8} {safe(text_of(line))}"
        for line in lines
    ]
    return "\n".join(rows)
