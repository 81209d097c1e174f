"""A dead arena leaves nothing for long: `arena run` SIGKILLed mid-game in fair mode takes its
core hosts with it and leaves their sealed bots frozen in their cgroups (a frozen process
ignores even SIGKILL, and the dead arena will never thaw it), and the next run kills them,
thawed, and removes the cgroups; checked in /proc and in every cgroup hierarchy mounted (v1 or
v2)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.server.isolation.leftovers import (
    clear,
    fair_and_sealed,
    frozen_mid_game,
    leftovers,
    running,
    sealed_fair_run,
)

pytestmark = pytest.mark.integration


def test_a_killed_arenas_frozen_bots_are_killed_and_its_cgroups_removed_by_the_next_run(
    tmp_path: Path,
) -> None:
    fair_and_sealed()
    log = tmp_path / "killed.log"
    with log.open("wb") as out:
        arena = subprocess.Popen(
            sealed_fair_run(tmp_path / "killed", 300),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    arenas = frozenset({arena.pid})
    try:
        before = frozen_mid_game(arena.pid, arena.poll, log)
        arenas = before.arenas
        cores = len(os.sched_getaffinity(0))  # the games at once, and a core host each
        assert len(arenas) == (1 + cores if cores >= 2 else 1)
        os.kill(arena.pid, signal.SIGKILL)  # a crash: no clean-up of its own
        arena.wait(60)
        give_up = time.monotonic() + 60
        while running(arenas) and time.monotonic() < give_up:
            time.sleep(0.05)
        assert running(arenas) == {}  # the hosts die with the organizer
        left = leftovers(*arenas)
        # Any other arena starting on this machine meanwhile (a test beside this one) cleans up
        # too, so what is still there is looked at only where it still is.
        v1 = any((cgroup / "freezer.state").exists() for cgroup in left.frozen)
        if v1 and running(left.pids):
            assert "D" in running(left.pids).values()  # v1: a frozen process sleeps uninterruptibly
        second = subprocess.run(
            sealed_fair_run(tmp_path / "next", 3, "--max-rounds", "1"),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        assert second.returncode == 0, second.stdout.decode() + second.stderr.decode()
        after = leftovers(*arenas)
        assert after.parents == ()
        assert running(before.pids | left.pids) == {}
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait(60)
        clear(*arenas)
