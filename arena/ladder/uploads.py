"""An uploaded bot, unpacked safely: the archive an author sends is hostile until checked.

An upload is a tar, a gzipped tar or a zip holding a submission folder
(`arena.tournament.submissions`): `bot.toml` at its top, or at the top of its one top folder (as
`arena submit` packs it: `shipping.pack` names every entry under the folder's own name). `unpack`
never hands the archive to `tarfile`'s or `zipfile`'s extraction, not even with tarfile's `data`
filter (whose checks of link chains and long paths have had holes, CVE-2025-4517 and its kin): a
reader per format turns the archive into its members as their headers state them (`_Entry`:
a tar decompressed with its own count of bytes and parsed with `tarfile`; a zip's members
inflated one by one with the same count), and one policy, the same for every format, checks
every member, and only then writes, member by member, with its own calls. A zip is kept as the
gzipped tar of its checked members (`as_tar`), so the ladder stores and vets one format.

What it refuses (`BadUpload`, one line naming the problem and the fix):

- paths that are absolute, hold `..`, an empty or control character, or are too long;
- every link, symbolic or hard, wherever it leads (a zip's link is a member whose Unix mode
  says so). A bot's folder never needs one (copy the
  file), and refusing them all leaves nothing to resolve: no chain of links to follow, no link
  that a later member writes through;
- device files, fifos, sockets, sparse files and every other type but regular files and
  folders; a zip's encrypted member;
- a member named twice, or a file where the archive also puts a folder;
- more than `cap_bytes` of files (counted as the archive decompresses: headers are never
  trusted, a zip's no more than a tar's), more than `cap_files` members (a zip's central
  directory is counted before anything is inflated), anything but a tar, gzipped tar or zip, a
  truncated or malformed archive (the end of the archive must be there: `tarfile` stops quietly
  at a truncated header after the first member; a zip's checksums must match), and a folder
  without `bot.toml`.

Nothing is written before every member is checked, nothing outside `into`, and on a refusal
`into` is left as it was found (absent or empty).
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.tournament.submissions import MANIFEST, BadSubmission, Manifest, read_manifest

FILE_CAP = 10_000
"""Members an upload may hold: a bot's folder, not a file system."""
NAME_CAP = 1024
"""Bytes a member's path may take (one component at most 255, as Linux allows)."""
_HEADER_ROOM = 2048
"""Bytes of tar headers allowed per member beyond its data: a header, and long-name blocks."""
_END_ROOM = 64 << 10
"""Bytes of padding a tar may end with (its end blocks, rounded up to its record size)."""
_CHUNK = 64 << 10
_GZIP_MAGIC = b"\x1f\x8b"
_END_OF_ARCHIVE = bytes(1024)
"""Two zero blocks: how every complete tar ends."""
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""How a zip begins: its first member's local header, or an empty zip's end record."""
_UNIX = 3
"""A zip member's `create_system` when its `external_attr` holds a Unix mode."""
_ENCRYPTED = 0x1
"""The general-purpose flag bit of an encrypted zip member."""
FILE, FOLDER = "file", "folder"
"""The two kinds of member an upload may hold."""


class BadUpload(BadSubmission):
    """An upload refused before anything of it is kept: one line naming the problem and the fix.

    A submission that cannot play (the same family as `BadSubmission`), from the network:
    `too_large` says whether the fix is a smaller upload (the API answers 413, else 400)."""

    def __init__(self, reason: str, too_large: bool = False) -> None:
        super().__init__(reason)
        self.too_large = too_large


@dataclass(frozen=True)
class _Entry:
    """A member as its archive's header states it, not yet checked: its name, what it is
    (`FILE`, `FOLDER`, or words for anything else: "symbolic link", "fifo", ...), where a link
    leads, whether it is executable, and a file's bytes (a view into the tar, no copy)."""

    name: str
    kind: str
    link: str
    executable: bool
    data: bytes | memoryview


@dataclass(frozen=True)
class _Member:
    """A checked member: where it goes (relative to the upload's top) and what it is."""

    path: PurePosixPath
    folder: bool
    executable: bool
    data: bytes | memoryview


def is_zip(data: bytes) -> bool:
    """Whether the upload is a zip (its first member's header, or an empty zip's end record)."""
    return data.startswith(_ZIP_MAGIC)


