"""Sealed bots (issue 13): one real tournament per attack a bot can make on the machine, beside
the sample bots. Each bot attacks as an author who has read this repository would, told where
the output folder is: it steals tokens, signals and renices everything it can see, reads and
rewrites the results, writes outside its folder and through its log, reads the other
submissions, the seed and the earlier rotations, leaves processes behind, floods the arena with
connections that never say hello, reaches for the network and fills the disk.

Each test shows the same four things: the tournament completes; every other bot's games equal
those of the run where the fallback plays the hostile seat, record for record; no result is
lost (every game is stored); and nothing is left running (no process of a bot's uid or with the
test's marker, anywhere in the process tree, and no cgroup). Each attack also says in the bot's
log that it was blocked, and why.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import arena
from arena.server.isolation.cgroups import CgroupError, RunCgroups
from arena.server.isolation.sandbox import SCRATCH_BYTES, SandboxMode
from arena.server.lobby import BotSpec
from arena.server.service import MAX_CONNECTIONS
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary
from arena.tournament.seed import stored_seed
from arena.tournament.store import DATABASE, LOGS, STANDINGS_JSON
from arena.tournament.submissions import enter_submissions
from tests.hostile.conftest import (
    HOSTILE,
    SAMPLES,
    SEALED,
    attacks,
    fallback_seat,
    faults,
    games,
    run,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.usefixtures("sealed", "nothing_left", "no_leftover_processes"),
]


def hostile(mode: str, *args: str) -> BotSpec:
    return BotSpec("hostile", (sys.executable, str(HOSTILE), mode, *args))


def attack(
    config: TournamentConfig, output: Path, mode: str, *args: str
) -> tuple[RunSummary, list[str]]:
    """Play `config` with the hostile bot attacking in `mode`; the summary and its attack lines."""
    bots = (*config.bots, hostile(mode, f"--target={output}", *args))
    summary = run(replace(config, bots=bots, output=output))
    return summary, attacks(output / LOGS / "hostile.log")


def unharmed(summary: RunSummary, output: Path, reference: list[object]) -> None:
    """The tournament completed, every game is stored, the others played as against the
    fallback, and without a fault."""
    assert summary.played == summary.total == summary.stored == 3 and not summary.interrupted
    standing = {bot.bot: bot for bot in summary.standings.bots}
    assert standing["heuristic"].faults == standing["random"].faults == 0, faults(output)
    assert games(output) == reference, "the games differ from the fallback's"


def blocked(lines: list[str], mode: str) -> None:
    """Every process of the hostile bot tried, and every attempt was blocked."""
    assert lines, "the attack never ran"
    assert all(line.startswith(f"attack {mode}: blocked") for line in lines), lines


@pytest.mark.parametrize("mode", ["hijack", "signal-all", "renice"])
def test_no_bot_can_reach_another_bot_or_the_arena(
    mode: str, reference: list[object], tmp_path: Path, marker: str
) -> None:
    """The seat hijack (a token from /proc), SIGSTOP and SIGKILL of every process in sight and
    of the arena, renice and autogroup: a sealed bot sees its own processes only, as a uid of
    its own, and the others keep their equal share of the CPU."""
    summary, lines = attack(SEALED, tmp_path, mode, f"--marker={marker}")
    unharmed(summary, tmp_path, reference)
    blocked(lines, mode)


def test_no_bot_can_read_the_results(reference: list[object], tmp_path: Path) -> None:
    """The finished rotations of a deal are in the results database: no sealed bot sees it,
    at its real path, relative to a working folder, or through /proc."""
    summary, lines = attack(SEALED, tmp_path, "read-db")
    unharmed(summary, tmp_path, reference)
    blocked(lines, "read-db")


def test_no_bot_can_rewrite_lock_or_overwrite_the_results(
    reference: list[object], tmp_path: Path
) -> None:
    summary, lines = attack(SEALED, tmp_path, "tamper-db")
    unharmed(summary, tmp_path, reference)
    blocked(lines, "tamper-db")
    with sqlite3.connect(tmp_path / DATABASE) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM games").fetchone() == (3,)


def test_no_bot_can_write_outside_its_own_folders(reference: list[object], tmp_path: Path) -> None:
    """The output folder (standings, other bots' logs), the arena's own code, the bot's own
    program folder, the system: all out of reach (the last ones read-only)."""
    code = Path(arena.__file__)
    before = hashlib.sha256(code.read_bytes()).hexdigest()
    summary, lines = attack(SEALED, tmp_path, "write-outside")
    unharmed(summary, tmp_path, reference)
    blocked(lines, "write-outside")
    assert hashlib.sha256(code.read_bytes()).hexdigest() == before
    assert not (HOSTILE.parent / "planted.txt").exists()
    assert not (tmp_path / "planted.txt").exists()
    assert "planted" not in (tmp_path / STANDINGS_JSON).read_text()


@pytest.mark.parametrize("sandbox", [SandboxMode.ON, SandboxMode.OFF])
def test_a_log_swapped_for_a_symlink_is_never_written_through(
    sandbox: SandboxMode, reference: list[object], tmp_path: Path
) -> None:
    """Sealed, the logs are out of a bot's sight. Unsealed (where a bot could swap its log for
    a symlink and crash, so that the arena reopens the log for its next process), the arena
    opens every log without following symlinks, and drains that bot's output unwritten."""
    victim = tmp_path / "victim.txt"
    config = replace(SEALED, sandbox=sandbox)
    bots = (*config.bots, hostile("symlink-log", f"--target={tmp_path}"))
    summary = run(replace(config, bots=bots, output=tmp_path))
    unharmed(summary, tmp_path, reference)
    assert not victim.exists(), victim.read_text()
    log = tmp_path / LOGS / "hostile.log"
    if sandbox is SandboxMode.ON:
        blocked(attacks(log), "symlink-log")
    else:
        assert log.is_symlink()  # the swap happened, to no effect


