"""`unpack`: every hostile archive built for real, refused, and the folders looked at afterwards:
nothing outside `into`, nothing left inside it."""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import stat
import tarfile
import tempfile
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.ladder.uploads import BadUpload, as_tar, unpack
from arena.tournament.cluster.shipping import pack

MANIFEST = b'command = "python3 bot.py"\nprotocol = "stdio"\n'
CAP = 1 << 20

Entry = tuple[tarfile.TarInfo, bytes | None]


def entry(name: str, data: bytes | None = b"", **fields: object) -> Entry:
    """A tar member: a file of `data`, or (`data` None) what `fields` make it (type, linkname)."""
    info = tarfile.TarInfo(name)
    for key, value in fields.items():
        setattr(info, key, value)
    if data is not None and "type" not in fields:
        info.size = len(data)
    return info, data


def folder(name: str) -> Entry:
    return entry(name, None, type=tarfile.DIRTYPE, mode=0o755)


def tar(*entries: Entry, compress: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for info, data in entries:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    raw = buffer.getvalue()
    return gzip.compress(raw) if compress else raw


def good(*more: Entry) -> list[Entry]:
    return [entry("bot.toml", MANIFEST), entry("bot.py", b"print('hi')\n"), *more]


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Path]:
    """The ladder's folder: a sibling file and folder `unpack` must never touch; it yields
    where the upload goes, and checks after the test that nothing else appeared."""
    (tmp_path / "sibling.txt").write_text("mine\n")
    (tmp_path / "other").mkdir()
    yield tmp_path / "versions" / "v1"
    assert sorted(p.name for p in tmp_path.iterdir()) in (
        ["other", "sibling.txt"],
        ["other", "sibling.txt", "versions"],
    )
    assert (tmp_path / "sibling.txt").read_text() == "mine\n"
    assert not any((tmp_path / "other").iterdir())


def refused(data: bytes, into: Path, message: str, cap: int = CAP, files: int = 100) -> BadUpload:
    """Unpack `data`, expect a refusal saying `message`, and `into` absent afterwards."""
    into.parent.mkdir(exist_ok=True)
    with pytest.raises(BadUpload) as caught:
        unpack(data, into, cap, files)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text
    assert not into.exists()
    assert not any(into.parent.iterdir())
    return caught.value


def test_a_folder_packed_as_arena_submit_packs_it_unpacks_whole(
    tmp_path: Path, place: Path
) -> None:
    source = tmp_path / "other" / "mybot"
    (source / "lib").mkdir(parents=True)
    (source / "bot.toml").write_bytes(MANIFEST)
    (source / "bot.py").write_text("print('hi')\n")
    (source / "bot.py").chmod(0o755)
    (source / "lib" / "util.py").write_text("X = 1\n")
    _, data, _ = pack(source)
    shutil.rmtree(source)
    place.parent.mkdir()
    manifest = unpack(data, place, CAP)
    assert manifest.folder == place
    assert manifest.command == "python3 bot.py"
    assert manifest.protocol == "stdio"
    assert sorted(str(p.relative_to(place)) for p in place.rglob("*")) == [
        "bot.py",
        "bot.toml",
        "lib",
        "lib/util.py",
    ]
    assert (place / "lib" / "util.py").read_text() == "X = 1\n"
    assert (place / "bot.py").stat().st_mode & 0o777 == 0o755
    assert (place / "bot.toml").stat().st_mode & 0o777 == 0o644


def test_a_plain_tar_with_bot_toml_at_its_top_unpacks(place: Path) -> None:
    place.parent.mkdir()
    place.mkdir()  # an empty folder given is used as it is
    manifest = unpack(
        tar(*good(folder("src"), entry("src/a.txt", b"a")), compress=False), place, CAP
    )
    assert manifest.name == "v1"
    assert (place / "src" / "a.txt").read_bytes() == b"a"


