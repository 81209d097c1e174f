"""Issue 25's signed-in pages for real: a served ladder (`conftest.py`'s pieces: its hostile
names, and alice's sample bot), Debian's Chromium through Playwright, and httpx over loopback.
Beside them, an organizer, two authors whose bots write to their logs (one writes markup, one
says what it thinks) and one to revoke; one ladder for the module, read by each test in turn.

Three seats, and three authors in play: the loggers and alice's bot, so the ladder's first set
seats both loggers at one table; alice's bot is benched as that set begins, which leaves two
authors for three seats: the set is played to its end, and the ladder rests while the pages are
read. (The module's ladder was the public pages' before, the loggers added to it: it played
some eighteen sets that no test read, near half the module's CPU.) The signed-in pages are one
page per author, kept for the module (`Pages`).

In the browser: an author signs in, reads their own build log and bot logs (never an opponent's,
though the opponent wrote too), uploads a version through the page and sees it placed; another
author's pages answer 403 or 404; a bot named, and one logging, `<script>`, `</textarea>` and
`&amp;` add no script to /me nor /status; every page of these fits 420 px; the organizer benches
and restores a version. Over plain HTTP: the cookies' flags, a form without its CSRF token
refused, the login throttle (from an address of its own, 127.0.0.2, so that the others' tests
are not held), and a revoked author's session ended."""

from __future__ import annotations

import io
import sqlite3
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.ladder.authors import hash_token, new_token
from arena.ladder.db import repository
from tests.browser import PHONE, assert_fits, count_scripts, script_attributes
from tests.ladder.serving import BOTS, PATIENCE, arena, make_ladder, serving
from tests.ladder.web.conftest import (
    HOSTILE,
    OPTIONS,
    SETTINGS,
    PagesLadder,
    add_version,
    seed_hostile,
    set_playing,
    writing,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

TEST_BOTS = Path(__file__).parents[2] / "bots"
MARKUP = "<script>alert(1)</script> </textarea> &amp;"
"""What tests/bots/markup_bot.py writes at every decision."""
THINKING = "thinking "
"""What tests/bots/chatty_bot.py writes on stderr at every decision."""
BUILT = "built-by-the-page-test"
"""What the version uploaded through the page prints as it builds."""


@dataclass
class Private:
    """The ladder, and what this module added to it."""

    ladder: PagesLadder
    tokens: dict[str, str]
    versions: dict[str, int] = field(default_factory=dict)
    """The loggers' versions: `markup` (dave's), `chatty` (erin's)."""
    together: int = 0
    """A set where both loggers played."""

    @property
    def url(self) -> str:
        return self.ladder.url


def add_author(folder: Path, name: str, organizer: bool = False) -> str:
    """An author written into the served ladder's database: their token."""
    token = new_token()
    with writing(folder) as db:
        repository.add_author(db, name, hash_token(token), organizer)
    return token


def set_of_both(private: Private) -> int | None:
    """A done set where the markup and the chatty bot sat at one table."""
    sets = private.ladder.api("/api/sets?bot=markup&limit=100")
    for played in sets:
        seated = {seat["version_id"] for seat in played["seats"]}
        if played["status"] == "done" and seated >= set(private.versions.values()):
            return int(played["id"])
    return None


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Private]:
    """The ladder served (see the module's note), resting once the loggers played together."""
    folder = tmp_path_factory.mktemp("private") / "contest"
    settings = make_ladder(folder, **SETTINGS)
    tokens = {name: add_author(folder, name, name == "boss") for name in ("boss", "frank")}
    tokens["alice"] = new_token()
    versions = {
        "heuristic": [add_version(folder, "alice", "heuristic", "heuristic", tokens["alice"])]
    }
    hostile = seed_hostile(folder, settings)
    loggers = {}
    for author, bot in (("dave", "markup"), ("erin", "chatty")):
        tokens[author] = new_token()
        loggers[bot] = add_version(folder, author, bot, TEST_BOTS / f"{bot}_bot.py", tokens[author])
    with serving(folder, *OPTIONS) as served:
        ladder = PagesLadder(served, folder, settings, hostile, versions)
        found = Private(ladder, tokens, loggers)
        served.wait_for("a set begun", lambda: ladder.begun(loggers["markup"]) > 0)
        set_playing(folder, versions["heuristic"][0], False)
        served.wait_for("a set of both loggers", lambda: set_of_both(found) is not None)
        together = set_of_both(found)
        assert together is not None
        found.together = together
        yield found


