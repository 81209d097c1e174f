"""What `arena compare` says at its end is true: why no verdict came and what carries it on,
the games stored counted against the games the verdict read, in the same words in every line
and in the JSON (deals read, the games of those deals, the games stored), and which test
decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.compare import (
    CompareConfig,
    CompareResult,
    counted,
    stored_line,
    verdict_lines,
)
from arena.tournament.config import TournamentConfig
from arena.tournament.problems import Problems
from arena.tournament.standings import compute_standings
from arena.tournament.stats.sprt import DecidedBy, Hypotheses, SprtState, Verdict

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
ENTRIES = [
    f"{name}={BOTS / f'{program}_bot.py'}"
    for name, program in zip("abcd", ("lowest", "highest", "random", "heuristic"), strict=True)
]
OUT = Path("/o")


def comparison(
    deals: int,
    stored: int,
    verdict: Verdict | None,
    interrupted: bool,
    by: DecidedBy | None = None,
) -> CompareResult:
    """A comparison of NEW and OLD against two field bots (6 games a deal) at a cap of 60, its
    deals 1 bullhead apart, each a deviation of 2 from their mean."""
    new, old, *field = (parse_bot(entry) for entry in ENTRIES)
    config = CompareConfig(new, old, tuple(field), TournamentConfig(output=OUT), max_games=60)
    state = SprtState(Hypotheses(), deals, -1.0, 4.0 * deals, 0.5, verdict, by)
    standings = compute_standings([])
    return CompareResult(config, state, stored, stored, interrupted, Problems(), standings)


@pytest.mark.parametrize(
    ("deals", "stored", "verdict", "interrupted", "first", "last"),
    [
        (
            3,
            20,
            None,
            True,
            "verdict undecided: interrupted after 3 deals (18 games), before a verdict or the "
            "--max-games 60 cap; the same command goes on from there (alpha 0.05, beta 0.05)",
            "20 games stored in /o/: the 18 of the 3 deals read, and 2 of deals not read yet (a "
            "deal is read once it and every one before it are whole)",
        ),
        (
            10,
            60,
            None,
            False,
            "verdict undecided: no verdict in 10 deals (60 games), the most --max-games 60 "
            "allows; the same command with a larger --max-games goes on from there (alpha 0.05, "
            "beta 0.05)",
            "60 games stored in /o/",
        ),
        (
            4,
            25,
            Verdict.H1,
            False,
            "verdict H1: a is better than b, by at least 1 bullhead a game (alpha 0.05, beta "
            "0.05; reached by the GSPRT)",
            "25 games stored in /o/: the 24 of the 4 deals read, and 1 of later deals, which the "
            "verdict did not need",
        ),
    ],
)
def test_a_comparison_says_what_is_true_of_its_games(
    deals: int, stored: int, verdict: Verdict | None, interrupted: bool, first: str, last: str
) -> None:
    """An interrupted comparison advised a larger --max-games, and the games the verdict read
    (912) and the games stored (913) were printed without a word of why they differ."""
    by = DecidedBy.SPRT if verdict else None
    result = comparison(deals, stored, verdict, interrupted, by)
    assert verdict_lines(result)[0] == first
    assert verdict_lines(result)[-1].endswith(f"after {deals} deals ({deals * 6} games)")
    assert stored_line(result) == last
    data = result.to_dict()
    assert (data["deals"], data["games"], data["stored"]) == (deals, deals * 6, stored)
    assert data["verdict"] == (verdict or "undecided") and data["interrupted"] is interrupted


def test_the_lines_show_the_always_valid_interval_and_which_test_decided() -> None:
    result = comparison(12, 72, Verdict.H1, False, DecidedBy.INTERVAL)
    lines = verdict_lines(result)
    assert lines[0].endswith("(alpha 0.05, beta 0.05; reached by the always-valid interval)")
    low, high = result.state.always_valid
    assert low is not None and high is not None and low < -1.0 < high
    assert lines[2] == (
        f"always-valid interval {low:+.2f} to {high:+.2f} (98%, valid at every deal at once): "
        "H1 once it is below 0, H0 once above -1"
    )
    data = result.to_dict()
    assert data["decided_by"] == "interval"
    assert (data["always_valid_low"], data["always_valid_high"]) == (low, high)
    assert data["always_valid_confidence"] == pytest.approx(0.98)


def test_the_counts_read_alike_everywhere() -> None:
    assert counted(1, 8) == "1 deal (8 games)"
    assert counted(16, 8) == "16 deals (128 games)"
