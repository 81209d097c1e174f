"""Bots shipped to the workers of a cluster: packed once, made ready once per content hash.

Bot processes never cross machines: each worker launches its own. What travels is the bots'
files. The organizer packs each folder a bot needs into an archive: a deterministic tar (sorted
entries, no times, owners or modes beyond the executable bit, no `__pycache__`), named by the
SHA-256 of its bytes, so one folder is packed once however many bots it holds and the same
content always has the same name. A `ShippedBot` (the manifest of one bot) names the archives it
needs and how it starts:

- a **program** (an organizer's `--bot`): its command, with every file it names that lies outside
  the system and the arena's own environment replaced by the archive of that file's folder and
  its place in it; the arena's interpreter and bridge become the worker's own;
- a **submission** (a folder with a `bot.toml`): the archive of the folder as submitted; the
  worker builds it there (`arena.tournament.submissions`), not the organizer.

The archives travel with the `Bundle` through the cluster, or lie in a folder every worker sees
at the same path (`--bots-dir`, e.g. a shared file system) as `DIGEST.tar.gz`. On a worker, a
`Shelf` unpacks each archive once (checking its digest) and builds each submission once per
content hash (the build's copy is kept, marked built), whatever the number of runs or games.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import gzip
import hashlib
import io
import os
import shlex
import shutil
import stat
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.specs import BRIDGE
from arena.tournament.errors import ConfigError
from arena.tournament.fingerprint import NOT_THE_BOT
from arena.tournament.submissions import (
    BUILD_TIMEOUT,
    BUILT,
    MANIFEST,
    BadSubmission,
    Builder,
    Manifest,
    bot_of,
    build,
    copy_of,
    read_manifest,
)

ARCHIVE_CAP = 256 << 20
"""Bytes of files one archive may hold: a bot's folder is meant to be the bot, not a home."""
SKIPPED = NOT_THE_BOT | {BUILT}
"""Names never packed: what is not the bot (its caches, its history), and a build's mark."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc")
"""Files under these are the machine's own: a command names them as they are on every worker."""
SUFFIX = ".tar.gz"
"""An archive's file name in a bots folder: its digest and this."""

Part = tuple[str, ...]
"""One argument of a shipped command: ("text", ARG) as it is; ("prefix", PATH) inside the
arena's environment (`sys.prefix`); ("archive", DIGEST, PATH) inside an archive."""


class ShippingError(ConfigError):
    """A bot that cannot be shipped to the workers, or an archive a worker cannot use."""


@dataclass(frozen=True, slots=True)
class Archive:
    """A folder packed: its digest, and its bytes (gzip of the tar) unless in the bots folder."""

    digest: str
    """SHA-256 of the tar, in hex: the archive's name."""
    data: bytes | None = field(default=None, repr=False)
    """The gzipped tar; None when it lies in the bots folder."""
    size: int = 0
    """Bytes of the tar."""


