"""`arena check-bot` passes every sample bot, and fails each broken bot where it is broken,
saying what was expected and what came back."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.checkbot import check_options
from arena.server.checkbot.checks import HELLO, NAMES, Check, Status, check_bot
from arena.server.lobby import BotSpec
from arena.server.specs import parse_command
from tests.anybot.conftest import ROOT, TEST_BOTS

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

SAMPLE_PYTHON = ROOT / "sample_bots" / "python"
CARD, DEADLINE, BANK, ROW, DRAFT, TWO_GAMES, EVENTS, FULL, EXIT = NAMES[1:]


def check(command: str, logs: Path, deadline: float = 5.0) -> dict[str, Check]:
    """Check the bot `command` starts (as `arena check-bot -- COMMAND` reads it), by name."""
    spec: BotSpec = parse_command("", command)
    options = check_options(
        deadline=deadline, first_deadline=max(deadline, 5.0), startup_timeout=30
    )
    results = asyncio.run(check_bot(spec, logs, options))
    assert [result.name for result in results] == list(NAMES)
    return {result.name: result for result in results}


def failures(results: dict[str, Check]) -> set[str]:
    return {name for name, result in results.items() if not result.passed}


@pytest.mark.integration
def test_every_sample_bot_passes_every_check(logs: Path, node_bot: Path, line_bot: Path) -> None:
    for command in (
        f"{SAMPLE_PYTHON / 'heuristic_bot.py'}",
        f"{SAMPLE_PYTHON / 'random_bot.py'}",
        f"node {node_bot}",
        f"stdio:{line_bot}",
    ):
        results = check(command, logs)
        assert failures(results) == set(), [str(r) for r in results.values() if not r.passed]


@pytest.mark.integration
def test_a_card_not_in_hand_fails_the_card_checks(logs: Path) -> None:
    results = check(str(TEST_BOTS / "illegal_card_bot.py"), logs)
    assert failures(results) == {CARD, DEADLINE, BANK, TWO_GAMES, EVENTS, FULL}
    card = results[CARD]
    assert card.expected.startswith("a card from its hand [")
    assert "illegal card" in card.got and "not in the hand" in card.got
    assert "asked for a card in round 0 turn 0" in card.log  # the bot's own words, from its log
    assert "in neither hand" in results[TWO_GAMES].got


@pytest.mark.integration
def test_a_bot_that_skips_events_is_sent_none(logs: Path) -> None:
    """As the proto says: requests and fault notices only (and a kind it cannot know)."""
    results = check(str(TEST_BOTS / "strict_skip_bot.py"), logs)
    assert failures(results) == set(), [str(r) for r in results.values() if not r.passed]
    assert "it skips events: sent no others" in results[EVENTS].got


@pytest.mark.integration
def test_the_full_view_check_sends_every_field(logs: Path) -> None:
    results = check(str(SAMPLE_PYTHON / "lowest_bot.py"), logs)
    assert results[FULL].passed
    assert "with the starting rows," in results[FULL].got
    assert "takes and the names" in results[FULL].got
    # A place in the game counts from 1, as people see it, with the view's field from 0 beside.
    found = re.search(r"of turn (\d+) \(View.turn (\d+)\)", results[FULL].got)
    assert found and int(found[1]) == int(found[2]) + 1, results[FULL].got


@pytest.mark.integration
def test_row_seven_fails_the_row_check_only(logs: Path) -> None:
    results = check(str(TEST_BOTS / "row7_bot.py"), logs)
    assert failures(results) == {ROW}
    assert results[ROW].expected == "Answer.row 0 to 3"  # the protocol's numbers, named so
    assert results[ROW].got.startswith("illegal row 7: the protocol numbers rows 0 to 3")


@pytest.mark.integration
def test_a_bot_that_never_says_hello_fails_that_and_skips_the_rest(logs: Path) -> None:
    results = check(f"{TEST_BOTS / 'silent_bot.py'} exit", logs)
    assert results[HELLO].status is Status.FAIL
    assert results[HELLO].got == "exited with status 2 before connecting"
    assert "giving up before connecting" in results[HELLO].log
    assert {r.status for name, r in results.items() if name != HELLO} == {Status.SKIP}


@pytest.mark.integration
def test_a_late_answer_fails_the_deadline_check(logs: Path) -> None:
    results = check(str(TEST_BOTS / "late_bot.py"), logs, deadline=0.5)  # it never answers in time
    assert DEADLINE in failures(results)
    assert results[DEADLINE].got.startswith("timeout: no answer to request")


@pytest.mark.integration
def test_a_bot_may_draw_on_its_time_bank_but_not_past_it(logs: Path) -> None:
    results = check(str(TEST_BOTS / "banker_bot.py"), logs, deadline=0.3)
    assert failures(results) == set(), [str(r) for r in results.values() if not r.passed]
    assert "with a 1 s bank (Request.bank_ms)" in results[BANK].got
    assert not results[BANK].got.endswith(" 0 ms of it used")  # it drew on it: 0.5 s, 0.25 s...
    results = check(f"{TEST_BOTS / 'banker_bot.py'} overdraw", logs, deadline=0.3)
    assert failures(results) == {BANK}
    assert results[BANK].got.startswith("timeout: no answer to request")
    assert "within 0.3 s and 1 s of time bank" in results[BANK].got


@pytest.mark.integration
def test_an_answer_under_the_wrong_request_id_is_named(logs: Path) -> None:
    results = check(str(TEST_BOTS / "wrong_id_bot.py"), logs, deadline=2.0)
    assert DEADLINE in failures(results)
    assert "meanwhile it sent an answer to request 1003" in results[DEADLINE].got


@pytest.mark.integration
def test_a_line_bot_answering_prose_is_malformed_and_its_log_says_why(logs: Path) -> None:
    results = check(f"stdio:{TEST_BOTS / 'garbage_line_bot.py'}", logs, deadline=0.5)
    card = results[CARD]
    assert card.status is Status.FAIL
    assert card.got.startswith("malformed: request 1:")
    assert any("not an answer (not JSON)" in line and "'I play" in line for line in card.log)


@pytest.mark.integration
def test_a_line_bot_that_reads_events_as_requests_is_caught(logs: Path) -> None:
    results = check(f"stdio:{TEST_BOTS / 'eventless_line_bot.py'}", logs)
    assert {CARD, EVENTS} <= failures(results)
    events = results[EVENTS]
    assert events.got.startswith("crashed:")
    assert "TurnRevealed, RoundEnded, FaultNotice" in events.got
    assert any("KeyError: 'request'" in line for line in events.log)
    assert results[EXIT].passed


@pytest.mark.integration
def test_a_line_bot_that_dies_is_a_crash_with_its_status(logs: Path) -> None:
    results = check(f"stdio:{TEST_BOTS / 'quitter_line_bot.py'}", logs)
    assert failures(results) == {ROW}
    assert results[ROW].got.startswith("crashed:")
    assert any("exited with status 3" in line for line in results[ROW].log)


@pytest.mark.integration
def test_a_line_bot_that_outlives_its_input_fails_the_exit_check(logs: Path) -> None:
    results = check(f"stdio:{TEST_BOTS / 'stubborn_line_bot.py'}", logs)
    assert failures(results) == {EXIT}
    assert results[EXIT].expected == "exit with status 0 within 5 s"
    assert results[EXIT].got == "exited with status 1"
    assert any("did not exit within 3 s" in line for line in results[EXIT].log)


@pytest.mark.integration
def test_the_command_prints_each_check_and_exits_by_the_result(tmp_path: Path) -> None:
    runner = CliRunner()
    good = runner.invoke(
        main, ["check-bot", "--", sys.executable, str(SAMPLE_PYTHON / "lowest_bot.py")]
    )
    assert good.exit_code == 0, good.output
    assert good.output.count("PASS  ") == len(NAMES)
    assert good.output.rstrip().endswith(f"{len(NAMES)} of {len(NAMES)} checks passed")

    bad = runner.invoke(
        main, ["check-bot", "--logs", str(tmp_path), "--", str(TEST_BOTS / "row7_bot.py")]
    )
    assert bad.exit_code == 1
    assert f"FAIL  {ROW}\n      expected: Answer.row 0 to 3\n      got:      " in bad.output
    assert f"{len(NAMES) - 1} of {len(NAMES)} checks passed" in bad.output
    assert (tmp_path / "row7_bot.log").is_file()


def test_the_command_refuses_a_command_it_cannot_run() -> None:
    result = CliRunner().invoke(main, ["check-bot", "--", "no-such-program-xyz"])
    assert result.exit_code == 2
    assert "no such command 'no-such-program-xyz' on PATH" in result.output
    assert "Traceback" not in result.output
