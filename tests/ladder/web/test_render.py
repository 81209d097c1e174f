"""The pages' environment and filters, and the public pages in process (FastAPI's TestClient
over a real SQLite database; the browser tests are `test_browser.py`)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from jinja2 import UndefinedError
from sqlalchemy.orm import Session

from arena.ladder.api.app import create_app
from arena.ladder.api.deps import Served
from arena.ladder.db import repository
from arena.ladder.loop import record_set
from arena.ladder.match import SetResult
from arena.ladder.settings import LadderSettings
from arena.ladder.web.render import ENVIRONMENT, rating, utc
from bench.ladder import seed_ladder

SETTINGS = LadderSettings(players=2)


def test_every_template_escapes_whatever_its_name() -> None:
    shown = ENVIRONMENT.from_string("{{ name }}").render(name="<script>alert(1)</script>&amp;")
    assert shown == "&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;"


def test_a_name_a_page_forgot_is_an_error() -> None:
    with pytest.raises(UndefinedError):
        ENVIRONMENT.from_string("{{ missing }}").render()


def test_the_shared_filters() -> None:
    assert utc(dt.datetime(2026, 12, 2, 9, 5, tzinfo=dt.timezone(dt.timedelta(hours=1)))) == (
        "2026-12-02 08:05 UTC"
    )
    assert utc(None) == "\N{EM DASH}"
    shown = str(rating(25.0, 8.0))
    assert ">1.0<" in shown and "25.0" in shown and "8.0" in shown


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    engine = seed_ladder(tmp_path, {"lowest": "lowest", "highest": "highest"})
    with Session(engine) as db, db.begin():
        played = repository.create_set(db, [1, 2], 5)
        assert record_set(db, played.id, SetResult((3, 9), (0, 1), 2, 0.0), SETTINGS)
    return TestClient(create_app(Served(tmp_path, engine, SETTINGS)))


def test_the_public_pages_answer(client: TestClient) -> None:
    board = client.get("/")
    assert board.status_code == 200
    assert board.text.index("/bots/lowest") < board.text.index("/bots/highest")
    assert client.get("/bots/lowest").status_code == 200
    assert client.get("/sets/1").status_code == 200
    assert "site.css" in board.text
    assert client.get("/static/site.css").headers["content-type"].startswith("text/css")


def test_a_missing_bot_or_set_is_a_page_saying_so(client: TestClient) -> None:
    missing = client.get("/bots/%3Cscript%3E")
    assert missing.status_code == 404
    assert "&lt;script&gt;" in missing.text and "<script>" not in missing.text
    assert client.get("/sets/99").status_code == 404


def test_the_finals_table_shows_once_there_is_one(client: TestClient, tmp_path: Path) -> None:
    assert 'id="finals"' not in client.get("/").text
    (tmp_path / "finals").mkdir()
    golden = Path(__file__).parents[2] / "golden" / "standings.json"
    (tmp_path / "finals" / "standings.json").write_text(golden.read_text())
    first = json.loads(golden.read_text())["standings"][0]
    board = client.get("/").text
    assert 'id="finals"' in board and f"/bots/{first['bot']}" in board
    assert f"{first['mean']:.2f}" in board


def test_the_rows_answer_304_until_a_set_is_rated(client: TestClient) -> None:
    engine = client.app.state.served.engine  # type: ignore[attr-defined]
    first = client.get("/leaderboard/rows")
    stamp = first.headers["etag"]
    assert client.get("/leaderboard/rows", headers={"If-None-Match": stamp}).status_code == 304
    with Session(engine) as db, db.begin():
        played = repository.create_set(db, [2, 1], 6)
        assert record_set(db, played.id, SetResult((4, 2), (0, 0), 2, 0.0), SETTINGS)
    again = client.get("/leaderboard/rows", headers={"If-None-Match": stamp})
    assert again.status_code == 200 and again.headers["etag"] != stamp
    assert again.text.count("<tr") == 2


def test_head_to_head_sums_each_opponent_in_one_query(client: TestClient) -> None:
    engine = client.app.state.served.engine  # type: ignore[attr-defined]
    with Session(engine) as db, db.begin():
        played = repository.create_set(db, [2, 1], 6)
        assert record_set(db, played.id, SetResult((4, 2), (0, 0), 2, 0.0), SETTINGS)
    with Session(engine) as db:
        lowest = repository.bot_named(db, "lowest")
        assert lowest is not None
        (met,) = repository.head_to_head(db, lowest)
    # Set 1: lowest 3, highest 9 (-6); set 2: lowest 2, highest 4 (-2).
    assert (met.opponent, met.sets, met.better) == ("highest", 2, 2)
    assert met.mean_difference == pytest.approx(-4.0)
    page = client.get("/bots/lowest").text
    assert 'id="head-to-head"' in page and "-4.0" in page
