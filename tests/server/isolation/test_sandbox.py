"""The sandbox: what of the machine a sealed bot's command exposes, how the bwrap command is
built, and what a sealed process really sees (its uid, its /proc, its folders, no network)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from arena.server.isolation.cgroups import CgroupError, RunCgroups
from arena.server.isolation.process import BotProcess, Limits
from arena.server.isolation.procfs import processes
from arena.server.isolation.sandbox import (
    HOME,
    SCRATCH_BYTES,
    SOCKET,
    NoSandbox,
    Sandbox,
    Seal,
    allocate_uids,
    exposures,
    find_sandbox,
    system_view,
)

ROOT = Path(__file__).resolve().parents[3]


def test_a_command_exposes_the_folders_of_the_files_it_names(tmp_path: Path) -> None:
    bot = tmp_path / "bot" / "main.py"
    bot.parent.mkdir()
    bot.write_text("")
    data = tmp_path / "weights"
    data.mkdir()
    found = exposures(["python3", str(bot), str(data), "--level=3", "relative.py"], [])
    assert found == (bot.parent, data)


def test_a_folder_that_holds_the_arena_s_output_is_never_exposed_nor_is_the_root(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("")
    logs = tmp_path / "out" / "logs"
    assert exposures([str(bot)], [logs]) == (bot,)  # the file alone
    assert exposures(["/"], []) == ()


def test_a_symlinked_program_exposes_its_real_folder_too(tmp_path: Path) -> None:
    real = tmp_path / "real" / "bot"
    real.parent.mkdir()
    real.write_text("")
    link = tmp_path / "links" / "bot"
    link.parent.mkdir()
    link.symlink_to(real)
    assert set(exposures([str(link)], [])) == {link.parent, real.parent}


def test_every_sealed_process_sees_the_arena_package_and_the_protocol() -> None:
    """What a sealed bot imports (the SDK) and loads (the proto): where they are, computed from
    the sandbox module's own place in the package, which moved once already."""
    readable, _ = system_view()
    assert ROOT / "arena" in readable and ROOT / "proto" in readable


def test_uids_skip_the_machine_s_accounts() -> None:
    assert 0 not in allocate_uids(3, first=0)  # root is an account everywhere
    assert len(set(allocate_uids(5))) == 5


SANDBOX = Sandbox(
    "/usr/bin/bwrap", "/usr/bin/setpriv", (Path("/usr"),), (("lib", Path("usr/lib")),)
)


def test_the_scratch_folders_are_mounted_before_what_is_bound_into_them() -> None:
    argv = SANDBOX.wrap(["python3", "/tmp/bots/a.py"], Seal(61000, (Path("/tmp/bots"),)))
    tmpfs = argv.index("/tmp", argv.index("--tmpfs") - 1)
    bind = argv.index("/tmp/bots")
    assert tmpfs < bind
    assert argv[argv.index("--chdir") + 1] == str(HOME)
    assert argv[-2:] == ["python3", "/tmp/bots/a.py"]


def test_as_root_the_bot_drops_to_its_own_uid_with_nothing_else() -> None:
    argv = SANDBOX.wrap(["bot"], Seal(61007, socket=Path("/x/b.sock")))
    step = argv[argv.index("/usr/bin/setpriv") :]
    assert step[:8] == [
        "/usr/bin/setpriv",
        "--reuid=61007",
        "--regid=61007",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]
    assert ["--ro-bind", "/x/b.sock", str(SOCKET)] == argv[
        argv.index("/x/b.sock") - 1 : argv.index("/x/b.sock") + 2
    ]
    for namespace in ("pid", "net", "ipc", "uts"):
        assert f"--unshare-{namespace}" in argv


def test_without_root_a_user_namespace_maps_the_bot_s_uid() -> None:
    unprivileged = Sandbox("/usr/bin/bwrap", None, (Path("/usr"),), ())
    argv = unprivileged.wrap(["bot"], Seal(61003))
    assert argv[argv.index("--uid") + 1] == "61003" and "--unshare-user" in argv
    assert "setpriv" not in " ".join(argv)


