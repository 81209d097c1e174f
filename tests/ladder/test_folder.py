"""A ladder's folder: made private with its layout, never over something else, and refused in
one line where it is not a ladder; archives written whole or not at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from arena.ladder.errors import LadderError
from arena.ladder.folder import SUBFOLDERS, LadderFolder, keep, make_ladder, open_ladder
from arena.ladder.settings import SETTINGS_FILE


def test_a_new_ladder_is_private_with_its_subfolders(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        folder, made = make_ladder(tmp_path / "a" / "ladder")
    finally:
        os.umask(old)
    assert made == tmp_path / "a"
    assert stat.S_IMODE(folder.path.stat().st_mode) == 0o700
    for name in SUBFOLDERS:
        assert stat.S_IMODE((folder.path / name).stat().st_mode) == 0o700
    assert folder.settings == folder.path / SETTINGS_FILE
    assert folder.database.name == "ladder.sqlite"
    assert folder.archive("ab" * 32) == folder.versions / f"{'ab' * 32}.tar.gz"
    assert folder.set_folder(3) == folder.sets / "3"
    assert folder.built_version(4) == folder.built / "4"


def test_an_empty_folder_becomes_a_ladder_and_keeps_its_mode(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir(mode=0o750)
    folder, made = make_ladder(tmp_path / "empty")
    assert made is None and (folder.path / "sets").is_dir()


def test_a_folder_that_holds_anything_is_refused(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    (tmp_path / "ladder").mkdir()
    (tmp_path / "ladder" / SETTINGS_FILE).write_text("")
    (tmp_path / "file").write_text("")
    for name, says in [
        ("full", "is not empty"),
        ("ladder", "is a ladder already"),
        ("file", "is a file"),
    ]:
        with pytest.raises(LadderError, match=says):
            make_ladder(tmp_path / name)
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["notes.txt"]


def test_a_folder_that_is_not_a_ladder_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(LadderError, match=r"is not a ladder \(no ladder.toml\)"):
        open_ladder(tmp_path)
    with pytest.raises(LadderError, match="there is no folder"):
        open_ladder(tmp_path / "nothing")
    (tmp_path / SETTINGS_FILE).write_text("")
    assert open_ladder(tmp_path) == LadderFolder(tmp_path)


def test_a_digest_that_is_not_a_sha256_names_no_file(tmp_path: Path) -> None:
    for digest in ["../" + "a" * 61, "A" * 64, "a" * 63]:
        with pytest.raises(LadderError, match="not a sha256"):
            LadderFolder(tmp_path).archive(digest)


def test_an_archive_is_kept_whole_and_once(tmp_path: Path) -> None:
    path = tmp_path / "versions" / "x.tar.gz"
    keep(path, b"first")
    keep(path, b"second")  # the name is the content's hash: the same bytes are there
    assert path.read_bytes() == b"first"
    assert [p.name for p in path.parent.iterdir()] == ["x.tar.gz"]  # no partial file left
