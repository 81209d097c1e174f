"""Bots shipped to a cluster's workers: deterministic archives named by their content, commands
rebuilt on the worker's side, and the cluster settings a run refuses. No process, no cluster."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from arena.server.declared import OptionError
from arena.server.lobby import BotSpec
from arena.server.specs import BRIDGE, parse_bot
from arena.tournament.cluster.shipping import (
    Archive,
    Packer,
    Shelf,
    ShippingError,
    pack,
    submission_spec,
)
from arena.tournament.config import TournamentConfig
from arena.tournament.errors import ConfigError
from arena.tournament.executor import WorkersReport
from arena.tournament.submissions import read_manifest


def bot_folder(root: Path, name: str = "mybot") -> Path:
    folder = root / name
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "lib" / "helper.py").write_text("X = 1\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0cache")
    (folder / "link").symlink_to("bot.py")
    return folder


def test_an_archive_is_named_by_its_content_wherever_the_folder_lies(tmp_path: Path) -> None:
    one = bot_folder(tmp_path / "a")
    two = bot_folder(tmp_path / "b")
    os.utime(two / "bot.py", (1, 1))  # times and places do not count
    digest, data, size = pack(one)
    assert pack(two)[0] == digest and pack(two)[1] == data
    raw = gzip.decompress(data)
    assert hashlib.sha256(raw).hexdigest() == digest and len(raw) == size
    (two / "bot.py").write_text("print('changed')\n")
    assert pack(two)[0] != digest


def test_an_archive_keeps_the_tree_and_the_executable_bit_but_no_caches(tmp_path: Path) -> None:
    _, data, _ = pack(bot_folder(tmp_path))
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        members = {member.name: member for member in tar.getmembers()}
    assert sorted(members) == [
        "mybot",
        "mybot/bot.py",
        "mybot/lib",
        "mybot/lib/helper.py",
        "mybot/link",
        "mybot/run.sh",
    ]
    assert members["mybot/run.sh"].mode == 0o755 and members["mybot/bot.py"].mode == 0o644
    assert members["mybot/link"].issym() and members["mybot/link"].linkname == "bot.py"
    assert all(m.mtime == 0 and m.uid == 0 and m.uname == "" for m in members.values())


def test_a_folder_too_big_to_ship_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.tournament.cluster.shipping.ARCHIVE_CAP", 10)
    with pytest.raises(ShippingError, match="folder of its own"):
        pack(bot_folder(tmp_path))


def test_a_program_travels_as_its_folder_and_runs_from_the_workers_copy(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "organizer")
    packer = Packer()
    spec = parse_bot(f"mine={folder / 'bot.py'}")
    other = parse_bot(f"other={folder / 'run.sh'} --fast")
    shipped = [packer.program(spec), packer.program(other)]
    bundle = packer.bundle(shipped)
    assert len(bundle.archives) == 1  # one folder, one archive, however many bots it holds
    assert shipped[0].argv[0] == ("prefix", os.path.relpath(sys.executable, sys.prefix))
    shelf = Shelf(tmp_path / "worker")
    mine = shelf.command(shipped[0], bundle)
    assert mine.argv is not None and mine.argv[0] == os.path.abspath(sys.executable)
    copy = Path(mine.argv[1])
    assert copy.name == "bot.py" and copy.read_text() == "print('hello')\n"
    assert (
        copy.is_relative_to(tmp_path / "worker") and (copy.parent / "lib" / "helper.py").is_file()
    )
    fast = shelf.command(shipped[1], bundle)
    assert fast.argv is not None and fast.argv[1:] == ("--fast",)
    assert Path(fast.argv[0]).parent == copy.parent and os.access(fast.argv[0], os.X_OK)


def test_system_programs_and_words_travel_as_they_are(tmp_path: Path) -> None:
    spec = BotSpec("sys", ("/bin/sh", "-c", "exec cat", "relative/path.txt"))
    shipped = Packer().program(spec)
    assert shipped.argv == tuple(("text", arg) for arg in spec.argv)
    stdio = BotSpec("line", (*BRIDGE, "/bin/cat"))
    assert Packer().program(stdio).argv[1:4] == (
        ("text", "-m"),
        ("text", "arena.sdk.stdio"),
        ("text", "--"),
    )


def test_an_external_bot_cannot_be_shipped() -> None:
    with pytest.raises(ShippingError, match="external"):
        Packer().program(BotSpec("hand", None))


def test_a_worker_checks_an_archive_against_its_name(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "organizer")
    digest, data, size = pack(folder)
    shelf = Shelf(tmp_path / "worker")
    with pytest.raises(ShippingError, match="does not match"):
        shelf.unpack(Archive("0" * 64, data, size), None)
    unpacked = shelf.unpack(Archive(digest, data, size), None)
    assert (unpacked / "mybot" / "bot.py").read_text() == "print('hello')\n"
    assert shelf.unpack(Archive(digest, data, size), None) == unpacked  # once
    assert not (unpacked / "mybot" / "__pycache__").exists()


def test_a_bots_folder_holds_the_archives_and_the_bundle_only_their_names(
    tmp_path: Path,
) -> None:
    folder = bot_folder(tmp_path / "organizer")
    shared = tmp_path / "shared"
    packer = Packer(shared)
    bundle = packer.bundle([packer.program(parse_bot(f"mine={folder / 'bot.py'}"))])
    (archive,) = bundle.archives
    assert archive.data is None and bundle.bots_dir == str(shared.resolve())
    assert (shared / f"{archive.digest}.tar.gz").is_file()
    unpacked = Shelf(tmp_path / "worker").unpack(archive, bundle.bots_dir)
    assert (unpacked / "mybot" / "bot.py").is_file()
    with pytest.raises(ShippingError, match="same path"):
        Shelf(tmp_path / "elsewhere").unpack(archive, str(tmp_path / "missing"))


def test_a_submission_travels_as_submitted_and_is_described_by_its_manifest(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "subs" / "alice"
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('command = "./bot --x"\nprotocol = "stdio"\nbuild = "cc"\n')
    manifest = read_manifest(folder)
    shipped = Packer().submission(manifest)
    assert shipped.kind == "submission" and shipped.archives == (shipped.archive,)
    spec = submission_spec(manifest)  # the organizer builds nothing: ./bot does not exist yet
    assert spec.name == "alice" and spec.cwd == folder
    assert spec.argv == (*BRIDGE, "./bot", "--x")


def config(**changes: object) -> TournamentConfig:
    bots = tuple(BotSpec(name, ("/bin/true",)) for name in ("a", "b"))
    return replace(TournamentConfig(bots=bots, players=2), **changes)


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"cluster": "tcp://127.0.0.1:8786", "workers": 2}, "not both"),
        ({"workers": 0}, "workers is 0, not a whole number from 1 to 1024"),
        ({"cluster": "http://127.0.0.1:8786"}, "tcp://HOST:PORT or tls://HOST:PORT"),
        ({"cluster": "tcp://10.0.0.5:8786"}, "--insecure"),
        ({"cluster": "scheduler.example:8786"}, "--insecure"),
        ({"cluster": "tls://10.0.0.5:8786"}, "--cluster-ca, --cluster-cert, --cluster-key"),
        ({"workers": 2, "listen": "127.0.0.1:7000"}, "--listen"),
    ],
)
def test_cluster_settings_that_cannot_be_used_are_refused(
    changes: dict[str, object], says: str
) -> None:
    with pytest.raises((ConfigError, OptionError), match=says.replace("+", r"\+")):
        config(**changes).check()


def test_cluster_settings_that_can_be_used(tmp_path: Path) -> None:
    config(cluster="tcp://127.0.0.1:8786").check()
    config(cluster="127.0.0.1:8786").check()  # Dask's default scheme
    config(cluster="tcp://10.0.0.5:8786", insecure=True).check()
    config(workers=3).check()
    pem = tmp_path / "x.pem"
    pem.write_text("")
    tls = {"cluster_ca": pem, "cluster_cert": pem, "cluster_key": pem}
    with pytest.raises(ConfigError, match=r"--cluster-ca '.*x\.pem' is not a certificate in PEM"):
        config(cluster="tls://10.0.0.5:8786", **tls).check()  # files of certificates (openssl
    with pytest.raises(ConfigError, match="no such file"):  # makes real ones: test_cluster)
        config(cluster="tls://10.0.0.5:8786", **{**tls, "cluster_key": tmp_path / "no"}).check()


def test_an_external_bot_cannot_play_on_a_cluster() -> None:
    bots = (BotSpec("a", ("/bin/true",)), BotSpec("hand", None))
    with pytest.raises(ConfigError, match="external"):
        config(bots=bots, workers=2).check()


def test_the_summary_lists_games_per_worker_and_the_workers_lost() -> None:
    report = WorkersReport({"w1": 4, "w2": 2}, ("w3",))
    assert report.lines() == [
        "games per worker: w1: 4, w2: 2",
        "workers lost: w3 (their unfinished games were played again on the others)",
    ]
    assert report.to_dict() == {"games": {"w1": 4, "w2": 2}, "lost": ["w3"]}
    assert WorkersReport({"w1": 1}).lines() == ["games per worker: w1: 1"]


def test_local_workers_each_get_cores_of_their_own() -> None:
    from arena.tournament.cluster import split_cores

    assert split_cores([0, 1, 2, 3], ["a", "b"]) == {"a": (0, 2), "b": (1, 3)}
    assert split_cores([0, 1], ["a", "b"]) == {"a": (0,), "b": (1,)}
    assert split_cores([0, 1], ["a", "b", "c"]) == {"a": (0,), "b": (1,), "c": (0,)}
    assert split_cores([5], ["a"]) == {"a": (5,)}
