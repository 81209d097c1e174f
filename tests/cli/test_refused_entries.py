"""Bot entries that cannot be used, options a run would ignore, and values a message once showed
as Python: each is one line that names the flag or key (exit status 2, nothing written), and
what can be used is (a path with spaces, unquoted)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.submissions import BadSubmission, read_manifest
from tests.cli.refusals import HIGHEST, LOWEST, TWO_BOTS, Case, refuse

RUN = ("run", *TWO_BOTS, "--quiet", "--output", "{OUT}")
COMPARE = ("compare", f"a={LOWEST}", f"b={HIGHEST}", "--field", f"c={LOWEST}", "--output", "{OUT}")
FOLDER = {"botdir/readme.txt": "a folder, not a program\n"}
A_FOLDER = "botdir' is a folder, not a program: give the bot's program in it (e.g. "

ENTRIES = [
    Case(
        ("run", "--bot", "botdir", "--bot", HIGHEST, "--output", "{OUT}"),
        ("--bot", A_FOLDER),
        FOLDER,
    ),
    Case(
        ("run", "--bot", "{T}/botdir", "--bot", HIGHEST, "--output", "{OUT}"),
        ("--bot", A_FOLDER),
        FOLDER,
    ),
    Case(
        ("run", "--bot", "x=botdir", "--bot", HIGHEST, "--output", "{OUT}"),
        ("--bot", A_FOLDER),
        FOLDER,
    ),
    Case(("play", "--bot", "botdir", "--bot", HIGHEST), ("--bot", A_FOLDER), FOLDER),
    Case(("compare", "botdir", HIGHEST, "--output", "{OUT}"), ("'NEW'", A_FOLDER), FOLDER),
    Case((*COMPARE, "--field", "botdir"), ("--field", A_FOLDER), FOLDER),
    Case(("check-bot", "--", "botdir"), ("'COMMAND'", A_FOLDER), FOLDER),
    Case(
        ("run", "--bot", "my bots/none.py", "--bot", HIGHEST, "--output", "{OUT}"),
        ("--bot", "my bots/none.py', nor a command 'my' on PATH"),
    ),
    Case(
        ("run", "--bot", f"={LOWEST}", "--bot", HIGHEST, "--output", "{OUT}"),
        ("--bot", "empty name"),
    ),
    Case(("play", "--bot", f"={LOWEST}", "--bot", HIGHEST), ("--bot", "empty name")),
    Case(("compare", f"={LOWEST}", HIGHEST, "--output", "{OUT}"), ("'NEW'", "empty name")),
    Case(("run", "--bot", "", "--bot", HIGHEST, "--output", "{OUT}"), ("--bot", "has no command")),
    Case(("check-bot", "--name", "a b", "--", LOWEST), ("'--name'", "bad bot name 'a b'")),
    Case(("check-bot", "--name", "../x", "--", LOWEST), ("'--name'", "bad bot name '../x'")),
    Case(("check-bot", "--", ""), ("'COMMAND'", "has no command")),
    Case(
        ("run", "t.toml", "--output", "{OUT}"),
        ("t.toml': ", "a [[bot]]'s name is empty"),
        {"t.toml": f'[[bot]]\ncommand = "{LOWEST}"\nname = ""\n[[bot]]\ncommand = "{HIGHEST}"\n'},
    ),
]


@pytest.mark.parametrize("case", ENTRIES, ids=str)
def test_a_bot_entry_that_cannot_be_used_is_one_line(case: Case, tmp_path: Path) -> None:
    refuse(case, tmp_path)


def test_a_path_with_spaces_unquoted_is_one_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my bots").mkdir()
    shutil.copy(LOWEST, tmp_path / "my bots" / "x_bot.py")
    monkeypatch.chdir(tmp_path)
    spec = parse_bot("my bots/x_bot.py")
    assert spec.name == "x_bot" and spec.argv is not None
    assert spec.argv[-1] == str(tmp_path / "my bots" / "x_bot.py")
    assert parse_bot("x=my bots/x_bot.py").argv == spec.argv


JUNK = {"c.pem": "junk\n", "k.pem": "junk\n"}
IGNORED = [
    Case(
        (*RUN, "--tls-cert", "c.pem", "--tls-key", "k.pem"),
        ("--tls-cert is the TLS of --listen",),
        JUNK,
    ),
    Case((*RUN, "--tls-key", "k.pem"), ("--tls-key is the TLS of --listen",), JUNK),
    Case(
        (*COMPARE, "--tls-cert", "c.pem", "--tls-key", "k.pem"),
        ("--tls-cert is the TLS of --listen",),
        JUNK,
    ),
    Case((*RUN, "--insecure"), ("--insecure is for --listen or --cluster",)),
    Case((*RUN, "--bots-dir", "{T}"), ("--bots-dir is for the workers of --cluster or --workers",)),
    Case((*RUN, "--cluster-ca", "c.pem"), ("--cluster-ca is for a tls:// --cluster",), JUNK),
    Case((*RUN, "--cluster-key", "k.pem"), ("--cluster-key is for a tls:// --cluster",), JUNK),
    Case(
        (*RUN, "--cluster", "tcp://127.0.0.1:8786", "--cluster-cert", "c.pem"),
        ("--cluster-cert is for a tls:// --cluster",),
        JUNK,
    ),
    Case((*RUN, "--build-timeout", "5"), ("--build-timeout is for the builds of --submissions",)),
    Case(
        ("run", "--submissions", "subs", "--output", "{OUT}"),
        ("--submissions '", "subs' holds no submission"),
        {"subs/.hidden/bot.toml": 'command = "x"\n'},
    ),
    Case(
        ("run", "t.toml", "--output", "{OUT}"),
        ("--insecure is for --listen or --cluster",),
        {
            "t.toml": f'[tournament]\ninsecure = true\n[[bot]]\ncommand = "{LOWEST}"\n'
            f'[[bot]]\ncommand = "{HIGHEST}"\n'
        },
    ),
    Case(("play", "--deadline", "3"), ("--deadline is for bots (--bot)",)),
    Case(("play", "--strategy", "lowest", "--logs", "logs"), ("--logs is for bots (--bot)",)),
    Case(
        ("play", "--game", "1", "res", "--seed", "3"),
        ("its own seed: leave --seed out",),
        {"res/x": ""},
    ),
    Case(("play", "--game", "1", "res", "--players", "3"), ("leave --players out",), {"res/x": ""}),
    Case(
        ("play", "--game", "1", "res", "--max-rounds", "3"),
        ("leave --max-rounds out",),
        {"res/x": ""},
    ),
    Case(
        ("play", "--game", "1", "res", "--deadline", "3"), ("leave --deadline out",), {"res/x": ""}
    ),
    Case(
        ("play", "--game", "1", "res", "--rotation", "1"), ("leave --rotation out",), {"res/x": ""}
    ),
    Case(
        ("play", "--game", "1", "res", "--strategy", "lowest"),
        ("leave --strategy out",),
        {"res/x": ""},
    ),
]


@pytest.mark.parametrize("case", IGNORED, ids=str)
def test_an_option_the_run_would_ignore_is_refused_in_one_line(case: Case, tmp_path: Path) -> None:
    refuse(case, tmp_path)


TWO = f'[[bot]]\ncommand = "{LOWEST}"\n[[bot]]\ncommand = "{HIGHEST}"\n'
SHOWN = [  # values once shown as Python (a dict, a list, True): now as TOML writes them, or by kind
    ('[bot]\ncommand = "x"\n', "bot must be [[bot]] tables (an array of tables), not a table"),
    ("tournament = [1]\n" + TWO, "tournament must be a [tournament] table, not an array"),
    ("[tournament]\ndeadline = { a = 1 }\n" + TWO, "deadline is a table, not a number of seconds"),
    ("[tournament]\nplayers = [2, 3]\n" + TWO, "players is an array, not a whole number"),
    ("[tournament]\nrestart = 1\n" + TWO, "restart is 1, not true or false"),
    ("[tournament]\nplayers = true\n" + TWO, "players is true, not a whole number from 2 to 10"),
    (
        f'[[bot]]\ncommand = "{LOWEST}"\nname = {{ x = 1 }}\n' + TWO,
        "name must be a string, not a table",
    ),
]


@pytest.mark.parametrize(("text", "message"), SHOWN, ids=[message for _, message in SHOWN])
def test_a_value_is_shown_as_toml_never_as_python(text: str, message: str, tmp_path: Path) -> None:
    line = refuse(
        Case(("run", "t.toml", "--output", "{OUT}"), ("t.toml': ", message), {"t.toml": text}),
        tmp_path,
    )
    assert "{" not in line and "[1" not in line and "True" not in line


def test_a_submission_s_manifest_shows_a_value_by_its_kind(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "bot.toml").write_text("command = { a = 1 }\n")
    with pytest.raises(BadSubmission, match=r"^bot.toml: command must be a string, not a table$"):
        read_manifest(tmp_path / "x")