@pytest.mark.parametrize("size", [(64 << 10) - 512, 64 << 10, (64 << 10) + 512, 3 << 20])
@pytest.mark.parametrize("level", [1, 9])
def test_files_that_inflate_across_the_reading_chunks_unpack_whole(
    place: Path, size: int, level: int
) -> None:
    content = (b"0123456789abcdef" * (size // 16 + 1))[:size]
    raw = tar(*good(entry("data.bin", content)), compress=False)
    place.parent.mkdir()
    unpack(gzip.compress(raw, compresslevel=level), place, 4 << 20)
    assert (place / "data.bin").read_bytes() == content


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([entry("../evil.txt", b"x")], "a path that leads out of it, '../evil.txt'"),
        ([entry("src/../../evil.txt", b"x")], "leads out of it"),
        ([entry("/tmp/evil.txt", b"x")], "an absolute path '/tmp/evil.txt'"),
        (
            [entry("out", None, type=tarfile.SYMTYPE, linkname="/etc/passwd")],
            "a symbolic link 'out' -> '/etc/passwd': links are refused",
        ),
        (
            [entry("up", None, type=tarfile.SYMTYPE, linkname="../..")],
            "a symbolic link 'up' -> '../..'",
        ),
        (
            [entry("inside", None, type=tarfile.SYMTYPE, linkname="bot.py")],
            "links are refused wherever they lead",
        ),
        (
            [entry("hard", None, type=tarfile.LNKTYPE, linkname="../../etc/passwd")],
            "a hard link 'hard' -> '../../etc/passwd'",
        ),
        (
            [entry("hard", None, type=tarfile.LNKTYPE, linkname="bot.py")],
            "a hard link 'hard' -> 'bot.py'",
        ),
        (
            [entry("null", None, type=tarfile.CHRTYPE, devmajor=1, devminor=3)],
            "a device file 'null'",
        ),
        ([entry("disk", None, type=tarfile.BLKTYPE, devmajor=8)], "a device file 'disk'"),
        ([entry("pipe", None, type=tarfile.FIFOTYPE)], "a fifo 'pipe'"),
        ([entry("bot.py", b"again")], "holds 'bot.py' twice"),
        ([entry("bot.py/x", b"x")], "holds 'bot.py' as a file and as the folder of 'bot.py/x'"),
        ([entry("a\nb", b"x")], "a name with a control character"),
        ([entry("x" * 300, b"x")], "a path over"),
    ],
)
def test_a_hostile_member_is_refused_and_nothing_is_written(
    place: Path, entries: list[Entry], message: str
) -> None:
    refused(tar(*good(*entries)), place, message)
    refused(tar(*entries, *good()), place, message)  # first or last: nothing written either way


def test_a_path_hidden_in_a_pax_or_long_name_header_is_refused(place: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in good():
            archive.addfile(info, io.BytesIO(data or b""))
        info = tarfile.TarInfo("harmless.txt")
        info.pax_headers = {"path": "../../evil.txt"}
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    refused(gzip.compress(buffer.getvalue()), place, "leads out of it, '../../evil.txt'")
    long = "../" + "d" * 120 + "/evil.txt"  # over 100 bytes: a GNU long-name block holds it
    refused(tar(*good(entry(long, b"x"))), place, "a path that leads out of it")


def test_a_hostile_member_inside_the_top_folder_is_refused_too(place: Path) -> None:
    entries = [
        folder("bot"),
        entry("bot/bot.toml", MANIFEST),
        entry("bot/link", None, type=tarfile.SYMTYPE, linkname="../../../etc"),
    ]
    refused(tar(*entries), place, "a symbolic link 'bot/link' -> '../../../etc'")


def test_a_decompression_bomb_is_refused_as_it_inflates(place: Path) -> None:
    big = bytes(64 << 20)  # 64 MiB of zeros: 64 KiB once gzipped
    data = tar(*good(entry("big.bin", big)))
    assert len(data) < 200 << 10
    error = refused(data, place, "unpacks to over 1 MiB, the ladder's cap")
    assert error.too_large


def test_a_bomb_whose_headers_claim_little_is_refused_all_the_same(place: Path) -> None:
    raw = tar(*good(), compress=False) + bytes(64 << 20)  # the headers say a few bytes
    refused(gzip.compress(raw), place, "unpacks to over 1 MiB")


def test_a_header_that_claims_more_than_it_holds_is_refused(place: Path) -> None:
    raw = bytearray(tar(*good(entry("data.bin", bytes(4000))), compress=False))
    cut = raw[: 3 * 512 + 1024]  # the third header and a part of its data
    refused(gzip.compress(bytes(cut)), place, "is cut short")


def test_more_bytes_than_the_cap_are_refused(place: Path) -> None:
    data = tar(*good(entry("a.bin", os.urandom(600 << 10)), entry("b.bin", os.urandom(600 << 10))))
    error = refused(data, place, "unpacks to over 1 MiB")
    assert error.too_large


def test_more_files_than_the_cap_are_refused(place: Path) -> None:
    many = [entry(f"f{n}.txt", b"x") for n in range(120)]
    error = refused(tar(*good(*many)), place, "holds over 100 files and folders")
    assert error.too_large


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is not a whole tar"),
        (os.urandom(2000), "is not a whole tar"),
        (b"\x1f\x8b" + os.urandom(500), "is not a valid gzip stream"),
        (gzip.compress(b"plain text, not a tar" * 40), "is not a whole tar"),
        (tar(*good())[:-20], "gzip stream is truncated"),
        (tar(*good()) + b"junk", "bytes after its gzip stream"),
        (tar(*good(), compress=False)[: 512 + 512 + 300], "is not a whole tar"),
        (tar(*good(), compress=False)[:1536], "'bot.py' is cut short"),
        (tar(*good(), compress=False)[:2048], "it ends before its end-of-archive blocks"),
    ],
    # Named, not shown: random bytes, and a gzip stream's header holds the time it was made,
    # while every worker of the suite collects the tests on its own (they must see the same).
    ids=[
        "empty",
        "random",
        "random-after-gzip-magic",
        "gzipped-text",
        "gzip-truncated",
        "junk-after-gzip",
        "header-cut",
        "file-cut",
        "no-end-blocks",
    ],
)
def test_a_malformed_or_truncated_archive_is_refused(
    place: Path, data: bytes, message: str
) -> None:
    refused(data, place, message)


