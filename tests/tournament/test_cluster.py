"""Tournaments on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on
loopback, started here as an organizer starts them, and stopped by their process groups.

The same seed gives the same games and standings on the cluster as on this machine, over TLS
with an organizer's certificates; a worker killed mid-tournament costs nothing; a run
interrupted on the cluster resumes on this machine; submissions are built on each worker, and a
broken one is named.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from arena.server.isolation.procfs import processes
from arena.server.specs import parse_bot
from arena.tournament.cluster import open_cluster
from arena.tournament.config import TournamentConfig
from arena.tournament.observer import Observer
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import DATABASE, REPLAYS, STANDINGS_JSON
from arena.tournament.submissions import Rejection
from tests.server.isolation.leftovers import clear

pytestmark = pytest.mark.integration

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
ENTRIES = [f"{name}={BOTS / f'{name}_bot.py'}" for name in ("heuristic", "random", "lowest")]
DASK = Path(sys.executable).with_name("dask")
"""The `dask` command of the arena's environment (`dask scheduler`, `dask worker`)."""
START_TIMEOUT = 90.0
"""Seconds the scheduler and workers have to come up on a loaded two-core machine."""
QUIET_DASK = {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
}
"""Dask's own diagnostics, which are not what is tested, off or slowed in the processes started
here: its profiler samples every worker's threads every 10 ms, and its watchdog of the event
loop ticks every 20 ms in every process (an idle scheduler and two workers took 0.08 CPU s a
second, 0.02 without them)."""


def config(output: Path, **changes: object) -> TournamentConfig:
    base = TournamentConfig(
        bots=tuple(parse_bot(entry) for entry in ENTRIES),
        players=3,
        games=6,
        seed=11,
        max_rounds=1,
        deadline=5.0,  # not what is tested: no sample bot may time out on a loaded machine
        startup_timeout=60.0,  # nor may one fail to start there
        concurrency=2,
        reuse_processes=True,  # nor is sealing each rotation apart: one process a bot a worker
        output=output,
    )
    return replace(base, **changes)


def results(output: Path) -> tuple[str, str]:
    """The replay file and the standings a run left: what must match (but for how the run went:
    the bots' answer times, measured, and where they ran, each worker's cores)."""
    standings = json.loads((output / STANDINGS_JSON).read_text())
    standings.pop("times", None)
    standings["seed"] = standings.pop("run", {}).get("seed")
    return (output / REPLAYS).read_text(), json.dumps(standings, indent=2)


@dataclass
class DaskCluster:
    """A scheduler and its workers, each a process of its own group."""

    address: str
    folder: Path
    tls: Certificates | None = None
    """The certificates it speaks TLS with, if it does."""
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)
    children: set[int] = field(default_factory=set)
    """Process groups of what the workers started (bots), stopped at the end too."""

    def worker_folder(self, name: str) -> Path:
        return self.folder / name

    def note_children(self, pid: int) -> None:
        """Remember the process groups of `pid`'s children (its bots), to stop them at the end."""
        self.children |= {p.pgrp for p in processes() if p.ppid == pid and p.alive}

    def kill(self, name: str) -> None:
        """SIGKILL one worker, by its pid, as a machine that dies."""
        process = self.workers[name]
        self.note_children(process.pid)
        os.kill(process.pid, signal.SIGKILL)


def _start(command: list[str | Path], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(part) for part in command],
            env={**os.environ, **QUIET_DASK},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a group of its own: stopped whole, by its id
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
        if process.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(wait)


def _wait_for_workers(address: str, count: int, tls: Certificates | None) -> None:
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT, security=_security(tls)) as client:
        client.wait_for_workers(count, timeout=START_TIMEOUT)


def _security(tls: Certificates | None) -> Any:
    from distributed.security import Security

    if tls is None:
        return None
    return Security(
        tls_ca_file=str(tls.ca),
        tls_client_cert=str(tls.cert),
        tls_client_key=str(tls.key),
        require_encryption=True,
    )


