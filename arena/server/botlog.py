"""Each bot's output as lines, every line tagged with where its process was: game, round, turn.

A bot process plays one game at a time, so what it writes belongs to the decision it was last
asked: the remote player says where the process is (`BotLog.at`) as it seats it at a game and
as it sends each request, and the lobby says it is between games once the game is over; lines
written between games belong to no game. The lines are cut from exactly the output the bot's log
file keeps (`BotProcess.start`'s `on_output`), so the log's cap caps them too. The arena adds
its own lines (`note`): the process started, connected, exited with its status, a fault and why.

A game's lines are taken when it ends (`take`) and stored with it; the rest (`take_loose`) are
stored as they come. A line is filed when the arena reads it: output a bot writes and does not
flush before it answers may be read after its next request went out, and be filed there.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

BOT = "bot"
"""The source of a line the bot itself wrote (its stdout or stderr)."""
ARENA = "arena"
"""The source of a line the arena wrote about the bot."""


@dataclass(frozen=True, slots=True)
class Where:
    """Where a bot process is: in which game, and at which decision of it."""

    game_id: str
    round: int | None = None
    """The round of the decision last asked, from 0; None before the game's first decision."""
    turn: int | None = None
    """The turn of that decision, from 0; None before the first decision and in the draft."""


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of a bot's log, with where its process was when the arena read it."""

    bot: str
    """The bot's name."""
    game_id: str | None
    """The game it was playing; None between games."""
    round: int | None
    """The round, from 0; None between games and before a game's first decision."""
    turn: int | None
    """The turn, from 0; None as for `round`, and during the draft."""
    source: str
    """Who wrote it: `BOT` (its own output) or `ARENA` (a note about it)."""
    text: str
    """The line, without its line break; invalid UTF-8 replaced."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; `from_dict` reads it back to an equal line."""
        return {
            "bot": self.bot,
            "game_id": self.game_id,
            "round": self.round,
            "turn": self.turn,
            "source": self.source,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LogLine:
        """The line `to_dict` wrote."""
        return cls(
            data["bot"], data["game_id"], data["round"], data["turn"], data["source"], data["text"]
        )


class BotLog:
    """One bot's lines, across all its processes ("instances", any hashable key for each)."""

    def __init__(self, bot: str) -> None:
        self.bot = bot
        self._where: dict[Hashable, Where | None] = {}
        self._partial: dict[Hashable, bytes] = {}
        """Output of each process after its last line break: the start of a line to come."""
        self._games: dict[str, list[LogLine]] = {}
        self._loose: list[LogLine] = []

    def at(self, instance: Hashable, where: Where | None) -> None:
        """The process `instance` is now at `where` (None: between games)."""
        self._where[instance] = where

    def where(self, instance: Hashable) -> Where | None:
        """Where the process `instance` is."""
        return self._where.get(instance)

    def feeder(self, instance: Hashable) -> Callable[[bytes], None]:
        """The `on_output` callback of the process `instance`."""
        return lambda piece: self.output(instance, piece)

    def output(self, instance: Hashable, piece: bytes) -> None:
        """More output of the process `instance`: each line it completes is filed."""
        *lines, rest = (self._partial.pop(instance, b"") + piece).split(b"\n")
        if rest:
            self._partial[instance] = rest
        where = self._where.get(instance)
        for line in lines:
            self._file(BOT, _text(line), where)

    def flush(self, instance: Hashable) -> None:
        """The process `instance` is gone: file what it wrote after its last line break."""
        rest = self._partial.pop(instance, b"")
        if rest:
            self._file(BOT, _text(rest), self._where.get(instance))
        self._where.pop(instance, None)

    def note(self, text: str, where: Where | None = None) -> None:
        """A line of the arena's own about the bot, at `where` (None: between games)."""
        self._file(ARENA, text, where)

    def keep_loose(self, lines: Iterable[LogLine]) -> None:
        """Lines another arena filed between games (a core host's, as it stopped the bot's
        processes there), kept with this one's until the next `take_loose`."""
        self._loose.extend(lines)

    def take(self, game_id: str) -> tuple[LogLine, ...]:
        """The lines of one game, in order, to store with it; they are then forgotten."""
        return tuple(self._games.pop(game_id, ()))

    def take_loose(self) -> tuple[LogLine, ...]:
        """The lines written between games since the last call, in order."""
        loose, self._loose = self._loose, []
        return tuple(loose)

    def _file(self, source: str, text: str, where: Where | None) -> None:
        if where is None:
            self._loose.append(LogLine(self.bot, None, None, None, source, text))
            return
        line = LogLine(self.bot, where.game_id, where.round, where.turn, source, text)
        self._games.setdefault(where.game_id, []).append(line)


def _text(line: bytes) -> str:
    return line.removesuffix(b"\r").decode("utf-8", errors="replace")
