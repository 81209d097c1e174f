"""Bot entries as organizers write them: `NAME=COMMAND` or just `COMMAND`."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

from arena.server.lobby import BotSpec

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A bot name: it names log files, so letters, digits, `_`, `.` and `-` only."""


class BadBotSpec(ValueError):
    """A bot entry that cannot be used, with what to do about it."""


def parse_bot(value: str) -> BotSpec:
    """A BotSpec from `NAME=COMMAND` or `COMMAND` (then named after the program's file).

    A program given as a path is made absolute, since bots run in their own working folder; a
    `.py` file runs with the arena's own Python.
    """
    name, sep, command = value.partition("=")
    if not sep or " " in name or "/" in name:
        name, command = "", value
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise BadBotSpec(f"cannot read the command {command!r}: {error}") from None
    if not argv:
        raise BadBotSpec(f"{value!r} has no command: write NAME=COMMAND")
    program = argv[0]
    if not name:
        name = Path(program).stem
    if not NAME.fullmatch(name):
        raise BadBotSpec(f"bad bot name {name!r}: use letters, digits, '_', '.' and '-'")
    if "/" in program or program.endswith(".py"):
        path = Path(program)
        if not path.is_file():
            raise BadBotSpec(f"no such file {program!r}: check the path of bot {name!r}")
        argv[0] = str(path.resolve())
        if program.endswith(".py"):
            argv.insert(0, sys.executable)
    elif shutil.which(program) is None:
        raise BadBotSpec(f"no such command {program!r} on PATH: check the command of bot {name!r}")
    return BotSpec(name, tuple(argv))
