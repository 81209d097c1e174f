"""An arena that survives (issue 13): a flood of connections or streams that never say hello
costs it a bounded number of file descriptors and refuses the rest at once, and a run whose
results folder cannot be written (the disk full, a folder made read-only, the database locked
by someone else) ends in one line that names the problem and the fix, never a traceback, with
every game stored before it intact, and the same command then carries on."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.protocol import pb, rpc
from arena.rules import Settings
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.service import MAX_CONNECTIONS, MAX_UNGREETED, Refused, create_bot_server
from arena.server.session import open_session
from arena.tournament import store
from arena.tournament.store import DATABASE, REPLAYS
from tests.server.helpers import sample
from tests.server.test_games import by_hand

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

SAMPLES = Path(__file__).parents[2] / "sample_bots" / "python"
TWO = ["--bot", f"a={SAMPLES / 'lowest_bot.py'}", "--bot", f"b={SAMPLES / 'highest_bot.py'}"]
SMALL = [*TWO, "--max-rounds", "1", "--seed", "3", "--quiet", "--startup-timeout", "30"]
SMALL += ["--concurrency", "1", "--reuse-processes"]
"""One game at a time (the disk fills after a chosen one), each bot one process for all of them."""


class _Nobody:
    """Admits no one: a server whose every stream ends at its hello."""

    def admit(self, hello: pb.Hello, scope: str | None = None) -> object:
        raise Refused("no one is admitted here")

    def leave(self, connection: object) -> None:
        pass


def test_streams_that_never_say_hello_are_refused_past_the_cap() -> None:
    """Past MAX_UNGREETED streams waiting for their hello, a new one is refused at once
    (RESOURCE_EXHAUSTED), on connections of their own or not."""

    async def scenario() -> list[str]:
        with tempfile.TemporaryDirectory(prefix="arena-") as folder:
            path = Path(folder) / "bot.sock"
            server = await create_bot_server(_Nobody(), path, "bot")  # type: ignore[arg-type]
            own = [("grpc.use_local_subchannel_pool", 1)]  # a connection per channel
            channels = [grpc.aio.insecure_channel(f"unix:{path}", options=own) for _ in range(3)]
            calls = [rpc.ArenaStub(channel).Play() for channel in channels for _ in range(8)]

            async def first(call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.ArenaMessage]) -> str:
                try:
                    async for _ in call:
                        return "a message"
                except grpc.aio.AioRpcError as error:
                    return error.code().name
                return "ended"

            try:
                pending = {asyncio.ensure_future(first(call)) for call in calls}
                done: set[asyncio.Future[str]] = set()
                # Refused at once: wait for as many as the cap leaves out (the admitted ones wait
                # for their hello for ever), then a second more for any refused beyond those.
                while len(done) < len(calls) - MAX_UNGREETED and pending:
                    more, pending = await asyncio.wait(
                        pending, timeout=30, return_when=asyncio.FIRST_COMPLETED
                    )
                    if not more:
                        break
                    done |= more
                more, _ = await asyncio.wait(pending, timeout=1)
                return sorted(task.result() for task in done | more)
            finally:
                for call in calls:
                    call.cancel()
                for channel in channels:
                    await channel.close()
                await server.stop(0)

    refused = asyncio.run(scenario())
    assert refused == ["RESOURCE_EXHAUSTED"] * (24 - MAX_UNGREETED)


def test_a_flood_of_silent_connections_to_the_external_port_is_bounded(logs: Path) -> None:
    """A thousand TCP connections that never say anything, to the port external bots use: the
    arena takes at most MAX_CONNECTIONS of them (its descriptors stay bounded), and once they
    are gone an external bot connects and plays."""
    specs = [BotSpec("by-hand", None), sample("highest")]
    options = BotOptions(deadline=5.0, first_deadline=10.0, startup_timeout=60.0)

    async def scenario() -> tuple[int, int]:
        with ExitStack() as stack:
            async with open_session(specs, logs, options) as session:
                host, port = session.address.rsplit(":", 1)
                before = len(os.listdir("/proc/self/fd"))
                flood = []
                for _ in range(1000):
                    connection = socket.socket()
                    connection.setblocking(False)
                    with_error = connection.connect_ex((host, int(port)))
                    assert with_error in (0, 115)  # connected, or in progress
                    flood.append(connection)
                await asyncio.sleep(1.0)
                # The flood's own 1000 sockets are this process's too: count the arena's side.
                arena_side = len(os.listdir("/proc/self/fd")) - before - len(flood)
                for connection in flood:
                    connection.close()
                token = session.lobby.external_token("by-hand")
                stack.enter_context(by_hand(session.address, token))
                result = await session.play(
                    "after", Settings(2, max_rounds=1), ["by-hand", "highest"], 1
                )
                return arena_side, len(result.faults)

    arena_side, faults = asyncio.run(scenario())
    assert arena_side <= MAX_CONNECTIONS + 16
    assert faults == 0


def arena_run(*args: str) -> tuple[int, str]:
    """`arena run ARGS` in this process; its exit status and everything it printed."""
    result = CliRunner().invoke(main, ["run", *args])
    return result.exit_code, result.output


def one_line(output: str) -> str:
    """The error line of a failed run: there is exactly one, and no traceback."""
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, output
    return errors[0]


def stored(output: Path, read_only_disk: bool = False) -> dict[str, str]:
    """Every stored game's record (as stored), by id."""
    mode = "immutable=1" if read_only_disk else "mode=ro"  # a read-only disk has no -shm
    uri = f"{(output / DATABASE).as_uri()}?{mode}"
    db = sqlite3.connect(uri, uri=True)
    try:
        return dict(db.execute("SELECT game_id, record FROM games"))
    finally:
        db.close()


