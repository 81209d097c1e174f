"""A bot's per-turn log in the report's replay viewer: shown for the bot chosen, under the turn
it was written in, and always as text, never markup, whatever the bot wrote; and in
`arena replay --bot` and `arena logs`, escaped for the terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.specs import parse_bot
from arena.spectate import write_report
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import run_tournament

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
HOSTILE = "<b>bold</b> & </script><i>x</i>"
"""What the chatty bot writes in every card decision: markup that must stay text."""


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament: the chatty bot (it prints markup in every decision) and the lowest."""
    folder = tmp_path_factory.mktemp("logs") / "out"
    bots = (
        parse_bot(f"chatty={ROOT / 'tests' / 'bots' / 'chatty_bot.py'}"),
        parse_bot(f"lowest={ROOT / 'sample_bots' / 'python' / 'lowest_bot.py'}"),
    )
    config = TournamentConfig(bots=bots, games=2, max_rounds=1, seed=3, output=folder)
    summary = asyncio.run(run_tournament(config))
    assert summary.stored == 2 and not summary.interrupted
    return folder


def test_the_page_holds_the_bots_lines_escaped_only(output: Path, tmp_path: Path) -> None:
    page = write_report(output, tmp_path / "report.html").path.read_text()
    assert HOSTILE not in page and "<b>bold" not in page and "<i>x" not in page
    assert page.count("</script>") == 2  # the data's and the viewer's: no line closed one
    assert "card 0.4 \\u003cb\\u003ebold\\u003c/b\\u003e \\u0026 \\u003c/script\\u003e" in page


def test_the_viewer_shows_the_chosen_bot_s_lines_as_text(
    output: Path, browser: Any, tmp_path: Path
) -> None:
    summary = write_report(output, tmp_path / "report.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.goto(summary.path.as_uri() + "#game=1&turn=1.3")
    seats = page.locator("#log-bot option").all_inner_texts()
    page.select_option("#log-bot", str(seats.index("chatty")))
    lines = page.locator("#log li").all_inner_texts()
    assert lines == [f"card 0.2 {HOSTILE}", "thinking 0.2"]  # turn 3 is turn index 2
    assert page.locator("#log b, #log i, #log script").count() == 0
    assert page.locator("script").count() == 2
    page.keyboard.press("ArrowRight")
    assert page.locator("#log li").all_inner_texts()[:2] == [f"card 0.3 {HOSTILE}", "thinking 0.3"]
    page.keyboard.press("Home")  # the deal: what came before the game's first decision
    assert page.locator("#log li").all_inner_texts() == ["nothing written here"]
    page.select_option("#log-bot", str(seats.index("lowest")))
    assert page.locator("#log li").all_inner_texts() == ["no lines in this game"]
    assert not problems, problems


def test_arena_replay_shows_a_bot_s_lines_under_each_turn(output: Path) -> None:
    result = CliRunner().invoke(
        main, ["replay", str(output), "--game", "1", "--bot", "chatty", "--no-color"]
    )
    assert result.exit_code == 0, result.output
    text = result.output
    turn = text.index("  turn  4: ")
    assert text.index(f"| card 0.3 {HOSTILE}", turn) < text.index("  turn  5: ")
    assert "what chatty wrote while it was deciding it" in text
    missing = CliRunner().invoke(main, ["replay", str(output), "--game", "1", "--bot", "nobody"])
    assert missing.exit_code != 0 and "'nobody' did not play game" in missing.output


def test_arena_logs_prints_every_line_with_its_game_and_turn(output: Path) -> None:
    every = CliRunner().invoke(main, ["logs", "chatty", str(output)])
    assert every.exit_code == 0, every.output
    lines = every.output.splitlines()
    assert any(
        line.startswith("between games") and "[arena] chatty started process" in line
        for line in lines
    )
    assert f"t000-d00-r0    1.4      card 0.3 {HOSTILE}" in lines
    # Its exit is filed too; with what status depends on whether it left within the grace the
    # arena gives it at the close (0) or was stopped after it (a loaded machine), so not checked.
    assert any("[arena] chatty exited with status " in line for line in lines)
    one = CliRunner().invoke(main, ["logs", "chatty", "--game", "2", str(output)])
    assert one.exit_code == 0 and one.output.strip()
    assert {line.split()[0] for line in one.output.splitlines()} == {"t000-d00-r1"}
    unknown = CliRunner().invoke(main, ["logs", "nobody", str(output)])
    assert unknown.exit_code != 0 and "its bots are chatty, lowest" in unknown.output
