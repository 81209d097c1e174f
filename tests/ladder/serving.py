"""A ladder served for real, for the integration tests: `arena ladder init` and `author add`,
`arena ladder serve` as a process on loopback (port 0: the port it got is read from its first
line), `arena submit` over HTTP, and what the tests wait for, read through the API."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner

from arena.cli import main
from arena.ladder.settings import SETTINGS_FILE, LadderSettings, read_settings, write_settings
from arena.server.isolation.procfs import processes

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
PATIENCE = 600.0
"""Seconds a test waits for what it waits for before it fails saying what it waited for: never
a measure of speed, only a guard against a hang."""
FAST = {
    "max_rounds": 1,
    "deadline": 5.0,
    "first_deadline": 10.0,
    "startup_timeout": 60.0,
    "sets_at_once": 1,
}
"""What every test ladder plays (unless its test says otherwise: test_serve plays whole games):
one-round games, at deadlines no loaded machine misses."""


@dataclass(frozen=True)
class Ran:
    """What a command run in this process left: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def arena(*args: str, env: dict[str, str] | None = None) -> Ran:
    """Run `arena ARGS` to its end, in this process: the ladder's commands (`init`, `author`,
    `submit`, `status`, `rerate`, `finals`) as an organizer types them, without a new
    interpreter loading the arena for each (a fifth of a CPU second apiece, some 40 of them a
    file). What is run as a process is the serve, whose death the tests watch."""
    ran = CliRunner().invoke(main, list(args), env=env)
    if ran.exception is not None and not isinstance(ran.exception, SystemExit):
        raise ran.exception
    return Ran(ran.exit_code, ran.stdout, ran.stderr)


def make_ladder(folder: Path, *, database: str | None = None, **settings: Any) -> LadderSettings:
    """`arena ladder init` (on `database`, a URL, if given), then these settings (and
    `FAST`'s) in its ladder.toml."""
    made = arena("ladder", "init", str(folder), *_on(database))
    assert made.returncode == 0, made.stderr
    path = folder / SETTINGS_FILE
    chosen = replace(read_settings(path), **{**FAST, **settings})
    write_settings(path, chosen)
    return chosen


def add_author(folder: Path, name: str, database: str | None = None) -> str:
    """`arena ladder author add` (on `database`, a URL, if given): the token, alone on its
    last line."""
    added = arena("ladder", "author", "add", str(folder), name, *_on(database))
    assert added.returncode == 0, added.stderr
    return added.stdout.strip().splitlines()[-1]


def _on(database: str | None) -> tuple[str, ...]:
    """The `--database` option of a ladder command, for a database given (else the folder's)."""
    return ("--database", database) if database is not None else ()


def bot_folder(root: Path, sample: str, build: str | None = None) -> Path:
    """A submission folder of a sample bot: its file and a bot.toml (with a build, if given)."""
    folder = root / sample
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text((BOTS / f"{sample}_bot.py").read_text())
    manifest = 'command = "python3 bot.py"\n'
    if build is not None:
        manifest += f"build = {build!r}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder


def submit(folder: Path, url: str, bot: str, token: str) -> Ran:
    """`arena submit FOLDER --to URL --bot NAME --wait`, the token from ARENA_TOKEN."""
    return arena(
        "submit", str(folder), "--to", url, "--bot", bot, "--wait", env={"ARENA_TOKEN": token}
    )


@dataclass
class Served:
    """A running `arena ladder serve`, its address, and one HTTP client for the whole serve: a
    test polls its status hundreds of times, and `httpx.get` would build a new client (and its
    TLS context) for each, some 35 ms of CPU a call against 2 ms on the one client."""

    process: subprocess.Popen[str]
    url: str
    client: httpx.Client

    def get(self, path: str, token: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.client.get(self.url + path, headers=headers)

    def wait_for(self, what: str, ready: Callable[[], bool]) -> None:
        """Poll until `ready()`; fail naming `what` if the server ends or PATIENCE passes."""
        until = time.monotonic() + PATIENCE
        while not ready():
            assert self.process.poll() is None, f"the server ended waiting for {what}"
            assert time.monotonic() < until, f"no {what} within {PATIENCE:g} s"
            time.sleep(0.5)

    def status(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.get("/api/status").json()
        return answer

    def stop(self) -> int:
        """SIGTERM, and its exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=PATIENCE)


@contextlib.contextmanager
def serving(folder: Path, *options: str) -> Iterator[Served]:
    """`arena ladder serve FOLDER --port 0 OPTIONS` until the block ends (SIGTERM, then SIGKILL
    of its group if it is still there); what it prints goes to `serve.log` beside the folder."""
    log = folder.parent / f"{folder.name}-serve.log"
    start = len(log.read_text().splitlines()) if log.is_file() else 0
    with log.open("a") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arena.cli",
                "ladder",
                "serve",
                str(folder),
                "--port",
                "0",
                *options,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        until = time.monotonic() + PATIENCE
        while True:
            lines = [line for line in log.read_text().splitlines()[start:] if "serving " in line]
            if lines:
                break
            assert process.poll() is None, f"serve ended: {log.read_text()[-2000:]}"
            assert time.monotonic() < until, "serve said nothing"
            time.sleep(0.2)
        with httpx.Client(timeout=60) as client:
            yield Served(process, lines[-1].split()[1].rstrip("/"), client)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def processes_in(folder: Path) -> list[int]:
    """Processes whose working folder lies in `folder` (a ladder's bots run in its folders)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                found.append(int(entry.name))
    return found


def lasting_zombies(pid: int, patience: float = 10.0) -> set[int]:
    """The dead children of process `pid` that are still unreaped after `patience` seconds: a
    leak, which over a ladder's weeks fills the process table (a bot's processes that died just
    now are reaped within moments)."""

    def dead() -> set[int]:
        return {p.pid for p in processes() if p.ppid == pid and not p.alive}

    lasting = dead()
    until = time.monotonic() + patience
    while lasting and time.monotonic() < until:
        time.sleep(0.5)
        lasting &= dead()
    return lasting
