"""The report on a phone with the names that make a page hard to lay out: the longest a bot may
have, wide letters, hyphens. Its games are played in-process (tests/spectate/helpers.py), so the
browser is the only thing started; test_browser.py checks the same at 420 px with real bots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.spectate import write_report
from tests.browser import (
    PHONE,
    assert_chart_text_readable,
    assert_fits,
    broken_names,
    clipped_chart_text,
    watch,
)
from tests.spectate.helpers import tournament

pytestmark = pytest.mark.integration

WIDE = "W" * 64
"""The longest name a bot may have (arena.server.specs.NAME), in the widest letter there is."""

BOTS = ("heuristic_bot", WIDE, "a-long-hyphenated-name.v2", "x")

NAMES = "#standings-table td.bot, #heatmap th, figure.dist .name, .who"
"""Every place the page writes a bot's name as text."""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of four bots so named, two whole deals (so that intervals are drawn)."""
    folder = tmp_path_factory.mktemp("phone")
    tournament(folder / "out", bots=BOTS, players=3, deals=2)
    return write_report(folder / "out", folder / "report.html").path


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_long_and_wide_names_fit_and_never_break(report: Path, browser: Any, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems = watch(page)
    page.goto(report.as_uri() + "#game=1&turn=1.1")
    assert_fits(page, width)
    assert_chart_text_readable(page)
    assert clipped_chart_text(page) == []  # each label measured wide enough for its letters
    assert page.locator(NAMES).count() > 2 * len(BOTS)
    assert broken_names(page, NAMES) == {}
    assert page.locator(f"#standings-table td.bot:has-text('{WIDE}')").count() == 1
    page.locator("#viewer").scroll_into_view_if_needed()
    page.keyboard.press("End")
    assert_fits(page, width)
    assert broken_names(page, ".who") == {}
    assert not problems, problems


def test_a_chart_too_wide_for_a_phone_scrolls_in_its_own_box(report: Path, browser: Any) -> None:
    """The standings chart's labels (the wide name cut to 22 letters) need more than a phone's
    width at 10 px text: the chart scrolls inside its box, and the page does not."""
    page = browser.new_page(viewport={"width": PHONE, "height": 900})
    page.goto(report.as_uri())
    box = page.evaluate(
        """() => { const box = document.querySelector("#standings-chart").parentElement;
          return [box.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX]; }"""
    )
    assert box[0] > box[1] and box[2] == "auto", box
    assert_fits(page, PHONE)
    assert_chart_text_readable(page)
