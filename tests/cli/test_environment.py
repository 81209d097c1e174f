"""No tracebacks for what a user can cause: a read-only output folder, a full disk, a read-only
folder given to `arena report` and `arena replay`, Ctrl-C or SIGTERM during the builds. Each
gives one line naming the problem and the fix, a non-zero exit, and keeps the games stored.

The read-only and full folders are real: a tmpfs (tiny, or mounted read-only) in a mount
namespace of the test's own (`unshare`), which vanishes with it, so nothing is left mounted.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.exits import environment_problem
from arena.server.isolation.procfs import processes

ROOT = Path(__file__).parents[2]
SAMPLES = ROOT / "sample_bots" / "python"
ARENA = shlex.join([sys.executable, "-m", "arena.cli"])


def bots(*names: str) -> str:
    return " ".join(f"--bot {name}={SAMPLES / f'{name}_bot.py'}" for name in names)


BOTS = bots("lowest", "random", "heuristic")
ONE_TABLE = f"{bots('lowest', 'random')} --players 2 --concurrency 1 --reuse-processes"
"""One table, one game at a time: each bot is started once (what is tested is the folder)."""


def namespace(script: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run a shell script as root of a user and mount namespace of its own: what it mounts is
    gone when it ends. Skipped, saying why, where the machine allows no such namespace."""
    if shutil.which("unshare") is None:
        pytest.skip("SKIPPED LOUDLY: no unshare(1): cannot make a read-only or full folder")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"SKIPPED LOUDLY: no user namespaces here: {probe.stderr.decode().strip()}")
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


def one_line(result: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The one line of explanation a failed command printed, checked to be no traceback."""
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.integration
def test_a_read_only_output_folder_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    result = namespace(
        f"mount -t tmpfs -o ro tmpfs {folder} && "
        f"exec {ARENA} run {BOTS} --players 2 --max-rounds 1 --quiet --output {folder}/out"
    )
    line = one_line(result)
    assert line == (
        f"Error: cannot write {folder}/out: Read-only file system: choose a folder you can "
        "write to with --output"
    )


@pytest.mark.integration
def test_report_and_replay_of_a_read_only_folder(tmp_path: Path) -> None:
    """A finished tournament, archived read-only: both read it (SQLite's WAL needs a file it
    cannot make there), and the report says where else to write its page."""
    output = tmp_path / "out"
    played = subprocess.run(
        [
            *shlex.split(ARENA),
            "run",
            *shlex.split(ONE_TABLE),
            "--max-rounds",
            "1",
            "--quiet",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    assert not list(output.glob("results.sqlite-*")), "a finished run leaves no WAL files"
    elsewhere = tmp_path / "page.html"
    mount = f"mount --bind {output} {output} && mount -o remount,ro,bind {output}"
    result = namespace(
        f"{mount} && {ARENA} report {output}; echo status $?; "
        f"{ARENA} report {output} -o {elsewhere} && {ARENA} replay {output} --game 1"
    )
    assert result.returncode == 0, result.stderr
    assert "status 2" in result.stdout
    assert (
        f"Error: cannot write {output}/report.html: Read-only file system: write the page "
        "elsewhere with -o FILE"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    assert elsewhere.is_file() and "Game t000-d00-r0" in result.stdout


@pytest.mark.integration
def test_a_full_disk_is_one_line_and_keeps_the_games(tmp_path: Path) -> None:
    """The disk fills mid-run: one line, exit 2, every game saved before kept; the same
    command, given room, carries on from them to the whole tournament."""
    folder, kept = tmp_path / "full", tmp_path / "kept"
    folder.mkdir()
    # 18 games (three tables of two, six games each) outgrow 300 KiB: it fills after about five,
    # the results' WAL growing some 50 KiB with each game stored (seed 1, one round a game).
    run = f"{ARENA} run {BOTS} --players 2 --games 6 --max-rounds 1 --seed 1 --quiet"
    run += " --concurrency 1 --reuse-processes"  # each bot started once (again if need be)
    result = namespace(
        f"mount -t tmpfs -o size=300k tmpfs {folder} && "
        f"{run} --output {folder}/out; echo status $?; cp -a {folder}/out {kept}"
    )
    assert "status 2" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert "the disk is full" in line and "free some space" in line
    assert "the games stored are kept, and the same command carries on from them" in line
    with sqlite3.connect(kept / "results.sqlite") as db:
        stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 0 < stored < 18
    resumed = subprocess.run(
        [*shlex.split(run), "--json", "--output", str(kept)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["games"] == {
        "stored": 18,
        "planned": 18,
        "played": 18 - stored,  # only what the full disk had left unplayed
        "tournament": 18,
    }


@pytest.mark.integration
def test_sigterm_during_the_builds_stops_them_and_exits_130(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    root = tmp_path / "submissions"
    for name in ("one", "two"):
        (root / name).mkdir(parents=True)
        (root / name / "bot.toml").write_text(
            f'command = "bot.py"\nbuild = "echo building {name}; sleep 61.25"\n'
        )
        (root / name / "bot.py").write_text("")
    output = tmp_path / "out"
    process = subprocess.Popen(
        [*shlex.split(ARENA), "run", "--submissions", str(root), "--output", str(output)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        log = output / "logs" / "one.log"
        # Waits for the build to run, not for a time: pytest's timeout ends a hang.
        while process.poll() is None and "building one" not in (
            log.read_text() if log.exists() else ""
        ):
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted during the builds: nothing was played" in err
    assert "Traceback" not in err
    assert not [p.pid for p in processes() if p.alive and "61.25" in command_line(p.pid)], (
        "a build outlived the run"
    )


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_arena_play_with_one_bot_is_one_line() -> None:
    result = CliRunner().invoke(main, ["play", "--bot", str(SAMPLES / "lowest_bot.py")])
    assert result.exit_code == 2
    assert "a game needs 2 to 10 players: give another --bot" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (OSError(errno.EROFS, "Read-only file system", "/x"), "cannot write /x: Read-only file"),
        (OSError(errno.EACCES, "Permission denied", "/x"), "cannot write /x: Permission denied"),
        (OSError(errno.ENOSPC, "No space left on device"), "the disk is full"),
        (OSError(errno.EFBIG, "File too large", "/x"), "the disk is full"),
        (sqlite3.OperationalError("database or disk is full"), "the disk is full"),
        (sqlite3.OperationalError("disk I/O error"), "is the disk full?"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "FIX"),
        (sqlite3.OperationalError("database is locked"), "another `arena run`"),
        (sqlite3.DatabaseError("file is not a database"), "choose another --output folder"),
    ],
)
def test_every_os_and_sqlite_error_is_one_line_with_its_fix(
    error: OSError | sqlite3.Error, message: str
) -> None:
    line = environment_problem(error, "FIX")
    assert message in line and "\n" not in line
