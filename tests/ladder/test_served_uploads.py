"""Uploads over real HTTP while the event loop serves everything else: the app under uvicorn on
loopback in this process (its event loop in a thread of the test's), beside the real vetting
task (`Intake`, its vetting faked), as `arena ladder serve` runs them.

An upload's checks are held by a gate (`Gate`, in place of `intake.unpack`) until the test opens
it: an archive at the cap, as slow to check as the test needs, deterministically. While they are
held, another request must be answered and another writer must commit; the upload's answer comes
only after; the vetting task, whose poll is an hour here, is woken by the version accepted, on
its own loop. Before the checks left the event loop, the other request waited for the gate's
PATIENCE to run out, and was answered after the upload."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder import intake
from arena.ladder.api.app import create_app
from arena.ladder.api.deps import Served
from arena.ladder.authors import hash_token, new_token
from arena.ladder.db import repository
from arena.ladder.db.models import Author
from arena.ladder.serve import listening_socket
from arena.ladder.settings import LadderSettings
from arena.ladder.uploads import unpack
from bench.ladder import seed_ladder
from tests.ladder.test_api import GOOD

SETTINGS = LadderSettings(players=2, submissions_per_day=5, upload_cap_mb=1)
TOKEN = new_token()
PATIENCE = 60.0
"""Seconds a test waits for what it waits for: never a measure of speed, only a guard against a
hang (and what ends the gate's hold if the test never opens it)."""
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
ROUTES = ["api", "page"]
"""The two ways an upload comes in: the API's route (`arena submit`) and the author's page."""


@dataclass
class Gate:
    """An upload's checks (`intake.unpack`), held until the test opens the gate."""

    entered: threading.Event = field(default_factory=threading.Event)
    opened: threading.Event = field(default_factory=threading.Event)
    held: list[bool] = field(default_factory=list)
    """Each check's hold: True if the test opened the gate, False if PATIENCE ran out."""

    def unpack(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        self.held.append(self.opened.wait(PATIENCE))
        return UNPACK(*args, **kwargs)


UNPACK = unpack


@dataclass
class Ladder:
    """The ladder served in this process, and what its vetting task was seen to do."""

    url: str
    engine: Engine
    loop_thread: int = 0
    """The event loop's thread."""
    looks: int = 0
    """The vetting task's looks for a version received (`Intake._next`)."""
    woken_on: list[int] = field(default_factory=list)
    """The threads `Served.wake` was called on."""
    vetted: list[tuple[int, int]] = field(default_factory=list)
    """The versions vetted, each with the look that found it."""
    vetting: threading.Event = field(default_factory=threading.Event)


async def _serve(ladder: Ladder, folder: Path, sock: Any, server: list[uvicorn.Server]) -> None:
    """The app and the vetting task on this event loop, until the server is told to exit."""
    ladder.loop_thread = threading.get_ident()
    stop = asyncio.Event()
    task = intake.Intake(folder, ladder.engine, SETTINGS)
    look = task._next

    def counted() -> int | None:
        ladder.looks += 1
        return look()

    async def vet(version_id: int) -> None:
        ladder.vetted.append((version_id, ladder.looks))
        ladder.vetting.set()

    def wake() -> None:
        ladder.woken_on.append(threading.get_ident())
        task.wake.set()

    task._next = counted  # type: ignore[method-assign]
    task.vet = vet  # type: ignore[method-assign]
    served = Served(folder, ladder.engine, SETTINGS, wake=wake)
    config = uvicorn.Config(create_app(served), log_level="warning", lifespan="off")
    server.append(uvicorn.Server(config))
    vetting = asyncio.ensure_future(task.run(stop))
    try:
        await server[0].serve(sockets=[sock])
    finally:
        stop.set()
        await vetting


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Ladder]:
    """The ladder served; the vetting task has looked once (and found nothing) when it comes."""
    monkeypatch.setattr(intake, "POLL", 3600.0)  # only a wake-up makes the vetting task look
    engine = seed_ladder(tmp_path, {"lowest": "lowest"})
    with Session(engine) as db, db.begin():
        db.scalars(select(Author)).one().token_hash = hash_token(TOKEN)
    sock = listening_socket("127.0.0.1", 0)
    found = Ladder(f"http://127.0.0.1:{sock.getsockname()[1]}", engine)
    server: list[uvicorn.Server] = []
    thread = threading.Thread(target=asyncio.run, args=(_serve(found, tmp_path, sock, server),))
    thread.start()
    try:
        until = time.monotonic() + PATIENCE
        while not (server and server[0].started and found.looks):
            assert thread.is_alive(), "the server ended before it started"
            assert time.monotonic() < until, f"the server did not start within {PATIENCE:g} s"
            time.sleep(0.05)
        yield found
    finally:
        if server:
            server[0].should_exit = True
        thread.join(PATIENCE)
        sock.close()
        engine.dispose()


def sign_in(client: httpx.Client) -> str:
    """Sign `client` in as the author, as a browser does: the CSRF token of its forms."""
    form = client.get("/login")
    csrf = CSRF.search(form.text)
    assert csrf is not None, form.text
    done = client.post("/login", data={"token": TOKEN, "csrf": csrf.group(1)})
    assert done.status_code == 303, done.text
    page = CSRF.search(client.get("/me").text)
    assert page is not None
    return page.group(1)


def upload(client: httpx.Client, route: str, csrf: str) -> int:
    """Upload GOOD as the next version of `lowest` by `route`: the new version's id."""
    if route == "api":
        headers = {"Content-Type": "application/gzip", "Authorization": f"Bearer {TOKEN}"}
        answer = client.post("/api/bots/lowest/versions", content=GOOD, headers=headers)
        assert answer.status_code == 201, answer.text
        return int(answer.json()["id"])
    answer = client.post(
        "/me/upload",
        data={"bot": "lowest", "csrf": csrf},
        files={"archive": ("lowest.tar.gz", GOOD, "application/gzip")},
    )
    assert answer.status_code == 303, answer.text
    return int(answer.headers["location"].rsplit("/", 1)[1])


@pytest.mark.parametrize("route", ROUTES)
def test_while_an_upload_is_checked_the_serve_answers_and_writes_and_it_wakes_the_vetting_task(
    ladder: Ladder, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    gate = Gate()
    monkeypatch.setattr("arena.ladder.intake.unpack", gate.unpack)
    answered: list[str] = []
    made: list[int] = []
    with httpx.Client(base_url=ladder.url, timeout=2 * PATIENCE, follow_redirects=False) as client:
        csrf = sign_in(client) if route == "page" else ""

        def send() -> None:
            made.append(upload(client, route, csrf))
            answered.append("upload")

        sending = threading.Thread(target=send)
        sending.start()
        assert gate.entered.wait(PATIENCE), "the upload's checks did not begin"
        with httpx.Client(base_url=ladder.url, timeout=2 * PATIENCE) as other:
            assert other.get("/api/status").status_code == 200
        answered.append("status")
        with Session(ladder.engine) as db, db.begin():  # as the match loop records a set
            repository.add_author(db, "writer", hash_token(new_token()))
        answered.append("written")
        gate.opened.set()
        sending.join(2 * PATIENCE)
    assert answered == ["status", "written", "upload"]
    assert gate.held == [True]  # the checks were still held when the others were answered
    assert ladder.vetting.wait(PATIENCE), "the vetting task was not woken (its poll is an hour)"
    assert ladder.vetted == [(made[0], 2)]  # the first look found none: the wake-up led here
    assert ladder.woken_on == [ladder.loop_thread]  # called back on the event loop
