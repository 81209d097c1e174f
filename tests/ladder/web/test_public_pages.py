"""The public pages in a real browser (Debian's Chromium under Playwright) against a real
`arena ladder serve` (`conftest.py`'s pieces): the leaderboard in rating order and live, a bot's
rating graph, a set's replay, hostile names shown as text, and every page at a phone's 420 px.

Versions are placed after one set here: the first version of `SECOND` plays a set, its second
version comes in while it plays and plays the next, and `RESTING` is benched as that one begins,
which leaves two authors in play for three seats. The ladder then rests while the pages are
read (it played on for the module's whole length before, and placed after two sets: some
eight sets that no test read, two fifths of the module's CPU); the live leaderboard's test puts
`RESTING` back in play until one more set is under way, and the pages' other tests read what is
there, whether the ladder plays or not. The tests of a desktop page share one (`watched`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.browser import (
    PHONE,
    assert_chart_text_readable,
    assert_fits,
    broken_names,
    count_scripts,
    script_attributes,
    watch,
)
from tests.ladder.serving import PATIENCE, serving
from tests.ladder.web.conftest import (
    HOSTILE,
    OPTIONS,
    SAMPLES,
    SECOND,
    PagesLadder,
    add_version,
    samples_ladder,
    set_playing,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

READ_BOARD = """() => [...document.querySelectorAll("#standings tr[data-bot]")].map((row) => ({
  bot: row.dataset.bot,
  rank: Number(row.cells[0].textContent),
  rating: Number(row.dataset.rating),
  sets: Number(row.querySelector("td.sets").textContent),
}))"""


RESTING = "random"
"""The sample bot benched while the ladder rests."""


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PagesLadder]:
    """The pages' ladder (see the module's note), resting once the second version of `SECOND`
    has played its set."""
    folder = tmp_path_factory.mktemp("pages") / "contest"
    settings, tokens, versions = samples_ladder(folder, placement_sets=1)
    with serving(folder, *OPTIONS) as served:
        found = PagesLadder(served, folder, settings, tokens, versions)
        first = versions[SECOND][0]
        served.wait_for("a set of the first version", lambda: found.begun(first) > 0)
        second = add_version(folder, "alice", SECOND, SECOND, None)
        versions[SECOND].append(second)
        served.wait_for("a set of the second version", lambda: found.begun(second) > 0)
        set_playing(folder, versions[RESTING][0], False)
        served.wait_for("the second version placed", lambda: found.sets_of(second) >= 1)
        yield found


def one_more_set(ladder: PagesLadder) -> None:
    """`RESTING` back in play until a new set of it is under way, then benched again: the
    ladder plays that set to its end (a benched version's set is played out) and rests."""
    version = ladder.versions[RESTING][0]
    before = ladder.begun(version)
    set_playing(ladder.folder, version, True)
    try:
        ladder.served.wait_for(f"a new set of {RESTING}", lambda: ladder.begun(version) > before)
    finally:
        set_playing(ladder.folder, version, False)


DESKTOP = {"width": 1100, "height": 800}


@pytest.fixture(scope="module")
def watched(browser: Any, ladder: PagesLadder) -> Iterator[tuple[Any, list[str]]]:
    """One desktop-sized page for the module's tests, and its problems as they come (script
    errors, requests elsewhere than the ladder, a dialog opened): a new page costs Chromium some
    0.3 CPU s, going to an address in one a fifth of that."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        opened = context.new_page()
        problems = watch(opened, allowed=(ladder.url,))
        opened.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
        yield opened, problems
    finally:
        context.close()


@pytest.fixture
def page(watched: tuple[Any, list[str]]) -> Iterator[Any]:
    """The module's page, desktop-sized; its problems from the test's start fail the test at
    its end."""
    opened, problems = watched
    opened.set_viewport_size(DESKTOP)
    problems.clear()
    yield opened
    assert not problems, problems


def test_the_leaderboard_is_in_rating_order_and_updates_live(
    ladder: PagesLadder, page: Any
) -> None:
    page.goto(ladder.url + "/")
    board = page.evaluate(READ_BOARD)
    assert {line["bot"] for line in board} == {*SAMPLES.values(), *HOSTILE}
    assert [line["rank"] for line in board] == list(range(1, len(board) + 1))
    ratings = [line["rating"] for line in board]
    assert ratings == sorted(ratings, reverse=True), board
    played = sum(line["sets"] for line in board)
    page.evaluate("window.notReloaded = true")
    one_more_set(ladder)  # the page shows it at its next look once it is rated
    page.wait_for_function(
        """(before) => [...document.querySelectorAll("#standings td.sets")]
            .reduce((sum, cell) => sum + Number(cell.textContent), 0) > before""",
        arg=played,
        timeout=PATIENCE * 1000,
    )
    assert page.evaluate("window.notReloaded") is True  # the rows changed, not the page
    after = page.evaluate(READ_BOARD)
    assert [line["rating"] for line in after] == sorted(
        (line["rating"] for line in after), reverse=True
    )
    assert "Updated" in page.locator("#live").inner_text()


def test_the_rows_route_answers_304_while_nothing_changed(ladder: PagesLadder) -> None:
    first = httpx.get(ladder.url + "/leaderboard/rows", timeout=60)
    assert first.status_code == 200 and "<tr" in first.text
    again = httpx.get(
        ladder.url + "/leaderboard/rows", headers={"If-None-Match": '"0:none"'}, timeout=60
    )
    assert again.status_code == 200  # a stale stamp gets the rows
    stamp = first.headers["ETag"]
    same = httpx.get(ladder.url + "/leaderboard/rows", headers={"If-None-Match": stamp}, timeout=60)
    assert same.status_code in (200, 304)  # 200 only if a set was rated in between
    if same.status_code == 304:
        assert same.text == ""


def test_a_bot_page_draws_one_point_per_set_and_marks_each_version(
    ladder: PagesLadder, page: Any
) -> None:
    page.goto(f"{ladder.url}/bots/{SECOND}")
    keys = page.eval_on_selector_all("#rating circle.point", "(ps) => ps.map((p) => p.dataset.key)")
    stretches = page.eval_on_selector_all(
        "#rating circle.point", "(ps) => ps.map((p) => p.dataset.stretch)"
    )
    sets = page.eval_on_selector_all(
        "#versions td.sets", "(cells) => cells.map((c) => Number(c.textContent))"
    )
    assert len(keys) == sum(sets) == len(set(keys))  # one point per set, read at one moment
    marks = page.eval_on_selector_all("#rating g.mark", "(ms) => ms.map((m) => m.dataset.stretch)")
    assert marks == ["v1", "v2"]
    assert stretches == sorted(stretches) and stretches[0] == "v1" and stretches[-1] == "v2"
    history = ladder.api(f"/api/bots/{SECOND}")["history"]  # read after: it can only grow
    assert keys == [str(point["set"]) for point in history][: len(keys)]
    recent = page.eval_on_selector_all(
        "#recent a[href^='/sets/']", "(links) => links.map((l) => l.getAttribute('href'))"
    )
    assert 0 < len(recent) <= 20 and recent[0] == f"/sets/{keys[-1]}"
    met = page.eval_on_selector_all(
        "#head-to-head td.name a", "(links) => links.map((l) => l.textContent)"
    )
    assert sorted(met) == sorted(bot for bot in SAMPLES.values() if bot != SECOND)
    page.click(f"#rating a[href='/sets/{keys[0]}']")
    page.wait_for_url(f"**/sets/{keys[0]}")


def test_a_set_page_shows_its_table_and_its_replay_plays(ladder: PagesLadder, page: Any) -> None:
    played = ladder.api(f"/api/sets?bot={SECOND}&limit=1")[0]
    page.goto(f"{ladder.url}/sets/{played['id']}")
    seats = page.eval_on_selector_all(
        "#seats td.name a", "(links) => links.map((l) => l.textContent)"
    )
    assert sorted(seats) == sorted(seat["bot"] for seat in played["seats"])
    games = page.eval_on_selector_all("#game-select option", "(options) => options.length")
    assert games == ladder.settings.players  # one deal, one game per seat rotation
    page.wait_for_selector("#viewer:not([hidden])")
    start = page.evaluate("document.getElementById('position').dataset.turn")
    page.click("#next")
    page.wait_for_function(
        "(start) => document.getElementById('position').dataset.turn !== start", arg=start
    )
    assert page.locator("#rows .table-row").count() == 4
    assert page.locator("#revealed .reveal").count() == ladder.settings.players
    assert not page.locator("#log").is_visible()  # a bot's log is its author's (/me)


def hostile_pages(ladder: PagesLadder) -> dict[str, int]:
    """Every page that shows a hostile name, with the scripts it was written with."""
    hostile_sets = [s["id"] for s in ladder.api(f"/api/sets?bot={quote(HOSTILE[0], safe='')}")]
    assert len(hostile_sets) == 2
    pages = {"/": 1}
    pages.update({f"/bots/{quote(name, safe='')}": 0 for name in HOSTILE})
    pages.update({f"/sets/{set_id}": 0 for set_id in hostile_sets})
    return pages


def test_hostile_names_are_text_on_every_page(ladder: PagesLadder, page: Any) -> None:
    for path, scripts in hostile_pages(ladder).items():
        page.goto(ladder.url + path)
        assert count_scripts(page) == scripts, path
        assert script_attributes(page) == [], path
        text = page.locator("main").inner_text()
        for name in HOSTILE:
            assert name in text, (path, name)  # shown as the text it is
        assert page.locator("main textarea, main img, main iframe").count() == 0, path
    page.goto(f"{ladder.url}/bots/{quote(HOSTILE[0], safe='')}")
    assert page.locator("h1").inner_text() == HOSTILE[0]
    assert page.eval_on_selector_all("#rating circle.point", "(ps) => ps.length") == 2


def test_a_missing_bot_or_set_is_a_page_saying_so(ladder: PagesLadder) -> None:
    missing = httpx.get(ladder.url + "/bots/" + quote("<b>nobody</b>", safe=""), timeout=60)
    assert missing.status_code == 404 and "&lt;b&gt;nobody&lt;/b&gt;" in missing.text
    assert httpx.get(ladder.url + "/sets/999999", timeout=60).status_code == 404


@pytest.mark.parametrize("phone", [PHONE])
def test_every_public_page_fits_a_phone(ladder: PagesLadder, browser: Any, phone: int) -> None:
    played = ladder.api(f"/api/sets?bot={SECOND}&limit=1")[0]["id"]
    context = browser.new_context(viewport={"width": phone, "height": 800})
    try:
        page = context.new_page()
        for path in (
            "/",
            f"/bots/{SECOND}",
            f"/bots/{quote(HOSTILE[0], safe='')}",
            f"/sets/{played}",
            "/sets/1",
            "/bots/nobody",
        ):
            page.goto(ladder.url + path)
            assert_fits(page, phone)
            assert broken_names(page, "td.name a, h1.name") == {}, path
            if path.startswith("/bots/") and path != "/bots/nobody":
                assert_chart_text_readable(page)
    finally:
        context.close()
