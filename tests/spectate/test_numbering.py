"""Every display for people counts rounds, turns, rows and seats from 1, while the protocol and the
records count from 0 (docs/organizing.md, "How the arena counts"): the replay's text, a fault's
line, a fallback's line, a log line's place and the report's list of faults agree."""

from __future__ import annotations

import random
import re

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.players import BUILTIN, Fault, FaultKind, play_local
from arena.rules import Decision, Settings
from arena.rules.errors import told
from arena.server.botlog import BOT, LogLine
from arena.spectate.botlogs import where
from arena.spectate.display import Mark, fault_line, mark_line, render_game

NAMES = ("ann", "bob", "cat", "dan")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_a_replay_counts_rounds_turns_and_rows_from_1(seed: int, players: int) -> None:
    strategies = [BUILTIN["random"](f"{seed}:{seat}") for seat in range(players)]
    names = [f"p{seat + 1}" for seat in range(players)]
    game = play_local(Settings(players, max_rounds=2), strategies, random.Random(seed), names=names)
    text = render_game(game.record, names)
    rounds = [int(n) for n in re.findall(r"^Round (\d+)", text, re.MULTILINE)]
    assert rounds == list(range(1, len(game.record.rounds) + 1))
    turns = {int(n) for n in re.findall(r"^  turn +(\d+):", text, re.MULTILINE)}
    assert turns == set(range(1, 11))
    rows = {int(n) for n in re.findall(r"\brow (\d+)", text)}
    assert rows <= {1, 2, 3, 4} and 1 in rows
    # The record itself keeps the protocol's numbers: rows 0 to 3.
    placed = {p.row for r in game.record.rounds for t in r.turns for p in t.placements}
    assert placed <= {0, 1, 2, 3}


def test_a_fault_is_placed_from_1_and_its_notice_loses_its_seat_from_0() -> None:
    message = "seat 1: illegal row 7: the protocol numbers rows 0 to 3"
    fault = Fault(1, FaultKind.ILLEGAL, Decision.ROW, 0, 9, message)
    line = fault_line(fault, NAMES)
    assert line == (
        "fault: bob illegal in round 1, turn 10: illegal row 7: the protocol numbers rows 0 to 3"
    )
    mark = Mark(1, Decision.ROW, "illegal", message, quiet=False)
    assert mark_line(mark, NAMES) == (
        "fallback: bob's row (illegal: illegal row 7: the protocol numbers rows 0 to 3)"
    )


def test_only_the_notices_own_seat_is_left_out() -> None:
    assert told("seat 3: illegal card 5: not in the hand (1, 2)") == (
        "illegal card 5: not in the hand (1, 2)"
    )
    assert told("no answer to request 9 (card) within 1 s") == (
        "no answer to request 9 (card) within 1 s"
    )
    assert told("it said seat 3: hi") == "it said seat 3: hi"


def test_a_log_line_is_placed_as_round_dot_turn_from_1() -> None:
    first = LogLine("ann", "g", 0, 0, BOT, "thinking")
    last = LogLine("ann", "g", 2, 9, BOT, "done")
    draft = LogLine("ann", "g", 1, None, BOT, "picking")
    assert [where(first), where(last), where(draft)] == ["1.1", "3.10", "2.draft"]


def test_the_spectators_help_says_it_counts_from_1() -> None:
    runner = CliRunner()
    for command in (["replay", "--help"], ["logs", "--help"]):
        shown = " ".join(runner.invoke(main, command).output.split())
        assert "from 1" in shown, command


def test_arena_play_names_its_built_in_seats_from_1() -> None:
    shown = CliRunner().invoke(main, ["play", "--players", "3", "--seed", "7"])
    assert shown.exit_code == 0, shown.output
    assert "turn  1: 1:random " in shown.output and ", 3:highest " in shown.output
    assert "0:random" not in shown.output
