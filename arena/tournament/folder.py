"""A run's output folder: made private, and held by one run at a time.

Every command that writes a results database (`arena run`, `arena compare`: the tournament
runner) makes its folder here, once every check of its input has passed, and holds it for as
long as it writes: a second run on the same folder is refused at once with one line naming the
process that holds it, instead of two runs writing one database, one set of logs and one set of
builds.

The hold is an exclusive `flock` on the folder itself: nothing is written for it (a refused run
leaves the folder exactly as it was), and the kernel lets go of it when the process ends, however
it ends, so a run killed with SIGKILL never leaves a stale lock behind. The descriptor is not
inherited (Python opens it close-on-exec), so a bot that outlives the arena does not hold it.
Which process holds it is read from the kernel's own table (`/proc/locks`).

A run that made its folder and then fails at its start, before a game is stored (a port in use,
no sandbox for `--sandbox on`), takes the folder back (`take_back`), as if refused by its checks.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from arena.tournament.errors import FolderBusyError

LOCKS = Path("/proc/locks")
"""The kernel's table of the locks held, with the process that holds each."""

_HELD: dict[str, int] = {}
"""The folders this process holds, by path, with how many holds nest: the command holds its
folder over the submissions' builds and the games, the runner within it over the games."""


class OutputHold:
    """A run's hold on its output folder (`hold_output`): taken at once if the folder exists,
    else by `make` once the run's checks have passed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._key = os.path.abspath(folder)
        self._descriptor: int | None = None
        self._nested = False

    def take(self) -> None:
        """Hold the folder if it exists (FolderBusyError if another run does); nothing is
        written either way."""
        if self._key in _HELD:  # this process holds it already: the hold nests
            _HELD[self._key] += 1
            self._nested = True
            return
        if os.path.isdir(self.folder):
            self._lock()

    def make(self) -> Path | None:
        """Make the folder (private, `make_private`) unless it exists, and hold it; return the
        outermost folder made (the folder, or its first missing parent), None if none was."""
        if self._nested or self._descriptor is not None:
            return None
        made = make_private(self.folder)
        self._lock()
        return made

    def release(self) -> None:
        if self._nested:
            _HELD[self._key] -= 1
        elif self._descriptor is not None:
            del _HELD[self._key]
            os.close(self._descriptor)  # the lock goes with it
            self._descriptor = None

    def _lock(self) -> None:
        descriptor = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            raise FolderBusyError(busy(self.folder)) from None
        self._descriptor = descriptor
        _HELD[self._key] = 1


def take_back(made: Path | None, database: Path) -> None:
    """Remove what a run made (`OutputHold.make`'s outermost folder) when it failed before a
    game was stored: a run refused by what it met at its start (a port in use, no sandbox) then
    leaves no folder behind, as a run refused by its checks does. A folder with a game stored is
    kept, whatever ended the run."""
    if made is None or stored_games(database):
        return
    shutil.rmtree(made, ignore_errors=True)


def stored_games(database: Path) -> int:
    """How many games the database holds (0 when there is none, or it cannot be read)."""
    if not database.is_file():
        return 0
    try:
        db = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        try:
            (count,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return 0
    return int(count)


@contextlib.contextmanager
def hold_output(folder: Path) -> Iterator[OutputHold]:
    """Hold `folder` for the block: at once if it exists, else from `OutputHold.make`, which
    makes it, to be called once every check has passed, so that a refused run writes nothing.
    FolderBusyError when another run holds it. Holds of one folder in one process nest."""
    hold = OutputHold(folder)
    hold.take()
    try:
        yield hold
    finally:
        hold.release()


def make_private(folder: Path) -> Path | None:
    """Make `folder` private to this user (mode 0700, whatever the umask) unless it exists: it
    holds the results, the seed, the bots' logs and builds. A folder that exists keeps its mode:
    the organizer made it so. Returns the outermost folder made (`folder`, or its first missing
    parent, which is made as usual), None if `folder` existed."""
    outermost = None
    for path in (folder, *folder.parents):
        if path.exists():
            break
        outermost = path
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        return None
    os.chmod(folder, 0o700)
    return outermost


def busy(folder: Path) -> str:
    """The line that refuses a run on a folder another run holds."""
    holder = holder_of(folder)
    who = f"process {holder}" if holder is not None else "another process"
    return (
        f"{folder} is in use by another arena run ({who}): wait for it to end, stop it, or "
        "choose another --output folder"
    )


def holder_of(folder: Path) -> int | None:
    """The process that holds `folder`, as the kernel's table of locks says; None where it
    cannot be told (no /proc, or the holder let go meanwhile)."""
    try:
        info = os.stat(folder)
        table = LOCKS.read_text()
    except OSError:
        return None
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in table.splitlines():
        fields = line.split()  # "1: FLOCK  ADVISORY  WRITE 633 fe:00:2180072 0 EOF"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == inode:
            return int(fields[4])  # a waiter's line has "->" in fields[1]: never one of ours
    return None
