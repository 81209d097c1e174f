"""`arena run --submissions DIR`: every good submission plays, each bad one is named and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.submissions import (
    BadSubmission,
    Manifest,
    bot_of,
    find_submissions,
    read_manifest,
)

SDK_BOT = """
from pathlib import Path

from arena.sdk import Bot, View, run

# Written by this submission's build, and read from the working folder: the submission's own.
HIGH = Path("strategy.txt").read_text().strip() == "highest"


class Built(Bot):
    def choose_card(self, view: View) -> int:
        return view.hand[-1] if HIGH else view.hand[0]


run(Built(), name="built")
"""
LINE_BOT = """
import json
import sys

for line in sys.stdin:
    request = json.loads(line).get("request")
    if request is not None:
        view = request["view"]
        choice = {"row": 0} if request["decision"] == "DECISION_ROW" else {
            "card": (view["table"] or view["hand"])[0]
        }
        print(json.dumps({"request_id": request["request_id"], **choice}), flush=True)
"""


def submission(root: Path, folder: str, manifest: str | None, **files: str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    if manifest is not None:
        (path / "bot.toml").write_text(manifest)
    for name, text in files.items():
        (path / name.replace("_", ".")).write_text(text)
    return path


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (None, "no bot.toml in"),
        ("command = ", "bot.toml is not valid TOML"),
        ('command = "x"\ncomand = "y"', "unknown key 'comand' (known: name, command, protocol"),
        ('name = "a"', "bot.toml needs a command"),
        ("command = 3", "command must be a string, not 3"),
        ('command = "x"\nprotocol = "http"', "protocol must be 'grpc' or 'stdio'"),
        ('command = "x"\nname = "../escape"', "bad bot name '../escape'"),
        ('command = "x"\nname = "a/b"', "bad bot name 'a/b'"),
        ('command = "python3 bot.py \\u0000"', "command holds a NUL character"),
        ('command = "x"\nbuild = "make\\u0000"', "build holds a NUL character"),
    ],
)
def test_a_wrong_manifest_says_what_is_wrong(
    tmp_path: Path, manifest: str | None, message: str
) -> None:
    folder = submission(tmp_path, "sub", manifest)
    with pytest.raises(BadSubmission) as caught:
        read_manifest(folder)
    assert message in str(caught.value)


def test_a_manifest_names_its_bot_after_its_folder_unless_told(tmp_path: Path) -> None:
    plain = read_manifest(submission(tmp_path, "alice", 'command = "./bot"'))
    assert plain == Manifest(tmp_path / "alice", "alice", "./bot", "grpc", None)
    named = read_manifest(
        submission(
            tmp_path, "b", 'name = "bob"\ncommand = "./bot"\nprotocol = "stdio"\nbuild = "make"'
        )
    )
    assert (named.name, named.protocol, named.build) == ("bob", "stdio", "make")


def test_two_submissions_claiming_one_name_are_both_left_out(tmp_path: Path) -> None:
    """A squatter cannot knock a submission out by taking its name: neither plays."""
    submission(tmp_path, "a", 'name = "same"\ncommand = "x"')
    submission(tmp_path, "b", 'name = "same"\ncommand = "x"')
    submission(tmp_path, "c", 'command = "x"')
    submission(tmp_path, ".hidden", None)
    manifests, rejections = find_submissions(tmp_path)
    assert [m.folder.name for m in manifests] == ["c"]
    assert [str(r) for r in rejections] == [
        "submission 'a' left out: submissions 'b' claim its name 'same' too: give each a name "
        "of its own in its bot.toml",
        "submission 'b' left out: submissions 'a' claim its name 'same' too: give each a name "
        "of its own in its bot.toml",
    ]


def test_a_program_outside_its_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.sh").write_text("#!/bin/sh\n")
    (tmp_path / "elsewhere.sh").chmod(0o755)
    folder = submission(tmp_path, "sneaky", 'command = "../elsewhere.sh"')
    with pytest.raises(BadSubmission, match="lies outside the submission's folder"):
        bot_of(read_manifest(folder))


@pytest.mark.integration
def test_good_submissions_play_and_bad_ones_are_named(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    root = tmp_path / "submissions"
    submission(
        root,
        "alice",
        'command = "bot.py"\nbuild = "echo building alice; echo highest > strategy.txt"',
        bot_py=SDK_BOT,
    )
    submission(
        root,
        "bob",
        'name = "bob"\ncommand = "python3 line.py"\nprotocol = "stdio"',
        line_py=LINE_BOT,
    )
    submission(root, "carol", None, bot_py=SDK_BOT)
    submission(
        root, "dave", 'command = "bot.py"\nbuild = "echo no compiler >&2; exit 3"', bot_py=""
    )
    # A squatter takes erin's name: neither plays, so the squatter cannot knock erin out alone.
    submission(root, "erin", 'command = "python3 line.py"\nprotocol = "stdio"', line_py=LINE_BOT)
    submission(root, "zed", 'name = "erin"\ncommand = "bot.py"', bot_py=SDK_BOT)
    output = tmp_path / "out"
    args = ["run", "--players", "2", "--games", "2", "--json", "--output", str(output)]
    args += ["--deadline", "5", "--startup-timeout", "30"]  # no faults from a busy machine
    result = CliRunner().invoke(main, [*args, "--submissions", str(root)])
    assert result.exit_code == 3, result.output  # submissions were left out
    left_out = [
        f"submission 'carol' left out: no bot.toml in '{root / 'carol'}'",
        "submission 'erin' left out: submissions 'zed' claim its name 'erin' too: give each a "
        "name of its own in its bot.toml",
        "submission 'zed' left out: submissions 'erin' claim its name 'erin' too: give each a "
        "name of its own in its bot.toml",
        f"submission 'dave' left out: its build failed with status 3 (see {output}/logs/dave.log)",
    ]
    assert result.stderr.splitlines()[:4] == left_out
    assert "--allow-faults to exit 0" in result.stderr.splitlines()[-1]
    document = json.loads(result.stdout)
    rows = {row["bot"]: row for row in document["standings"]}
    assert set(rows) == {"alice", "bob"}
    assert [row["faults"] for row in rows.values()] == [0, 0]
    assert [left["folder"] for left in document["problems"]["left_out"]] == [
        "carol",
        "dave",
        "erin",
        "zed",
    ]
    standings = json.loads((output / "standings.json").read_text())
    assert standings["problems"] == document["problems"]
    alice_log = (output / "logs" / "alice.log").read_text()
    assert alice_log.startswith("[arena: alice build: echo building alice;")
    assert "building alice\n[arena: alice build ended with status 0" in alice_log
    assert "no compiler" in (output / "logs" / "dave.log").read_text()
    # Built in a copy: the folder submitted is never written to.
    assert not (root / "alice" / "strategy.txt").exists()
    (copy,) = (output / "builds").glob("alice-*")
    assert (copy / "strategy.txt").read_text() == "highest\n"
    replays = [json.loads(line) for line in (output / "replays.jsonl").read_text().splitlines()]
    alice_cards = {  # alice plays her highest card: the strategy her build wrote in her folder
        turn["cards"][game["spec"]["seats"].index("alice")]
        for game in replays
        for turn in game["record"]["rounds"][0]["turns"][:1]
    }
    hands = {
        max(game["record"]["rounds"][0]["hands"][game["spec"]["seats"].index("alice")])
        for game in replays
    }
    assert alice_cards == hands

    # Run again: nothing changed, so nothing is built again, and the tournament is complete.
    again = CliRunner().invoke(main, [*args, "--allow-faults", "--submissions", str(root)])
    assert again.exit_code == 0, again.output
    assert "the tournament is complete" in again.stderr
    assert (output / "logs" / "alice.log").read_text().count("build ended") == 1
    # A changed submission is a changed bot: refused, naming the way out.
    (root / "alice" / "bot.py").write_text(SDK_BOT + "\n# a new version\n")
    changed = CliRunner().invoke(main, [*args, "--submissions", str(root)])
    assert changed.exit_code == 2, changed.output
    assert (
        "bot 'alice' has changed since it played in "
        f"{output} (the content of its submission folder): choose a new --output folder, or "
        "--replace alice" in changed.stderr
    )
