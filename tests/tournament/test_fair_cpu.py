"""Fair CPU in real tournaments (issue 14's "must show").

The Monte Carlo sample bot, which searches until its deadline (less a margin), and a bot that
answers at 90% of its deadline share a table with a neighbour. Beside a hostile neighbour (16
busy processes, each in a session of its own, and attempts to lower everyone else's priority)
the Monte Carlo bot keeps at least 90% of the deals it simulates per decision beside a quiet
one, and neither bot ever times out. The two tournaments run at once, each an arena of its own
(so each on a core of its own), so that whatever else the machine does weighs on both alike:
what is compared is a ratio, never a time.

And the time bank in a tournament: drawn on, reset every game, and past it a timeout.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
from pathlib import Path

import pytest

from arena.server.cgroups import RunCgroups
from arena.server.specs import parse_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import RunSummary, run_tournament
from arena.tournament.store import LOGS, REPLAYS, STANDINGS_JSON

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
MONTECARLO = ROOT / "sample_bots" / "python" / "montecarlo_bot.py"
BOTS = ROOT / "tests" / "bots"
DEADLINE = 0.4
DEALS = re.compile(r"montecarlo: decision=\w+ turn=\d+ budget=\S+ used=\S+ deals=(\d+)")
KEPT = 0.9
"""The share of its deals the Monte Carlo bot must keep beside the hostile neighbour."""


def fair_machine() -> None:
    """Skip where bots cannot be pinned and frozen (fair mode then does not exist)."""
    made = RunCgroups.create()
    if isinstance(made, str) or not (made.pinned and made.freezable):
        pytest.skip(f"this machine cannot pin and freeze bots: {made}")
    asyncio.run(made.close())


def table(neighbour: str, output: Path) -> TournamentConfig:
    """One table, one deal in its three seat rotations, one round a game."""
    return TournamentConfig(
        bots=(
            parse_bot(f"montecarlo={MONTECARLO} --margin 0.1 --timing"),
            parse_bot(f"neighbour={BOTS / 'hog_bot.py'} {neighbour}"),
            parse_bot(f"punctual={BOTS / 'punctual_bot.py'} 0.9"),
        ),
        players=3,
        games=3,
        seed=3,
        max_rounds=1,
        deadline=DEADLINE,
        first_deadline=DEADLINE,
        concurrency=1,
        startup_timeout=60.0,  # six Python bots may start at once on two cores
        output=output,
    )


def deals(output: Path) -> list[int]:
    """The deals the Monte Carlo bot simulated at each decision that had a choice."""
    log = (output / LOGS / "montecarlo.log").read_text()
    return [int(found) for found in DEALS.findall(log)]


def faults(output: Path) -> list[tuple[str, str]]:
    """(bot, kind) of every fault of a run."""
    found = []
    for line in (output / REPLAYS).read_text().splitlines():
        game = json.loads(line)
        seats = game["spec"]["seats"]
        found += [(seats[fault["seat"]], fault["kind"]) for fault in game["faults"]]
    return found


def test_a_hostile_neighbour_costs_the_monte_carlo_bot_no_deals_and_nobody_a_timeout(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    fair_machine()

    async def both() -> tuple[RunSummary, ...]:
        runs = (table(name, tmp_path / name) for name in ("quiet", "hog"))
        return tuple(await asyncio.gather(*(run_tournament(config) for config in runs)))

    quiet, hostile = asyncio.run(asyncio.wait_for(both(), 240))
    assert quiet.played == hostile.played == 3
    for summary in (quiet, hostile):
        assert summary.run["cpu"]["mode"] == "fair", summary.run
    hog_log = (tmp_path / "hog" / LOGS / "neighbour.log").read_text()
    assert "hog: 16 busy processes; reniced" in hog_log  # it was hostile, and said how far
    calm, beside_hog = deals(tmp_path / "quiet"), deals(tmp_path / "hog")
    assert len(calm) >= 20 and len(beside_hog) >= 20
    ratio = statistics.mean(beside_hog) / statistics.mean(calm)
    print(
        f"\nMonte Carlo deals per decision: {statistics.mean(calm):.0f} beside a quiet "
        f"neighbour, {statistics.mean(beside_hog):.0f} beside the hostile one ({ratio:.2f})"
    )
    for name in ("quiet", "hog"):
        times = json.loads((tmp_path / name / STANDINGS_JSON).read_text())["times"]
        print(name, [(t["bot"], t["median_ms"], t["p99_ms"], t["cpu_median_ms"]) for t in times])
    assert ratio >= KEPT
    for output in (tmp_path / "quiet", tmp_path / "hog"):
        assert [f for f in faults(output) if f[0] != "neighbour"] == [], faults(output)


def banked(mode: str, output: Path) -> TournamentConfig:
    return TournamentConfig(
        bots=(
            parse_bot(f"banker={BOTS / 'banker_bot.py'} {mode}"),
            parse_bot(f"lowest={ROOT / 'sample_bots' / 'python' / 'lowest_bot.py'}"),
        ),
        games=2,
        seed=4,
        max_rounds=1,
        deadline=0.2,
        first_deadline=0.2,
        time_bank=0.6,
        concurrency=1,  # one game after the other: the bot's log reads game by game
        output=output,
    )


def bank_lefts(output: Path) -> list[float]:
    log = (output / LOGS / "banker.log").read_text()
    return [float(found) for found in re.findall(r"banker: bank_left=(\S+)", log)]


def test_the_time_bank_is_drawn_on_renewed_every_game_and_past_it_a_decision_times_out(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    async def both() -> tuple[RunSummary, ...]:
        runs = (banked(mode, tmp_path / mode) for mode in ("honest", "overdraw"))
        return tuple(await asyncio.gather(*(run_tournament(config) for config in runs)))

    honest, overdrawn = asyncio.run(asyncio.wait_for(both(), 240))
    assert honest.played == overdrawn.played == 2
    assert faults(tmp_path / "honest") == []
    lefts = bank_lefts(tmp_path / "honest")
    # Each game starts with the whole bank, and within a game it only ever goes down.
    second = lefts.index(0.6, 1)
    assert lefts[0] == 0.6 and lefts.count(0.6) == 2
    for game in (lefts[:second], lefts[second:]):
        assert game == sorted(game, reverse=True) and game[-1] < 0.6
    (times,) = [line for line in honest.standings.times if line.bot == "banker"]
    assert times.bank_games == 2 and times.bank_used > 0.3
    # Overdrawn: the first decision of each game runs past its deadline and bank, and times
    # out; the bank is then spent, so it answers in time for the rest of the game.
    assert faults(tmp_path / "overdraw") == [("banker", "timeout")] * 2
    lefts = bank_lefts(tmp_path / "overdraw")
    assert lefts.count(0.6) == 2 and set(lefts) == {0.6, 0.0}
