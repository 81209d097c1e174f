"""Answer times (issue 14): kept by the store beside each game (never in its record or in the
replay file), read back by every reader, summed up in the standings (median, 99th percentile,
bank), and shown in the replays and the report."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import DecisionTime
from arena.rules import Decision, Settings
from arena.server.declared import OptionError
from arena.server.isolation.fairness import CpuMode
from arena.server.specs import parse_bot
from arena.spectate import charts
from arena.spectate.display import decision_times, render_turn
from arena.spectate.replay import show_game
from arena.spectate.source import open_games
from arena.spectate.viewer import compact
from arena.tournament import GameSpec, ResultStore, compute_standings, game_id
from arena.tournament.config import TournamentConfig
from arena.tournament.outcome import times_from_json, times_to_json
from arena.tournament.store import REPLAYS
from arena.tournament.timing import TimeTally, quantile, times_table
from arena.tournament.writer import write_results
from tests.tournament.helpers import made_up, played

SEATS = ("a", "b", "c")
SETTINGS = {"bots": list(SEATS), "players": 3}
GAME = GameSpec(game_id(0, 0, 0), 0, 0, 0, SEATS, 5, Settings(players=3, max_rounds=2))


def timed(seat: int, seconds: float, bank: float = 0.0, turn: int = 0) -> DecisionTime:
    return DecisionTime(seat, Decision.CARD, 0, turn, seconds, seconds / 2, bank)


def test_times_travel_as_compact_json_to_the_microsecond() -> None:
    times = (timed(0, 0.3125), DecisionTime(1, Decision.ROW, 2, 9, 0.0004, None, 0.25, 0.0))
    assert times_from_json(json.loads(json.dumps(times_to_json(times)))) == times
    older = [[0, "card", 0, 1, 312500, 156250, 0]]  # before the neighbours' CPU was kept
    assert times_from_json(older) == (timed(0, 0.3125, turn=1),)


def test_quantiles_are_exact_to_a_tenth_of_a_millisecond() -> None:
    counts = Counter({round(ms * 10): 1 for ms in range(1, 101)})  # 1 ms to 100 ms
    assert quantile(counts, 0.5) == 0.05
    assert quantile(counts, 0.99) == 0.099
    assert quantile(counts, 1.0) == 0.1
    assert quantile(Counter(), 0.5) is None


def test_the_standings_carry_each_bots_median_p99_and_bank() -> None:
    first = replace(
        made_up(SEATS, (1, 2, 3)), times=(timed(0, 0.1), timed(1, 0.5, bank=0.2), timed(0, 0.3))
    )
    second = replace(
        made_up(SEATS, (3, 2, 1), rotation=1),
        times=(timed(0, 0.2), timed(1, 0.4, bank=0.1), timed(2, 0.001)),
    )
    standings = compute_standings([first, second], resamples=20)
    times = {line.bot: line for line in standings.times}
    assert [line.bot for line in standings.times] == [line.bot for line in standings.bots]
    a, b, c = times["a"], times["b"], times["c"]
    assert (a.decisions, a.median, a.p99, a.slowest) == (3, 0.2, 0.3, 0.3)
    assert a.cpu_median == 0.1 and a.bank_used == 0 and a.bank_games == 0
    assert (b.decisions, b.bank_games) == (2, 2) and abs(b.bank_used - 0.3) < 1e-9
    assert c.to_dict()["median_ms"] == 1.0
    assert "median ms" in times_table(standings.times)


def test_no_times_no_lines() -> None:
    tally = TimeTally()
    tally.add(made_up(SEATS, (1, 2, 3)))
    assert tally.result(SEATS) == ()


def test_the_store_keeps_times_beside_the_game_and_out_of_the_replay_file(tmp_path: Path) -> None:
    outcome = replace(played(GAME), times=(timed(0, 0.25), timed(1, 0.002)))
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        store.save(outcome)
        (again,) = store.outcomes()
        (result,) = store.results()
        write_results(store, tmp_path)
    assert again.times == result.times == outcome.times
    line = (tmp_path / REPLAYS).read_text()
    assert "0.25" not in line and "times" not in line  # the replay file is the same every run
    with open_games(tmp_path) as source:  # and spectators read them
        (seen,) = source.outcomes()
    assert seen.times == outcome.times
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        assert store.replace("a", "new") == 1
    db = sqlite3.connect(tmp_path / "results.sqlite")
    assert db.execute("SELECT count(*) FROM decision_times").fetchone() == (0,)


def test_a_database_from_before_times_reads_as_games_without_them(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "results.sqlite", SETTINGS) as store:
        store.save(replace(played(GAME), times=(timed(0, 0.25),)))
    sqlite3.connect(tmp_path / "results.sqlite").execute("DROP TABLE decision_times")
    with open_games(tmp_path) as source:
        (seen,) = source.outcomes()
    assert seen.times == ()
    with ResultStore.reader(tmp_path / "results.sqlite") as reader:
        assert [o.times for o in reader.results()] == [()]


def test_the_replays_show_each_decisions_time() -> None:
    outcome = played(GAME)
    cards = outcome.record.rounds[0].turns[0].cards
    outcome = replace(outcome, times=(timed(0, 0.3124, turn=0), timed(2, 0.0008, 0.1, turn=0)))
    names = list(SEATS)
    text = render_turn(outcome.record, 0, 1, names, times=decision_times(outcome.times))
    assert f"a {cards[0]} (312 ms)" in text
    assert f"b {cards[1]}," in text  # no time kept: none shown
    assert f"c {cards[2]} (0.8 ms, 100 ms of bank)" in text
    assert "(312 ms)" in show_game(outcome, "1.1")
    assert "ms)" not in show_game(replace(outcome, times=()), "1.1")
    shown = compact(outcome, 1, {bot: index for index, bot in enumerate(SEATS)})
    assert shown["times"][0] == [0, 1, 0, "card", 312.4, 156.2, 0]


def test_the_report_charts_the_times_and_says_when_there_are_none() -> None:
    outcome = replace(made_up(SEATS, (1, 2, 3)), times=(timed(0, 0.3), timed(1, 0.001)))
    standings = compute_standings([outcome], resamples=20)
    colours = charts.bot_colours(SEATS)
    chart = charts.times_chart(standings, colours)
    assert "<svg id=times-chart" in chart and "300 / 300 ms" in chart
    assert "1.0 / 1.0 ms" in chart and ">c<" not in chart  # c has no time: no line
    assert charts.times_chart(compute_standings([made_up(SEATS, (1, 2, 3))], 20), colours) == ""


def test_the_time_bank_is_a_rule_of_the_tournament_only_when_there_is_one() -> None:
    bots = tuple(parse_bot(f"{name}=/bin/true") for name in SEATS)
    plain = TournamentConfig(bots=bots, seed=1)
    assert "time_bank" not in plain.rules()  # older tournaments still match on resume
    banked = replace(plain, time_bank=2.5)
    assert banked.rules()["time_bank"] == 2.5 and banked.bot_options().time_bank == 2.5
    assert replace(plain, cpu=CpuMode.SHARED).bot_options().cpu is CpuMode.SHARED
    with pytest.raises(OptionError, match=r"time_bank is -1\.0, not a number of seconds from 0"):
        replace(plain, time_bank=-1.0).check()