@dataclass(frozen=True)
class Certificates:
    """A CA and a certificate it signed for 127.0.0.1: the scheduler's, workers' and
    organizer's alike."""

    ca: Path
    cert: Path
    key: Path


def certificates(folder: Path) -> Certificates:
    """Made with `openssl`, as an organizer would make them."""
    folder.mkdir(parents=True)
    ca, ca_key = folder / "ca.pem", folder / "ca-key.pem"
    cert, key, request = folder / "node.pem", folder / "node-key.pem", folder / "node.csr"
    extensions = folder / "extensions.cnf"
    extensions.write_text(
        "subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth, clientAuth\n"
    )
    new_key = ("-newkey", "rsa:2048", "-nodes", "-days", "2")
    sign = ("-out", cert, "-days", "2", "-extfile", extensions)
    for args in (
        ("req", "-x509", *new_key, "-keyout", ca_key, "-out", ca, "-subj", "/CN=arena test CA"),
        ("req", *new_key[:3], "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"),
        ("x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", *sign),
    ):
        subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=60)
    return Certificates(ca, cert, key)


def _scheduler_address(scheduler_file: Path) -> str:
    """The address in a scheduler's file; empty while the file is missing or not yet written."""
    try:
        address = json.loads(scheduler_file.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return ""
    return str(address)


@contextlib.contextmanager
def dask_cluster(
    folder: Path, names: tuple[str, ...] = ("w1", "w2"), tls: Certificates | None = None
) -> Iterator[DaskCluster]:
    """`dask scheduler` on a free loopback port and `dask worker` processes (one thread each,
    no nanny: a killed worker stays dead), as an organizer would start them; with `tls`, both
    speak TLS only, with those certificates."""
    folder.mkdir(parents=True, exist_ok=True)
    started: list[subprocess.Popen[bytes]] = []
    cluster: DaskCluster | None = None
    common: list[str | Path] = ["--host", "127.0.0.1", "--no-dashboard"]
    if tls is not None:
        common += ["--protocol", "tls", "--tls-ca-file", tls.ca]
        common += ["--tls-cert", tls.cert, "--tls-key", tls.key]
    try:
        scheduler_file = folder / "scheduler.json"
        scheduler = [DASK, "scheduler", "--port", "0", "--scheduler-file", scheduler_file]
        started.append(_start(scheduler + common, folder / "scheduler.log"))
        deadline = time.monotonic() + START_TIMEOUT
        # The scheduler creates its file before it writes it: wait until it holds the address.
        while not _scheduler_address(scheduler_file) and time.monotonic() < deadline:
            assert started[0].poll() is None, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        address = _scheduler_address(scheduler_file)
        assert address.startswith(("tls" if tls else "tcp") + "://127.0.0.1:")
        cluster = DaskCluster(address, folder, tls, started=started)
        for name in names:
            worker = [DASK, "worker", address, "--name", name, "--nthreads", "1", "--no-nanny"]
            worker += ["--local-directory", folder / name]
            started.append(_start(worker + common, folder / f"{name}.log"))
            cluster.workers[name] = started[-1]
        _wait_for_workers(address, len(names), tls)
        yield cluster
    finally:
        for process in reversed(started):  # the workers first (their bots with them), then it
            if cluster is not None:
                cluster.note_children(process.pid)
            _stop(process)
        for group in cluster.children if cluster is not None else ():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        for process in started:  # a killed worker's bots sit frozen: thawed, killed, removed
            clear(process.pid)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    """One cluster for the tests that leave it whole, speaking TLS only with an organizer's
    certificates (plain TCP where there is no `openssl` to make them: see the first test; the
    killed worker's cluster and `--workers`' own are plain TCP). Those tests come last in the
    file: it lives to the module's end, and an idle scheduler and its workers still cost CPU
    (their heartbeats)."""
    folder = tmp_path_factory.mktemp("dask")
    tls = certificates(folder / "certs") if shutil.which("openssl") is not None else None
    with dask_cluster(folder / "dask", tls=tls) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The tournament played on this machine alone: what every cluster run must equal."""
    output = tmp_path_factory.mktemp("local") / "out"
    summary = asyncio.run(run_tournament(config(output, concurrency=1)))
    assert summary.played == 6 and summary.workers is None
    return results(output)


def on_cluster(output: Path, cluster: DaskCluster, **changes: object) -> TournamentConfig:
    """The tournament on `cluster`, the organizer holding its certificates if it speaks TLS."""
    tls = cluster.tls
    if tls is not None:
        changes = {
            "cluster_ca": tls.ca,
            "cluster_cert": tls.cert,
            "cluster_key": tls.key,
            **changes,
        }
    return config(output, cluster=cluster.address, **changes)


def test_a_worker_killed_mid_tournament_costs_nothing(
    tmp_path: Path, local: tuple[str, str]
) -> None:
    with dask_cluster(tmp_path / "dask") as cluster:
        killed: list[str] = []

        def progress(done: int, total: int) -> None:
            if done >= 1 and not killed:
                cluster.kill("w1")
                killed.append("w1")

        lines: list[str] = []
        summary = asyncio.run(
            run_tournament(
                on_cluster(tmp_path / "out", cluster),
                observer=Observer(progress=progress, announce=lines.append),
            )
        )
    assert killed and not summary.interrupted
    assert summary.stored == 6
    replays = (tmp_path / "out" / REPLAYS).read_text().splitlines()
    ids = [json.loads(line)["spec"]["game_id"] for line in replays]
    assert len(ids) == len(set(ids)) == 6  # every game stored, and once
    assert results(tmp_path / "out") == local
    assert summary.workers is not None and summary.workers.lost == ("w1",)
    assert any("worker w1 lost" in line for line in lines)


def test_arena_run_with_local_workers(tmp_path: Path, local: tuple[str, str]) -> None:
    """`--workers 2`: a local cluster of two worker processes, through the command line."""
    bots = [arg for entry in ENTRIES for arg in ("--bot", entry)]
    settings = ["--players", "3", "--games", "6", "--seed", "11", "--max-rounds", "1"]
    done = subprocess.run(
        [
            Path(sys.executable).with_name("arena"),
            "run",
            *bots,
            *settings,
            "--deadline",
            "5",
            "--workers",
            "2",
            "--reuse-processes",
            "--json",
            "--output",
            tmp_path / "out",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **QUIET_DASK},  # its workers' too
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert sum(document["workers"]["games"].values()) == 6
    assert document["workers"]["lost"] == []
    assert results(tmp_path / "out") == local
    assert (tmp_path / "out" / DATABASE).is_file()


def test_the_same_games_and_standings_on_a_tls_cluster_as_on_one_machine(
    tmp_path: Path, shared: DaskCluster, local: tuple[str, str]
) -> None:
    """The organizer reaches the scheduler and the workers with its certificates, over TLS."""
    assert shared.address.startswith("tcp://" if shared.tls is None else "tls://")
    lines: list[str] = []
    up: list[int] = []
    summary = asyncio.run(
        run_tournament(
            on_cluster(tmp_path, shared),
            observer=Observer(announce=lines.append, workers=up.append),
        )
    )
    assert summary.played == 6 and not summary.interrupted
    assert results(tmp_path) == local
    assert summary.workers is not None
    assert sum(summary.workers.games.values()) == 6
    assert set(summary.workers.games) <= {"w1", "w2"} and summary.workers.lost == ()
    assert up and up[-1] == 2
    assert all("lost" not in line for line in lines)
    assert '"sealed"' in (tmp_path / STANDINGS_JSON).read_text()  # how the workers ran the bots
    # each bot's log came back from the workers that ran it
    assert "on worker w" in (tmp_path / "logs" / "heuristic.log").read_text()
    if shared.tls is None:
        pytest.skip("SKIPPED LOUDLY: no openssl to make certificates: played over plain TCP")


def test_an_interrupted_cluster_run_resumed_on_one_machine_equals_an_uninterrupted_run(
    tmp_path: Path, shared: DaskCluster, local: tuple[str, str]
) -> None:
    async def interrupted() -> RunSummary:
        stop = asyncio.Event()

        def progress(done: int, total: int) -> None:
            if done >= 2:
                stop.set()

        shipped = on_cluster(tmp_path / "out", shared, bots_dir=tmp_path / "bots")
        return await run_tournament(shipped, observer=Observer(progress=progress), stop=stop)

    first = asyncio.run(interrupted())
    assert first.interrupted and 2 <= first.stored < 6
    # the bots reached the workers through the shared folder: one archive, their folder's
    assert [p.name.endswith(".tar.gz") for p in (tmp_path / "bots").iterdir()] == [True]
    rest = asyncio.run(run_tournament(config(tmp_path / "out", concurrency=1)))
    assert not rest.interrupted and rest.played == 6 - first.stored and rest.workers is None
    assert results(tmp_path / "out") == local


def _submission(folder: Path, name: str, build: str) -> None:
    folder.mkdir(parents=True)
    (folder / "source.py").write_text((BOTS / "lowest_bot.py").read_text())
    manifest = f'name = "{name}"\ncommand = "python3 bot.py"\nbuild = "{build}"\n'
    (folder / "bot.toml").write_text(manifest)


def test_submissions_are_built_on_each_worker_and_a_broken_one_is_named(
    tmp_path: Path, shared: DaskCluster
) -> None:
    root = tmp_path / "submissions"
    _submission(root / "good", "built", "cp source.py bot.py")  # only a build makes it run
    _submission(root / "bad", "broken", "echo no compiler here >&2; exit 3")
    entries = (ENTRIES[0], ENTRIES[1])
    base = on_cluster(tmp_path / "out", shared, bots=tuple(parse_bot(e) for e in entries), games=3)
    left_out: list[Rejection] = []

    async def play() -> RunSummary:
        async with open_cluster(base) as cluster:
            entered = await cluster.enter_submissions(root, base, left_out.append)
            return await run_tournament(entered, venue=cluster)

    summary = asyncio.run(play())
    assert [rejection.folder for rejection in left_out] == ["bad"]
    (reason,) = [rejection.reason for rejection in left_out]
    assert "build failed" in reason and "w1" in reason and "w2" in reason
    assert "no compiler here" in (tmp_path / "out" / "logs" / "broken.log").read_text()
    for name in ("w1", "w2"):  # built on each worker, once, in its own folder
        marks = list(shared.worker_folder(name).rglob(".arena-built"))
        assert [mark.parent.name.split("-")[0] for mark in marks] == ["built"]
    assert summary.played == 3 and not summary.interrupted
    lines = {line.bot: line for line in summary.standings.bots}
    assert set(lines) == {"heuristic", "random", "built"}
    assert lines["built"].games == 3 and lines["built"].faults == 0


def test_the_organizer_counts_a_bots_faults_for_every_worker(
    tmp_path: Path, shared: DaskCluster
) -> None:
    """A bot that plays a card it does not hold faults at every decision: each worker puts it out
    at the limit, the organizer's referee for the whole tournament, and the workers learn it with
    their next game; at most the limit on each worker is ever charged."""
    illegal = parse_bot(f"illegal={Path(__file__).parents[1] / 'bots' / 'illegal_card_bot.py'}")
    bots = (illegal, *(parse_bot(entry) for entry in ENTRIES[:2]))
    changes = {"bots": bots, "max_faults": 3, "allow_faults": True}
    summary = asyncio.run(run_tournament(on_cluster(tmp_path, shared, **changes)))
    assert summary.played == 6 and not summary.interrupted
    lines = {line.bot: line for line in summary.standings.bots}
    assert lines["illegal"].disqualified
    assert 3 <= lines["illegal"].faults <= 3 * len(shared.workers)
    assert lines["heuristic"].faults == lines["random"].faults == 0