def test_a_database_locked_by_someone_else_is_one_line_and_resumable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "_BUSY_TIMEOUT", 0.5)  # the wait for the lock, shortened
    output = tmp_path / "out"
    status, _ = arena_run(*SMALL, "--games", "2", "--output", str(output))
    assert status == 0
    first = stored(output)
    holder = sqlite3.connect(output / DATABASE, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        status, printed = arena_run(*SMALL, "--games", "4", "--output", str(output))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert status == 2
    line = one_line(printed)
    assert "locked" in line and "another `arena run`" in line, line
    status, _ = arena_run(*SMALL, "--games", "4", "--output", str(output))
    assert status == 0
    after = stored(output)
    assert len(after) == 4 and {key: after[key] for key in first} == first


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system of its own, 8 MiB, that the test can fill or make read-only
    (a tmpfs: needs root, as `make test` has on the machines it runs on)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_mid_run_is_one_line_and_resumable(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up after the second game is stored: the run ends with one line saying
    so, the two games stay, and once there is room the same command plays the rest."""
    output = small_disk / "out"
    save = store.ResultStore.save
    saved = 0

    def save_then_fill(self: store.ResultStore, *args: object, **kwargs: object) -> object:
        nonlocal saved
        result = save(self, *args, **kwargs)  # type: ignore[arg-type]
        saved += 1
        if saved == 2:  # someone else fills the disk
            with (small_disk / "filler").open("wb") as filler:
                try:
                    while True:
                        filler.write(b"x" * (1 << 16))
                        filler.flush()
                except OSError:
                    pass
        return result

    monkeypatch.setattr(store.ResultStore, "save", save_then_fill)
    status, printed = arena_run(*SMALL, "--games", "6", "--output", str(output))
    monkeypatch.undo()
    assert status == 2
    line = one_line(printed)
    assert "full" in line and "the same command carries on" in line, line
    first = stored(output)
    assert len(first) >= 2
    (small_disk / "filler").unlink()
    status, printed = arena_run(*SMALL, "--games", "6", "--output", str(output))
    assert status == 0, printed
    after = stored(output)
    assert len(after) == 6 and {key: after[key] for key in first} == first
    assert len((output / REPLAYS).read_text().splitlines()) == 6


def test_a_folder_made_read_only_is_one_line(small_disk: Path) -> None:
    output = small_disk / "out"
    status, _ = arena_run(*SMALL, "--games", "2", "--output", str(output))
    assert status == 0
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    status, printed = arena_run(*SMALL, "--games", "4", "--output", str(output))
    assert status == 2
    line = one_line(printed)
    assert "cannot" in line and "a folder you can write to" in line, line
    assert len(stored(output, read_only_disk=True)) == 2
    assert json.loads((output / "standings.json").read_text())["standings"]
