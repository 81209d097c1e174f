"""Hostile bots in real tournaments: whatever one does, the tournament completes, every game ends
exactly as if the fallback had played its seat, the fault is on record, and nothing is left
running or open."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import FaultKind
from arena.server.lobby import BotSpec
from arena.tournament.store import LOGS, REPLAYS
from tests.hostile.conftest import BASE, HOSTILE, faults, games, run

pytestmark = pytest.mark.integration

LOG_CAP = 1 << 20

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


@pytest.mark.parametrize("mode", list(MODES))
def test_a_hostile_bot_changes_nothing_but_its_own_record(
    mode: str,
    reference: list[object],
    tmp_path: Path,
    marker: str,
    no_leftover_processes: None,
    nothing_left: None,
) -> None:
    hostile = BotSpec("hostile", (sys.executable, str(HOSTILE), mode, f"--marker={marker}"))
    config = replace(BASE, bots=(*BASE.bots, hostile), output=tmp_path)
    if mode == "never-connect":  # the wait is the point here: keep it short, not too short,
        # and wait it once: two games at once launch it twice, and two failed starts put it out
        config = replace(config, startup_timeout=8.0, concurrency=2)
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
    # "fork": its children carry the marker, and `nothing_left` finds none of them running.
    if mode == "connect-twice":
        assert "a second connection with its token was refused" in log.read_text()
    assert (tmp_path / REPLAYS).exists()
