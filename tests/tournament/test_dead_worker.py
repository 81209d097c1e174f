"""A dead cluster worker leaves nothing for long: a `dask worker` SIGKILLed while its sealed
bots sit frozen in fair mode (a frozen process ignores even SIGKILL, and the dead worker will
never thaw it) costs the tournament nothing, and once the next run has started, no process and
no cgroup of that worker is left; checked in /proc and every cgroup hierarchy (v1 or v2)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from arena.tournament.store import REPLAYS
from tests.server.isolation.leftovers import (
    Leftovers,
    clear,
    fair_and_sealed,
    frozen_mid_game,
    leftovers,
    running,
    sealed_fair_run,
)
from tests.tournament.test_cluster import dask_cluster

pytestmark = pytest.mark.integration

GAMES = 24
"""Enough that both workers hold games when the first frozen bot is seen (and the killed one's
are played again by the other), few enough to be over in seconds."""
SHORT = ("--max-rounds", "1", "--reuse-processes")
"""One round a game, one process a bot (on each worker): what is tested is what a dead worker
leaves, not whole games or sealing each seat rotation apart (an idle bot stays frozen between
games all the same, so the worker is killed as soon as it has played its first decisions)."""


def test_a_killed_workers_frozen_bots_are_gone_once_the_next_run_starts(tmp_path: Path) -> None:
    fair_and_sealed()
    with dask_cluster(tmp_path / "dask") as cluster:
        worker = cluster.workers["w1"]
        try:
            seen: list[Leftovers] = []

            def kill_once_frozen() -> None:
                seen.append(frozen_mid_game(worker.pid, worker.poll, tmp_path / "dask/w1.log"))
                cluster.kill("w1")

            killer = threading.Thread(target=kill_once_frozen, daemon=True)
            killer.start()
            tournament = subprocess.run(
                sealed_fair_run(tmp_path / "out", GAMES, "--cluster", cluster.address, *SHORT),
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=900,
            )
            killer.join(60)
            assert seen, "the worker never had a frozen bot"
            assert tournament.returncode == 0, tournament.stderr.decode()
            assert len((tmp_path / "out" / REPLAYS).read_text().splitlines()) == GAMES
            left = seen[0]
            next_run = subprocess.run(
                sealed_fair_run(tmp_path / "next", 3, *SHORT),
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=600,
            )
            assert next_run.returncode == 0, next_run.stderr.decode()
            assert leftovers(worker.pid).parents == ()
            assert running(left.pids) == {}
        finally:
            clear(worker.pid)
