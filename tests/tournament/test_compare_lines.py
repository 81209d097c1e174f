"""What `arena compare` says at its end is true: why no verdict came and what carries it on,
and the games stored counted against the games the verdict read."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.specs import parse_bot
from arena.tournament.compare import CompareConfig, CompareResult, stored_line, verdict_lines
from arena.tournament.config import TournamentConfig
from arena.tournament.problems import Problems
from arena.tournament.standings import compute_standings
from arena.tournament.stats.sprt import Hypotheses, SprtState, Verdict

BOTS = Path(__file__).parents[2] / "sample_bots" / "python"
ENTRIES = [
    f"{name}={BOTS / f'{program}_bot.py'}"
    for name, program in zip("abcd", ("lowest", "highest", "random", "heuristic"), strict=True)
]
OUT = Path("/o")


def comparison(
    deals: int, stored: int, verdict: Verdict | None, interrupted: bool
) -> CompareResult:
    """A comparison of NEW and OLD against two field bots (6 games a deal) at a cap of 60."""
    new, old, *field = (parse_bot(entry) for entry in ENTRIES)
    config = CompareConfig(new, old, tuple(field), TournamentConfig(output=OUT), max_games=60)
    state = SprtState(Hypotheses(), deals, -1.0, None, 0.5, verdict)
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
            "verdict undecided: interrupted after 18 games, before a bound or the --max-games 60 "
            "cap was reached; the same command carries the comparison on",
            "20 games in /o/: the 18 of the 3 deals read, and 2 of deals not yet whole: the next "
            "run plays the rest of them",
        ),
        (
            10,
            60,
            None,
            False,
            "verdict undecided: neither bound was reached in 60 games, the most --max-games 60 "
            "allows; a larger --max-games carries the comparison on",
            "60 games in /o/",
        ),
        (
            4,
            25,
            Verdict.H1,
            False,
            "verdict H1: a is better than b, by at least 1 bullhead a game",
            "25 games in /o/: the 24 of the 4 deals read, and 1 of deals the verdict did not "
            "need: they were under way when it came",
        ),
    ],
)
def test_a_comparison_says_what_is_true_of_its_games(
    deals: int, stored: int, verdict: Verdict | None, interrupted: bool, first: str, last: str
) -> None:
    """An interrupted comparison advised a larger --max-games, and the games the verdict read
    (912) and the games stored (913) were printed without a word of why they differ."""
    result = comparison(deals, stored, verdict, interrupted)
    assert verdict_lines(result)[0].startswith(first)
    assert f"after {deals} deals: {deals * 6} games" in verdict_lines(result)[-1]
    assert stored_line(result) == last
