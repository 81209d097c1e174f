"""A ladder's folder, its layout in one place:

```
DIR/ladder.toml          the settings (`arena.ladder.settings`)
DIR/ladder.sqlite        the database, unless --database names another (`db.engine`)
DIR/versions/<sha256>.tar.gz   every archive received, content-addressed, written whole
DIR/built/<version id>/  a version unpacked and built (vetting)
DIR/sets/<set id>/       a set's games: a tournament's output folder (`match`)
DIR/logs/                the server's own logs
```

The folder is made private (0700, whatever the umask, as `arena.tournament.folder` makes a
run's output): it holds every author's code, their bots' logs and, in the database, the hashes
of their tokens. `init` refuses a folder that exists and is not empty, so that a ladder is never
made over something else; every other command refuses a folder that is not a ladder (no
`ladder.toml`), with one line naming the command that makes one.

An archive is written before its version's row is committed (`keep`: a temporary file beside
it, fsynced, renamed, the folder fsynced), so that an upload is whole or absent, whenever the
server is killed: a row never names an archive that is not all there, and an archive without a
row is only a file the next upload of the same bytes finds in place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.ladder.db.engine import DATABASE_FILE
from arena.ladder.errors import LadderError
from arena.ladder.settings import SETTINGS_FILE
from arena.tournament.folder import make_private

VERSIONS = "versions"
BUILT = "built"
SETS = "sets"
LOGS = "logs"
SUBFOLDERS = (VERSIONS, BUILT, SETS, LOGS)


@dataclass(frozen=True)
class LadderFolder:
    """Where each of a ladder's files is (see the module's doc)."""

    path: Path

    @property
    def settings(self) -> Path:
        return self.path / SETTINGS_FILE

    @property
    def database(self) -> Path:
        return self.path / DATABASE_FILE

    @property
    def versions(self) -> Path:
        return self.path / VERSIONS

    @property
    def built(self) -> Path:
        return self.path / BUILT

    @property
    def sets(self) -> Path:
        return self.path / SETS

    @property
    def logs(self) -> Path:
        return self.path / LOGS

    def archive(self, digest: str) -> Path:
        """Where the archive of this sha256 is kept."""
        if len(digest) != 64 or not set(digest) <= set("0123456789abcdef"):
            raise LadderError(f"{digest!r} is not a sha256 in hex")
        return self.versions / f"{digest}.tar.gz"

    def built_version(self, version_id: int) -> Path:
        return self.built / str(version_id)

    def set_folder(self, set_id: int) -> Path:
        return self.sets / str(set_id)


def make_ladder(path: Path) -> tuple[LadderFolder, Path | None]:
    """A new ladder's folder with its subfolders, private; and the outermost folder made (to
    take back if `init` fails after this), None if `path` existed (empty). LadderError for a
    folder that holds anything, a ladder above all."""
    if path.exists():
        if not path.is_dir():
            raise LadderError(f"{path} is a file: give `arena ladder init` a new folder")
        if (path / SETTINGS_FILE).exists():
            raise LadderError(f"{path} is a ladder already: `arena ladder serve {path}` runs it")
        if any(path.iterdir()):
            raise LadderError(f"{path} is not empty: give `arena ladder init` a new folder")
    made = make_private(path)
    for name in SUBFOLDERS:
        (path / name).mkdir(mode=0o700, exist_ok=True)
    return LadderFolder(path), made


def open_ladder(path: Path) -> LadderFolder:
    """A ladder's folder; LadderError, one line, for a folder that is not one."""
    if not path.is_dir():
        raise LadderError(f"there is no folder {path}: `arena ladder init {path}` makes a ladder")
    if not (path / SETTINGS_FILE).is_file():
        raise LadderError(
            f"{path} is not a ladder (no {SETTINGS_FILE}): `arena ladder init DIR` makes one "
            "in a new folder"
        )
    return LadderFolder(path)


def keep(path: Path, data: bytes) -> None:
    """Write `data` at `path` whole or not at all (see the module's doc); a file already there
    is kept (an archive's name is its content's hash)."""
    if path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    descriptor = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)  # the rename itself survives a power cut
    finally:
        os.close(descriptor)