def test_no_bot_can_find_or_guess_the_seed(tmp_path: Path) -> None:
    """With no --seed, the seed is drawn at random and kept from the bots: a bot that looks for
    it (environment, the arena's command line and memory, the results) and guesses it (the old
    default 0, small numbers) cannot predict even its own hand."""
    summary, lines = attack(replace(SEALED, seed=None), tmp_path / "run", "read-seed")
    seed = stored_seed(tmp_path / "run" / DATABASE)
    assert seed is not None and seed >= 1 << 16
    reference = tmp_path / "reference"
    fallback_seat(replace(SEALED, seed=seed), reference)
    unharmed(summary, tmp_path / "run", games(reference))
    blocked(lines, "read-seed")
    assert str(seed) not in (tmp_path / "run" / LOGS / "hostile.log").read_text()


def test_no_process_plays_two_rotations_of_one_deal(
    reference: list[object], tmp_path: Path
) -> None:
    """Each process of a bot serves one seat rotation, and what it writes vanishes with it: no
    process, and no file a process can read, has seen another rotation of the deal it plays.
    (The other attacks here reuse processes, to start fewer bots: this is the one that needs a
    process per rotation, played one after another, so every later one could find the notes.)"""
    summary, lines = attack(replace(SEALED, reuse_processes=False), tmp_path, "remember")
    unharmed(summary, tmp_path, reference)
    assert len(lines) == 3, lines  # every game seen by the bot, one process each
    blocked(lines, "remember")


def test_reused_processes_do_remember_which_is_why_they_are_for_trusted_bots(
    reference: list[object], tmp_path: Path
) -> None:
    """The same attack, with --reuse-processes and one game at a time: one process plays every
    rotation, and remembers. (This shows the test above can see what it looks for.)"""
    config = replace(SEALED, reuse_processes=True, concurrency=1)
    summary, lines = attack(config, tmp_path, "remember")
    unharmed(summary, tmp_path, reference)
    assert any("SUCCEEDED" in line for line in lines), lines


