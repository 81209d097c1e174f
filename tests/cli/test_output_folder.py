"""The output folder and every other path a command is given: absolute from where they come in,
never empty, the folder private however it is made, and a refused run leaves it as it was."""

from __future__ import annotations

import asyncio
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import FolderBusyError
from arena.tournament.folder import hold_output, holder_of
from arena.tournament.runner import run_tournament
from tests.cli.helpers import caught_run

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
LOWEST = str(BOTS / "lowest_bot.py")
HIGHEST = str(BOTS / "highest_bot.py")
RANDOM = str(BOTS / "random_bot.py")
TWO = ("--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}")


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under `folder` with its mode, size and modification time: what a refused run
    must leave as it was. SQLite's shared-memory index (results.sqlite-shm) is left out: every
    reader of a database writes it, spectators too, and it holds no data."""
    seen = {}
    for path in [folder, *folder.rglob("*")]:
        if path.name.endswith("-shm"):
            continue
        info = path.lstat()
        seen[str(path.relative_to(folder))] = (info.st_mode, info.st_size, info.st_mtime_ns)
    return seen


@pytest.mark.parametrize(
    ("args", "file", "setting", "expected"),
    [
        ((), None, "output", "arena-out"),
        (("--output", "out"), None, "output", "out"),
        (("--output", "./x/../out/"), None, "output", "out"),
        (("sub/t.toml",), 'output = "res"', "output", "sub/res"),
        (("sub/t.toml", "--output", "here"), 'output = "res"', "output", "here"),
        (("--tls-cert", "c.pem"), None, "tls_cert", "c.pem"),
        (("sub/t.toml",), 'tls_key = "../k.pem"', "tls_key", "k.pem"),
        (("--bots-dir", "shared"), None, "bots_dir", "shared"),
        (("--submissions", "subs"), None, "submissions", "subs"),
    ],
)
def test_every_path_is_absolute_from_where_it_comes_in(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    file: str | None,
    setting: str,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "subs").mkdir()
    if file is not None:
        (tmp_path / "sub").mkdir()
        (tmp_path / "sub" / "t.toml").write_text(f"[tournament]\n{file}\n")
    config, submissions = caught_run(monkeypatch, *args, *TWO)
    value = submissions if setting == "submissions" else getattr(config, setting)
    assert value == tmp_path / expected and value.is_absolute()


@pytest.mark.parametrize(
    ("args", "file", "message"),
    [
        (("--output", ""), None, "Invalid value for '--output': an empty path names no file"),
        (("--tls-cert", ""), None, "Invalid value for '--tls-cert': an empty path names no file"),
        (("--submissions", ""), None, "Invalid value for '--submissions': an empty path names"),
        (("t.toml",), 'output = ""', "output is '', not the path of a folder: an empty one"),
        (("t.toml",), 'bots_dir = ""', "bots_dir is '', not the path of a folder: an empty"),
        (("",), None, "Invalid value for '[TOURNAMENT_FILE]': an empty path names no file"),
    ],
)
def test_an_empty_path_is_refused_and_nothing_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    file: str | None,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    if file is not None:
        (tmp_path / "t.toml").write_text(f"[tournament]\n{file}\n")
    before = snapshot(tmp_path)
    result = CliRunner().invoke(main, ["run", *args, *TWO])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert message in result.output.strip().splitlines()[-1]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", ["replay", "report", "logs a"])
def test_a_spectator_command_takes_no_empty_folder(tmp_path: Path, command: str) -> None:
    result = CliRunner().invoke(main, [*command.split(), ""])
    assert result.exit_code == 2, result.output
    assert "an empty path names no file or folder" in result.output.strip().splitlines()[-1]


@pytest.mark.integration
def test_a_relative_output_builds_and_plays_a_submission_in_a_private_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_leftover_processes: None
) -> None:
    """The bug this guards: with a relative --output, every build was told a relative folder,
    which a sandbox cannot find (`bwrap: Can't find source path out/builds/...`), and the
    message blamed the submission; and the folder --submissions made was 0755."""
    monkeypatch.chdir(tmp_path)
    for name in ("one", "two"):
        folder = tmp_path / "subs" / name
        folder.mkdir(parents=True)
        (folder / "bot.toml").write_text('command = "bot.py"\nbuild = "cp source.py bot.py"\n')
        (folder / "source.py").write_text(Path(LOWEST).read_text())
    args = ["run", "--submissions", "subs", "--output", "out", "--players", "2", "--games", "2"]
    result = CliRunner().invoke(main, [*args, "--quiet", "--startup-timeout", "60"])
    assert result.exit_code == 0, result.output
    assert f"2 of 2 games in {tmp_path / 'out'}/" in result.stdout
    assert os.stat(tmp_path / "out").st_mode & 0o777 == 0o700


def refused(args: list[str], folder: Path) -> str:
    """Run `arena ARGS`, which must be refused without a traceback, writing nothing under
    `folder`; return its one line."""
    before = snapshot(folder)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, Exception)
    assert snapshot(folder) == before
    return result.output.strip().splitlines()[-1]


def submissions(root: Path, *names: str) -> Path:
    """A folder of submissions, each a copy of the lowest sample bot with a build."""
    for name in names:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "bot.toml").write_text('command = "bot.py"\nbuild = "cp source.py bot.py"\n')
        (folder / "source.py").write_text(Path(LOWEST).read_text())
    return root


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", *TWO, "--sample", "0"],
            "Invalid value for '--sample': 0 is not a whole number of tables",
        ),
        (["run", *TWO, "--bot", f"c={LOWEST}", "--players", "2", "--sample", "2"], "cannot seat"),
        (["run", *TWO, "--games", "3"], "games per table must be a multiple of 2"),
        (["run", "--bot", f"a={LOWEST}"], "enter at least 2 bots"),
        (["run", *TWO, "--gauntlet", "c"], "--gauntlet 'c' is not an entered bot"),
        (
            ["run", *TWO, "--deadline", "0"],
            "Invalid value for '--deadline': 0 is not a number of seconds",
        ),
        (
            ["run", "--submissions", "SUBS", "--sample", "0"],
            "Invalid value for '--sample': 0 is not a whole number of tables",
        ),
        (["run", "--submissions", "SUBS", "--games", "3"], "games per table must be a multiple"),
        (["run", "--submissions", "ONE"], "enter at least 2 bots"),
        (["run", "--submissions", "SUBS", "--gauntlet", "x"], "not an entered bot (entered: o"),
        (["compare", LOWEST, HIGHEST, "--max-games", "1"], "is less than one deal"),
        (["compare", LOWEST, LOWEST], "two bots are named 'lowest_bot'"),
        (
            ["compare", LOWEST, HIGHEST, "--deadline", "0"],
            "Invalid value for '--deadline': 0 is not a number of seconds",
        ),
    ],
)
def test_a_refused_run_leaves_no_folder_and_builds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    """Every check passes before the first write: before, `--sample 0` was refused but left
    results.sqlite behind, which then refused the corrected command ("holds a tournament of
    other rules (sample: 0 -> 1)"), and `--submissions` built every submission first."""
    monkeypatch.chdir(tmp_path)
    submissions(tmp_path / "subs", "one", "two")
    submissions(tmp_path / "one", "alone")
    given = [{"SUBS": "subs", "ONE": "one"}.get(arg, arg) for arg in args]
    assert message in refused([*given, "--output", "out"], tmp_path)
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a tournament of two games."""
    root = tmp_path_factory.mktemp("played")
    args = ["run", *TWO, "--seed", "3", "--quiet", "--output", str(root / "out")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return root


RUN = ["run", *TWO, "--seed", "3"]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([*RUN[:-1], "5"], "holds a tournament of other rules (seed: 3 -> 5)"),
        ([*RUN, "--sample", "1"], "holds a tournament of other rules (sample: None -> 1)"),
        ([*RUN, "--deadline", "2"], "holds a tournament of other rules (deadline: 1.0 -> 2.0)"),
        ([*RUN, "--max-faults", "3"], "holds a tournament of other rules (max_faults: 20 -> 3)"),
        (["run", *TWO[:3], f"b={RANDOM}"], "bot 'b' has changed since it played in"),
        (["run", *TWO[:3], f"c={RANDOM}"], "holds games of 'b', not entered in this run"),
        (
            [*RUN, "--sample", "0"],
            "Invalid value for '--sample': 0 is not a whole number of tables",
        ),
        ([*RUN, "--gauntlet", "c"], "--gauntlet 'c' is not an entered bot"),
        ([*RUN, "--deadline", "0"], "Invalid value for '--deadline': 0 is not a number of seconds"),
        (["compare", LOWEST, HIGHEST, "--field", RANDOM], "holds a tournament of other rules"),
    ],
)
def test_a_refused_run_leaves_a_played_folder_as_it_was(
    played: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    """Refused before anything is written: not the database, the logs, nor the standings."""
    shutil.copytree(played, tmp_path, dirs_exist_ok=True)
    assert message in refused([*args, "--output", str(tmp_path / "out")], tmp_path)


def test_a_held_folder_refuses_another_hold_naming_its_holder(tmp_path: Path) -> None:
    """A folder locked through another open of it (as another process holds it) refuses a
    hold, naming the holder's process and writing nothing; holds within one process nest; the
    folder is made 0700 and only by `make`, once the run's checks have passed."""
    out = tmp_path / "out"
    with hold_output(out) as hold:
        assert not out.exists()
        hold.make()
        assert os.stat(out).st_mode & 0o777 == 0o700
        with hold_output(out) as nested:
            nested.make()
        assert holder_of(out) == os.getpid()
    assert holder_of(out) is None
    other = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        before = snapshot(tmp_path)
        with pytest.raises(FolderBusyError) as caught, hold_output(out):
            pass
        assert str(caught.value) == (
            f"{out} is in use by another arena run (process {os.getpid()}): wait for it to end, "
            "stop it, or choose another --output folder"
        )
        assert snapshot(tmp_path) == before
    finally:
        os.close(other)
    assert os.listdir(out) == []


@pytest.mark.integration
def test_a_second_run_on_a_folder_is_refused_and_a_killed_run_leaves_no_lock(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """A real `arena run` holds its folder; `arena run` and `arena compare` on it are refused
    in one line naming its process, writing nothing; once it is killed (SIGKILL: no clean-up
    of its own), the folder is free at once."""
    out = tmp_path / "out"
    waiting = ["--bot", "x=external", "--bot", "y=external", "--startup-timeout", "600"]
    first = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "run", *waiting, "--quiet", "--output", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert first.stderr is not None
        for line in first.stderr:  # it holds the folder before it tells where bots connect
            if "start bot 'y' yourself" in line:
                break
        assert holder_of(out) == first.pid
        busy_line = (
            f"Error: {out} is in use by another arena run (process {first.pid}): wait for it to "
            "end, stop it, or choose another --output folder"
        )
        assert refused(["run", *TWO, "--output", str(out)], tmp_path) == busy_line
        compare = ["compare", LOWEST, HIGHEST, "--field", RANDOM, "--output", str(out)]
        assert refused(compare, tmp_path) == busy_line
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert holder_of(out) is None
    again = CliRunner().invoke(main, ["run", *TWO, "--quiet", "--output", str(out)])
    assert again.exit_code == 0, again.output
    assert f"2 of 2 games in {out}/" in again.stdout


@pytest.mark.integration
def test_a_run_that_fails_at_its_start_takes_back_the_folder_it_made(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    """Refused by what it met at its start (here its --listen port is taken) rather than by its
    checks, a run leaves no folder either: the one it made (with its first missing parent) goes,
    with the database it had opened, since no game was stored."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        bots = tuple(parse_bot(entry) for entry in (f"a={LOWEST}", f"b={HIGHEST}"))
        config = TournamentConfig(
            bots=bots, output=tmp_path / "new" / "out", listen=f"127.0.0.1:{port}"
        )
        with pytest.raises(Exception, match=str(port)):  # whatever names the port taken
            asyncio.run(run_tournament(config))
    finally:
        taken.close()
    assert os.listdir(tmp_path) == []
