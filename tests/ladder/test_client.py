"""`arena submit` against a real HTTP server on loopback (a tiny one of the test's own, which
checks what it receives): the archive as the body, the bearer token, `version N`, `--wait`, and
every failure as one line."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.ladder import client
from arena.ladder.client import SubmitError, fetch, ladder_url, read_token
from arena.ladder.uploads import unpack
from arena.tournament.cluster.shipping import pack

pytestmark = pytest.mark.integration

TOKEN = "k" * 43
Reply = tuple[int, Any]


@dataclass
class Ladder:
    """What the test's server answers (in order, per method) and what it received."""

    posts: list[Reply] = field(default_factory=list)
    gets: list[Reply] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


def _handler(ladder: Ladder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self, replies: list[Reply]) -> None:
            status, body = replies.pop(0) if len(replies) > 1 else replies[0]
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            ladder.received.append(
                {
                    "method": "POST",
                    "path": self.path,
                    "authorization": self.headers["Authorization"],
                    "type": self.headers["Content-Type"],
                    "body": self.rfile.read(length),
                }
            )
            self._answer(ladder.posts)

        def do_GET(self) -> None:
            ladder.received.append(
                {"method": "GET", "path": self.path, "authorization": self.headers["Authorization"]}
            )
            self._answer(ladder.gets)

    return Handler


@pytest.fixture
def ladder() -> Iterator[Ladder]:
    state = Ladder()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.toml").write_text('command = "bot.py"\n')
    (folder / "bot.py").write_text("print('hello')\n")
    return folder


def submit(*args: str, token: str | None = TOKEN) -> Result:
    env = {"ARENA_TOKEN": token} if token is not None else {"ARENA_TOKEN": ""}
    return CliRunner().invoke(main, ["submit", *args], env=env)


def one_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_an_upload_sends_the_packed_folder_with_the_token_and_prints_its_version(
    ladder: Ladder, bot: Path, tmp_path: Path
) -> None:
    ladder.posts = [(201, {"id": 12, "number": 1, "status": "received"})]
    result = submit(str(bot), "--to", ladder.url, "--bot", "alice-bot")
    assert result.exit_code == 0, result.output
    assert result.output == "version 12\n"
    (sent,) = ladder.received
    assert sent["path"] == "/api/bots/alice-bot/versions"
    assert sent["authorization"] == f"Bearer {TOKEN}"
    assert sent["type"] == "application/gzip"
    assert sent["body"] == pack(bot)[1]  # deterministic: the same folder, the same bytes
    manifest = unpack(sent["body"], tmp_path / "server", 1 << 20)
    assert manifest.command == "bot.py"
    assert (tmp_path / "server" / "bot.py").read_text() == "print('hello')\n"


def test_wait_follows_the_version_until_it_plays(
    ladder: Ladder, bot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client, "POLL", (0.0,))
    ladder.posts = [(201, {"id": 3, "status": "received"})]
    ladder.gets = [
        (200, {"id": 3, "status": "building"}),
        (200, {"id": 3, "status": "building"}),
        (200, {"id": 3, "status": "checking"}),
        (200, {"id": 3, "status": "placement"}),
    ]
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    result = submit(
        str(bot),
        "--to",
        ladder.url + "/",
        "--bot",
        "b",
        "--wait",
        "--token-file",
        str(token_file),
        token=None,
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "version 3",
        "version 3: received",
        "version 3: building",
        "version 3: checking",
        "version 3: placement",
    ]
    gets = [r for r in ladder.received if r["method"] == "GET"]
    assert {r["path"] for r in gets} == {"/api/versions/3"}
    assert all(r["authorization"] == f"Bearer {TOKEN}" for r in gets)


def test_wait_on_a_version_in_error_prints_its_reason_and_fails(
    ladder: Ladder, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client, "POLL", (0.0,))
    ladder.posts = [(201, {"id": 4, "status": "received"})]
    reason = "check-bot: 2 of 10 checks passed; the first that did not, \x1b[2Jboom"
    ladder.gets = [(200, {"id": 4, "status": "error", "reason": reason})]
    result = submit(str(bot), "--to", ladder.url, "--bot", "b", "--wait")
    assert result.exit_code == 3, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("version 4 is error: check-bot: 2 of 10 checks passed; ")
    assert last.endswith("the first that did not, \\x1b[2Jboom")  # escaped, never run


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        (
            (403, {"detail": "bot 'b' belongs to another author: choose another name"}),
            "Error: the ladder refused (403): bot 'b' belongs to another author: choose another",
        ),
        (
            (413, {"detail": "the upload is over 20 MiB, the ladder's cap: leave data out"}),
            "Error: the ladder refused (413): the upload is over 20 MiB",
        ),
        (
            (422, {"detail": [{"loc": ["path", "name"], "msg": "bad bot name", "type": "x"}]}),
            "Error: the ladder refused (422): path.name: bad bot name",
        ),
        ((502, b"<html>Bad Gateway</html>"), "answered 502 Bad Gateway without a detail"),
        ((200, b"[1, 2]"), "with no JSON object: is it an arena ladder's address?"),
        ((201, {"id": "seven", "status": "received"}), "answered without a version"),
    ],
)
def test_every_refusal_is_one_line(ladder: Ladder, bot: Path, reply: Reply, line: str) -> None:
    ladder.posts = [reply]
    assert line in one_line(submit(str(bot), "--to", ladder.url, "--bot", "b"))


