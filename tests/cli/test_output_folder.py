"""The output folder and every other path a command is given: absolute from where they come in,
never empty, the folder private however it is made, and a refused run leaves it as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
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
        (("t.toml",), 'output = ""', "output cannot be empty (it would be the current folder)"),
        (("t.toml",), 'bots_dir = ""', "bots_dir cannot be empty (it would be the current fold"),
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
def test_a_relative_output_builds_and_plays_a_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_leftover_processes: None
) -> None:
    """The bug this guards: with a relative --output, every build was told a relative folder,
    which a sandbox cannot find (`bwrap: Can't find source path out/builds/...`), and the
    message blamed the submission."""
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
