"""`--sandbox`: where the machine cannot seal bots, `auto` says so in one line and in
standings.json and runs them unsealed, `on` refuses to start in one line, `off` runs them unsealed
by choice. (The machine's own answer is stood in for: this machine can seal.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.isolation import sandbox

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).parents[2] / "sample_bots" / "python"
ARGS = ["--bot", f"a={SAMPLES / 'lowest_bot.py'}", "--bot", f"b={SAMPLES / 'highest_bot.py'}"]
ARGS += ["--games", "2", "--max-rounds", "1", "--quiet", "--startup-timeout", "30"]
WHY = "bubblewrap (bwrap) is not installed: install Debian's bubblewrap"


@pytest.fixture
def no_sandbox_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's probe answers as on a machine without bubblewrap."""
    monkeypatch.setitem(sandbox._probed, "answer", sandbox.NoSandbox(WHY))
    yield


@pytest.mark.usefixtures("no_sandbox_here")
def test_auto_runs_unsealed_and_says_so_once_and_in_the_standings(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", *ARGS, "--output", str(tmp_path)])
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("bots run")]
    unsealed = "bots run UNSEALED (any bot can reach the others and the arena)"
    assert said == [f"{unsealed}: no sandbox ({WHY})"]
    run = json.loads((tmp_path / "standings.json").read_text())["run"]
    assert run["sealed"] is False and run["notes"] == [f"no sandbox ({WHY})"]


@pytest.mark.usefixtures("no_sandbox_here")
def test_on_refuses_to_start_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", *ARGS, "--sandbox", "on", "--output", str(tmp_path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: --sandbox on, but {WHY}"]


def test_off_runs_unsealed_by_choice(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", *ARGS, "--sandbox", "off", "--output", str(tmp_path)])
    assert result.exit_code == 0, result.output
    run = json.loads((tmp_path / "standings.json").read_text())["run"]
    assert run["sealed"] is False and run["notes"] == ["no sandbox (--sandbox off)"]


def test_by_default_this_machine_seals_its_bots(tmp_path: Path) -> None:
    output = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", *ARGS, "--output", str(output)])
    assert result.exit_code == 0, result.output
    run = json.loads((output / "standings.json").read_text())["run"]
    if not run["sealed"]:
        pytest.skip(f"this machine cannot seal bots: {run['notes']}")
    assert not any(line.startswith("bots run") for line in result.stderr.splitlines())
    assert (output.stat().st_mode & 0o777) == 0o700  # private to the organizer
