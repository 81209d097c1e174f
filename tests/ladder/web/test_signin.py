"""The signed-in pages in process (FastAPI's TestClient) over a real database, no set played but
those written by hand: sign-in and its cookies (Secure over TLS), CSRF on every form, one message
for every wrong token and the throttle past five, who may see which page, an upload from the
page, an organizer's bench and restore. `test_pages_private.py` does it for real, in a browser
against a served ladder."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder.api.app import create_app
from arena.ladder.api.deps import Served
from arena.ladder.authors import hash_token, new_token
from arena.ladder.db import repository
from arena.ladder.db.models import Author, LoginSession, Version
from arena.ladder.settings import LadderSettings
from arena.ladder.web.private import WRONG_TOKEN
from bench.ladder import seed_ladder

SETTINGS = LadderSettings(players=2, submissions_per_day=5, upload_cap_mb=1)
TOKENS = {name: new_token() for name in ("author0", "author1", "boss", "gone")}
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Served, Engine]]:
    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest"})
    with Session(engine) as db, db.begin():
        for author in db.scalars(select(Author)):
            author.token_hash = hash_token(TOKENS[author.name])
        repository.add_author(db, "boss", hash_token(TOKENS["boss"]), organizer=True)
        repository.add_author(db, "gone", hash_token(TOKENS["gone"]))
        repository.revoke_author(db, "gone")
    yield Served(tmp_path, engine, SETTINGS), engine
    engine.dispose()


def client(app: tuple[Served, Engine], https: bool = False) -> TestClient:
    base = "https://testserver" if https else "http://testserver"
    return TestClient(create_app(app[0]), base_url=base, follow_redirects=False)


def csrf_of(page: Response) -> str:
    found = CSRF.search(page.text)
    assert found is not None, page.text
    return found.group(1)


def sign_in(browser: TestClient, author: str) -> str:
    """Sign `browser` in as `author`: the CSRF token of its session's forms."""
    form = browser.get("/login")
    done = browser.post("/login", data={"token": TOKENS[author], "csrf": csrf_of(form)})
    assert done.status_code == 303 and done.headers["location"] == "/me", done.text
    return csrf_of(browser.get("/me"))


def cookie_line(answer: Response, name: str) -> str:
    lines = [v for k, v in answer.headers.multi_items() if k == "set-cookie" and v.startswith(name)]
    assert len(lines) == 1, answer.headers
    return lines[0].lower()


@pytest.mark.parametrize("https", [False, True], ids=["http", "https"])
def test_signing_in_gives_an_httponly_samesite_cookie_secure_over_tls(
    app: tuple[Served, Engine], https: bool
) -> None:
    browser = client(app, https)
    form = browser.get("/login")
    assert form.status_code == 200 and 'name="token"' in form.text
    login = cookie_line(form, "arena_login=")
    assert "httponly" in login and "samesite=strict" in login and "path=/login" in login
    assert ("secure" in login.split("; ")) == https
    done = browser.post("/login", data={"token": TOKENS["author0"], "csrf": csrf_of(form)})
    assert done.status_code == 303
    cookie = cookie_line(done, "arena_session=")
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert "max-age=604800" in cookie
    assert ("secure" in cookie.split("; ")) == https
    secret = cookie.split(";")[0].split("=", 1)[1]
    with Session(app[1]) as db:
        stored = db.scalars(select(LoginSession)).one()
        assert stored.id_hash != secret and len(stored.id_hash) == 64
    assert "author0" in browser.get("/me").text


WRONG = {"malformed": "short", "unknown": new_token(), "revoked": TOKENS["gone"], "empty": ""}


@pytest.mark.parametrize("kind", sorted(WRONG))  # by name: a token differs in each xdist worker
def test_every_wrong_token_gets_one_message_that_names_no_part(
    app: tuple[Served, Engine], kind: str
) -> None:
    token = WRONG[kind]
    browser = client(app)
    answer = browser.post("/login", data={"token": token, "csrf": csrf_of(browser.get("/login"))})
    assert answer.status_code == 401
    assert WRONG_TOKEN.split(":")[0] in answer.text
    assert "revoked" not in answer.text and "unknown" not in answer.text
    assert "arena_session" not in answer.headers.get("set-cookie", "")


def test_past_five_wrong_tokens_an_address_must_wait_even_with_the_right_one(
    app: tuple[Served, Engine],
) -> None:
    browser = client(app)
    csrf = csrf_of(browser.get("/login"))
    for _ in range(5):
        assert browser.post("/login", data={"token": "x" * 43, "csrf": csrf}).status_code == 401
    held = browser.post("/login", data={"token": TOKENS["author0"], "csrf": csrf})
    assert held.status_code == 429 and int(held.headers["retry-after"]) >= 1
    assert "too many wrong tokens" in held.text and "arena_session" not in str(held.headers)


def test_a_form_without_its_csrf_token_changes_nothing(app: tuple[Served, Engine]) -> None:
    browser = client(app)
    browser.get("/login")
    refused = browser.post("/login", data={"token": TOKENS["author0"]})
    assert refused.status_code == 403 and "security token" in refused.text
    assert "arena_session" not in str(refused.headers)
    sign_in(browser, "author0")
    for path, data in [
        ("/logout", {}),
        ("/me/upload", {"bot": "lowest"}),
        ("/logout", {"csrf": "forged"}),
    ]:
        assert browser.post(path, data=data).status_code == 403, path
    assert browser.get("/me").status_code == 200  # still signed in
    boss = client(app)
    sign_in(boss, "boss")
    assert boss.post("/status/versions/1/bench", data={"reason": "x"}).status_code == 403
    with Session(app[1]) as db:
        assert db.get(Version, 1).status == "placement"  # type: ignore[union-attr]


