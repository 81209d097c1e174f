"""A ladder's settings: every key declared and checked as the arena's other settings are, each
refusal one line naming the key, the value and what it takes; `write_settings` writes what
`read_settings` reads back to the same settings."""

from __future__ import annotations

import math
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ladder.errors import LadderError
from arena.ladder.settings import (
    SANDBOX_MODES,
    SETTINGS,
    SETTINGS_BY_NAME,
    LadderSettings,
    read_settings,
    settings_of,
    settings_text,
    write_settings,
)
from arena.rules import Variant
from arena.server.declared import Declared, Form, Range
from arena.server.isolation.sandbox import SandboxMode
from arena.server.lobby import BotSpec
from arena.tournament.config import TournamentConfig

LISTED = {
    *("players", "end_score", "max_rounds", "variant", "deadline", "first_deadline"),
    *("time_bank", "startup_timeout", "sandbox", "submissions_per_day", "active_per_author"),
    *("upload_cap_mb", "placement_sets", "tau", "bench_window", "bench_fault_share"),
    *("sets_at_once", "validation_games"),
}
"""The keys docs/ladder.md and the shared plan name."""


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ladder.toml"
    path.write_text(text)
    return path


def test_every_key_the_plan_names_is_declared_with_its_default() -> None:
    assert set(SETTINGS_BY_NAME) == LISTED
    defaults = LadderSettings()
    assert (defaults.players, defaults.end_score, defaults.max_rounds) == (4, 66, None)
    assert (defaults.deadline, defaults.first_deadline, defaults.time_bank) == (1.0, 5.0, 0.0)
    assert defaults.tau == pytest.approx(0.0833, abs=1e-4)
    assert (defaults.submissions_per_day, defaults.active_per_author) == (5, 2)
    assert (defaults.upload_cap_mb, defaults.placement_sets, defaults.sets_at_once) == (20, 10, 1)
    assert (defaults.bench_window, defaults.bench_fault_share) == (10, 0.5)
    defaults.check()
    for declared in SETTINGS:
        assert declared.help.endswith(".")
        if declared.kind in (int, float):
            assert isinstance(declared.bound, Range)


def test_the_sandbox_takes_what_the_sandbox_mode_does() -> None:
    assert tuple(mode.value for mode in SandboxMode) == SANDBOX_MODES


def test_the_defaults_are_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "ladder.toml"
    write_settings(path, LadderSettings())
    assert read_settings(path) == LadderSettings()
    text = path.read_text()
    assert "# max_rounds =" in text  # none, which TOML cannot hold, is a comment
    assert all(len(line) <= 100 for line in text.splitlines())
    assert [p.name for p in tmp_path.iterdir()] == ["ladder.toml"]  # no temporary file left


def values(declared: Declared) -> st.SearchStrategy[Any]:
    """Any value a declared setting takes."""
    if declared.kind is Variant:
        return st.sampled_from(list(Variant))
    if isinstance(declared.bound, Form):
        return st.sampled_from(SANDBOX_MODES)
    assert isinstance(declared.bound, Range)
    low, high = declared.bound.low, declared.bound.high
    if declared.kind is int:
        drawn: st.SearchStrategy[Any] = st.integers(int(low), int(high))
    else:
        below = declared.bound.below
        drawn = st.floats(low, high, exclude_min=declared.bound.above, exclude_max=below)
    return st.none() | drawn if declared.optional else drawn


@st.composite
def any_settings(draw: st.DrawFn) -> LadderSettings:
    chosen = {declared.name: draw(values(declared)) for declared in SETTINGS}
    chosen["first_deadline"] = max(chosen["first_deadline"], chosen["deadline"])
    return LadderSettings(**chosen)


@given(any_settings())
def test_any_settings_are_written_and_read_back_the_same(settings: LadderSettings) -> None:
    data = tomllib.loads(settings_text(settings))
    assert {key for key in SETTINGS_BY_NAME if getattr(settings, key) is not None} == set(data)
    assert settings_of(data) == settings


