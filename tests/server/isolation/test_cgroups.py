"""Cgroups for bot processes: a bot enters its cgroup before it runs, its limits are set, and
killing the cgroup takes everything it started, however it hid; only the arena's own cgroups
are touched, and none is left. Both hierarchies: the machine's own (v1 on the machines of `make
test`), and v2 where it is mounted beside them (systemd's hybrid mode: no controllers there, but
cgroup.kill and cgroup.freeze, the v2 way of stopping a bot)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.isolation.cgroups import (
    KEEPER,
    PREFIX,
    BotCgroup,
    CgroupError,
    CgroupLimits,
    RunCgroups,
)
from arena.server.isolation.orphans import reap_adopted_soon
from arena.server.isolation.process import Limits

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

HIDER = """
import os, sys, time
for _ in range(3):  # children that leave the session and lose the environment
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)"], {})
        os._exit(0)
print("hidden", flush=True)
time.sleep(600)
"""


def machine() -> RunCgroups:
    try:
        return RunCgroups.create()
    except CgroupError as why:
        pytest.skip(f"no writable cgroups here: {why}")


def unified() -> RunCgroups:
    mount = Path("/sys/fs/cgroup/unified")
    if not (mount / "cgroup.controllers").exists():
        pytest.skip("no v2 hierarchy beside v1 here (the machine's own is tested instead)")
    try:
        return RunCgroups.create_v2(mount)
    except OSError as error:
        pytest.skip(f"the v2 hierarchy is not writable here: {error}")


async def hide_and_kill(cgroups: RunCgroups) -> tuple[int, set[int], set[int]]:
    """Start a process in a new cgroup through the launch step, let it hide children, kill the
    cgroup: how many members it had, and which are left."""
    cgroup = cgroups.child(CgroupLimits(memory_bytes=256 << 20, pids=64))
    process = await asyncio.create_subprocess_exec(
        *Limits().wrap([sys.executable, "-c", HIDER], cgroup),
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None
    assert await asyncio.wait_for(process.stdout.readline(), 60) == b"hidden\n"
    await asyncio.sleep(0.2)  # the grandchildren have exec'd by now
    members = cgroup.members()
    await cgroup.kill()
    left = cgroup.members()
    await process.wait()
    await reap_adopted_soon(process.pid, members)  # the hidden children were orphaned to us
    cgroup.remove()
    await cgroups.close()
    return process.pid, members, left


@pytest.mark.parametrize("hierarchy", [machine, unified], ids=["machine", "v2-beside-v1"])
def test_killing_a_cgroup_takes_everything_in_it(hierarchy: object) -> None:
    cgroups = hierarchy()  # type: ignore[operator]
    pid, members, left = asyncio.run(hide_and_kill(cgroups))
    assert pid in members and len(members) >= 4  # it and the three it hid
    assert left == set()
    assert all(not parent.exists() for parent in cgroups.parents)


def test_a_bot_s_cgroup_holds_its_limits() -> None:
    cgroups = machine()

    async def scenario() -> dict[str, str]:
        cgroup = cgroups.child(CgroupLimits(memory_bytes=64 << 20, pids=32))
        try:
            found = {}
            for directory in cgroup.directories:
                for name in ("memory.limit_in_bytes", "memory.max", "pids.max"):
                    if (directory / name).exists():
                        found[name] = (directory / name).read_text().strip()
            return found
        finally:
            cgroup.remove()
            await cgroups.close()

    limits = asyncio.run(scenario())
    memory = limits.get("memory.limit_in_bytes", limits.get("memory.max"))
    assert memory == str(64 << 20) and limits["pids.max"] == "32"


def test_a_fork_bomb_stops_at_its_pids_limit() -> None:
    cgroups = machine()
    bomb = "import os\nwhile True:\n    try: os.fork()\n    except OSError: pass\n"

    async def scenario() -> tuple[int, set[int]]:
        cgroup = cgroups.child(CgroupLimits(pids=16))
        process = await asyncio.create_subprocess_exec(
            *Limits().wrap([sys.executable, "-c", bomb], cgroup), start_new_session=True
        )
        await asyncio.sleep(1.0)
        most = len(cgroup.members())
        members = cgroup.members()
        await cgroup.kill()
        left = cgroup.members()
        await process.wait()
        await reap_adopted_soon(process.pid, members)
        cgroup.remove()
        await cgroups.close()
        return most, left

    most, left = asyncio.run(scenario())
    assert 1 <= most <= 16 and left == set()


def test_a_cgroup_left_by_an_arena_that_died_is_removed_by_the_next_one() -> None:
    code = "import os; print(os.getpid())"
    pid = int(subprocess.run([sys.executable, "-c", code], capture_output=True).stdout)
    first = machine()
    stale = [parent.with_name(f"{PREFIX}{pid}-deadbeef") for parent in first.parents]
    for folder in stale:
        folder.mkdir()
        (folder / "bot-1").mkdir()
    asyncio.run(first.close())
    second = machine()
    try:
        assert not any(folder.exists() for folder in stale)
    finally:
        asyncio.run(second.close())
    assert not any(parent.exists() for parent in second.parents)


def test_an_empty_cgroup_is_killed_at_once() -> None:
    cgroups = machine()

    async def scenario() -> None:
        cgroup: BotCgroup = cgroups.child(CgroupLimits())
        await asyncio.wait_for(cgroup.kill(), 1.0)
        cgroup.remove()
        cgroup.remove()  # idempotent
        await cgroups.close()

    asyncio.run(scenario())


def test_a_v1_run_keeps_an_empty_cgroup_frozen_while_it_lasts_and_removes_it() -> None:
    """So that no bot's freeze or thaw is the machine's first or last (see `KEEPER`)."""
    cgroups = machine()
    freezers = [p for p in cgroups.parents if (p / "freezer.state").exists()]
    if cgroups.version != 1 or not freezers:
        asyncio.run(cgroups.close())
        pytest.skip("no v1 freezer here")
    keeper = freezers[0] / KEEPER
    try:
        assert (keeper / "freezer.state").read_text().strip() == "FROZEN"
        assert (keeper / "cgroup.procs").read_text() == ""
    finally:
        asyncio.run(cgroups.close())
    assert not keeper.exists() and not freezers[0].exists()


MEMORY_HOG = """
import os
fd = os.memfd_create("hog")  # shared memory: past the cgroup's limit, not RLIMIT_DATA's
block = b"x" * (1 << 20)
for _ in range(400):
    os.write(fd, block)
