"""Hostile bots in real tournaments: whatever one does, the tournament completes, every game ends
exactly as if the fallback had played its seat, the fault is on record, and nothing is left
running or open."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import FaultKind
from arena.server.lobby import BotSpec
from arena.server.procfs import process
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import LOGS, REPLAYS, WORK

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile_bot.py"
SAMPLES = ROOT / "sample_bots" / "python"
LOG_CAP = 1 << 20

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
    max_faults=3,
    startup_timeout=20.0,  # six Python bots may start at once on two cores
    memory_mb=256,
    concurrency=2,
)

# mode -> the fault kinds its tournament must record (empty: no game fault, see the README)
MODES: dict[str, set[FaultKind]] = {
    "hang": {FaultKind.TIMEOUT},
    "sleep": {FaultKind.TIMEOUT},
    "exit": {FaultKind.CRASHED},
    "kill": {FaultKind.CRASHED},
    "close": {FaultKind.CRASHED},
    "never-connect": {FaultKind.NOT_CONNECTED},
    "garbage": {FaultKind.CRASHED},
    "huge": {FaultKind.CRASHED},
    "twice": {FaultKind.MALFORMED},
    "unsolicited": {FaultKind.MALFORMED},
    "bad-card": {FaultKind.ILLEGAL},
    "bad-row": {FaultKind.ILLEGAL},
    "flood": set(),
    "fork": set(),
    "memory": {FaultKind.CRASHED},
    "spin": {FaultKind.TIMEOUT},
    "no-token": {FaultKind.NOT_CONNECTED},
    "wrong-token": {FaultKind.NOT_CONNECTED},
    "connect-twice": set(),
}


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


def open_files(folder: Path) -> list[str]:
    """Files under `folder` that this process still holds open (its logs, its database).

    Only those: gRPC's own pollers and sockets come and go with its internals."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed while we looked
            continue
        if target.startswith(str(folder)):
            held.append(target)
    return held


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[object]:
    """The tournament with the fallback itself (the lowest bot) in the hostile seat."""
    output = tmp_path_factory.mktemp("reference")
    lowest = BotSpec("hostile", (sys.executable, str(SAMPLES / "lowest_bot.py")))
    summary = run(replace(BASE, bots=(*BASE.bots, lowest), output=output))
    assert summary.played == 3
    assert all(b.faults == 0 for b in summary.standings.bots), faults(output)
    return games(output)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_hostile_bot_changes_nothing_but_its_own_record(
    mode: str, reference: list[object], tmp_path: Path, no_leftover_processes: None
) -> None:
    hostile = BotSpec("hostile", (sys.executable, str(HOSTILE), mode))
    config = replace(BASE, bots=(*BASE.bots, hostile), output=tmp_path)
    if mode == "never-connect":  # the wait is the point here: keep it short, not too short
        config = replace(config, startup_timeout=8.0)
    summary = run(config)

    assert summary.played == summary.total == 3 and not summary.interrupted
    standing = {bot.bot: bot for bot in summary.standings.bots}
    assert standing["heuristic"].faults == standing["random"].faults == 0, faults(tmp_path)
    assert games(tmp_path) == reference, "the games differ from the fallback's"
    kinds = set(standing["hostile"].faults_by_kind)
    assert kinds >= {str(kind) for kind in MODES[mode]}, standing["hostile"].faults_by_kind
    assert open_files(tmp_path) == [], "the run left files open"

    log = tmp_path / LOGS / "hostile.log"
    assert log.stat().st_size <= LOG_CAP + 200
    if mode == "fork":
        survivors = (tmp_path / WORK / "hostile" / "survivors.txt").read_text().split()
        assert survivors and all(not _alive(int(pid)) for pid in survivors)
    if mode == "connect-twice":
        assert "a second connection with its token was refused" in log.read_text()
    assert (tmp_path / REPLAYS).exists()


def _alive(pid: int) -> bool:
    info = process(pid)
    return info is not None and info.alive