REFUSED = [
    ("deadline = 0", "deadline is 0, not a number of seconds above 0 and at most 4294967"),
    ("deadline = nan", "deadline is nan, not a number of seconds"),
    ("players = 11", "players is 11, not a whole number from 2 to 10"),
    ("players = true", "players is true, not a whole number from 2 to 10"),
    ("players = '4'", "players is '4', not a whole number from 2 to 10"),
    ("tau = -0.1", "tau is -0.1, not a number from 0 to 8.33333"),
    ("bench_fault_share = 1", "bench_fault_share is 1, not a number at least 0 and below 1"),
    ("variant = 'chess'", "variant is 'chess', not one of standard, professional, "),
    ("sandbox = 'maybe'", "sandbox is 'maybe', not one of auto, on, off"),
    ("max_rounds = 0", "max_rounds is 0, not a whole number from 1 to"),
    ("upload_cap_mb = 0", "upload_cap_mb is 0, not a whole number of MiB from 1 to 1024"),
    ("end_score = [66]", "end_score is an array, not a whole number of bullheads"),
    ("[players]\nx = 1", "players is a table, not a whole number"),
    ("placers = 4", "unknown key 'placers' (known: players, variant, end_score, "),
    ("deadline = 2.0\nfirst_deadline = 1.0", "first_deadline is 1, less than deadline (2)"),
]


@pytest.mark.parametrize(("text", "said"), REFUSED, ids=[text for text, _ in REFUSED])
def test_a_value_a_key_cannot_take_is_one_line_naming_it(
    tmp_path: Path, text: str, said: str
) -> None:
    path = written(tmp_path, text + "\n")
    with pytest.raises(LadderError) as caught:
        read_settings(path)
    message = str(caught.value)
    assert message.startswith(f"{str(path)!r}: {said}")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"players = \n", "is not valid TOML"),
        (b"# caf\xe9\n", "is not UTF-8 text (byte 5 is 0xe9): a ladder's settings file is TOML"),
    ],
)
def test_a_file_that_is_no_toml_is_refused_naming_it(
    tmp_path: Path, content: bytes, said: str
) -> None:
    path = tmp_path / "ladder.toml"
    path.write_bytes(content)
    with pytest.raises(LadderError, match=r"ladder\.toml' " + said.replace("(", r"\(")[:20]):
        read_settings(path)


def test_a_missing_file_or_a_folder_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(LadderError, match=r"cannot read '.*nothing\.toml': No such file"):
        read_settings(tmp_path / "nothing.toml")
    with pytest.raises(LadderError, match="is not a file: give a ladder's settings file"):
        read_settings(tmp_path)


def test_a_key_left_out_keeps_its_default(tmp_path: Path) -> None:
    settings = read_settings(written(tmp_path, "players = 2\nmax_rounds = 1\n"))
    assert settings == replace(LadderSettings(), players=2, max_rounds=1)
    assert read_settings(written(tmp_path, "")) == LadderSettings()


def test_check_refuses_what_read_settings_refuses() -> None:
    with pytest.raises(LadderError, match="deadline is inf"):
        LadderSettings(deadline=math.inf).check()
    with pytest.raises(LadderError, match=r"first_deadline is 0\.5, less than deadline"):
        LadderSettings(first_deadline=0.5).check()


def test_settings_that_are_refused_are_not_written(tmp_path: Path) -> None:
    with pytest.raises(LadderError, match="players is 1"):
        write_settings(tmp_path / "ladder.toml", LadderSettings(players=1))
    assert list(tmp_path.iterdir()) == []


def test_a_set_is_one_table_of_one_deal_in_every_rotation(tmp_path: Path) -> None:
    bots = [BotSpec(name, ("true",)) for name in "abc"]
    settings = LadderSettings(players=3, max_rounds=1, sandbox="off", time_bank=0.5)
    config = settings.tournament_config(tmp_path / "set", bots, seed=7)
    assert isinstance(config, TournamentConfig)
    assert (config.players, config.games, config.deals, config.seed) == (3, 3, 1, 7)
    assert (config.max_rounds, config.sandbox, config.time_bank) == (1, SandboxMode.OFF, 0.5)
    assert config.settings() == settings.rules()
    config.check()


def test_the_docs_table_lists_every_key_with_its_default_and_bound() -> None:
    page = (Path(__file__).parents[2] / "docs" / "ladder.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    documented = {row.split("`")[1]: row for row in rows}
    for declared in SETTINGS:
        assert declared.name in documented, f"docs/ladder.md lacks {declared.name}"
        cells = [cell.strip() for cell in documented[declared.name].split("|")[1:-1]]
        assert cells[1:3] == [declared.shown, declared.accepted()]
