"""A bot's log lines for people: where each was written, and escaped for the terminal."""

from __future__ import annotations

from arena.server.botlog import ARENA, BOT, LogLine
from arena.spectate.botlogs import BotLines, listing, where


def test_where_a_line_was_written_reads_from_one() -> None:
    assert where(LogLine("b", None, None, None, BOT, "x")) == "-"
    assert where(LogLine("b", "g", None, None, BOT, "x")) == "start"
    assert where(LogLine("b", "g", 1, None, BOT, "x")) == "2.draft"
    assert where(LogLine("b", "g", 0, 9, BOT, "x")) == "1.10"


def test_a_line_cannot_drive_the_terminal() -> None:
    text = listing(
        [
            LogLine("b", "g", 0, 0, BOT, "\x1b[2Jgone\x07"),
            LogLine("b", None, None, None, ARENA, "b started"),
        ]
    )
    assert "\x1b" not in text and "\x07" not in text
    assert text.splitlines() == [
        "g              1.1      \\x1b[2Jgone\\x07",
        "between games  -        [arena] b started",
    ]


def test_lines_go_under_their_turn() -> None:
    lines = BotLines("b", (LogLine("b", "g", 0, 2, BOT, "a"), LogLine("b", "g", 0, 2, ARENA, "n")))
    assert lines.by_turn() == {(0, 2): ["a", "[arena] n"]}
    assert "2 lines in this game" in lines.legend()