def signed_in(browser: Any, private: Private, author: str, width: int = 1000) -> Any:
    """A new page of `browser`, signed in as `author` through the form."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.goto(f"{private.url}/login")
    page.fill("input[name=token]", private.tokens.get(author) or private.ladder.tokens[author])
    page.click("button[type=submit]")
    page.wait_for_url(f"{private.url}/me")
    return page


class Pages:
    """A page per author, signed in through the form at its first use and kept for the module,
    and one signed out: a new page costs Chromium some 0.3 CPU s, going to an address in one
    a fifth of that."""

    def __init__(self, browser: Any, private: Private) -> None:
        self.browser = browser
        self.private = private
        self.opened: dict[str | None, Any] = {}

    def of(self, author: str, width: int = 1000) -> Any:
        """`author`'s page, `width` px wide, at /me."""
        page = self.opened.get(author)
        if page is None:
            page = self.opened[author] = signed_in(self.browser, self.private, author, width)
            return page
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{self.private.url}/me")
        return page

    def signed_out(self, width: int = 1000) -> Any:
        """The signed-out page, `width` px wide, at /login."""
        page = self.opened.get(None)
        if page is None:
            page = self.opened[None] = self.browser.new_page()
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{self.private.url}/login")
        return page


@pytest.fixture(scope="module")
def pages(browser: Any, private: Private) -> Iterator[Pages]:
    kept = Pages(browser, private)
    try:
        yield kept
    finally:
        for page in kept.opened.values():
            page.close()


def test_an_author_reads_their_own_logs_and_uploads_a_version_that_is_placed(
    private: Private, pages: Pages, tmp_path: Path
) -> None:
    page = pages.of("dave")
    assert page.locator("h2.name", has_text="markup").count() == 1
    page.goto(f"{private.url}/me/versions/{private.versions['markup']}")
    lines = page.locator("table.lines td.text").all_inner_texts()
    assert any(MARKUP in line for line in lines), lines[:5]
    assert not any(THINKING in line for line in lines)
    page.goto(f"{private.url}/me/sets/{private.together}")
    mine = page.locator("table.lines td.text").all_inner_texts()
    assert mine and all(MARKUP in line or line.startswith("[arena]") for line in mine), mine[:5]
    erin = pages.of("erin")
    erin.goto(f"{private.url}/me/sets/{private.together}")
    theirs = erin.locator("table.lines td.text").all_inner_texts()
    assert any(THINKING in line for line in theirs) and not any("alert(1)" in t for t in theirs)

    folder = tmp_path / "pageup"
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pageup/bot.toml", f'command = "python3 bot.py"\nbuild = "echo {BUILT}"\n')
        archive.writestr("pageup/bot.py", (BOTS / "lowest_bot.py").read_text())
    folder.mkdir()
    (folder / "pageup.zip").write_bytes(packed.getvalue())
    page.goto(f"{private.url}/me")
    page.fill("#upload input[name=bot]", "pageup")
    page.set_input_files("#upload input[name=archive]", str(folder / "pageup.zip"))
    page.click("#upload button[type=submit]")
    page.wait_for_url(f"{private.url}/me/versions/*")
    until = time.monotonic() + PATIENCE
    while (status := page.locator("#status").inner_text()) in ("received", "building", "checking"):
        assert time.monotonic() < until, "the version uploaded through the page was not vetted"
        page.wait_for_timeout(1000)  # the page reloads itself meanwhile
    # vetted and in play: its placement sets may be over before the page's next look (seen under
    # load), and then it is active already
    assert status in ("placement", "active"), page.content()
    assert BUILT in page.locator("#build-log").inner_text()
    assert page.locator("#check-bot").inner_text().strip()
    page.goto(f"{private.url}/me")
    assert page.locator("h2.name", has_text="pageup").count() == 1