FACTS = """
import json, os, socket
facts = {"uid": os.getuid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
         "cwd": os.getcwd(), "home": os.environ.get("HOME")}
for name, path in (("usr", "/usr/x"), ("in_home", os.path.expanduser("~/x")), ("own", __OWN__)):
    try:
        open(path, "w").write("x")
        facts[name] = "written"
    except OSError as error:
        facts[name] = error.strerror
facts["hidden"] = os.path.exists(__HIDDEN__)
try:
    socket.create_connection(("127.0.0.1", 22), 1)
    facts["net"] = "connected"
except OSError as error:
    facts["net"] = error.strerror
statvfs = os.statvfs(os.path.expanduser("~"))
facts["home_bytes"] = statvfs.f_blocks * statvfs.f_frsize
print(json.dumps(facts))
"""


def sandbox_or_skip() -> Sandbox:
    """This machine's sandbox; the test is skipped, saying why, where it cannot seal."""
    try:
        return asyncio.run(find_sandbox())
    except NoSandbox as why:
        pytest.skip(f"this machine cannot seal: {why}")


async def start_sealed(
    found: Sandbox, script: str, log: Path, seal: Seal, cgroups: RunCgroups | None = None
) -> BotProcess:
    """`python -c script` started sealed as `seal` says, its output in `log`."""
    return await BotProcess.start(
        [sys.executable, "-c", script],
        {"PATH": os.environ["PATH"]},
        log.parent,
        log,
        1 << 20,
        Limits(),
        sandbox=found,
        seal=seal,
        cgroups=cgroups,
    )


@pytest.mark.integration
def test_a_sealed_process_sees_only_what_its_seal_allows(tmp_path: Path) -> None:
    found = sandbox_or_skip()
    own = tmp_path / "own"
    own.mkdir()
    hidden = tmp_path / "hidden.txt"
    hidden.write_text("secret")
    script = FACTS.replace("__OWN__", repr(str(own / "x"))).replace("__HIDDEN__", repr(str(hidden)))

    async def scenario() -> dict[str, object]:
        log = tmp_path / "bot.log"
        process = await start_sealed(found, script, log, Seal(61000, readable=(own,)))
        try:
            await asyncio.wait_for(process.wait(), 60)
        finally:
            await process.stop()
        facts: dict[str, object] = json.loads(log.read_text().splitlines()[-1])
        return facts

    facts = asyncio.run(scenario())
    assert facts["uid"] == 61000
    assert len(facts["pids"]) <= 3  # type: ignore[arg-type]  # the sandbox's init and itself
    assert facts["cwd"] == facts["home"] == str(HOME)
    assert facts["in_home"] == "written"  # its own, in memory
    assert facts["usr"] != "written" and facts["own"] != "written"  # read-only
    assert facts["hidden"] is False
    assert facts["net"] != "connected"
    assert facts["home_bytes"] == SCRATCH_BYTES


@pytest.mark.integration
@pytest.mark.usefixtures("no_leftover_processes")
@pytest.mark.parametrize("in_cgroup", [False, True], ids=["no-cgroup", "cgroup"])
def test_a_sealed_bot_stopped_mid_run_leaves_no_zombie(tmp_path: Path, in_cgroup: bool) -> None:
    """bwrap's inner half leads a session of its own and outlives its outer half for a moment:
    orphaned to the arena (their subreaper), it must be reaped there, or a ladder that runs for
    weeks fills the process table with the dead. The bot's own child dies with it."""
    found = sandbox_or_skip()
    script = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('up', flush=True); time.sleep(60)"
    )

    async def scenario() -> int:
        cgroups = RunCgroups.create() if in_cgroup else None
        log = tmp_path / "bot.log"
        try:
            process = await start_sealed(found, script, log, Seal(61000), cgroups)
            try:
                while not log.exists() or "up" not in log.read_text():
                    await asyncio.sleep(0.02)
            finally:
                await process.stop(grace=0.2)
        finally:
            if cgroups is not None:
                await cgroups.close()
        return process.pid

    def dead() -> set[int]:
        return {p.pid for p in processes() if p.ppid == os.getpid() and not p.alive}

    before = dead()
    try:
        pid = asyncio.run(scenario())
    except CgroupError as why:
        pytest.skip(f"no writable cgroups here: {why}")
    assert dead() - before == set(), f"zombies of the sealed bot {pid}"