def test_another_authors_pages_are_refused_and_a_visitor_is_sent_to_sign_in(
    app: tuple[Served, Engine],
) -> None:
    visitor = client(app)
    for path in ("/me", "/me/versions/1", "/me/sets/1", "/status"):
        answer = visitor.get(path)
        assert answer.status_code == 303 and answer.headers["location"] == "/login", path
    with Session(app[1]) as db, db.begin():
        played = repository.create_set(db, [1, 2], 5)
        set_id = played.id
    browser = client(app)
    sign_in(browser, "author0")
    assert browser.get("/me/versions/1").status_code == 200
    other = browser.get("/me/versions/2")
    assert other.status_code == 403 and "another author" in other.text
    assert browser.get("/me/versions/999").status_code == 404
    assert browser.get(f"/me/sets/{set_id}").status_code == 200  # a seat of theirs
    assert browser.get("/me/sets/999").status_code == 404
    status = browser.get("/status")
    assert status.status_code == 403 and "not an organizer" in status.text
    assert 'href="/status"' not in browser.get("/me").text


def test_an_upload_from_the_page_is_received_and_its_page_shown(app: tuple[Served, Engine]) -> None:
    browser = client(app)
    csrf = sign_in(browser, "author0")
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("mine/bot.toml", 'command = "python3 bot.py"\n')
        archive.writestr("mine/bot.py", "pass\n")
    made = browser.post(
        "/me/upload",
        data={"bot": "newbot", "csrf": csrf},
        files={"archive": ("mine.zip", packed.getvalue(), "application/zip")},
    )
    assert made.status_code == 303, made.text
    page = browser.get(made.headers["location"])
    assert page.status_code == 200 and "received" in page.text
    assert 'http-equiv="refresh"' in page.text  # it reloads itself while it is vetted
    taken = browser.post(
        "/me/upload",
        data={"bot": "highest", "csrf": csrf},
        files={"archive": ("mine.zip", packed.getvalue(), "application/zip")},
    )
    assert taken.status_code == 403 and "belongs to another author" in taken.text
    big = browser.post(
        "/me/upload",
        data={"bot": "newbot", "csrf": csrf},
        files={"archive": ("big.zip", bytes(2 << 20), "application/zip")},
    )
    assert big.status_code == 413
    with Session(app[1]) as db:
        assert [v.bot.name for v in db.scalars(select(Version).where(Version.id > 2))] == ["newbot"]


@pytest.mark.parametrize("number", [2**63, -(2**63) - 1, 10**30, 0])
def test_a_pages_id_no_row_can_have_is_refused_not_an_error(
    app: tuple[Served, Engine], number: int
) -> None:
    """Past 64 bits SQLite's driver cannot bind an id (a 500 before ids were bounded where the
    routes declare them): every page that takes one refuses it in one line."""
    browser = client(app)
    csrf = sign_in(browser, "boss")
    for path in (f"/sets/{number}", f"/me/versions/{number}", f"/me/sets/{number}", "/sets/x"):
        answer = browser.get(path)
        assert answer.status_code == 422 and is_page(answer), path
        assert "input should be" in answer.text, path  # the one line, as a page
    bench = browser.post(f"/status/versions/{number}/bench", data={"reason": "x", "csrf": csrf})
    assert bench.status_code == 422 and is_page(bench)


def is_page(answer: Response) -> bool:
    """A page for a browser, not the API's JSON."""
    return answer.headers["content-type"].startswith("text/html")


def test_an_organizer_benches_and_restores_from_the_status_page(app: tuple[Served, Engine]) -> None:
    browser = client(app)
    sign_in(browser, "boss")
    assert 'href="/status"' in browser.get("/me").text  # an organizer's page links to it
    page = browser.get("/status")
    assert page.status_code == 200 and "disk used" in page.text
    csrf = csrf_of(page)
    done = browser.post("/status/versions/1/bench", data={"reason": "too slow", "csrf": csrf})
    assert done.status_code == 303
    again = browser.post("/status/versions/1/bench", data={"reason": "again", "csrf": csrf})
    assert again.status_code == 409
    page = browser.get("/status")
    assert "benched by the organizer boss: too slow" in page.text
    author = client(app)
    sign_in(author, "author0")
    assert "benched by the organizer boss: too slow" in author.get("/me").text
    restored = browser.post("/status/versions/1/restore", data={"reason": "ok", "csrf": csrf})
    assert restored.status_code == 303
    with Session(app[1]) as db:
        assert db.get(Version, 1).status == "placement"  # type: ignore[union-attr]
        assert [a.action for a in repository.organizer_actions(db)] == ["restored", "benched"]


def test_signing_out_ends_the_session_and_revoking_ends_every_one(
    app: tuple[Served, Engine],
) -> None:
    browser = client(app)
    csrf = sign_in(browser, "author0")
    kept = browser.cookies.get("arena_session")
    assert browser.post("/logout", data={"csrf": csrf}).status_code == 303
    copy = client(app)
    copy.cookies.set("arena_session", kept)
    assert copy.get("/me").status_code == 303  # the copied cookie signs no one in
    sign_in(browser, "author1")
    with Session(app[1]) as db, db.begin():
        repository.revoke_author(db, "author1")
    assert browser.get("/me").status_code == 303