print("survived", flush=True)
"""


def test_a_bot_killed_at_its_memory_limit_says_so(tmp_path: Path) -> None:
    """A bare 137 says nothing of memory: the exit line names the limit."""
    from arena.server.isolation.process import BotProcess

    cgroups = machine()

    async def scenario() -> tuple[int, bool, str]:
        try:
            process = await BotProcess.start(
                [sys.executable, "-c", MEMORY_HOG],
                {},
                tmp_path,
                tmp_path / "bot.log",
                1 << 20,
                Limits(memory_bytes=128 << 20),
                cgroups=cgroups,
            )
            status = await asyncio.wait_for(process.wait(), 60)
            await process.stop()
            return status, process.out_of_memory, process.exit_line(status)
        finally:
            await cgroups.close()

    status, out_of_memory, line = asyncio.run(scenario())
    assert status != 0 and out_of_memory
    assert line == (
        f"exited with status {status} (killed at its memory limit: it needs more than "
        "--memory-mb gives)"
    )
    assert "survived" not in (tmp_path / "bot.log").read_text()


def test_a_cgroup_pinned_to_this_threads_own_core_alone_is_known_to_be_beside_it() -> None:
    """A core host and its bots share one core: a freeze's wait then gives the core up at once
    (`settle`), where spinning would only keep the bot's last thread from freezing."""
    cgroups = machine()
    cores = cgroups.cores()
    if not cgroups.pinned or len(cores) < 2:
        pytest.skip("no cpuset, or one core")

    async def scenario() -> tuple[bool, bool, bool]:
        cgroup = cgroups.child(CgroupLimits())
        before = os.sched_getaffinity(0)
        try:
            cgroup.pin(",".join(map(str, cores)))
            floating = cgroup.beside_us  # this thread may run on every core: never beside
            os.sched_setaffinity(0, {cores[0]})
            cgroup.pin(str(cores[0]))
            beside = cgroup.beside_us
            cgroup.pin(str(cores[1]))
            return floating, beside, cgroup.beside_us
        finally:
            os.sched_setaffinity(0, before)
            cgroup.remove()
            await cgroups.close()

    assert asyncio.run(scenario()) == (False, True, False)
