"""The tests' PostgreSQL server (`tests/ladder/postgres.py`) is stopped, and its folder removed,
whatever ends the block that uses it."""

from __future__ import annotations

import os

import pytest

from tests.ladder.postgres import absent, postgres_server

pytestmark = [
    pytest.mark.integration,  # it starts a server
    pytest.mark.skipif(absent() is not None, reason=str(absent())),
]


def test_a_server_is_stopped_by_its_pid_and_its_folder_removed_after_an_error() -> None:
    with pytest.raises(RuntimeError, match="the test failed"), postgres_server() as server:
        server.execute("CREATE DATABASE checked")
        folder = server.socket.parent
        pid = int((folder / "data" / "postmaster.pid").read_text().split()[0])
        raise RuntimeError("the test failed")
    assert not folder.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