def test_an_upload_without_bot_toml_is_refused(place: Path) -> None:
    refused(tar(entry("bot.py", b"x")), place, "no bot.toml at its top")
    refused(tar(folder("a"), entry("a/b/bot.toml", MANIFEST)), place, "no bot.toml at its top")


def test_a_wrong_manifest_is_refused_after_unpacking_and_taken_back(place: Path) -> None:
    refused(tar(entry("bot.toml", b"comand = 'x'\n")), place, "unknown key 'comand'")


def test_a_refusal_leaves_an_empty_folder_given_empty(place: Path) -> None:
    place.mkdir(parents=True)
    with pytest.raises(BadUpload):
        unpack(tar(entry("bot.toml", b"nonsense")), place, CAP)
    assert place.is_dir() and not any(place.iterdir())


NAMES = st.lists(
    st.sampled_from(["a", "b", "..", ".", "", "bot.toml", "/", "c d"]), min_size=1, max_size=4
).map("/".join)
KINDS = st.sampled_from([tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE])


@given(st.lists(st.tuples(NAMES, KINDS, st.binary(max_size=40)), max_size=8), st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whatever_the_archive_nothing_lands_outside_into(
    members: list[tuple[str, bytes, bytes]], with_manifest: bool
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        entries = [
            entry(name, data)
            if kind == tarfile.REGTYPE
            else entry(name, None, type=kind, linkname="a")
            for name, kind, data in members
        ]
        if with_manifest:
            entries.insert(0, entry("bot.toml", MANIFEST))
        unpacked_inside_or_refused(tar(*entries), root)


def unpacked_inside_or_refused(data: bytes, root: Path) -> None:
    """Unpack `data` into `root/v`: refused with nothing left, or only plain files and folders
    inside it, and nothing else in `root`."""
    into = root / "v"
    try:
        unpack(data, into, CAP, 100)
    except BadUpload:
        assert not into.exists()
    else:
        for path in into.rglob("*"):
            assert not path.is_symlink()
            assert path.resolve().is_relative_to(into)
            assert path.is_dir() or path.is_file()
    assert [p.name for p in root.iterdir()] in ([], ["v"])


# A zip: the same policy through its own reader (`_zip_entries`), and kept as a tar (`as_tar`).

ZipMember = tuple[str, bytes, int]
"""A zip member: its name, its bytes, and its Unix mode (0: none, as Windows' zips have)."""


def zipped(*members: ZipMember, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a name twice: what some tests build
        for name, data, mode in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 12, 2, 0, 0, 0))
            info.compress_type = method
            if mode:
                info.create_system = 3
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return buffer.getvalue()


GOOD_ZIP = [
    ("mybot/", b"", stat.S_IFDIR | 0o755),
    ("mybot/bot.toml", MANIFEST, stat.S_IFREG | 0o644),
    ("mybot/bot.py", b"print('hi')\n", stat.S_IFREG | 0o755),
    ("mybot/lib/util.py", b"X = 1\n", 0),  # no mode, no folder member: as some tools write
]


def test_a_zip_unpacks_as_its_tar_would_and_is_kept_as_a_tar(place: Path) -> None:
    place.parent.mkdir()
    manifest = unpack(zipped(*GOOD_ZIP), place, CAP)
    assert manifest.command == "python3 bot.py"
    assert sorted(str(p.relative_to(place)) for p in place.rglob("*")) == [
        "bot.py",
        "bot.toml",
        "lib",
        "lib/util.py",
    ]
    assert (place / "bot.py").stat().st_mode & 0o777 == 0o755
    assert (place / "lib" / "util.py").stat().st_mode & 0o777 == 0o644
    kept = as_tar(zipped(*GOOD_ZIP), CAP)
    assert kept.startswith(b"\x1f\x8b") and kept == as_tar(zipped(*GOOD_ZIP), CAP)
    again = place.parent / "again"
    unpack(kept, again, CAP)
    for path in place.rglob("*"):
        twin = again / path.relative_to(place)
        assert twin.is_dir() == path.is_dir()
        assert path.is_dir() or twin.read_bytes() == path.read_bytes()
        assert twin.stat().st_mode & 0o777 == path.stat().st_mode & 0o777
    shutil.rmtree(again)


@pytest.mark.parametrize(
    ("member", "message"),
    [
        (("../evil.txt", b"x", 0), "a path that leads out of it, '../evil.txt'"),
        (("/etc/evil", b"x", 0), "an absolute path '/etc/evil'"),
        (("out", b"/etc/passwd", stat.S_IFLNK | 0o777), "a symbolic link 'out' -> '/etc/passwd'"),
        (("in", b"bot.py", stat.S_IFLNK | 0o777), "links are refused wherever they lead"),
        (("null", b"", stat.S_IFCHR | 0o666), "a device file 'null'"),
        (("pipe", b"", stat.S_IFIFO | 0o644), "a fifo 'pipe'"),
        (("sock", b"", stat.S_IFSOCK | 0o644), "a socket 'sock'"),
        (("dir/", b"", stat.S_IFREG | 0o644), "name and mode disagree"),
        (("bot.py", b"again", 0), "holds 'bot.py' twice"),
        (("a\nb", b"x", 0), "a name with a control character"),
    ],
    ids=[
        "dotdot",
        "absolute",
        "link-out",
        "link-in",
        "device",
        "fifo",
        "socket",
        "mode",
        "twice",
        "control",
    ],
)
def test_a_hostile_zip_member_is_refused_and_nothing_is_written(
    place: Path, member: ZipMember, message: str
) -> None:
    base = [("bot.toml", MANIFEST, 0), ("bot.py", b"print('hi')\n", 0)]
    refused(zipped(*base, member), place, message)
    refused(zipped(member, *base), place, message)
    with pytest.raises(BadUpload, match=re.escape(message)):
        as_tar(zipped(*base, member), CAP)


def test_a_zip_bomb_is_refused_as_it_inflates_whatever_its_headers_claim(place: Path) -> None:
    bomb = zipped(("bot.toml", MANIFEST, 0), ("big.bin", bytes(64 << 20), 0))
    assert len(bomb) < 200 << 10
    error = refused(bomb, place, "unpacks to over 1 MiB, the ladder's cap")
    assert error.too_large
    # the central directory says the file is 10 bytes: inflating counts, not the header
    lying = bytearray(bomb)
    directory = lying.rfind(b"PK\x01\x02")
    lying[directory + 24 : directory + 28] = (10).to_bytes(4, "little")
    refused(bytes(lying), place, "")


def test_a_zip_of_too_many_members_is_refused_before_anything_inflates(place: Path) -> None:
    many = [(f"f{n}.txt", b"x", 0) for n in range(120)]
    error = refused(zipped(("bot.toml", MANIFEST, 0), *many), place, "holds over 100 files")
    assert error.too_large


def test_an_encrypted_or_broken_zip_is_refused(place: Path) -> None:
    plain = bytearray(zipped(("bot.toml", MANIFEST, 0), ("bot.py", b"x", 0)))
    encrypted = bytearray(plain)
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # the flag bit, in both of bot.py's headers
        at = encrypted.rfind(header)
        flags = 6 if header == b"PK\x03\x04" else 8
        encrypted[at + flags] |= 1
    refused(bytes(encrypted), place, "an encrypted member 'bot.py'")
    refused(bytes(plain[: len(plain) // 2]), place, "is not a whole zip")
    refused(zipped(("bot.toml", MANIFEST, 0), method=zipfile.ZIP_STORED)[:-30], place, "whole zip")
    stored = bytearray(zipped(("bot.toml", MANIFEST, 0), method=zipfile.ZIP_STORED))
    at = stored.find(b"command")
    stored[at : at + 3] = b"XXX"  # the checksum no longer matches
    refused(bytes(stored), place, "is not a whole zip (Bad CRC-32")


@given(st.lists(st.tuples(NAMES, KINDS, st.binary(max_size=40)), max_size=8), st.booleans())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whatever_the_zip_nothing_lands_outside_into(
    members: list[tuple[str, bytes, bytes]], with_manifest: bool
) -> None:
    modes = {tarfile.REGTYPE: stat.S_IFREG, tarfile.DIRTYPE: stat.S_IFDIR}
    entries = [(name, data, modes.get(kind, stat.S_IFLNK) | 0o755) for name, kind, data in members]
    if with_manifest:
        entries.insert(0, ("bot.toml", MANIFEST, 0))
    try:
        data = zipped(*entries)
    except ValueError:  # zipfile's own refusal to write such a name
        return
    with tempfile.TemporaryDirectory() as scratch:
        unpacked_inside_or_refused(data, Path(scratch))
