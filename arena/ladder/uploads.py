"""An uploaded bot, unpacked safely: the archive an author sends is hostile until checked.

An upload is a tar or a gzipped tar holding a submission folder (`arena.tournament.submissions`):
`bot.toml` at its top, or at the top of its one top folder (as `arena submit` packs it:
`shipping.pack` names every entry under the folder's own name). `unpack` never hands the
archive to `tarfile`'s extraction, not even with its `data` filter (whose checks of link chains
and long paths have had holes, CVE-2025-4517 and its kin): it decompresses with its own count
of bytes, parses the headers with `tarfile`, checks every member itself, and only then writes,
member by member, with its own calls.

What it refuses (`BadUpload`, one line naming the problem and the fix):

- paths that are absolute, hold `..`, an empty or control character, or are too long;
- every link, symbolic or hard, wherever it leads. A bot's folder never needs one (copy the
  file), and refusing them all leaves nothing to resolve: no chain of links to follow, no link
  that a later member writes through;
- device files, fifos, sparse files and every other type but regular files and folders;
- a member named twice, or a file where the archive also puts a folder;
- more than `cap_bytes` of files (counted as the archive decompresses: headers are never
  trusted), more than `cap_files` members, anything but a tar or gzipped tar, a truncated or
  malformed archive (the end of the archive must be there: `tarfile` stops quietly at a
  truncated header after the first member), and a folder without `bot.toml`.

Nothing is written before every member is checked, nothing outside `into`, and on a refusal
`into` is left as it was found (absent or empty).
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
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


class BadUpload(BadSubmission):
    """An upload refused before anything of it is kept: one line naming the problem and the fix.

    A submission that cannot play (the same family as `BadSubmission`), from the network:
    `too_large` says whether the fix is a smaller upload (the API answers 413, else 400)."""

    def __init__(self, reason: str, too_large: bool = False) -> None:
        super().__init__(reason)
        self.too_large = too_large


@dataclass(frozen=True)
class _Member:
    """A checked member: where it goes (relative to the upload's top) and what it is."""

    path: PurePosixPath
    folder: bool
    executable: bool
    info: tarfile.TarInfo


def unpack(data: bytes, into: Path, cap_bytes: int, cap_files: int = FILE_CAP) -> Manifest:
    """Unpack the upload `data` into the folder `into` (absent or empty; made if absent) and
    return its checked manifest; BadUpload (nothing left in `into`) if anything is wrong."""
    raw = _decompressed(data, cap_bytes + cap_files * _HEADER_ROOM + _END_ROOM, cap_bytes)
    members = _checked(raw, cap_bytes, cap_files)
    made = not into.exists()
    if not made and (not into.is_dir() or any(into.iterdir())):
        raise ValueError(f"unpack needs an absent or empty folder, not {str(into)!r}")
    into.mkdir(mode=0o755, exist_ok=True)
    try:
        _write(raw, members, into)
        try:
            return read_manifest(into)
        except BadSubmission as error:
            raise BadUpload(str(error)) from None
    except BaseException:
        _empty(into, made)
        raise


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


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.3g} MiB"


def _members(raw: bytes) -> Iterator[tarfile.TarInfo]:
    """Every header of the tar, each one's data checked to lie inside it, and the end of the
    archive checked to be there; BadUpload for anything malformed or truncated."""
    broken = (
        "the upload is not a whole tar or gzipped tar ({}): pack the folder with "
        "`arena submit` and send it whole"
    )
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            while True:
                info = tar.next()
                if info is None:
                    break
                if info.offset_data + info.size > len(raw):
                    raise BadUpload(broken.format(f"{info.name!r} is cut short"))
                yield info
            end = tar.offset
    except BadUpload:
        raise
    except (tarfile.TarError, EOFError, UnicodeError, ValueError) as error:
        raise BadUpload(broken.format(str(error) or type(error).__name__)) from None
    if raw[end : end + len(_END_OF_ARCHIVE)] != _END_OF_ARCHIVE:
        raise BadUpload(broken.format("it ends before its end-of-archive blocks"))


def _checked(raw: bytes, cap_bytes: int, cap_files: int) -> list[_Member]:
    """Every member checked, placed relative to the upload's top (its one top folder taken off
    when `bot.toml` is in it); BadUpload naming the first one refused."""
    members: list[_Member] = []
    total = 0
    for info in _members(raw):
        if len(members) >= cap_files:
            raise BadUpload(
                f"the upload holds over {cap_files} files and folders, the ladder's cap: "
                "leave caches and data out of the folder",
                too_large=True,
            )
        path = _path(info.name)
        _kind(info, path)
        total += info.size
        if total > cap_bytes:
            raise _too_large(cap_bytes)
        members.append(_Member(path, info.isdir(), bool(info.mode & 0o111), info))
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


def _kind(info: tarfile.TarInfo, path: PurePosixPath) -> None:
    """BadUpload unless the member is a plain file or a folder."""
    if info.type in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE) and info.sparse is None:
        return
    if info.issym() or info.islnk():
        kind = "symbolic" if info.issym() else "hard"
        raise BadUpload(
            f"the upload holds a {kind} link {str(path)!r} -> {info.linkname!r}: links are "
            "refused wherever they lead; put the file itself in the folder"
        )
    if info.ischr() or info.isblk() or info.isfifo():
        kind = "fifo" if info.isfifo() else "device file"
        raise BadUpload(
            f"the upload holds a {kind} {str(path)!r}: an upload holds only files and folders"
        )
    raise BadUpload(
        f"the upload holds {str(path)!r} of tar type {info.type!r} (sparse or special): an "
        "upload holds only plain files and folders; pack it with `arena submit`"
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
    return [_Member(m.path.relative_to(name), m.folder, m.executable, m.info) for m in inner]


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


def _write(raw: bytes, members: list[_Member], into: Path) -> None:
    """Write the checked members under `into`: folders 0755, files 0644 or 0755 (the archive's
    owners, times and other mode bits are not kept), never through an existing entry."""
    view = memoryview(raw)
    for member in members:
        target = into.joinpath(*member.path.parts)
        if member.folder:
            _folder(target, into)
            continue
        _folder(target.parent, into)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(target, flags, 0o755 if member.executable else 0o644)
        start = member.info.offset_data
        with os.fdopen(descriptor, "wb") as file:
            file.write(view[start : start + member.info.size])


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
