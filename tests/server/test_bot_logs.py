"""A bot's log line by line, each line filed under the game, round and turn its process was at
(`arena.server.botlog`): cut from its output as the log file keeps it, with the arena's own notes
(started, connected, a fault and why, exited with its status)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.rules import Settings
from arena.server.botlog import ARENA, BOT, BotLog, LogLine, Where
from arena.server.lobby import BotSpec
from arena.server.session import open_session
from tests.server.helpers import SAMPLE_BOTS, TEST_BOTS


def test_lines_are_cut_across_pieces_and_filed_where_their_process_was() -> None:
    log = BotLog("b")
    one, two = object(), object()
    log.at(one, Where("g1", 0, 3))
    log.output(one, b"hal")
    log.output(two, b"loose\n")  # another process, between games
    log.output(one, b"f a line\r\nand a")
    log.at(one, Where("g1", 0, 4))  # a line is filed when it ends
    log.output(one, b"nother\n\xff\n")
    log.note("b exited with status 1", Where("g1", 0, 4))
    assert log.take("g1") == (
        LogLine("b", "g1", 0, 3, BOT, "half a line"),
        LogLine("b", "g1", 0, 4, BOT, "and another"),
        LogLine("b", "g1", 0, 4, BOT, "\ufffd"),
        LogLine("b", "g1", 0, 4, ARENA, "b exited with status 1"),
    )
    assert log.take("g1") == ()
    assert log.take_loose() == (LogLine("b", None, None, None, BOT, "loose"),)


def test_the_last_unfinished_line_is_filed_when_its_process_is_gone() -> None:
    log = BotLog("b")
    log.at(1, Where("g", None, None))
    log.output(1, b"no line break")
    assert log.take("g") == ()
    log.flush(1)
    assert log.take("g") == (LogLine("b", "g", None, None, BOT, "no line break"),)
    assert log.where(1) is None


def test_a_line_survives_its_dict_form() -> None:
    line = LogLine("b", "g", 1, None, ARENA, "x")
    assert LogLine.from_dict(line.to_dict()) == line


def chatty(*args: str) -> BotSpec:
    return BotSpec("chatty", (sys.executable, str(TEST_BOTS / "chatty_bot.py"), *args))


def lowest() -> BotSpec:
    return BotSpec("lowest", (sys.executable, str(SAMPLE_BOTS / "lowest_bot.py")))


def play_one(logs: Path, *args: str) -> tuple[tuple[LogLine, ...], tuple[LogLine, ...]]:
    """One game of the chatty bot against the lowest: its lines in the game, and the others."""

    async def scenario() -> tuple[tuple[LogLine, ...], tuple[LogLine, ...]]:
        async with open_session([chatty(*args), lowest()], logs) as session:
            await session.play("g", Settings(2, max_rounds=1), ["chatty", "lowest"], 3)
            lines = session.lobby.bots["chatty"].lines
            game, loose = lines.take("g"), lines.take_loose()
        return game, loose + lines.take_loose()

    return asyncio.run(scenario())


@pytest.mark.integration
@pytest.mark.usefixtures("no_leftover_processes")
def test_each_line_a_bot_writes_is_filed_under_its_turn(logs: Path) -> None:
    game, loose = play_one(logs)
    said = [(line.round, line.turn, line.text) for line in game if line.source == BOT]
    expected = []
    for turn in range(10):
        expected += [
            (0, turn, f"card 0.{turn} <b>bold</b> & </script><i>x</i>"),
            (0, turn, f"thinking 0.{turn}"),
        ]
    assert said == expected
    texts = [(line.source, line.text) for line in loose]
    assert texts[0][0] == ARENA and texts[0][1].startswith("chatty started process ")
    assert (BOT, "hello from chatty") in texts and (ARENA, "chatty connected") in texts
    assert texts[-2:] == [(BOT, "goodbye"), (ARENA, "chatty exited with status 0")]
    log_file = (logs / "chatty.log").read_text()
    assert "card 0.9 <b>bold</b>" in log_file and "[arena: chatty connected]" in log_file


@pytest.mark.integration
@pytest.mark.usefixtures("no_leftover_processes")
def test_a_crash_is_filed_under_its_turn_with_the_exit_and_the_fault(logs: Path) -> None:
    game, _ = play_one(logs, "crash")
    at_crash = [(line.source, line.text) for line in game if (line.round, line.turn) == (0, 2)]
    assert at_crash[:3] == [
        (BOT, "card 0.2 <b>bold</b> & </script><i>x</i>"),
        (BOT, "thinking 0.2"),
        (BOT, "crashing now"),
    ]
    notes = [text for source, text in at_crash[3:] if source == ARENA]
    assert "chatty exited with status 7" in notes
    assert any(text.startswith("chatty fault (crashed, card):") for text in notes)
    assert all(line.turn is not None and line.turn <= 2 for line in game if line.source == BOT)