def unpack(data: bytes, into: Path, cap_bytes: int, cap_files: int = FILE_CAP) -> Manifest:
    """Unpack the upload `data` into the folder `into` (absent or empty; made if absent) and
    return its checked manifest; BadUpload (nothing left in `into`) if anything is wrong."""
    members = _checked(_entries(data, cap_bytes, cap_files), cap_bytes, cap_files)
    made = not into.exists()
    if not made and (not into.is_dir() or any(into.iterdir())):
        raise ValueError(f"unpack needs an absent or empty folder, not {str(into)!r}")
    into.mkdir(mode=0o755, exist_ok=True)
    try:
        _write(members, into)
        try:
            return read_manifest(into)
        except BadSubmission as error:
            raise BadUpload(str(error)) from None
    except BaseException:
        _empty(into, made)
        raise


def as_tar(data: bytes, cap_bytes: int, cap_files: int = FILE_CAP) -> bytes:
    """The upload `data`, of any format, as the gzipped tar of its checked members (relative to
    its top, without times or owners, folders 0755, files 0644 or 0755): the one format the
    ladder keeps; BadUpload as `unpack` refuses (`unpack` alone reads the manifest)."""
    members = _checked(_entries(data, cap_bytes, cap_files), cap_bytes, cap_files)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for member in members:
            info = tarfile.TarInfo(str(member.path))
            if member.folder:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
                continue
            info.mode = 0o755 if member.executable else 0o644
            info.size = len(member.data)
            tar.addfile(info, io.BytesIO(member.data))
    return gzip.compress(buffer.getvalue(), mtime=0)


def _entries(data: bytes, cap_bytes: int, cap_files: int) -> Iterator[_Entry]:
    """The upload's members, by the reader of its format."""
    if is_zip(data):
        return _zip_entries(data, cap_bytes, cap_files)
    raw = _decompressed(data, cap_bytes + cap_files * _HEADER_ROOM + _END_ROOM, cap_bytes)
    return _tar_entries(raw)


def _decompressed(data: bytes, cap: int, cap_bytes: int) -> bytes:
    """The tar itself: `data`, or its gunzipped bytes, counted as they come (BadUpload past
    `cap`, the room `cap_bytes` of files and their headers take, whatever any header claims)."""
    if not data.startswith(_GZIP_MAGIC):
        if len(data) > cap:
            raise _too_large(cap_bytes)
        return data
    out = bytearray()
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        chunk = rest
        try:
            while not inflater.eof:
                piece = inflater.decompress(chunk, _CHUNK)
                out += piece
                if len(out) > cap:
                    raise _too_large(cap_bytes)
                if not piece and inflater.unconsumed_tail == chunk:
                    break  # the input is used up, and nothing more comes of it: truncated
                chunk = inflater.unconsumed_tail  # empty: output zlib still holds comes next
        except zlib.error as error:
            raise BadUpload(
                f"the upload is not a valid gzip stream ({error}): send the archive "
                "`arena submit` packs, whole"
            ) from None
        if not inflater.eof:
            raise BadUpload("the upload's gzip stream is truncated: send the whole archive")
        rest = inflater.unused_data
        if rest and not rest.startswith(_GZIP_MAGIC):
            raise BadUpload(
                "the upload has bytes after its gzip stream: send the archive alone, as "
                "`arena submit` packs it"
            )
    return bytes(out)


def _too_large(cap: int) -> BadUpload:
    return BadUpload(
        f"the upload unpacks to over {_mib(cap)}, the ladder's cap: leave build outputs, "
        "caches and data out of the folder",
        too_large=True,
    )


def _too_many(cap_files: int) -> BadUpload:
    return BadUpload(
        f"the upload holds over {cap_files} files and folders, the ladder's cap: leave caches "
        "and data out of the folder",
        too_large=True,
    )


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.3g} MiB"


def _tar_entries(raw: bytes) -> Iterator[_Entry]:
    """Every member of the tar, each one's data checked to lie inside it, and the end of the
    archive checked to be there; BadUpload for anything malformed or truncated."""
    broken = (
        "the upload is not a whole tar or gzipped tar ({}): pack the folder with "
        "`arena submit` and send it whole"
    )
    view = memoryview(raw)
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            while True:
                info = tar.next()
                if info is None:
                    break
                start = info.offset_data
                if start + info.size > len(raw):
                    raise BadUpload(broken.format(f"{info.name!r} is cut short"))
                kind = _tar_kind(info)
                data = view[start : start + info.size] if kind == FILE else b""
                yield _Entry(info.name, kind, info.linkname, bool(info.mode & 0o111), data)
            end = tar.offset
    except BadUpload:
        raise
    except (tarfile.TarError, EOFError, UnicodeError, ValueError) as error:
        raise BadUpload(broken.format(str(error) or type(error).__name__)) from None
    if raw[end : end + len(_END_OF_ARCHIVE)] != _END_OF_ARCHIVE:
        raise BadUpload(broken.format("it ends before its end-of-archive blocks"))


