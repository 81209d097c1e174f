"""What a dead arena (or a dead cluster worker, which is one) can leave on the machine: its run
cgroups (`arena-<pid>-<random>`, in every hierarchy mounted, v1 or v2) and the bot processes in
them, frozen ones included; in fair mode those of its core hosts too (`arena.tournament.hosts`:
an arena process a core, each with run cgroups of its own). Used by the tests that SIGKILL an
arena and start another run."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.server.isolation.cgroups import PREFIX
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.isolate import isolate
from arena.server.isolation.procfs import process
from arena.server.isolation.sandbox import SandboxMode
from bench.cpu import children, is_host

ARENA = Path(sys.executable).with_name("arena")
"""The `arena` command of the arena's environment."""
BOTS = Path(__file__).parents[3] / "sample_bots" / "python"
PATIENCE = 180.0
"""Seconds a loaded machine may take to get a game under way (a bound, not a measurement)."""
_DEPTH = 6
"""How deep under a mount run parents are looked for (under the arena's own cgroup)."""


@dataclass(frozen=True)
class Leftovers:
    """A dead arena's run parents and the processes still in their bots' cgroups."""

    parents: tuple[Path, ...]
    pids: frozenset[int]
    """The processes in the bots' cgroups."""
    frozen: tuple[Path, ...]
    """Bot cgroups with processes in them whose freezer says they are frozen (v1 `FROZEN`, v2
    `frozen 1`)."""
    arenas: frozenset[int] = frozenset()
    """The arena processes looked at: an arena and its core hosts."""


def mounts() -> list[Path]:
    """Every cgroup hierarchy mounted (v1 controllers and a v2 unified one alike)."""
    found: list[Path] = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        if after.split(" ")[0] in ("cgroup", "cgroup2"):
            found.append(Path(before.split(" ")[4]))
    return found


def run_parents(pid: int) -> list[Path]:
    """The run parents the arena of `pid` made, in every hierarchy."""
    found: list[Path] = []
    for mount in mounts():
        _walk(mount, f"{PREFIX}{pid}-", 0, found)
    return found


def _walk(folder: Path, prefix: str, depth: int, found: list[Path]) -> None:
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.is_dir(follow_symlinks=False):
                continue
            if entry.name.startswith(prefix):
                found.append(Path(entry.path))
            elif depth < _DEPTH and not entry.name.startswith(PREFIX):
                _walk(Path(entry.path), prefix, depth + 1, found)


def with_hosts(pid: int) -> frozenset[int]:
    """The arena of `pid` and its core hosts (`bench.cpu.is_host`)."""
    return frozenset({pid, *(child for child in children(pid) if is_host(child))})


def leftovers(*arenas: int) -> Leftovers:
    """What the arenas of `arenas` left: their run parents, their members, the frozen bot
    cgroups."""
    parents = [parent for pid in arenas for parent in run_parents(pid)]
    pids: set[int] = set()
    frozen: list[Path] = []
    for parent in parents:
        for child in _children(parent):
            members: set[int] = set()
            with contextlib.suppress(OSError, ValueError):
                members = {int(p) for p in (child / "cgroup.procs").read_text().split()}
            pids.update(members)
            if members and _is_frozen(child):  # not the run's empty one (`cgroups.KEEPER`)
                frozen.append(child)
    return Leftovers(tuple(parents), frozenset(pids), tuple(frozen), frozenset(arenas))


def _children(parent: Path) -> list[Path]:
    with contextlib.suppress(OSError):
        return [Path(e.path) for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
    return []


def _is_frozen(cgroup: Path) -> bool:
    with contextlib.suppress(OSError):
        if (cgroup / "freezer.state").exists():
            return (cgroup / "freezer.state").read_text().strip() == "FROZEN"
        if (cgroup / "cgroup.events").exists():
            return "frozen 1" in (cgroup / "cgroup.events").read_text().splitlines()
    return False


def clear(*arenas: int) -> None:
    """Whatever happened in a test, leave nothing of the arenas of `arenas`: kill and thaw every
    member of their bots' cgroups, then remove them (the clean-up under test, done by hand)."""
    for _ in range(500):
        found = leftovers(*arenas)
        if not found.parents:
            return
        for member in found.pids:
            with contextlib.suppress(OSError):
                os.kill(member, signal.SIGKILL)
        for parent in found.parents:
            for child in _children(parent):
                for name, thawed in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                    with contextlib.suppress(OSError):
                        (child / name).write_text(thawed)
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                parent.rmdir()
        time.sleep(0.01)


def running(pids: frozenset[int]) -> dict[int, str]:
    """The pids that still run, with their state letter (a frozen process shows D on v1); a
    zombie waiting for its reaper runs no more."""
    found = [process(pid) for pid in pids]
    return {info.pid: info.state for info in found if info is not None and info.alive}


def fair_and_sealed() -> None:
    """Skip where the machine cannot seal, pin and freeze bots (then nothing is ever frozen)."""

    async def what_is_on() -> tuple[str, ...]:
        async with isolate(SandboxMode.AUTO, CpuMode.AUTO) as isolation:
            return isolation.on

    on = asyncio.run(what_is_on())
    if "sandbox" not in on or "fair CPU" not in on:
        pytest.skip(f"this machine cannot seal and freeze bots (only {', '.join(on)})")


def sealed_fair_run(output: Path, games: int, *extra: str) -> list[str]:
    """`arena run` of three sealed sample bots in fair mode, and `extra` options."""
    bots = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "random", "lowest")]
    command = [str(ARENA), "run", "--players", "3", "--games", str(games), "--quiet"]
    command += ["--cpu", "fair", "--sandbox", "on", "--startup-timeout", "60"]
    command += ["--deadline", "5", "--output", str(output)]
    for bot in bots:
        command += ["--bot", bot]
    return [*command, *extra]


def frozen_mid_game(pid: int, status: Callable[[], int | None], log: Path) -> Leftovers:
    """Wait until the games of the arena of `pid` (or of its core hosts) are under way and some
    bot of it is frozen; `status` says whether that arena still runs (None) and `log` what it
    said."""
    give_up = time.monotonic() + PATIENCE
    while True:
        found = leftovers(*with_hosts(pid))
        if found.frozen and found.pids:
            return found
        assert status() is None, log.read_text()
        assert time.monotonic() < give_up, "no bot of the arena was frozen: " + log.read_text()
        time.sleep(0.05)
