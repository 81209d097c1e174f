"""Isolation's one entry point and its clean-up, without a process: `isolate`'s typed answer
(what is on, what is off and why, never "a value or a string"), the one freeze primitive on v1
and v2 files, and a dead arena's bots killed and thawed (a frozen process takes no SIGKILL until
it is thawed). Cgroup files are stood in for by plain files in a temporary folder."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from arena.server.isolation import cgroups, isolate, sandbox
from arena.server.isolation.cgroups import PREFIX, BotCgroup, CgroupError, RunCgroups
from arena.server.isolation.fairness import CpuMode, FairnessError
from arena.server.isolation.isolate import CGROUPS, SANDBOX, Isolation, Off
from arena.server.isolation.sandbox import NoSandbox, SandboxError, SandboxMode

WHY = "bubblewrap (bwrap) is not installed"
NOT_ROOT = "cannot create cgroups under /sys/fs/cgroup (Permission denied)"


@pytest.fixture
def bare_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with no sandbox and no writable cgroups."""

    async def no_sandbox() -> sandbox.Sandbox:
        raise NoSandbox(WHY)

    def no_cgroups(cls: type[RunCgroups], root: Path = cgroups.ROOT) -> RunCgroups:
        raise CgroupError(NOT_ROOT)

    monkeypatch.setattr(isolate, "find_sandbox", no_sandbox)
    monkeypatch.setattr(RunCgroups, "create", classmethod(no_cgroups))


def entered(mode: SandboxMode, cpu: CpuMode = CpuMode.AUTO, needed: bool = True) -> Isolation:
    async def enter() -> Isolation:
        async with isolate.isolate(mode, cpu, needed=needed) as isolation:
            return isolation

    return asyncio.run(enter())


@pytest.mark.usefixtures("bare_machine")
def test_what_is_off_comes_with_why_and_the_organizers_lines_are_unchanged() -> None:
    isolation = entered(SandboxMode.AUTO)
    assert isolation.sandbox is None and isolation.cgroups is None and not isolation.cpu.fair
    assert isolation.on == ()
    assert isolation.off == (Off(SANDBOX, WHY), Off(CGROUPS, NOT_ROOT))
    assert isolation.sealing.to_dict() == {
        "sealed": False,
        "cgroups": False,
        "notes": [
            f"no sandbox ({WHY})",
            f"no cgroups ({NOT_ROOT}): rlimits and process groups only",
        ],
    }
    assert isolation.cpu.note == f"fair CPU is unavailable (no cgroups: {NOT_ROOT})"
    assert entered(SandboxMode.OFF).off[0] == Off(SANDBOX, "--sandbox off")


@pytest.mark.usefixtures("bare_machine")
def test_what_the_organizer_asked_for_outright_is_refused_in_one_line() -> None:
    with pytest.raises(SandboxError) as sealed:
        entered(SandboxMode.ON)
    assert str(sealed.value) == f"--sandbox on, but {WHY}"
    with pytest.raises(FairnessError, match=r"^--cpu fair needs no cgroups: cannot create"):
        entered(SandboxMode.AUTO, CpuMode.FAIR)


def test_nothing_to_build_probes_and_makes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: object) -> None:
        raise AssertionError("probed or made with nothing to isolate")

    monkeypatch.setattr(isolate, "find_sandbox", never)
    monkeypatch.setattr(RunCgroups, "create", never)
    isolation = entered(SandboxMode.ON, CpuMode.FAIR, needed=False)
    assert isolation.on == () and {off.part for off in isolation.off} == {SANDBOX, CGROUPS}


def v1_bot(folder: Path, state: str = "THAWED", members: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "freezer.state").write_text(state)
    (folder / "cgroup.procs").write_text(members)
    return folder


def test_the_one_freeze_primitive_on_v1_and_v2(tmp_path: Path) -> None:
    v1 = BotCgroup((v1_bot(tmp_path / "v1"),), 1)
    assert asyncio.run(v1.freeze(patience=0.0))  # the stand-in shows FROZEN as soon as written
    assert (tmp_path / "v1" / "freezer.state").read_text() == "FROZEN"
    assert v1.thaw() and (tmp_path / "v1" / "freezer.state").read_text() == "THAWED"
    v2_folder = tmp_path / "v2"
    v2_folder.mkdir()
    (v2_folder / "cgroup.freeze").write_text("0")
    (v2_folder / "cgroup.events").write_text("populated 1\nfrozen 0\n")
    v2 = BotCgroup((v2_folder,), 2)
    assert not asyncio.run(v2.freeze(patience=0.0))  # written, but the kernel has not said so
    assert (v2_folder / "cgroup.freeze").read_text() == "1"
    (v2_folder / "cgroup.events").write_text("populated 1\nfrozen 1\n")
    assert asyncio.run(v2.freeze(patience=0.0))
    assert v2.thaw() and (v2_folder / "cgroup.freeze").read_text() == "0"
    assert not BotCgroup((tmp_path,), 1).thaw()  # no freezer: nothing to say it did


def test_a_dead_arenas_frozen_bots_are_killed_then_thawed_and_a_live_ones_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead_pid = 4_000_000  # above any pid_max: no arena runs as it
    dead = tmp_path / f"{PREFIX}{dead_pid}-0123abcd"
    live = tmp_path / f"{PREFIX}{os.getpid()}-0123abcd"
    frozen = v1_bot(dead / "bot-1", "FROZEN", "4000001\n4000002\n")
    mine = v1_bot(live / "bot-1", "FROZEN", "4000003\n")
    sent: list[tuple[int, int, str]] = []

    def kill(pid: int, number: int) -> None:
        sent.append((pid, number, (frozen / "freezer.state").read_text()))

    monkeypatch.setattr(os, "kill", kill)
    stale = [p for p in tmp_path.iterdir() if not cgroups._runs(p.name)]
    assert stale == [dead]
    assert not cgroups._sweep(stale, 1)  # stand-in folders hold files: never removed here
    assert sorted(pid for pid, _, _ in sent) == [4000001, 4000002]
    assert {number for _, number, _ in sent} == {signal.SIGKILL}
    assert (frozen / "freezer.state").read_text() == "THAWED"  # so that the kills land
    assert (mine / "freezer.state").read_text() == "FROZEN"
