"""The spectators' commands refuse what they cannot show in one line, exit status 2, and write
nothing: a bot that is not in the tournament (also where the results name no entries, as a
replay file or a tournament stored without them), a bot that did not play the game asked for,
results that are not results (random bytes)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.cli.refusals import refusal_line
from tests.spectate.helpers import BOTS, tournament


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A played tournament of ann, bob and cyd, three at a table (in-process, no bots), beside
    a folder holding only its replays.jsonl and two folders of random bytes."""
    root = tmp_path_factory.mktemp("spectators")
    tournament(root / "res", players=2)  # three tables of two: ann never plays bob and cyd's
    (root / "replays").mkdir()
    shutil.copy(root / "res" / "replays.jsonl", root / "replays" / "replays.jsonl")
    (root / "junk-db").mkdir()
    (root / "junk-db" / "results.sqlite").write_bytes(os.urandom(4096))
    (root / "junk-replays").mkdir()
    (root / "junk-replays" / "replays.jsonl").write_bytes(bytes(range(128, 256)) * 8)
    return root


def snapshot(folder: Path) -> dict[Path, int]:
    """Every file's modification time, but SQLite's own side files (results.sqlite-wal and
    -shm), which any reader of a database in WAL mode makes and writes."""
    return {
        path: path.stat().st_mtime_ns
        for path in folder.rglob("*")
        if path.is_file() and not path.name.endswith(("-wal", "-shm"))
    }


CASES = [
    (("logs", "nobody", "res"), f"no bot 'nobody' in {{R}}res: its bots are {', '.join(BOTS)}"),
    (("logs", "nobody", "replays"), "no bot 'nobody' in {R}replays: its bots are ann, bob, cyd"),
    (("logs", "", "res"), "no bot '' in {R}res"),
    (("logs", "ann", "res", "--game", "t002-d00-r0"), "'ann' did not play game t002-d00-r0"),
    (("logs", "ann", "res", "--game", "0"), "there is no game 0 in {R}res"),
    (("replay", "res", "--game", "1", "--bot", "nobody"), "--bot 'nobody' did not play game"),
    (("replay", "res", "--game", "1", "--bot", ""), "--bot '' did not play game"),
    (("replay", "junk-db"), "results.sqlite is not a results database"),
    (("replay", "junk-replays"), "replays.jsonl:1 is not a game of `arena run`: not UTF-8 text"),
    (("logs", "ann", "junk-replays"), "replays.jsonl:1 is not a game of `arena run`"),
    (("logs", "ann", "replays"), "is a replay file: the bots' logs are in the output folder's"),
    (("report", "junk-replays"), "replays.jsonl:1 is not a game of `arena run`"),
    (("report", "res", "--include", "nope"), "--include: there is no game 'nope'"),
    (("replay", "res", "--turn", "2"), "--turn is for one game: give --game NUMBER (or ID) too"),
    (("replay", "res", "--step"), "--step is for one game: give --game"),
    (("replay", "res", "--bot", "ann"), "--bot is for one game: give --game"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(args) for args, _ in CASES])
def test_what_a_spectator_cannot_be_shown_is_one_line(
    args: tuple[str, ...], message: str, played: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(played)
    before = snapshot(played)
    line = refusal_line(CliRunner().invoke(main, list(args)))
    folder = f"{played}/" if f" {played}/" in line else ""  # shown as given, or absolute
    assert message.replace("{R}", folder) in line
    assert snapshot(played) == before
