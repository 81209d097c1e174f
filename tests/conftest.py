"""Fixtures shared by the tests that start servers and processes."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.procfs import processes


def _live_children() -> set[int]:
    """This process's children that still run (zombies do not count: they are dead)."""
    me = os.getpid()
    return {p.pid for p in processes() if p.ppid == me and p.alive}


@pytest.fixture
def no_leftover_processes() -> Iterator[None]:
    """Fail a test that leaves a child process running, and stop what it left (by group id)."""
    before = _live_children()
    yield
    left = _live_children() - before
    for pid in left:  # children this test started: their own group if they lead one
        with contextlib.suppress(ProcessLookupError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {sorted(left)}"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """A folder for the bots' logs (and working folders) of one test."""
    folder = tmp_path / "logs"
    folder.mkdir()
    return folder
