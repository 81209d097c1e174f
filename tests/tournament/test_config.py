"""A tournament's settings are declared once, in TournamentConfig: the tournament file, the
`arena run` options, their defaults and help all follow that declaration."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.rules import Variant
from arena.server.declared import OptionError, Range
from arena.tournament.config import SETTINGS, ConfigError, TournamentConfig
from arena.tournament.tournament_file import load
from tests.cli.helpers import caught_run

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
LOWEST = BOTS / "lowest_bot.py"
HIGHEST = BOTS / "highest_bot.py"
TWO_BOTS = f"""
[[bot]]
name = "a"
command = "{LOWEST}"

[[bot]]
name = "b"
command = "{HIGHEST}"
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "t.toml"
    path.write_text(text)
    return path


def refused(folder: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(write(folder, text))
    return str(caught.value)


def test_every_field_but_the_entries_is_a_setting() -> None:
    entries = ("bots", "fingerprints", "left_out")
    declared = [f.name for f in fields(TournamentConfig) if f.name not in entries]
    assert [s.name for s in SETTINGS] == declared
    assert all(s.help for s in SETTINGS)


def test_every_setting_is_an_option_of_arena_run_showing_its_default() -> None:
    shown = CliRunner().invoke(main, ["run", "--help"], terminal_width=2000)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())  # a long option wraps its help: one line of it all
    for setting in SETTINGS:
        entry = re.search(re.escape(setting.option) + r" .*?\[default: (.*?)(; [^;\]]*)?\]", text)
        assert entry is not None and entry.group(1) == setting.shown, setting.option
        if isinstance(setting.bound, Range):  # and its range, as the declaration gives it
            assert entry.group(2) == f"; {setting.bound.shown}", setting.option
    assert "--first-deadline FLOAT" in shown.output
    assert "--end-score INTEGER" in shown.output and "[default: 66; 1<=x<=2147483647]" in text


def test_the_defaults_are_the_declared_ones() -> None:
    config = TournamentConfig()
    for setting in SETTINGS:
        if setting.name not in ("concurrency", "output"):  # made per config
            assert getattr(config, setting.name) == setting.default
    assert config.end_score == 66 and config.first_deadline == 5.0
    assert config.output == Path.cwd() / "arena-out"  # the cores, the current folder


def configured(monkeypatch: pytest.MonkeyPatch, *args: str) -> TournamentConfig:
    """The config `arena run ARGS` would play, caught before anything runs."""
    return caught_run(monkeypatch, *args)[0]


def test_first_deadline_from_the_command_line_and_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write(tmp_path, "[tournament]\nfirst_deadline = 8\ndeadline = 2\n" + TWO_BOTS)
    from_file = configured(monkeypatch, str(file))
    assert from_file.first_deadline == 8.0 and isinstance(from_file.first_deadline, float)
    assert from_file.bot_options().first_deadline == 8.0
    overridden = configured(monkeypatch, str(file), "--first-deadline", "3.5")
    assert overridden.first_deadline == 3.5 and overridden.deadline == 2.0
    assert overridden.bot_options().first_deadline == 3.5


