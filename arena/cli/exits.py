"""How the `arena` commands end: their exit statuses, and the one line each error the user can fix
is shown as (bad input, a machine that cannot do what was asked, a folder that cannot be
written, a full disk), never a traceback."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import click

from arena.errors import MachineError
from arena.server.declared import OptionError
from arena.server.errors import BotError
from arena.spectate import SpectateError
from arena.tournament.errors import ConfigError, FolderBusyError, StoreError

BAD_INPUT = (ConfigError, BotError, OptionError, StoreError)
"""The errors of bad input (a tournament, a bot, a bot option, an output folder), each reported
as one line; with `MachineError` (the machine, not the input) the only errors a command turns
into a line: anything else that escapes a command is a bug, and shows its traceback."""


EXIT_OK = 0
"""Everything ran as asked (`arena play --game`: the game came out the same)."""
EXIT_BUG = 1
"""An error of the arena itself: its traceback is shown, for a bug report."""
EXIT_INPUT = 2
"""The command could not run as asked (an option, a tournament file, a bot, an output folder, a
full disk, a machine without what the run needs): one line says what and how to fix it."""
EXIT_PROBLEMS = 3
"""`arena run`: an entered bot was disqualified, never connected, or was left out (see the
summary); `--allow-faults` makes it 0. `arena submit --wait`: the version uploaded ended in
error (its reason is printed)."""
EXIT_DIFFERENT = 4
"""`arena play --game`: the game played again differs from its stored record."""
EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C or SIGTERM: what finished is kept, the same command carries on."""


class InputProblem(click.ClickException):
    """Bad input or an environment the user must fix, reported as one line, exit status 2."""

    exit_code = EXIT_INPUT


class Place:
    """Where a command writes, once it knows (`arena run`: its output folder): SQLite's errors
    name no file, so the line says which folder, and whether it is read-only."""

    folder: Path | None = None


@contextlib.contextmanager
def one_line(write_fix: str) -> Iterator[Place]:
    """Report what the user can fix as one line and exit status 2, never a traceback: bad input
    (the arena's own errors), a machine that cannot do what was asked (`MachineError`: what is
    missing and the fix, as `Error: ...` alone, without the usage of the command, which was
    right) and every OSError or SQLite error (a folder it cannot write, a full disk, a damaged
    database). `write_fix` says what to do about a place that cannot be written.
    The one place `arena run` (and the spectators' commands) turn such errors into a line."""
    place = Place()
    try:
        yield place
    except FolderBusyError as error:  # no usage: the command was right, the folder is taken
        raise InputProblem(str(error)) from None
    except BAD_INPUT as error:
        raise click.UsageError(str(error)) from None
    except MachineError as error:  # before OSError: a cgroup that cannot be made is both
        raise InputProblem(str(error)) from None
    except SpectateError as error:
        raise InputProblem(str(error)) from None
    except (OSError, sqlite3.Error) as error:
        raise InputProblem(environment_problem(error, write_fix, place.folder)) from None


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def environment_problem(
    error: OSError | sqlite3.Error, write_fix: str, folder: Path | None = None
) -> str:
    """One line for an OSError or SQLite error: what could not be done, where, and the fix;
    `folder` is where the command writes, when it knows."""
    kept = "the games stored are kept, and the same command carries on from them"
    free = f"free some space; {kept}"
    if (
        isinstance(error, sqlite3.OperationalError)
        and folder is not None
        and folder.is_dir()
        and not os.access(folder, os.W_OK)
    ):
        return f"cannot write {folder}: it is read-only ({error}): {write_fix}"
    if isinstance(error, OSError):
        where = f" {error.filename}" if error.filename else " the results"
        why = error.strerror or str(error)
        if error.errno in _FULL:
            return f"cannot write{where}: the disk is full ({why}): {free}"
        if error.errno in _READ_ONLY:
            return f"cannot write{where}: {why}: {write_fix}"
        return f"cannot use{where}: {why}: {write_fix}"
    message = str(error)
    if "readonly" in message or "read-only" in message:
        return f"cannot write the results database: {message}: {write_fix}"
    if "full" in message:
        return f"cannot write the results database: the disk is full ({message}): {free}"
    if "disk I/O" in message:
        return f"cannot write the results database: {message} (is the disk full?): {free}"
    if "unable to open" in message:
        return f"cannot open the results database: {message}: {write_fix}"
    if "locked" in message:
        return (
            f"the results database is busy ({message}): is another `arena run` using the same "
            "--output folder? Wait for it, or choose another"
        )
    return f"the results database cannot be used: {message}: choose another --output folder"