def _tar_kind(info: tarfile.TarInfo) -> str:
    """What a tar member is, in the words `_kind` refuses it with."""
    if info.sparse is None and info.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
        return FILE
    if info.sparse is None and info.type == tarfile.DIRTYPE:
        return FOLDER
    if info.issym() or info.islnk():
        return "symbolic link" if info.issym() else "hard link"
    if info.ischr() or info.isblk():
        return "device file"
    if info.isfifo():
        return "fifo"
    return f"member of tar type {info.type!r} (sparse or special)"


def _zip_entries(data: bytes, cap_bytes: int, cap_files: int) -> Iterator[_Entry]:
    """Every member of the zip, its central directory counted before anything is inflated and
    each file inflated with the upload's count of bytes (its header's sizes never trusted);
    BadUpload for a malformed or truncated zip, a checksum that does not match, an encrypted
    member or a compression zipfile does not know."""
    broken = (
        "the upload is not a whole zip ({}): zip the folder again and send it whole, or send "
        "the tar.gz `arena submit` packs"
    )
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > cap_files:
                raise _too_many(cap_files)
            for info in infos:
                unix = info.external_attr >> 16 if info.create_system == _UNIX else 0
                kind = _zip_kind(info, unix)
                if info.flag_bits & _ENCRYPTED:
                    raise BadUpload(
                        f"the upload holds an encrypted member {info.filename!r}: zip the "
                        "folder without a password"
                    )
                if kind not in (FILE, "symbolic link"):
                    yield _Entry(info.filename, kind, "", False, b"")
                    continue
                out = bytearray()
                with archive.open(info) as member:
                    while piece := member.read(_CHUNK if kind == FILE else NAME_CAP):
                        out += piece
                        total += len(piece)
                        if total > cap_bytes:
                            raise _too_large(cap_bytes)
                        if kind != FILE:
                            break  # a link's target, for the refusal's line: its start is enough
                link = out.decode(errors="replace") if kind != FILE else ""
                yield _Entry(info.filename, kind, link, bool(unix & 0o111), bytes(out))
    except BadUpload:
        raise
    except (zipfile.BadZipFile, NotImplementedError, EOFError, ValueError, zlib.error) as error:
        raise BadUpload(broken.format(str(error) or type(error).__name__)) from None


def _zip_kind(info: zipfile.ZipInfo, unix: int) -> str:
    """What a zip member is: its Unix mode's type where it has one (a link is only known so),
    else a folder if its name ends in `/`, else a file."""
    kind = stat.S_IFMT(unix)
    folder = info.filename.endswith("/")  # not `is_dir`: it fails on an empty name
    if kind == 0:
        return FOLDER if folder else FILE
    known = {
        stat.S_IFREG: FILE,
        stat.S_IFDIR: FOLDER,
        stat.S_IFLNK: "symbolic link",
        stat.S_IFCHR: "device file",
        stat.S_IFBLK: "device file",
        stat.S_IFIFO: "fifo",
        stat.S_IFSOCK: "socket",
    }
    found = known.get(kind, f"member of Unix type {kind:#o}")
    if found in (FILE, FOLDER) and (found == FOLDER) != folder:
        return f"member whose name and mode disagree on whether it is a folder ({kind:#o})"
    return found


def _checked(entries: Iterator[_Entry], cap_bytes: int, cap_files: int) -> list[_Member]:
    """Every member checked, placed relative to the upload's top (its one top folder taken off
    when `bot.toml` is in it); BadUpload naming the first one refused."""
    members: list[_Member] = []
    total = 0
    for entry in entries:
        if len(members) >= cap_files:
            raise _too_many(cap_files)
        path = _path(entry.name)
        _kind(entry, path)
        total += len(entry.data)
        if total > cap_bytes:
            raise _too_large(cap_bytes)
        members.append(_Member(path, entry.kind == FOLDER, entry.executable, entry.data))
    members = _from_top(members)
    _placed(members)
    return members


