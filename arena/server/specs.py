"""Bot entries as organizers write them: `NAME=COMMAND` or just `COMMAND`.

The command may be prefixed `stdio:` for a line-protocol program, which the arena then runs
behind its built-in bridge (`arena.sdk.stdio`); `NAME=external` enters a bot its author starts
by hand.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.server.errors import BotError
from arena.server.lobby import BotSpec

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A bot name: it names log files, so letters, digits, `_`, `.` and `-` only."""
STDIO = "stdio:"
"""The prefix of a command that speaks the line protocol (JSON Lines on stdin and stdout)."""
EXTERNAL = "external"
"""The command of a bot that is not launched by the arena but connects by itself."""
PROTOCOLS = ("grpc", "stdio")
"""How a bot program talks to the arena: gRPC itself, or JSON Lines through the bridge."""
BRIDGE = (sys.executable, "-m", "arena.sdk.stdio", "--")
"""The bridge a line-protocol program runs behind, followed by the program's argv."""


class BadBotSpec(BotError):
    """A bot entry that cannot be used, with what to do about it."""


def parse_bot(value: str, base: Path | None = None) -> BotSpec:
    """A BotSpec from `NAME=COMMAND` or `COMMAND` (then named after the program's file).

    `NAME=stdio:COMMAND` runs a line-protocol program behind the bridge; `NAME=external` is a
    bot its author starts by hand. Paths in the command are relative to `base` (default: the
    current folder).
    """
    name, sep, command = value.partition("=")
    if not sep or " " in name or "/" in name:
        name, command = "", value
    elif not name:
        raise BadBotSpec(
            f"{value!r} has an empty name before '=': write NAME=COMMAND, or just COMMAND to "
            "name the bot after its program's file"
        )
    return parse_command(name, command, base)


def parse_command(name: str, command: str, base: Path | None = None) -> BotSpec:
    """The BotSpec for a command as written after `NAME=`: `external`, `stdio:COMMAND` or a
    plain command; an empty `name` is taken from the program's file."""
    if command.strip() == EXTERNAL:
        if not name:
            raise BadBotSpec("an external bot needs a name: write NAME=external")
        return BotSpec(check_name(name), None)
    protocol = "grpc"
    if command.startswith(STDIO):
        protocol, command = "stdio", command.removeprefix(STDIO)
    return bot_spec(name, command, protocol, base)


def bot_spec(name: str, command: str, protocol: str = "grpc", base: Path | None = None) -> BotSpec:
    """The BotSpec that launches `command`, named `name` (or after its program's file if empty).

    A program given as a path (relative to `base`) is made absolute, since bots run in their
    own working folder, and so is an argument that names an existing file; a `.py` file runs
    with the arena's own Python; a `stdio` program runs behind the bridge, which speaks gRPC
    to the arena for it.
    """
    if protocol not in PROTOCOLS:
        raise BadBotSpec(f"unknown protocol {protocol!r}: choose {' or '.join(PROTOCOLS)}")
    whole = (base or Path()) / command.strip()
    if " " in command.strip() and _is_file(whole):  # a path with spaces, unquoted: one program
        argv = [command.strip()]
    else:
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise BadBotSpec(f"cannot read the command {command!r}: {error}") from None
    if not argv or not argv[0].strip():
        raise BadBotSpec(f"{command!r} has no command: write NAME=COMMAND")
    program = argv[0]
    name = check_name(name or default_name(argv, base))
    folder = (base or Path()) / program
    if _is_dir(folder):
        raise BadBotSpec(
            f"{str(folder)!r} is a folder, not a program: give the bot's program in it (e.g. "
            f"{os.path.join(program, 'bot.py')}), or enter folders of bots with --submissions"
        )
    if "/" in program or program.endswith(".py"):
        path = (base or Path()) / program
        if not _is_file(path):
            raise BadBotSpec(f"no such file {str(path)!r}: check the path of bot {name!r}")
        argv[0] = os.path.abspath(path)  # not resolved: a venv's python is a symlink
        if program.endswith(".py"):
            argv.insert(0, sys.executable)
        elif not os.access(path, os.X_OK):
            raise BadBotSpec(
                f"{str(path)!r} is not executable: chmod +x it, or name its interpreter"
            )
    elif shutil.which(program) is None:
        if len(argv) > 1 and "/" in command:  # a path with spaces, it seems: name it whole
            raise BadBotSpec(
                f"no such file {str(whole)!r}, nor a command {program!r} on PATH: check the "
                f"path of bot {name!r}"
            )
        raise BadBotSpec(f"no such command {program!r} on PATH: check the command of bot {name!r}")
    for index, argument in enumerate(argv[1:], start=1):  # e.g. `node bot.js`: the script too
        if not os.path.isabs(argument) and _is_file((base or Path()) / argument):
            argv[index] = os.path.abspath((base or Path()) / argument)
    if protocol == "stdio":
        argv[:0] = BRIDGE
    return BotSpec(name, tuple(argv))


def _is_file(path: Path) -> bool:
    """Whether `path` is a file. A command is its author's text, and what it names may be no
    path the system can look up at all: a name past 255 bytes or a path past 4096 is
    ENAMETOOLONG, which pathlib's `is_file` raises (it forgives only a missing path). Such a
    path names no file, and the command is refused with a line; `os.path.isfile` says False
    for any path it cannot stat."""
    return os.path.isfile(path)


def _is_dir(path: Path) -> bool:
    """Whether `path` is a folder, False for a path that cannot be looked up (`_is_file`)."""
    return os.path.isdir(path)


def default_name(argv: Sequence[str], base: Path | None = None) -> str:
    """The name a bot gets when none is given: its program file's, never its interpreter's.

    `./bot`, `bot.py` and `/x/bot.js` name the program themselves; a command found on PATH (an
    interpreter: `node bot.js`, `perl bot.pl`, `python3 -u bot.py`, `java -jar bot.jar`) is named
    after its first argument that is a file (relative to `base`), or the module of `-m MODULE`,
    else after itself.
    """
    program = argv[0]
    if "/" not in program and not program.endswith(".py"):
        for index, argument in enumerate(argv[1:], start=1):
            if argument == "-m" and index + 1 < len(argv):
                return argv[index + 1].rpartition(".")[2]
            if not argument.startswith("-") and _is_file((base or Path()) / argument):
                return Path(argument).stem
    return Path(program).stem


def check_name(name: str) -> str:
    """`name` if it can name a bot (and so its log file); BadBotSpec otherwise."""
    if not NAME.fullmatch(name):
        raise BadBotSpec(f"bad bot name {name!r}: use letters, digits, '_', '.' and '-'")
    return name
