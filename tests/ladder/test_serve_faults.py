"""A bad version never ends the serve: `arena ladder serve` as a real process on loopback, one
version's built folder removed while the ladder plays; that version is benched with its reason
shown to its author, the others play on, and the serve stops cleanly (no traceback, no task
exception left unretrieved on its stderr). On the way, an author's logs name their version
(`heuristic.v1`), not the server's scratch folder."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

from arena.ladder.serve import CONNECTIONS
from tests.ladder.serving import (
    add_author,
    bot_folder,
    lasting_zombies,
    make_ladder,
    processes_in,
    serving,
    submit,
)
from tests.ladder.test_api import archive
from tests.ladder.test_serve import sets_played, stored, version_id

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

SAMPLES = {"alice": "heuristic", "bob": "highest", "carol": "lowest"}
OPTIONS = ("--reuse-processes", "--seed", "7", "--concurrency", "1")
"""A set's games one at a time: each bot starts once a set, not once per game at once (a
start-up costs more CPU than a one-round game)."""


def test_a_version_whose_built_folder_is_gone_is_benched_and_the_others_play_on(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "contest"
    make_ladder(folder, players=2, placement_sets=2)
    tokens = {name: add_author(folder, name) for name in SAMPLES}
    versions: dict[str, int] = {}
    with serving(folder, *OPTIONS) as served:
        for author, sample in SAMPLES.items():
            source = bot_folder(tmp_path / "bots", sample, build="echo compiled")
            done = submit(source, served.url, sample, tokens[author])
            assert done.returncode == 0, done.stdout + done.stderr
            versions[sample] = version_id(done.stdout)
        own = served.get(f"/api/versions/{versions['heuristic']}", tokens["alice"]).json()
        shown = "\n".join([own["build_log"], *own["check_bot"]])
        assert "[arena: heuristic.v1 build: echo compiled]" in shown, shown  # its name, not
        assert ".upload" not in shown, shown  # the server's scratch folder's
        served.wait_for("2 sets", lambda: sets_played(served) >= 2)
        gone = versions["lowest"]
        shutil.rmtree(folder / "built" / str(gone))

        def benched() -> bool:
            return bool(served.get(f"/api/versions/{gone}").json()["status"] == "benched")

        served.wait_for("the version without its folder benched", benched)
        mine = served.get(f"/api/versions/{gone}", tokens["carol"]).json()
        assert "cannot be run" in mine["reason"] and "submit a new version" in mine["reason"]
        assert served.status()["benched"] == ["lowest.v1"]
        after = sets_played(served)
        served.wait_for("another set", lambda: sets_played(served) >= after + 1)
        board = {line["bot"]: line for line in served.get("/api/leaderboard").json()}
        assert board["lowest"]["status"] == "benched"

        def mid_set() -> bool:
            running = [row[0] for row in stored(folder) if row[1] == "running"]
            return any((folder / "sets" / str(s) / "results.sqlite").is_file() for s in running)

        served.wait_for("a set under way with a game stored", mid_set)
        assert lasting_zombies(served.process.pid) == set()  # every bot's process reaped
        assert served.stop() == 0  # mid-set: its games stopped, the set abandoned
    assert all(status != "running" for _, status, _ in stored(folder))
    log = (tmp_path / "contest-serve.log").read_text()
    assert "benched lowest.v1" in log
    assert "Traceback" not in log and "never retrieved" not in log, log
    assert processes_in(folder) == []


@pytest.mark.parametrize("command", ["b" * 300])
def test_a_command_no_process_could_run_is_an_error_and_the_serve_goes_on(
    tmp_path: Path, command: str
) -> None:
    """An author's bot.toml is text an attacker writes: a command whose vetting raised (a name
    past 255 bytes: ENAMETOOLONG) ended the serve, and every start after it."""
    folder = tmp_path / "contest"
    make_ladder(folder, players=2)
    token = add_author(folder, "mallory")
    body = archive({"bot.toml": f"command = {json.dumps(command)}\n".encode()})
    with serving(folder, *OPTIONS) as served:
        sent = served.client.post(
            served.url + "/api/bots/evil/versions",
            content=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
        )
        assert sent.status_code == 201, sent.text
        path = f"/api/versions/{sent.json()['id']}"
        served.wait_for("the version vetted", lambda: served.get(path).json()["status"] == "error")
        assert served.get(path, token).json()["reason"].startswith("its command cannot start")
        assert served.get("/api/status").status_code == 200
        assert served.stop() == 0
    log = (tmp_path / "contest-serve.log").read_text()
    assert "Traceback" not in log, log


def test_held_connections_get_a_503_past_the_bound_and_the_serve_goes_on(tmp_path: Path) -> None:
    """A client that sends a request's headers and then nothing holds its connection as long as
    it likes (uvicorn sets no time limit on a body). Past CONNECTIONS of them, the next request
    is answered 503 at once rather than another descriptor taken, which would in the end have
    been EMFILE for the match loop's bots and the end of the serve; once they go, it serves."""
    folder = tmp_path / "contest"
    make_ladder(folder, players=2)
    with serving(folder, *OPTIONS) as served:
        host, port = served.url.removeprefix("http://").rsplit(":", 1)
        held: list[socket.socket] = []
        try:
            for _ in range(CONNECTIONS):
                held.append(socket.create_connection((host.strip("[]"), int(port))))
                held[-1].sendall(
                    b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n\r\n"
                )

            def refused() -> bool:  # the last few may still be on their way in
                return served.get("/api/status").status_code == 503

            served.wait_for("a request past the bound refused", refused)
        finally:
            for connection in held:
                connection.close()
        served.wait_for("served again", lambda: served.get("/api/status").status_code == 200)
        assert served.stop() == 0
    log = (tmp_path / "contest-serve.log").read_text()
    assert "Traceback" not in log, log
