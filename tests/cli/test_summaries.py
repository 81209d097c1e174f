"""What a run says at its end is true: what this run played and what the tournament still
lacks, how to go on after an interruption; `--replace` says what it drops, and every stored game
keeps its id."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.run import games_line, interrupted_line
from arena.tournament.config import TournamentConfig
from arena.tournament.problems import Problems
from arena.tournament.runner import RunSummary
from arena.tournament.standings import compute_standings

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
PROGRAMS = {"a": "lowest", "b": "highest", "c": "random", "d": "heuristic"}
ENTRIES = {name: f"{name}={BOTS / f'{program}_bot.py'}" for name, program in PROGRAMS.items()}
OUT = Path("/o")


def summary(
    played: int, total: int, stored: int, whole: int, interrupted: bool = False
) -> RunSummary:
    standings = compute_standings([])
    return RunSummary(standings, played, total, stored, interrupted, Problems(), whole=whole)


@pytest.mark.parametrize(
    ("counts", "changes", "line"),
    [
        ((6, 6, 6, 6), {}, "6 of 6 games in /o/ (6 played by this run)"),
        ((0, 6, 6, 6), {}, "6 of 6 games in /o/ (none played by this run)"),
        ((2, 6, 6, 6), {"replace": "a"}, "6 of 6 games in /o/ (2 played by this run)"),
        (
            (6, 8, 8, 12),
            {"gauntlet": "c"},
            "8 of 12 games in /o/ (6 played by this run, the gauntlet of c); the tournament "
            "still lacks 4 games of the tables without c: run again without --gauntlet to play "
            "them",
        ),
        (
            (0, 12, 12, 12),
            {"gauntlet": "c"},
            "12 of 12 games in /o/ (none played by this run, the gauntlet of c)",
        ),
    ],
)
def test_the_summary_says_what_this_run_played_and_what_the_tournament_lacks(
    counts: tuple[int, int, int, int], changes: dict[str, str], line: str
) -> None:
    """A gauntlet that left the round-robin incomplete ended "14 of 14 games"."""
    assert games_line(summary(*counts), TournamentConfig(output=OUT).with_settings(changes)) == line


@pytest.mark.parametrize(
    ("replaced", "line"),
    [
        (
            None,
            "interrupted: 4 of the games this run planned are not played yet, the 8 stored are "
            "kept; run the same command again to play them",
        ),
        (
            "a",
            "interrupted: 4 of the games this run planned are not played yet, the 8 stored are "
            "kept; run the same command without --replace to play them (with it, the games of "
            "a played so far would be dropped again)",
        ),
    ],
)
def test_an_interrupted_run_says_how_to_go_on(replaced: str | None, line: str) -> None:
    """The same command again was the advice after an interrupted --replace, which then dropped
    the games that run had played."""
    config = TournamentConfig(output=OUT, replace=replaced)
    assert interrupted_line(summary(2, 12, 8, 12, interrupted=True), config) == line


def arena_run(output: Path, *args: str) -> tuple[int, str, str]:
    """`arena run` at two-seat tables of one-round games, one process per bot (what these tests
    read is the summary's counts, not how a game is played or sealed)."""
    options = ["--players", "2", "--max-rounds", "1", "--reuse-processes"]
    result = CliRunner().invoke(main, ["run", *args, *options, "--output", str(output)])
    return result.exit_code, result.stdout, result.stderr


def listed(output: Path) -> list[str]:
    """The ids of the stored games, as `arena replay` lists them."""
    result = CliRunner().invoke(main, ["replay", str(output)])
    assert result.exit_code == 0, result.output
    return [line.split()[1] for line in result.stdout.splitlines() if line.strip()[:1].isdigit()]


@pytest.mark.integration
def test_a_gauntlet_says_what_the_round_robin_still_lacks(tmp_path: Path) -> None:
    out = tmp_path / "out"
    two = ["--bot", ENTRIES["a"], "--bot", ENTRIES["b"], "--quiet"]
    status, stdout, _ = arena_run(out, *two)
    assert (status, stdout.splitlines()[-1]) == (
        0,
        f"2 of 2 games in {out}/ (2 played by this run)",
    )
    four = [*two, "--bot", ENTRIES["c"], "--bot", ENTRIES["d"], "--gauntlet", "c"]
    status, stdout, _ = arena_run(out, *four)
    assert status == 0
    assert stdout.splitlines()[-1] == (
        f"8 of 12 games in {out}/ (6 played by this run, the gauntlet of c); the tournament "
        "still lacks 4 games of the tables without c: run again without --gauntlet to play them"
    )
    status, stdout, stderr = arena_run(out, *four)
    assert f"the gauntlet of c is complete: every game of its tables is stored in {out}" in stderr
    assert stdout.splitlines()[-1].startswith("8 of 12 games in")
    status, stdout, _ = arena_run(out, *four[:-2])
    assert stdout.splitlines()[-1] == f"12 of 12 games in {out}/ (4 played by this run)"


@pytest.mark.integration
def test_replace_says_what_it_drops_and_the_games_keep_their_ids(tmp_path: Path) -> None:
    """After --replace the stored ids changed (t000 became t009) and the old ones no longer
    worked; and an unchanged bot's games were replayed without a word."""
    out = tmp_path / "out"
    three = ["--bot", ENTRIES["a"], "--bot", ENTRIES["b"], "--bot", ENTRIES["c"], "--quiet"]
    assert arena_run(out, *three)[0] == 0
    before = listed(out)
    assert before[0] == "t000-d00-r0" and len(before) == 6
    status, stdout, stderr = arena_run(out, *three, "--replace", "a")
    assert status == 0, stderr
    assert (
        "--replace a: its 4 stored games are dropped and played again; a has the fingerprint "
        "they were played with (its command and the files it names): only what that does not "
        "cover (a module it imports, an external bot's program) or chance can make them differ"
    ) in stderr.splitlines()
    assert stdout.splitlines()[-1] == f"6 of 6 games in {out}/ (4 played by this run)"
    assert listed(out) == before
    shown = CliRunner().invoke(main, ["replay", str(out), "--game", "t000-d00-r0"])
    assert shown.exit_code == 0, shown.output
    status, _, stderr = arena_run(out, *three, "--bot", ENTRIES["d"], "--replace", "d")
    assert "--replace d: it has no stored games; nothing is dropped" in stderr.splitlines()
    assert listed(out)[:6] == before
