"""The README's screenshots of the pages, taken from a real ladder: the leaderboard and a bot
page (`docs/images/ladder-leaderboard.png`, `docs/images/ladder-bot.png`).

They are committed; this test takes them again only when `ARENA_SCREENSHOTS=1` asks (a ladder of
its own, without the hostile bots, served and played for a minute or two), and otherwise checks
that they are there and are PNG files, which costs nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.ladder.web.conftest import SECOND, pages_ladder

IMAGES = Path(__file__).parents[3] / "docs" / "images"
SHOTS = {"ladder-leaderboard.png": "/", "ladder-bot.png": f"/bots/{SECOND}"}
"""Each screenshot's file and the page it shows."""
PNG = b"\x89PNG\r\n\x1a\n"
RETAKE = os.environ.get("ARENA_SCREENSHOTS") == "1"


@pytest.mark.skipif(not RETAKE, reason="ARENA_SCREENSHOTS=1 takes the screenshots again")
@pytest.mark.integration
@pytest.mark.timeout(900)
def test_take_the_screenshots(browser: Any, tmp_path: Path) -> None:
    with pages_ladder(tmp_path, hostile=False, sets=8) as ladder:
        context = browser.new_context(viewport={"width": 1000, "height": 700})
        try:
            page = context.new_page()
            for name, path in SHOTS.items():
                page.goto(ladder.url + path)
                page.screenshot(path=str(IMAGES / name), full_page=True)
        finally:
            context.close()


def test_the_screenshots_are_there() -> None:
    for name in SHOTS:
        path = IMAGES / name
        assert path.is_file(), f"{path} is missing: ARENA_SCREENSHOTS=1 pytest {__file__}"
        assert path.read_bytes()[:8] == PNG, f"{path} is not a PNG file"