def test_another_authors_pages_answer_403_and_what_is_not_there_404(
    private: Private, pages: Pages
) -> None:
    page = pages.of("dave")
    other = page.goto(f"{private.url}/me/versions/{private.versions['chatty']}")
    assert other is not None and other.status == 403
    assert "another author" in page.locator("p.problem").inner_text()
    heuristic = private.ladder.versions["heuristic"][0]
    assert page.goto(f"{private.url}/me/versions/{heuristic}").status == 403
    assert page.goto(f"{private.url}/me/versions/999999").status == 404
    assert page.goto(f"{private.url}/me/sets/999999").status == 404
    assert page.goto(f"{private.url}/status").status == 403
    hostile = httpx.get(f"{private.url}/api/sets", params={"bot": HOSTILE[0]}).json()
    assert hostile  # the fixture's sets among the hostile bots: none of their seats is dave's
    assert page.goto(f"{private.url}/me/sets/{hostile[0]['id']}").status == 403
    api = httpx.get(
        f"{private.url}/api/versions/{private.versions['chatty']}",
        headers={"Authorization": f"Bearer {private.tokens['dave']}"},
    )
    assert api.status_code == 403  # the JSON API says the same, from the same rule


def test_hostile_names_and_log_lines_add_no_script_to_me_or_status(
    private: Private, pages: Pages
) -> None:
    own = count_scripts(pages.signed_out())  # the scripts a page of this site holds of its own
    for name in HOSTILE:
        page = pages.of(name)
        assert page.locator("h1.name").inner_text() == name
        assert page.locator("h2.name").inner_text() == name
        assert count_scripts(page) == own and script_attributes(page) == []
        link = page.locator("a", has_text="build log and logs").first
        link.click()
        assert page.locator("#reason").inner_text() == name  # its reason is its name
        assert count_scripts(page) == own and script_attributes(page) == []
    dave = pages.of("dave")
    dave.goto(f"{private.url}/me/versions/{private.versions['markup']}")
    assert count_scripts(dave) == own and script_attributes(dave) == []
    assert dave.locator("textarea").count() == 0
    boss = pages.of("boss")
    boss.goto(f"{private.url}/status")
    benched = boss.locator("#benched td.name").all_inner_texts()
    assert all(f"{name}.v1" in benched for name in HOSTILE), benched
    assert count_scripts(boss) == own and script_attributes(boss) == []
    assert boss.locator("textarea").count() == 0


def test_every_signed_in_page_fits_a_phone(private: Private, pages: Pages) -> None:
    assert_fits(pages.signed_out(PHONE))
    paths = {
        "dave": [
            "/me",
            f"/me/versions/{private.versions['markup']}",
            f"/me/sets/{private.together}",
            f"/me/versions/{private.versions['chatty']}",  # a refusal's page
        ],
        "boss": ["/status"],
    }
    for author, each in paths.items():
        page = pages.of(author, PHONE)
        for path in each:
            page.goto(f"{private.url}{path}")
            assert_fits(page)


def test_the_organizer_benches_and_restores_a_version_from_the_status_page(
    private: Private, pages: Pages
) -> None:
    page = pages.of("boss")
    page.goto(f"{private.url}/status")
    row = page.locator("#playing tr", has_text="chatty.v1")
    row.locator("input[name=reason]").fill("it talks too much")
    row.locator("button").click()
    page.wait_for_url(f"{private.url}/status")
    benched = page.locator("#benched tr", has_text="chatty.v1")
    assert "benched by the organizer boss: it talks too much" in benched.inner_text()
    assert "it talks too much" in page.locator("#actions").inner_text()
    erin = pages.of("erin")
    assert "benched by the organizer boss: it talks too much" in erin.content()
    benched.locator("input[name=reason]").fill("it may talk")
    benched.locator("button").click()
    page.wait_for_url(f"{private.url}/status")
    assert page.locator("#playing tr", has_text="chatty.v1").count() == 1
    status = private.ladder.api(f"/api/versions/{private.versions['chatty']}")["status"]
    assert status in ("placement", "active")