def _path(name: str) -> PurePosixPath:
    """A member's name as a relative path that stays inside the upload; BadUpload if not."""
    fix = "submit the folder as `arena submit FOLDER` packs it"
    if not name or name in (".", "./"):
        raise BadUpload(f"the upload holds a member with an empty name: {fix}")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise BadUpload(f"the upload holds a name with a control character, {name!r}: rename it")
    try:
        size = len(name.encode())
    except UnicodeEncodeError:
        raise BadUpload(f"the upload holds a name that is not UTF-8, {name!r}: rename it") from None
    if name.startswith("/"):
        raise BadUpload(f"the upload holds an absolute path {name!r}: {fix}")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise BadUpload(f"the upload holds a path that leads out of it, {name!r}: {fix}")
    if not parts:
        raise BadUpload(f"the upload holds a member with an empty name: {fix}")
    if size > NAME_CAP or any(len(part.encode()) > 255 for part in parts):
        raise BadUpload(
            f"the upload holds a path over {NAME_CAP} bytes, {name[:60]!r}...: shorten it"
        )
    return PurePosixPath(*parts)


def _kind(entry: _Entry, path: PurePosixPath) -> None:
    """BadUpload unless the member is a plain file or a folder."""
    if entry.kind in (FILE, FOLDER):
        return
    if entry.kind.endswith(" link"):
        raise BadUpload(
            f"the upload holds a {entry.kind} {str(path)!r} -> {entry.link!r}: links are "
            "refused wherever they lead; put the file itself in the folder"
        )
    if entry.kind in ("device file", "fifo", "socket"):
        raise BadUpload(
            f"the upload holds a {entry.kind} {str(path)!r}: an upload holds only files and folders"
        )
    raise BadUpload(
        f"the upload holds {str(path)!r}, a {entry.kind}: an upload holds only plain files and "
        "folders; pack it with `arena submit`"
    )


def _from_top(members: list[_Member]) -> list[_Member]:
    """The members relative to the submission's top: the archive's own, or its one top folder's
    when every member lies in it and `bot.toml` is there (not at the archive's top)."""
    top = {member.path.parts[0] for member in members}
    manifest = PurePosixPath(MANIFEST)
    if len(top) != 1 or any(m.path == manifest for m in members):
        return members
    (name,) = top
    if not any(m.path == PurePosixPath(name, MANIFEST) and not m.folder for m in members):
        return members
    inner = [m for m in members if m.path != PurePosixPath(name)]
    for member in inner:
        if member.path.parts[0] != name or len(member.path.parts) < 2:
            return members
    return [_Member(m.path.relative_to(name), m.folder, m.executable, m.data) for m in inner]


def _placed(members: list[_Member]) -> None:
    """BadUpload for a path named twice, a file where a folder must be, or no `bot.toml` at the
    top."""
    kinds: dict[PurePosixPath, bool] = {}
    for member in members:
        if member.path in kinds:
            raise BadUpload(
                f"the upload holds {str(member.path)!r} twice: pack the folder with `arena submit`"
            )
        kinds[member.path] = member.folder
    for path in kinds:
        for parent in path.parents:
            if parent != PurePosixPath(".") and kinds.get(parent) is False:
                raise BadUpload(
                    f"the upload holds {str(parent)!r} as a file and as the folder of "
                    f"{str(path)!r}: pack the folder with `arena submit`"
                )
    if kinds.get(PurePosixPath(MANIFEST)) is not False:
        raise BadUpload(
            f"the upload has no {MANIFEST} at its top: put {MANIFEST} in the folder you "
            "submit (see docs/ladder.md)"
        )


def _write(members: list[_Member], into: Path) -> None:
    """Write the checked members under `into`: folders 0755, files 0644 or 0755 (the archive's
    owners, times and other mode bits are not kept), never through an existing entry."""
    for member in members:
        target = into.joinpath(*member.path.parts)
        if member.folder:
            _folder(target, into)
            continue
        _folder(target.parent, into)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(target, flags, 0o755 if member.executable else 0o644)
        with os.fdopen(descriptor, "wb") as file:
            file.write(member.data)


def _folder(path: Path, into: Path) -> None:
    """Make `path` and its missing parents under `into` (none of which may be a link)."""
    missing = []
    while path != into and not path.is_dir():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o755)
        if stat.S_ISLNK(folder.lstat().st_mode):  # pragma: no cover - only if raced
            raise BadUpload(f"{folder.name!r} turned into a link while unpacking: send it again")


def _empty(into: Path, made: bool) -> None:
    """Take back what `unpack` wrote: `into` as it was found."""
    if made:
        shutil.rmtree(into, ignore_errors=True)
        return
    for entry in into.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
