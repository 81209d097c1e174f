"""What the hostile suite shares: the small tournament every attack plays in, the reference run
where the fallback itself holds the hostile seat, and the checks that nothing an attack started
outlives its test (a process, a cgroup) and that the machine can seal bots at all."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.server.isolation.cgroups import PREFIX, ROOT
from arena.server.isolation.procfs import process, processes
from arena.server.isolation.sandbox import NoSandbox, SandboxMode, find_sandbox
from arena.server.lobby import BotSpec
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import REPLAYS

ROOT_FOLDER = Path(__file__).parents[2]
HOSTILE = ROOT_FOLDER / "tests" / "bots" / "hostile_bot.py"
SAMPLES = ROOT_FOLDER / "sample_bots" / "python"

BASE = TournamentConfig(
    bots=(
        parse_bot(f"heuristic={SAMPLES / 'heuristic_bot.py'}"),
        parse_bot(f"random={SAMPLES / 'random_bot.py'}"),
    ),
    players=3,
    games=3,
    seed=5,
    deadline=1.5,  # generous: the well-behaved bots must never time out on a loaded machine
    first_deadline=3.0,
    max_faults=2,  # asked again after a first fault (a late answer meets the next request),
    # put out at the second: each fault of a hung bot is a deadline waited out
    startup_timeout=20.0,  # generous: Python bots starting at once on a loaded machine
    memory_mb=256,
    reuse_processes=True,
    concurrency=1,
)
"""One deal at one table of three, its three seat rotations played one after another by one
process of each bot (a new one only after a crash): starting a bot costs more CPU than all three
games, and what is attacked here is the arena, not the rotations' separation, which `test_sealed`
shows with a process per rotation."""
SEALED = replace(BASE, sandbox=SandboxMode.ON)
"""The attacks on the machine run sealed or not at all: unsealed, some would reach the test."""


def run(config: TournamentConfig) -> RunSummary:
    return asyncio.run(run_tournament(config))


def games(output: Path) -> list[object]:
    """Every game's record, in schedule order: what must not change."""
    lines = (output / REPLAYS).read_text().splitlines()
    return [json.loads(line)["record"] for line in lines]


def faults(output: Path) -> list[object]:
    """Every fault of a run, for failure messages."""
    lines = (output / REPLAYS).read_text().splitlines()
    return [fault for line in lines for fault in json.loads(line)["faults"]]


def fallback_seat(config: TournamentConfig, output: Path) -> RunSummary:
    """`config`'s tournament with the fallback itself (the lowest bot) in the hostile seat."""
    lowest = BotSpec("hostile", (sys.executable, str(SAMPLES / "lowest_bot.py")))
    summary = run(replace(config, bots=(*config.bots, lowest), output=output))
    assert summary.played == summary.total == 3
    assert all(b.faults == 0 for b in summary.standings.bots), faults(output)
    return summary


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[object]:
    """The games of BASE with the fallback in the hostile seat: what every attack must leave."""
    output = tmp_path_factory.mktemp("reference")
    fallback_seat(BASE, output)
    return games(output)


@pytest.fixture(scope="session")
def sealed() -> None:
    """Skip, saying why, where this machine cannot seal bots (no bubblewrap, no namespaces):
    `make test` installs bubblewrap, so on the machines it runs on this never skips."""
    try:
        asyncio.run(find_sandbox())
    except NoSandbox as why:
        pytest.skip(f"this machine cannot seal bots: {why}")


@pytest.fixture
def marker() -> str:
    """A word an attack puts on the command line of every process it leaves behind."""
    return f"arena-escapee-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def nothing_left(marker: str) -> Iterator[None]:
    """Fail a test that leaves anything of the bots behind: a process this test process started
    (at any depth: a sealed bot runs under its sandbox, an escapee anywhere) or one carrying the
    test's marker, and a cgroup of this arena's; and stop what it left."""
    before = _descendants()
    yield
    started = _descendants() - before
    left = [
        p.pid for p in processes() if p.alive and (p.pid in started or marker in _command(p.pid))
    ]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    cgroups = _our_cgroups()
    assert not left, f"processes left running: {[_command(pid) for pid in left]}"
    assert not cgroups, f"cgroups left: {cgroups}"


def _descendants() -> set[int]:
    """Every live process below this one in the process tree."""
    children: dict[int, list[int]] = {}
    for info in processes():
        if info.alive:
            children.setdefault(info.ppid, []).append(info.pid)
    found: set[int] = set()
    todo = [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _our_cgroups() -> list[str]:
    """The cgroups this test process's arenas made (beside this process, in every hierarchy)
    that are still there."""
    mine = f"{PREFIX}{os.getpid()}-*"
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    own = {line.split(":", 2)[2].strip("/") for line in lines}
    found = []
    for hierarchy in ROOT.iterdir() if ROOT.is_dir() else []:
        for path in own:
            with contextlib.suppress(OSError):
                found += [str(cgroup) for cgroup in (hierarchy / path).glob(mine)]
    return found


def alive(pid: int) -> bool:
    info = process(pid)
    return info is not None and info.alive


def attacks(log: Path) -> list[str]:
    """The attack lines of a hostile bot's log: `attack MODE: blocked|SUCCEEDED: ...`."""
    return [line for line in log.read_text().splitlines() if line.startswith("attack ")]
