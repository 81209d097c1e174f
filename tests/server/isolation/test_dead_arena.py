"""A dead arena leaves nothing for long: `arena run` SIGKILLed mid-game in fair mode leaves its
sealed bots frozen in their cgroups (a frozen process ignores even SIGKILL, and the dead arena
will never thaw it), and the next run kills them, thawed, and removes the cgroups; checked in
/proc and in every cgroup hierarchy mounted (v1 or v2)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.isolate import isolate
from arena.server.isolation.sandbox import SandboxMode
from tests.server.isolation.leftovers import Leftovers, clear, leftovers, process_state

pytestmark = pytest.mark.integration

ARENA = Path(sys.executable).with_name("arena")
BOTS = Path(__file__).parents[3] / "sample_bots" / "python"
PATIENCE = 180.0
"""Seconds a loaded machine may take to get a game under way (a bound, not a measurement)."""


def fair_and_sealed() -> None:
    """Skip where the machine cannot seal, pin and freeze bots (then nothing is ever frozen)."""

    async def what_is_on() -> tuple[str, ...]:
        async with isolate(SandboxMode.AUTO, CpuMode.AUTO) as isolation:
            return isolation.on

    on = asyncio.run(what_is_on())
    if "sandbox" not in on or "fair CPU" not in on:
        pytest.skip(f"this machine cannot seal and freeze bots (only {', '.join(on)})")


def arena_run(output: Path, games: int) -> list[str]:
    """`arena run` of sealed sample bots in fair mode."""
    bots = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "random", "lowest")]
    command = [str(ARENA), "run", "--players", "3", "--games", str(games), "--quiet"]
    command += ["--cpu", "fair", "--sandbox", "on", "--startup-timeout", "60"]
    command += ["--deadline", "5", "--output", str(output)]
    for bot in bots:
        command += ["--bot", bot]
    return command


def frozen_mid_game(arena: subprocess.Popen[bytes], log: Path) -> Leftovers:
    """Wait until the arena's games are under way and some bot of it is frozen."""
    give_up = time.monotonic() + PATIENCE
    while True:
        found = leftovers(arena.pid)
        if found.frozen and found.pids:
            return found
        assert arena.poll() is None, log.read_text()
        assert time.monotonic() < give_up, "no bot of the arena was frozen: " + log.read_text()
        time.sleep(0.05)


def gone(pids: frozenset[int]) -> dict[int, str]:
    """The pids that still run (a zombie waiting for init to reap it runs no more)."""
    return {pid: state for pid in pids if (state := process_state(pid)) not in ("", "Z")}


def test_a_killed_arenas_frozen_bots_are_killed_and_its_cgroups_removed_by_the_next_run(
    tmp_path: Path,
) -> None:
    fair_and_sealed()
    log = tmp_path / "killed.log"
    with log.open("wb") as out:
        arena = subprocess.Popen(
            arena_run(tmp_path / "killed", 300),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        frozen_mid_game(arena, log)
        os.kill(arena.pid, signal.SIGKILL)  # a crash: no clean-up of its own
        arena.wait(60)
        left = leftovers(arena.pid)
        assert left.frozen and gone(left.pids), "the killed arena left nothing to clean up"
        if any((cgroup / "freezer.state").exists() for cgroup in left.frozen):
            assert "D" in gone(left.pids).values()  # v1: a frozen process sleeps uninterruptibly
        second = subprocess.run(
            arena_run(tmp_path / "next", 3) + ["--max-rounds", "1"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        assert second.returncode == 0, second.stdout.decode() + second.stderr.decode()
        after = leftovers(arena.pid)
        assert after.parents == ()
        assert gone(left.pids) == {}
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait(60)
        clear(arena.pid)
