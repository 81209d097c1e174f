"""`arena play --game` plays a game of randomized bots again exactly: the random sample bot and
the Monte Carlo bot at a fixed number of simulations draw only from the seeds every view
carries, which the stored game keeps (`GameSpec.bot_seed`). Another bot seed is another game;
a game stored without one (by an older arena) still plays again, with no seeds, as it was.

One tournament of three one-round games of three seats, and one game of it played three times.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import run_tournament
from arena.tournament.store import DATABASE

pytestmark = pytest.mark.integration

SAMPLES = Path(__file__).parents[2] / "sample_bots" / "python"
GAME = "t000-d00-r1"


def rewrite_spec(output: Path, game: str, change: dict[str, object | None]) -> None:
    """Rewrite one stored game's spec: `change`'s keys set, or removed where the value is None."""
    with sqlite3.connect(output / DATABASE) as db:
        (text,) = db.execute("SELECT spec FROM games WHERE game_id = ?", (game,)).fetchone()
        spec = json.loads(text)
        for key, value in change.items():
            if value is None:
                spec.pop(key)
            else:
                spec[key] = value
        db.execute("UPDATE games SET spec = ? WHERE game_id = ?", (json.dumps(spec), game))


def stored_bot_seed(output: Path, game: str) -> int:
    with sqlite3.connect(output / DATABASE) as db:
        (text,) = db.execute("SELECT spec FROM games WHERE game_id = ?", (game,)).fetchone()
    seed: int = json.loads(text)["bot_seed"]
    return seed


def test_a_game_of_randomized_bots_played_again_is_the_same_game(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    output = tmp_path / "out"
    bots = (
        parse_bot(f"random={SAMPLES / 'random_bot.py'}"),
        parse_bot(f"montecarlo={SAMPLES / 'montecarlo_bot.py'} --simulations 8"),
        parse_bot(f"noisy={SAMPLES / 'noisy_heuristic_bot.py'} --share 0.5"),
    )
    config = TournamentConfig(
        bots=bots,
        players=3,
        games=3,
        max_rounds=1,
        seed=11,
        deadline=5.0,  # far beyond 8 simulations: the search stops at its cap, never its time
        concurrency=1,  # one process a bot: the three games need no more
        reuse_processes=True,
        output=output,
    )
    summary = asyncio.run(run_tournament(config))
    assert summary.played == 3 and not summary.interrupted

    def play_again() -> tuple[int, str]:
        result = CliRunner().invoke(main, ["play", "--game", GAME, str(output)])
        return result.exit_code, result.output

    status, shown = play_again()
    assert status == 0, shown
    assert f"the same game: {GAME}'s record is identical to the stored one" in shown

    # The seeds are what made it the same: another bot seed, and the bots choose otherwise.
    rewrite_spec(output, GAME, {"bot_seed": stored_bot_seed(output, GAME) ^ 1})
    status, shown = play_again()
    assert status == 4, shown
    assert f"not the same game: {GAME} differs from the stored record" in shown

    # A game stored by an older arena has no bot seed: it reads, and plays with none.
    rewrite_spec(output, GAME, {"bot_seed": None})
    status, shown = play_again()
    assert status == 4 and "Traceback" not in shown, shown
    assert f"{GAME} differs from the stored record" in shown