# Over plain HTTP


@contextmanager
def login(url: str, token: str, **options: Any) -> Iterator[tuple[httpx.Client, httpx.Response]]:
    """A client that fetched the sign-in form and posted `token` with its CSRF token, and the
    answer; closed as the block ends."""
    with httpx.Client(base_url=url, follow_redirects=False, timeout=60, **options) as client:
        form = client.get("/login")
        csrf = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        yield client, client.post("/login", data={"token": token, "csrf": csrf})


def test_the_cookies_are_httponly_samesite_and_not_secure_over_plain_http(
    private: Private,
) -> None:
    with login(private.url, private.tokens["dave"]) as (client, done):
        assert done.status_code == 303 and done.headers["location"] == "/me"
        cookie = next(v for k, v in done.headers.multi_items() if v.startswith("arena_session="))
        flags = [part.strip().lower() for part in cookie.split(";")]
        assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
        assert "secure" not in flags  # plain HTTP: test_signin.py checks it is set over TLS
        assert client.get("/me").status_code == 200


def test_a_form_without_its_csrf_token_is_refused_and_changes_nothing(private: Private) -> None:
    with login(private.url, private.tokens["boss"]) as (client, _):
        before = private.ladder.api(f"/api/versions/{private.versions['markup']}")["status"]
        bench = client.post(
            f"/status/versions/{private.versions['markup']}/bench", data={"reason": "x"}
        )
        assert bench.status_code == 403 and "security token" in bench.text
        upload = client.post(
            "/me/upload", data={"bot": "forged"}, files={"archive": ("a.zip", b"PK", "x")}
        )
        assert upload.status_code == 403
        assert client.post("/logout", data={"csrf": "forged"}).status_code == 403
        assert client.get("/me").status_code == 200  # still signed in
    after = private.ladder.api(f"/api/versions/{private.versions['markup']}")["status"]
    assert after == before
    assert private.ladder.served.get("/api/bots/forged").status_code == 404


def test_past_five_wrong_tokens_an_address_waits_even_with_the_right_one(
    private: Private,
) -> None:
    transport = httpx.HTTPTransport(local_address="127.0.0.2")  # its own address, held alone
    with login(private.url, "x" * 43, transport=transport) as (client, first):
        assert first.status_code == 401
        csrf = client.get("/login").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        answers = [
            client.post("/login", data={"token": new_token(), "csrf": csrf}).status_code
            for _ in range(4)
        ]
        assert answers == [401] * 4
        held = client.post("/login", data={"token": private.tokens["dave"], "csrf": csrf})
        assert held.status_code == 429 and int(held.headers["retry-after"]) >= 1
        assert "arena_session" not in held.headers.get("set-cookie", "")
    with login(private.url, private.tokens["dave"]) as (_, done):  # 127.0.0.1 is not held
        assert done.status_code == 303


def test_revoking_an_author_ends_their_session(private: Private) -> None:
    with login(private.url, private.tokens["frank"]) as (client, done):
        assert done.status_code == 303 and client.get("/me").status_code == 200
        revoked = arena("ladder", "author", "revoke", str(private.ladder.folder), "frank")
        assert revoked.returncode == 0, revoked.stderr
        after = client.get("/me")
        assert after.status_code == 303 and after.headers["location"] == "/login"
    with sqlite3.connect(private.ladder.folder / "ladder.sqlite") as db:
        rows = db.execute(
            "SELECT login_sessions.ended_at FROM login_sessions JOIN authors "
            "ON authors.id = login_sessions.author_id WHERE authors.name = 'frank'"
        ).fetchall()
    assert rows and all(ended is not None for (ended,) in rows)