@dataclass(frozen=True, slots=True)
class ShippedBot:
    """One bot's manifest: what it needs from the archives and how it starts."""

    name: str
    kind: str
    """"program" (a command) or "submission" (a folder the worker builds)."""
    argv: tuple[Part, ...] = ()
    """A program's command."""
    cwd: Part | None = None
    """A program's working folder, if it has one of its own."""
    archive: str = ""
    """A submission's folder: the digest of its archive."""

    @property
    def archives(self) -> tuple[str, ...]:
        """The digests of every archive it needs."""
        parts = [*self.argv, *([self.cwd] if self.cwd is not None else [])]
        found = [part[1] for part in parts if part[0] == "archive"]
        return tuple(dict.fromkeys([*found, *([self.archive] if self.archive else [])]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the bundle's manifest."""
        return {
            "name": self.name,
            "kind": self.kind,
            "argv": [list(part) for part in self.argv],
            "cwd": list(self.cwd) if self.cwd is not None else None,
            "archive": self.archive,
        }


@dataclass(frozen=True)
class Bundle:
    """Everything a worker needs to play a tournament's games: the bots and their archives, and
    how the arena treats them."""

    bots: tuple[ShippedBot, ...]
    archives: tuple[Archive, ...]
    options: BotOptions = BotOptions()
    build_timeout: float = BUILD_TIMEOUT
    bots_dir: str | None = None
    """The shared folder the archives without bytes lie in, at the same path on every worker."""

    def manifest(self) -> dict[str, Any]:
        """What the bundle holds, JSON-ready: each bot, and each archive's digest and size."""
        return {
            "bots": [bot.to_dict() for bot in self.bots],
            "archives": {archive.digest: archive.size for archive in self.archives},
        }

    def archive(self, digest: str) -> Archive:
        """The archive of that digest."""
        for archive in self.archives:
            if archive.digest == digest:
                return archive
        raise ShippingError(f"no archive {digest[:12]} in the bundle")


# -- the organizer's side: packing ------------------------------------------------------------


def pack(folder: Path, skipped: frozenset[str] = SKIPPED) -> tuple[str, bytes, int]:
    """A folder as a deterministic tar, under its own name: (its SHA-256, the tar gzipped without
    a time stamp, the tar's size). The same tree gives the same bytes wherever it lies and
    whatever its files' times and owners; ShippingError past `ARCHIVE_CAP`."""
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for path, name in _tree(folder, skipped):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, os.readlink(path), 0o777
                tar.addfile(info)
            elif stat.S_ISDIR(mode):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif stat.S_ISREG(mode):
                info.mode = 0o755 if mode & stat.S_IXUSR else 0o644
                info.size = path.stat().st_size
                total += info.size
                if total > ARCHIVE_CAP:
                    raise ShippingError(
                        f"{str(folder)!r} holds over {ARCHIVE_CAP >> 20} MiB: a bot's folder is "
                        "shipped whole to every worker; give the bot a folder of its own"
                    )
                with path.open("rb") as file:
                    tar.addfile(info, file)
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    return digest, gzip.compress(data, compresslevel=6, mtime=0), len(data)


def _tree(folder: Path, skipped: frozenset[str]) -> Iterator[tuple[Path, str]]:
    """Every entry under `folder` (itself first), in a fixed order, with its name in the tar."""
    root = folder.name or "bot"
    yield folder, root
    for base, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if f not in skipped)
        here = Path(base)
        links = [f for f in folders if (here / f).is_symlink()]  # walked as entries, not into
        folders[:] = [f for f in folders if f not in links]
        for name in sorted([*folders, *links, *(f for f in files if f not in skipped)]):
            path = here / name
            yield path, f"{root}/{path.relative_to(folder).as_posix()}"


class Packer:
    """Packs the folders bots need, each once (by path and by content), for one run.

    With a `bots_dir`, each archive is written there (once: its name is its content) and
    travels as its name alone.
    """

    def __init__(self, bots_dir: Path | None = None) -> None:
        self.bots_dir = bots_dir
        self._by_folder: dict[Path, Archive] = {}
        self._archives: dict[str, Archive] = {}

    def folder(self, folder: Path) -> str:
        """The digest of the folder's archive, packed now unless it was already."""
        folder = Path(os.path.abspath(folder))
        known = self._by_folder.get(folder)
        if known is None:
            digest, data, size = pack(folder)
            known = self._archives.get(digest)
            if known is None:
                known = Archive(digest, data, size)
                if self.bots_dir is not None:
                    _put(self.bots_dir, digest, data)
                    known = Archive(digest, None, size)
                self._archives[digest] = known
            self._by_folder[folder] = known
        return known.digest

    def program(self, spec: BotSpec) -> ShippedBot:
        """The manifest of a bot entered by its command; ShippingError for an external bot."""
        if spec.argv is None:
            raise ShippingError(
                f"bot {spec.name!r} is external (started by hand): a cluster's workers launch "
                "their own bots; play it without --cluster"
            )
        argv = tuple(self._part(argument) for argument in spec.argv)
        cwd = self._part(str(spec.cwd), folder=True) if spec.cwd is not None else None
        return ShippedBot(spec.name, "program", argv=argv, cwd=cwd)

    def submission(self, manifest: Manifest) -> ShippedBot:
        """The manifest of a submission: its folder as submitted, to be built on each worker."""
        return ShippedBot(manifest.name, "submission", archive=self.folder(manifest.folder))

    def bundle(
        self,
        bots: Iterable[ShippedBot],
        options: BotOptions = BotOptions(),
        build_timeout: float = BUILD_TIMEOUT,
    ) -> Bundle:
        """The bundle of these bots with the archives they need."""
        bots = tuple(bots)
        needed = dict.fromkeys(digest for bot in bots for digest in bot.archives)
        archives = tuple(self._archives[digest] for digest in needed)
        bots_dir = str(self.bots_dir.resolve()) if self.bots_dir is not None else None
        return Bundle(bots, archives, options, build_timeout, bots_dir)

    def _part(self, argument: str, folder: bool = False) -> Part:
        """One argument of a command, as a worker rebuilds it."""
        if not os.path.isabs(argument):
            return ("text", argument)
        path = os.path.abspath(argument)  # not resolved: a venv's python is a symlink
        prefix = os.path.abspath(sys.prefix)
        if _inside(path, prefix):
            return ("prefix", os.path.relpath(path, prefix))
        system = (*SYSTEM, sys.base_prefix, sys.base_exec_prefix)
        if any(_inside(path, os.path.abspath(root)) for root in system):
            return ("text", argument)
        if not os.path.exists(path):
            return ("text", argument)
        home = Path(path) if folder or os.path.isdir(path) else Path(path).parent
        digest = self.folder(home)
        inner = Path(path).relative_to(home)
        name = (Path(home.name or "bot") / inner).as_posix()
        return ("archive", digest, name)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _put(folder: Path, digest: str, data: bytes) -> None:
    """Write an archive into the bots folder, unless it is there already (aside, then renamed:
    a worker never reads half of one)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{digest}{SUFFIX}"
    if target.is_file():
        return
    partial = folder / f".{digest}.{os.getpid()}.tmp"
    partial.write_bytes(data)
    os.replace(partial, target)


def submission_spec(manifest: Manifest) -> BotSpec:
    """How the organizer, who does not build a shipped submission, describes it: its command as
    its manifest writes it, in its folder as submitted (for the results' list of bots)."""
    argv = tuple(shlex.split(manifest.command))
    if manifest.protocol == "stdio":
        argv = BRIDGE + argv
    return BotSpec(manifest.name, argv, cwd=manifest.folder)


# -- a worker's side: unpacking and building -------------------------------------------------


class Shelf:
    """A worker's archives and builds under `root`: each archive unpacked once (its digest
    checked), each submission built once per content hash, kept for later runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._archives = root / "archives"
        self._builds = root / "builds"

    def unpack(self, archive: Archive, bots_dir: str | None) -> Path:
        """The folder holding the archive's tree (its top folder inside), unpacked if needed."""
        target = self._archives / archive.digest
        if target.is_dir():
            return target
        data = archive.data
        if data is None:
            if bots_dir is None:
                raise ShippingError(f"archive {archive.digest[:12]} came without its bytes")
            source = Path(bots_dir) / f"{archive.digest}{SUFFIX}"
            try:
                data = source.read_bytes()
            except OSError as error:
                raise ShippingError(
                    f"cannot read {str(source)!r} ({error.strerror}): is --bots-dir a folder "
                    "every worker sees at the same path?"
                ) from None
        raw = gzip.decompress(data)
        if hashlib.sha256(raw).hexdigest() != archive.digest:
            raise ShippingError(f"archive {archive.digest[:12]} does not match its digest")
        self._archives.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self._archives))
        try:
            try:
                with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
                    tar.extractall(partial, filter="data")
            except tarfile.TarError as error:  # a link out of the folder, say
                raise ShippingError(f"archive {archive.digest[:12]}: {error}") from None
            partial.chmod(0o755)  # a sealed bot runs as a user of its own: it must read it
            try:
                os.rename(partial, target)
            except OSError:  # unpacked meanwhile by another process of this machine
                if not target.is_dir():
                    raise
        finally:
            if partial.exists():
                shutil.rmtree(partial, ignore_errors=True)
        return target

    def command(self, bot: ShippedBot, bundle: Bundle) -> BotSpec:
        """A program's BotSpec on this worker: its files in the unpacked archives."""
        argv = tuple(self._resolve(part, bundle) for part in bot.argv)
        cwd = Path(self._resolve(bot.cwd, bundle)) if bot.cwd is not None else None
        return BotSpec(bot.name, argv, cwd=cwd)

    async def ready(
        self,
        bot: ShippedBot,
        bundle: Bundle,
        log: Path,
        builder: Builder,
        index: int = 0,
    ) -> BotSpec:
        """The bot's BotSpec on this worker, its files unpacked and, for a submission, built
        (once per content hash: a copy that built is kept) as a local run builds it: by
        `submissions.build`, sealed as `builder` says (build `index` of its uids); its build's
        output into `log`. BadSubmission or ShippingError when it cannot play here."""
        if bot.kind == "program":
            return await asyncio.to_thread(self.command, bot, bundle)
        folder = await asyncio.to_thread(self.unpack, bundle.archive(bot.archive), bundle.bots_dir)
        source = next(folder.iterdir())  # the submission's folder, under its own name
        manifest = read_manifest(source)
        if manifest.name != bot.name:
            raise BadSubmission(f"its {MANIFEST} names it {manifest.name!r}, not {bot.name!r}")
        self._builds.mkdir(parents=True, exist_ok=True)
        with await _locked(self._builds / f".{bot.archive}.lock"):
            copy, _, unbuilt = await asyncio.to_thread(copy_of, manifest, self._builds)
            if unbuilt:
                await build(copy, log, bundle.build_timeout, builder, index)
                (copy.folder / BUILT).write_text("built\n")
        return bot_of(copy)

    def _resolve(self, part: Part, bundle: Bundle) -> str:
        kind = part[0]
        if kind == "text":
            return part[1]
        if kind == "prefix":
            return os.path.join(os.path.abspath(sys.prefix), part[1])
        if kind == "archive":
            folder = self.unpack(bundle.archive(part[1]), bundle.bots_dir)
            return str(folder / part[2])
        raise ShippingError(f"unknown part of a command: {part!r}")


async def _locked(path: Path) -> contextlib.AbstractContextManager[None]:
    """An exclusive lock on `path` (made if missing), taken without blocking the event loop:
    two workers of one machine sharing a folder never build one copy at once."""
    handle = path.open("a")
    try:
        await asyncio.to_thread(fcntl.flock, handle.fileno(), fcntl.LOCK_EX)
    except BaseException:
        handle.close()
        raise

    @contextlib.contextmanager
    def held() -> Iterator[None]:
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()

    return held()


def describe(names: Sequence[str]) -> str:
    """Bot names for a person: 'a', 'a and b', 'a, b and c'."""
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
