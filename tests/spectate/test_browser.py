"""The report in a real browser: headless Chromium opens the page of a small real tournament.

No browser is no pass: the `browser` fixture (tests/browser.py) fails, saying what is missing,
rather than skip. `make test` installs Debian's chromium and Playwright's Python package.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.rules.errors import told
from arena.server.specs import parse_bot
from arena.spectate import open_games, write_report
from arena.tournament import GameOutcome, Standings
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import run_tournament
from tests.browser import (
    PHONE,
    assert_chart_text_readable,
    assert_fits,
    broken_names,
    clipped_chart_text,
    count_scripts,
    script_attributes,
    watch,
)
from tests.spectate.helpers import engine_rows

pytestmark = pytest.mark.integration

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"

# One evaluation reads everything the viewer shows at a moment.
READ_VIEWER = """() => {
  const pos = document.getElementById("position");
  const cards = (node) => [...node.querySelectorAll(".card")].map((c) => Number(c.dataset.card));
  return {
    round: Number(pos.dataset.round),
    turn: Number(pos.dataset.turn),
    rows: [...document.querySelectorAll("#rows .table-row")].map(cards),
    revealed: [...document.querySelectorAll("#revealed .reveal")].map(
      (r) => [r.querySelector(".who").textContent, Number(r.querySelector(".card").dataset.card)]),
    totals: [...document.querySelectorAll("#scores td.total")].map((td) => Number(td.textContent)),
    takes: document.querySelectorAll("#events li.take").length,
  };
}"""


ILLEGAL = Path(__file__).parents[2] / "tests" / "bots" / "illegal_card_bot.py"


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Standings]:
    """A real tournament over gRPC: two sample bots and one that plays cards it does not hold
    (so that the fallback plays for it), at one table, one deal, three rotations."""
    output = tmp_path_factory.mktemp("browser") / "out"
    bots = (
        *(parse_bot(f"{n}={BOTS / f'{n}_bot.py'}") for n in ("heuristic", "random")),
        parse_bot(f"illegal={ILLEGAL}"),
    )
    config = TournamentConfig(
        bots=bots,
        players=3,
        games=3,
        seed=8,
        concurrency=2,
        deadline=5.0,  # not what is tested: no sample bot may time out on a loaded machine
        output=output,
    )
    summary = asyncio.run(run_tournament(config))
    assert summary.stored == 3 and not summary.interrupted
    return output, summary.standings


def test_the_report_in_a_browser(
    tournament: tuple[Path, Standings], browser: Any, tmp_path: Path
) -> None:
    output, standings = tournament
    summary = write_report(output, tmp_path / "report.html")
    with open_games(output) as games:
        outcomes = list(games.outcomes())
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = watch(page)
    page.goto(summary.path.as_uri())
    assert_fits(page, 1280)
    assert_chart_text_readable(page)  # a wide screen too: the histograms' boxes are narrow

    # The standings table: one row per bot, best first, as computed by `arena run`.
    names = page.locator("#standings-table tbody td.bot").all_inner_texts()
    assert [name.split(" disqualified")[0].strip() for name in names] == [
        line.bot for line in standings.bots
    ]
    for name, line in zip(names, standings.bots, strict=True):  # the disqualified are marked
        assert ("disqualified in " in name) == line.disqualified
    ranks = page.locator("#standings-table tbody tr td:first-child").all_inner_texts()
    assert ranks == [str(line.rank) for line in standings.bots]

    # Step through the last game with the keyboard; the table must match the engine's replay.
    game = outcomes[-1]
    page.select_option("#game-select", game.game_id)
    page.locator("#replay").scroll_into_view_if_needed()
    page.keyboard.press("Home")
    start = page.evaluate(READ_VIEWER)
    assert (start["round"], start["turn"]) == (1, 0)
    assert start["rows"] == [list(row) for row in game.record.rounds[0].rows]
    totals = [0] * len(game.spec.seats)
    for round_number, turn_number, rows in engine_rows(game.record):
        page.keyboard.press("ArrowRight")
        if turn_number == 1 and round_number > 1:  # the next round's deal comes first
            shown = page.evaluate(READ_VIEWER)
            assert (shown["round"], shown["turn"]) == (round_number, 0)
            page.keyboard.press("ArrowRight")
        shown = page.evaluate(READ_VIEWER)
        assert (shown["round"], shown["turn"]) == (round_number, turn_number)
        assert shown["rows"] == [list(row) for row in rows]
        turn = game.record.rounds[round_number - 1].turns[turn_number - 1]
        assert shown["revealed"] == [
            [bot, card] for bot, card in zip(game.spec.seats, turn.cards, strict=True)
        ]
        for p in turn.placements:
            totals[p.seat] += p.bullheads
        assert shown["totals"] == totals
        assert shown["takes"] == sum(1 for p in turn.placements if p.taken)
    assert tuple(totals) == game.record.totals
    assert "game over" in page.inner_text("#position")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(READ_VIEWER)["turn"] == len(game.record.rounds[-1].turns) - 1

    # A notable take is a link straight to its turn.
    link = page.locator("ol.notable a").first
    href = link.get_attribute("href")
    assert href is not None
    link.click()
    shown = page.evaluate(READ_VIEWER)
    assert href.endswith(f"&turn={shown['round']}.{shown['turn']}") and shown["takes"] >= 1

    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    keep = os.environ.get("ARENA_SCREENSHOTS")
    if keep:  # for a person to look at: ARENA_SCREENSHOTS=folder make test
        shutil.copy(tmp_path / "report.png", Path(keep) / "report.png")
    assert not problems, problems


def test_every_game_of_the_report_opens(tournament: tuple[Path, Standings], browser: Any) -> None:
    output, _ = tournament
    with open_games(output) as games:
        outcomes: list[GameOutcome] = list(games.outcomes())
    page = browser.new_page()
    page.goto(write_report(output, output / "every.html").path.as_uri())
    for outcome in outcomes:
        page.goto(f"{(output / 'every.html').as_uri()}#game={outcome.game_id}&turn=1.1")
        page.reload()
        assert page.input_value("#game-select") == outcome.game_id
        shown = page.evaluate(READ_VIEWER)
        assert (shown["round"], shown["turn"]) == (1, 1)
        # End steps the viewer only while it shows (else it scrolls the page, as it should).
        page.locator("#viewer").scroll_into_view_if_needed()
        page.keyboard.press("End")
        assert page.evaluate(READ_VIEWER)["totals"] == list(outcome.record.totals)


def test_the_report_fits_a_phone_and_marks_each_fallback_decision(
    tournament: tuple[Path, Standings], browser: Any, tmp_path: Path
) -> None:
    """At 420 px nothing overflows the page, whatever the viewer shows, no chart text renders
    below 10 px or is clipped, and no name breaks; `#game=N` opens the game numbered N; the
    illegal bot's card, which the fallback chose, is marked with its fault.

    The game looked at is one where the illegal bot's first card was a fault, whichever it is:
    the games run two at a time, and the bot is disqualified after 20 faults, so which games
    still hold its fault at the first turn depends on which ran first."""
    output, _ = tournament
    summary = write_report(output, tmp_path / "report.html")
    with open_games(output) as games:
        listed = list(enumerate(games.outcomes(), start=1))  # numbered as the listing does
    number, first = next(
        (n, outcome)
        for n, outcome in listed
        for seat in [outcome.spec.seats.index("illegal")]
        if any((f.seat, f.round, f.turn) == (seat, 0, 0) for f in outcome.faults)
    )
    page = browser.new_page(viewport={"width": PHONE, "height": 800})
    problems = watch(page)
    page.goto(summary.path.as_uri() + f"#game={number}&turn=1.1")
    assert_fits(page, PHONE)
    assert_chart_text_readable(page)
    assert clipped_chart_text(page) == []
    assert page.input_value("#game-select") == first.game_id
    names = page.locator("#standings-table td.bot")
    assert names.count() == 3 and broken_names(page, "#standings-table td.bot") == {}
    assert broken_names(page, ".who") == {}  # the viewer's names: chips, events, scores, hands
    assert (count_scripts(page), script_attributes(page)) == (2, [])  # its data and its viewer

    seat = first.spec.seats.index("illegal")
    fault = next(f for f in first.faults if (f.seat, f.round, f.turn) == (seat, 0, 0))
    chip = page.locator(f"#revealed .reveal[data-seat='{seat}']")
    assert "fallback" in (chip.get_attribute("class") or "")
    mark = chip.locator(".fault-mark")
    assert mark.inner_text().strip() == f"fallback · {fault.kind}"
    assert mark.get_attribute("title") == told(fault.message)  # the notice without its seat
    at_first_card = [
        f for f in first.faults if (f.round, f.turn, f.decision.value) == (0, 0, "card")
    ]
    assert page.locator("#revealed .fault-mark").count() == len(at_first_card)  # no other mark
    assert "the fallback chose this card" in page.inner_text("#events")

    page.locator("#viewer").scroll_into_view_if_needed()
    for key in ("End", "Home", "PageDown"):  # every moment of the viewer fits as well
        page.keyboard.press(key)
        assert_fits(page, PHONE)
        assert broken_names(page, ".who") == {}, key
    assert not problems, problems
