"""Fixtures shared by the tests that start servers and processes, and the check that every such
test says so with the `integration` marker (so that `pytest -m "not integration"` stays fast)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from arena.server.isolation.procfs import processes

# Hypothesis without its two clocks: a test's deadline and the health check that fails a test
# whose inputs come slowly are both wall time, which a loaded machine stretches (a matchmaking
# property failed `too_slow` beside the ladder's tests); what each property asserts is unchanged.
settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("suite")

ALONE = (
    "tests/tournament/test_fair_cpu.py",
    "tests/server/test_faults.py",
    "tests/server/isolation/test_fairness.py",
    "tests/anybot/test_checkbot.py",
)
"""Test files whose bots play at tight deadlines (0.3 s and less):
they are marked `alone`, and `make test` runs them after the rest, in one process, so that the
suite's own parallel workers never double the load their deadlines are measured under."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of an `ALONE` file `alone`."""
    root = Path(__file__).resolve().parents[1]
    for item in items:
        if item.path.resolve().relative_to(root).as_posix() in ALONE:
            item.add_marker(pytest.mark.alone)


@pytest.fixture(autouse=True)
def _integration_is_marked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Fail a test that starts a process or a gRPC server without `@pytest.mark.integration`.

    The test itself runs unchanged: what it starts is only noted, and the test fails at teardown
    naming it. Every way of starting a program here (subprocess, asyncio, Playwright) goes through
    `subprocess.Popen._execute_child`; every server through `grpc.server` or `grpc.aio.server`.
    """
    if request.node.get_closest_marker("integration") is not None:
        yield
        return
    started: list[str] = []

    def noting(what: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started.append(what if what != "a process" else f"a process {args[1]!r}")
            return real(*args, **kwargs)

        return wrapper

    execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]  # private, stable
    monkeypatch.setattr(subprocess.Popen, "_execute_child", noting("a process", execute))
    grpc = sys.modules.get("grpc")  # only if imported already: this check loads nothing
    if grpc is not None:
        monkeypatch.setattr(grpc, "server", noting("a gRPC server", grpc.server))
        monkeypatch.setattr(grpc.aio, "server", noting("a gRPC server", grpc.aio.server))
    yield
    if started:
        pytest.fail(
            f"this test started {', '.join(started)}: mark it @pytest.mark.integration",
            pytrace=False,
        )


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for a module's browser tests (`tests/browser.py`: a loud failure when it
    is missing), closed after the module; each test opens its own pages in it."""
    from tests.browser import launch

    with launch() as chromium:
        yield chromium