def submission(root: Path, name: str, program: Path, command: str, build: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    shutil.copy(program, folder / "bot.py")
    (folder / "notes.txt").write_text(f"{name}'s secret plan\n")
    manifest = f"command = {json.dumps(command)}\n"  # a TOML basic string, as JSON writes it
    if build:
        manifest += f"build = {json.dumps(build)}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder


def run_submissions(root: Path, output: Path) -> RunSummary:
    """`arena run --submissions ROOT`, as the CLI does it: the builds, then the tournament."""
    entered = asyncio.run(
        enter_submissions(root, output / LOGS, builds=output / "builds", sandbox=SandboxMode.ON)
    )
    assert not entered.left_out, entered.left_out
    config = replace(SEALED, bots=tuple(entered.bots), output=output)
    return run(replace(config, fingerprints=tuple(entered.fingerprints.items())))


def test_no_submission_can_read_another(reference: list[object], tmp_path: Path) -> None:
    """A submission sees its own built copy only: not the other submissions (as submitted, or
    their copies), their notes, or the folder they were submitted in."""
    root = tmp_path / "submissions"
    output = tmp_path / "out"
    submission(root, "heuristic", SAMPLES / "heuristic_bot.py", "bot.py")
    submission(root, "random", SAMPLES / "random_bot.py", "bot.py")
    others = f"{root / 'heuristic'},{root / 'random'}"
    command = f"bot.py read-others --target={output} --others={others}"
    submission(root, "hostile", HOSTILE, command)
    summary = run_submissions(root, output)
    unharmed(summary, output, reference)
    blocked(attacks(output / LOGS / "hostile.log"), "read-others")


@pytest.mark.parametrize("sandbox", [SandboxMode.ON, SandboxMode.OFF])
def test_nothing_a_bot_starts_outlives_it(
    sandbox: SandboxMode, reference: list[object], tmp_path: Path, marker: str
) -> None:
    """A child that double-forks, leaves the session and execs with an empty environment (no
    token for a sweep to find) dies with its bot: sealed, with its sandbox and cgroup; unsealed
    too, with its cgroup (`nothing_left` looks for the marker on every process)."""
    if sandbox is SandboxMode.OFF:
        try:
            cgroups = RunCgroups.create()
        except CgroupError as why:
            pytest.skip(f"unsealed escapes are stopped by cgroups, and {why}")
        asyncio.run(cgroups.close())
    config = replace(SEALED, sandbox=sandbox)
    summary, _ = attack(config, tmp_path, "escape", f"--marker={marker}")
    unharmed(summary, tmp_path, reference)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[object]]]:
    """A TCP port on this machine's loopback, and every connection it accepts."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    accepted: list[object] = []
    running = True

    def accept() -> None:
        while running:
            try:
                accepted.append(server.accept())
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        running = False
        thread.join()
        server.close()


def test_a_build_step_is_sealed_and_its_daemon_dies_with_it(
    reference: list[object],
    tmp_path: Path,
    marker: str,
    listener: tuple[int, list[object]],
) -> None:
    """A build that leaves a daemon behind (its own session, detached) and reaches for the
    network: the daemon dies with the build, the network is not there."""
    port, accepted = listener
    root = tmp_path / "submissions"
    output = tmp_path / "out"
    submission(root, "heuristic", SAMPLES / "heuristic_bot.py", "bot.py")
    submission(root, "random", SAMPLES / "random_bot.py", "bot.py")
    sleeper = f"setsid python3 -c 'import time; time.sleep(600)' {marker}"
    daemon = f"({sleeper} </dev/null >/dev/null 2>&1 &)"
    reach = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'"
    build = f"{daemon}; {reach} || echo the build has no network"
    submission(root, "hostile", SAMPLES / "lowest_bot.py", "bot.py", build)
    summary = run_submissions(root, output)
    unharmed(summary, output, reference)
    assert "the build has no network" in (output / LOGS / "hostile.log").read_text()
    assert accepted == []


def test_a_flood_of_connections_that_never_say_hello_costs_nobody_else(
    reference: list[object], tmp_path: Path
) -> None:
    """Thousands of connections (from several processes, past the bot's own open-files limit)
    and streams that never say hello: the bot's own socket takes a bounded number, so the arena's
    file descriptors stay bounded and no other bot loses a connection."""
    baseline = len(os.listdir("/proc/self/fd"))
    peak = baseline
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.02):
            peak = max(peak, len(os.listdir("/proc/self/fd")))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        summary, lines = attack(SEALED, tmp_path, "hello-flood")
    finally:
        done.set()
        sampler.join()
    unharmed(summary, tmp_path, reference)
    blocked(lines, "hello-flood")
    assert any("held" in line and "connections" in line for line in lines), lines
    # One socket's worth of connections, and the bots' own pipes, logs and streams beside them.
    assert peak - baseline < MAX_CONNECTIONS + 150, (baseline, peak, lines)


def test_no_bot_reaches_the_network(
    reference: list[object], tmp_path: Path, listener: tuple[int, list[object]]
) -> None:
    port, accepted = listener
    summary, lines = attack(SEALED, tmp_path, "network", f"--port={port}")
    unharmed(summary, tmp_path, reference)
    time.sleep(0.2)  # a connection that did get through is accepted by now
    assert accepted == []
    blocked(lines, "network")


def test_no_bot_can_fill_the_disk(reference: list[object], tmp_path: Path) -> None:
    """A bot writes until it can write no more, everywhere it can: its folders are in memory,
    of a fixed size (and count against its memory limit), and nothing reaches the disk."""
    summary, lines = attack(SEALED, tmp_path, "fill-disk")
    unharmed(summary, tmp_path, reference)
    blocked(lines, "fill-disk")
    cap = SCRATCH_BYTES >> 20
    for line in lines:
        sizes = [int(part.split(": ")[-1].split()[0]) for part in line.split("; ")]
        assert max(sizes) <= cap, line
    on_disk = sum(path.stat().st_size for path in tmp_path.rglob("*") if path.is_file())
    assert on_disk < 8 << 20