def test_options_override_the_file_only_when_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = '[tournament]\nrestart = false\ninsecure = true\nvariant = "professional"\n'
    file = write(tmp_path, text + 'output = "results"\n' + TWO_BOTS)
    kept = configured(monkeypatch, str(file))
    assert (kept.restart, kept.insecure, kept.variant) == (False, True, Variant.PROFESSIONAL)
    assert kept.output == tmp_path / "results"  # relative to the file
    changed = configured(monkeypatch, str(file), "--restart", "--variant", "standard")
    assert (changed.restart, changed.insecure, changed.variant) == (True, True, Variant.STANDARD)
    assert configured(monkeypatch, str(file), "--output", "here").output == Path.cwd() / "here"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('protocol = "stdio"', "unknown key 'protocol' in a [[bot]] (known: name, command)"),
        ("deadline = 5.0", "unknown key 'deadline' in a [[bot]]"),
        ("name = 5", "a [[bot]]'s name must be a string, not 5"),
    ],
)
def test_a_bot_table_holds_only_its_own_keys(tmp_path: Path, table: str, message: str) -> None:
    text = f'[[bot]]\nname = "a"\ncommand = "{LOWEST}"\n[[bot]]\ncommand = "{HIGHEST}"\n{table}\n'
    if table.startswith("name"):
        text = f'[[bot]]\ncommand = "{HIGHEST}"\n{table}\n'
    assert message in refused(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tournamnet]\nplayers = 2\n", "unknown table 'tournamnet'"),
        ("bot = 3\n", "bot must be [[bot]] tables (an array of tables), not 3"),
        ("tournament = 3\n", "tournament must be a [tournament] table, not 3"),
        ("[tournament]\nplayerz = 4\n", "unknown setting 'playerz'"),
        ('[tournament]\ndeadline = "1"\n', "deadline is '1', not a number of seconds above 0"),
        ("[tournament]\nrestart = 1\n", "restart is 1, not true or false"),
        ("[tournament]\nplayers = true\n", "players is true, not a whole number from 2 to 10"),
        ("[tournament]\nseed = 1.5\n", "seed is 1.5, not a whole number from 0 to"),
        ('[tournament]\nvariant = "chinese"\n', "variant is 'chinese', not one of standard,"),
        ("[tournament]\noutput = 3\n", "output is 3, not the path of a folder"),
        ("[tournament]\ndeadline = nan\n", "deadline is nan, not a number of seconds above 0"),
        ("[tournament]\ndeadline = {a = 1}\n", "deadline is a table, not a number of"),
        ("[tournament]\nplayers = [2]\n", "players is an array, not a whole number"),
    ],
)
def test_a_tournament_file_holds_only_declared_settings(
    tmp_path: Path, text: str, message: str
) -> None:
    line = refused(tmp_path, text)
    assert message in line and line.startswith(repr(str(tmp_path / "t.toml")))


def test_with_settings_checks_each_value_by_its_declaration() -> None:
    config = TournamentConfig().with_settings({"deadline": 2, "tls_cert": "c.pem"}, Path("/x"))
    assert config.deadline == 2.0 and config.tls_cert == Path("/x/c.pem")
    with pytest.raises(ConfigError, match="unknown setting 'bots'"):
        TournamentConfig().with_settings({"bots": ()})
    with pytest.raises(OptionError, match="max_rounds is '3', not a whole number from 1 to"):
        TournamentConfig().with_settings({"max_rounds": "3"})


def test_the_rules_hold_what_must_not_change_and_the_settings_in_their_own_form() -> None:
    config = TournamentConfig(players=2, max_rounds=3, seed=4, games=6, first_deadline=0.5)
    rules = config.rules()
    assert {key: rules[key] for key in ("players", "variant", "end_score", "max_rounds")} == (
        config.settings().to_dict()
    )
    assert rules == {  # deals and bots may grow: not in them
        "players": 2,
        "variant": "standard",
        "end_score": 66,
        "max_rounds": 3,
        "seed": 4,
        "sample": None,
        "deadline": 1.0,
        "first_deadline": 1.0,  # never less than the deadline
        "max_faults": 20,
    }


def test_an_action_of_one_run_is_refused_in_a_file(tmp_path: Path) -> None:
    line = refused(tmp_path, '[tournament]\nreplace = "a"\n' + TWO_BOTS)
    assert "replace is for one run: give it as --replace instead" in line


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"gauntlet": "c"}, "--gauntlet 'c' is not an entered bot (entered: a, b)"),
        ({"replace": "c"}, "--replace 'c' is not an entered bot"),
    ],
)
def test_run_options_are_checked(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    config = load(write(tmp_path, TWO_BOTS)).with_settings(changes)
    with pytest.raises(ConfigError) as caught:
        config.check()
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"standings_every": -1}, "standings_every is -1, not a whole number of games from 0"),
        ({"build_timeout": 0.0}, "build_timeout is 0.0, not a number of seconds above 0"),
        ({"concurrency": 0}, "concurrency is 0, not a whole number of games from 1"),
        ({"workers": 10**6}, "workers is 1000000, not a whole number from 1 to 1024"),
    ],
)
def test_each_value_is_refused_alone_by_its_declaration(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError) as caught:
        TournamentConfig().with_settings(changes)
    assert str(caught.value).startswith(message)
    with pytest.raises(OptionError) as checked:  # built directly, the check refuses it too
        TournamentConfig(**changes).check()
    assert str(checked.value) == str(caught.value)