def test_a_ladder_that_is_not_there_is_one_line(bot: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    line = one_line(submit(str(bot), "--to", f"http://127.0.0.1:{port}", "--bot", "b"))
    assert line.startswith(f"Error: cannot reach http://127.0.0.1:{port}: ")


def test_a_token_on_the_command_line_is_refused(ladder: Ladder, bot: Path) -> None:
    result = submit(str(bot), "--to", ladder.url, "--bot", "b", "--token", TOKEN)
    assert result.exit_code == 2
    assert "a token on the command line shows in `ps`" in result.output
    assert not ladder.received


def test_no_token_is_one_line_saying_where_to_put_it(ladder: Ladder, bot: Path) -> None:
    line = one_line(submit(str(bot), "--to", ladder.url, "--bot", "b", token=None))
    assert line == (
        "Error: no token: set ARENA_TOKEN or give --token-file FILE (the token the organizer's "
        "`arena ladder author add` printed)"
    )
    assert not ladder.received


def test_a_folder_the_ladder_would_refuse_is_refused_before_anything_is_sent(
    ladder: Ladder, bot: Path
) -> None:
    (bot / "link").symlink_to("/etc/passwd")
    line = one_line(submit(str(bot), "--to", ladder.url, "--bot", "b"))
    assert (
        "cannot be submitted: the upload holds a symbolic link 'mybot/link' -> '/etc/passwd'"
        in line
    )
    (bot / "link").unlink()
    (bot / "bot.toml").unlink()
    line = one_line(submit(str(bot), "--to", ladder.url, "--bot", "b"))
    assert "cannot be submitted: the upload has no bot.toml at its top" in line
    assert not ladder.received


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://ladder.example", "is not the ladder's address: give http(s)://HOST:PORT"),
        ("ladder.example:8600", "is not the ladder's address"),
        ("http://ladder.example:8600", "plain http beyond this machine"),
        ("http://127.0.0.1:99999", "is not an address"),
        ("https://ladder.example/?x=1", "give the ladder's address alone"),
    ],
)
def test_a_wrong_address_is_refused(url: str, message: str) -> None:
    with pytest.raises(SubmitError) as caught:
        ladder_url(url)
    assert message in str(caught.value)


def test_addresses_that_are_taken() -> None:
    assert ladder_url("https://ladder.example/") == "https://ladder.example"
    assert ladder_url("http://localhost:8600") == "http://localhost:8600"
    assert ladder_url("http://[::1]:8600/ladder") == "http://[::1]:8600/ladder"
    assert ladder_url("http://10.0.0.5:8600", insecure=True) == "http://10.0.0.5:8600"


def test_a_token_file_that_holds_no_token_is_refused(tmp_path: Path) -> None:
    wrong = tmp_path / "token"
    wrong.write_text("Bearer abc def\n")
    with pytest.raises(SubmitError, match="does not hold a token"):
        read_token(wrong)
    with pytest.raises(SubmitError, match="cannot read --token-file"):
        read_token(tmp_path / "missing")
    assert read_token(None, {"ARENA_TOKEN": f" {TOKEN}\n"}) == TOKEN


def test_a_bad_bot_name_is_refused_before_anything_is_sent(ladder: Ladder, bot: Path) -> None:
    line = one_line(submit(str(bot), "--to", ladder.url, "--bot", "../x"))
    assert "--bot: bad bot name '../x'" in line
    assert not ladder.received


def test_a_public_page_is_fetched_as_json_and_a_refusal_is_one_line(ladder: Ladder) -> None:
    rows = [{"rank": 1, "bot": "b", "rating": 3.5}]
    ladder.gets = [(200, rows), (404, {"detail": "no bot 'x': see /api/leaderboard"})]
    assert fetch(ladder.url, "/api/leaderboard") == rows
    (sent,) = ladder.received
    assert sent["path"] == "/api/leaderboard"
    assert sent["authorization"] is None
    with pytest.raises(SubmitError, match=r"^the ladder refused \(404\): no bot 'x'"):
        fetch(ladder.url, "api/bots/x")
    with pytest.raises(SubmitError, match="plain http beyond this machine"):
        fetch("http://ladder.example", "/api/versions/1", token=TOKEN)
