"""What every refusal of bad input is held to, for the tables of `test_refused_*`: exit status 2,
no traceback, exactly one line on stderr (beside click's usage frame, which a usage error
prints before it: the command's synopsis and where its help is), and nothing written where the
run would have written.

Each case runs the real command line in-process (click's CliRunner), in a folder of its own,
with the output folder inside it: the folder, and the output folder's absence, are checked
after the refusal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner, Result

from arena.cli import main

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
LOWEST = str(BOTS / "lowest_bot.py")
HIGHEST = str(BOTS / "highest_bot.py")
TWO_BOTS = ("--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}")

_FRAME = re.compile(r"^(Usage: .*|Try '.*' for help\.)$")
"""Click's frame around a usage error: the synopsis and the hint, before the `Error:` line."""


@dataclass(frozen=True)
class Case:
    """One bad input: the command line (`{T}` stands for the case's own folder, `{OUT}` for the
    output folder in it), what the one line must name (each, case-insensitively), and the
    files to write first, by name in the folder."""

    args: Sequence[str]
    names: Sequence[str]
    files: dict[str, bytes | str] = field(default_factory=dict)

    def __str__(self) -> str:
        return " ".join(self.args)


def refusal_line(result: Result) -> str:
    """The one line a refusal says; fails unless exit status 2, no traceback, and exactly one
    line on stderr besides click's usage frame."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    said = [line for line in lines if not _FRAME.match(line)]
    assert len(said) == 1, result.stderr
    assert said[0].startswith("Error: "), said[0]
    return said[0].removeprefix("Error: ")


def refuse(case: Case, folder: Path) -> str:
    """Run `case` in `folder` and hold its refusal to the rules above; its one line, which must
    name each of the case's names; the output folder must not exist after it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    before = sorted(os.listdir(folder))
    args = [
        arg.replace("{T}", str(folder)).replace("{OUT}", str(folder / "out")) for arg in case.args
    ]
    previous = Path.cwd()
    os.chdir(folder)  # relative paths are the case's own
    try:
        result = CliRunner().invoke(main, args)
    finally:
        os.chdir(previous)
    line = refusal_line(result)
    for name in case.names:
        assert name.replace("{T}", str(folder)).lower() in line.lower(), (name, line)
    assert not (folder / "out").exists(), f"{case}: the refused run made {folder / 'out'}"
    assert sorted(os.listdir(folder)) == before, f"{case}: the refused run wrote in {folder}"
    return line
