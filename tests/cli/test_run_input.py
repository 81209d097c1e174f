"""`arena run` refuses bad input with one line naming the problem, and a non-zero exit."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
LOWEST = str(BOTS / "lowest_bot.py")
HIGHEST = str(BOTS / "highest_bot.py")
DRAFT = ("--variant", "professional-draft")


def refuse(*args: str) -> str:
    """Run `arena run` expecting a usage error; return its one line of explanation."""
    result = CliRunner().invoke(main, ["run", *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.output.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}", "--variant", "chinese"],
            "Invalid value for '--variant': 'chinese' is not one of standard, professional, "
            "professional-draft",
        ),
        (["--bot", "a=/no/such/bot.py", "--bot", f"b={HIGHEST}"], "no such file '/no/such/bot.py'"),
        (
            ["--bot", "a=no-such-program-xyz", "--bot", f"b={HIGHEST}"],
            "no such command 'no-such-program-xyz' on PATH",
        ),
        (
            ["--bot", f"same={LOWEST}", "--bot", f"same={HIGHEST}"],
            "two bots are named 'same': give each a unique name",
        ),
        (
            ["--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}", "--players", "3"],
            "2 bots cannot fill tables of 3: lower --players",
        ),
        (
            ["--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}", "--players", "11"],
            "Invalid value for '--players': 11 is not a whole number from 2 to 10",
        ),
        (["--bot", f"a={LOWEST}"], "enter at least 2 bots"),
        (
            ["--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}", "--games", "3"],
            "games per table must be a multiple of 2",
        ),
        (
            [*("--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}"), *DRAFT, "--games", "4"],
            "--games 4: the professional-draft variant deals nothing at random, so every deal of "
            "a table is the same game; a table plays one set of 2 games (one per seat rotation): "
            "use --games 2 or leave --games out",
        ),
        (["--bot", f"a b={LOWEST}", "--bot", f"b={HIGHEST}"], "nor a command 'a' on PATH"),
        (["--bot", f"../evil={LOWEST}", "--bot", f"b={HIGHEST}"], "no such file '../evil=/"),
        (["/no/such/tournament.toml"], "cannot read '/no/such/tournament.toml'"),
    ],
)
def test_bad_input(args: list[str], message: str) -> None:
    assert message in refuse(*args)


def test_a_tournament_file_that_is_not_toml(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("[tournament\nplayers = 4\n")
    assert "is not valid TOML" in refuse(str(bad))


def test_a_tournament_file_with_an_unknown_setting(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("[tournament]\nplayerz = 4\n")
    assert "unknown setting 'playerz'" in refuse(str(bad))


def test_a_tournament_file_with_a_wrong_type(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text('[tournament]\nplayers = "four"\n')
    assert "players is 'four', not a whole number from 2 to 10" in refuse(str(bad))


def test_a_round_robin_too_large_offers_a_balanced_sample(tmp_path: Path) -> None:
    bots = [f"--bot=b{i}={LOWEST}" for i in range(30)]
    line = refuse(*bots, "--players", "4", "--output", str(tmp_path))
    assert "the full round-robin is 27405 tables, 109620 games: too many" in line
    assert "--sample" in line


@pytest.mark.integration
def test_another_tournament_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    args = ["--bot", f"a={LOWEST}", "--bot", f"b={HIGHEST}", "--games", "2"]
    first = CliRunner().invoke(main, ["run", *args, "--quiet", "--output", str(tmp_path)])
    assert first.exit_code == 0, first.output
    drawn = re.search(r"^seed (\d+), drawn at random", first.stderr, re.MULTILINE)
    assert drawn is not None, first.stderr
    line = refuse(*args, "--seed", "5", "--output", str(tmp_path))
    assert f"holds a tournament of other rules (seed: {drawn.group(1)} -> 5)" in line
    assert "choose a new --output folder" in line
    again = CliRunner().invoke(main, ["run", *args, "--quiet", "--output", str(tmp_path)])
    assert again.exit_code == 0, again.output  # no --seed: the stored one, never a new one
    assert f"seed {drawn.group(1)}, this tournament's own" in again.stderr
