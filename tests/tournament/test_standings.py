"""Standings: totals, means, shared wins, faults, ranking, pairings, bootstrap intervals, output."""

from __future__ import annotations

import csv
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from arena.players import Fault, FaultKind
from arena.rules import Decision
from arena.tournament import (
    GameOutcome,
    Standings,
    compute_standings,
    pairwise_table,
    standings_table,
)
from arena.tournament.standings import StandingsTally
from arena.tournament.writer import write_csv
from tests.tournament.helpers import made_up

SEATS = ["ann", "bob", "cyd"]
ONE_DEAL = [
    made_up(SEATS, [5, 10, 10], rotation=0),  # ann wins
    made_up(SEATS, [3, 3, 7], rotation=1),  # ann and bob share the win
    made_up(SEATS, [8, 1, 8], rotation=2),  # bob wins
]


def fault(seat: int, kind: FaultKind) -> Fault:
    return Fault(seat, kind, Decision.CARD, 0, 0, str(kind))


def test_totals_means_and_shared_wins() -> None:
    lines = {line.bot: line for line in compute_standings(ONE_DEAL).bots}
    assert [(lines[b].games, lines[b].bullheads, lines[b].wins) for b in SEATS] == [
        (3, 16, 1.5),
        (3, 14, 1.5),
        (3, 25, 0.0),
    ]
    assert lines["ann"].mean == pytest.approx(16 / 3)
    assert lines["cyd"].mean == pytest.approx(25 / 3)


def test_ranked_by_total_bullheads() -> None:
    standings = compute_standings(ONE_DEAL)
    assert [(line.rank, line.bot) for line in standings.bots] == [
        (1, "bob"),
        (2, "ann"),
        (3, "cyd"),
    ]


def test_equal_totals_ranked_by_mean_then_name() -> None:
    outcomes = [
        made_up(["dan", "zed"], [10, 0], seating=0),
        made_up(["bob", "zed"], [5, 0], seating=1),
        made_up(["bob", "zed"], [5, 0], seating=1, rotation=1),
        made_up(["amy", "zed"], [10, 0], seating=2),
    ]
    standings = compute_standings(outcomes)
    # bob: 10 in 2 games beats amy and dan's 10 in 1; amy and dan tie on both: by name.
    assert [line.bot for line in standings.bots] == ["zed", "bob", "amy", "dan"]


def difference(standings: Standings, bot: str, opponent: str) -> tuple[int, float]:
    pairing = standings.pairing(bot, opponent)
    assert pairing is not None
    return pairing.games, pairing.difference


def test_pairwise_differences() -> None:
    standings = compute_standings(ONE_DEAL)
    assert difference(standings, "ann", "bob") == pytest.approx((3, 2 / 3))  # (-5 + 0 + 7) / 3
    assert difference(standings, "bob", "ann") == pytest.approx((3, -2 / 3))
    assert difference(standings, "bob", "cyd") == pytest.approx((3, -11 / 3))
    assert [(p.bot, p.opponent) for p in standings.pairings] == [
        ("bob", "ann"),
        ("bob", "cyd"),
        ("ann", "bob"),
        ("ann", "cyd"),
        ("cyd", "bob"),
        ("cyd", "ann"),
    ]


def test_pairings_only_for_bots_that_met() -> None:
    standings = compute_standings(
        [made_up(["ann", "bob"], [1, 2]), made_up(["cyd", "dan"], [3, 4], seating=1)]
    )
    assert standings.pairing("ann", "cyd") is None
    assert len(standings.pairings) == 4


def test_faults_by_kind_and_disqualification() -> None:
    outcomes = [
        made_up(
            SEATS, [1, 2, 3], faults=[fault(1, FaultKind.TIMEOUT), fault(1, FaultKind.TIMEOUT)]
        ),
        made_up(
            SEATS,
            [1, 2, 3],
            rotation=1,
            faults=[fault(1, FaultKind.ILLEGAL), fault(2, FaultKind.CRASHED)],
            disqualified=["bob"],
        ),
    ]
    lines = {line.bot: line for line in compute_standings(outcomes).bots}
    assert lines["bob"].faults == 3
    assert lines["bob"].faults_by_kind == {FaultKind.TIMEOUT: 2, FaultKind.ILLEGAL: 1}
    assert lines["bob"].disqualified
    assert (lines["cyd"].faults, lines["cyd"].disqualified) == (1, False)
    assert (lines["ann"].faults, lines["ann"].faults_by_kind) == (0, {})


def duplicate_sets(*sets: list[int]) -> list[GameOutcome]:
    """ann against bob, one deal per list: ann's bullheads in each rotation (bob takes 10)."""
    return [
        made_up(["ann", "bob"], [bullheads, 10], deal=deal, rotation=rotation)
        for deal, rotations in enumerate(sets)
        for rotation, bullheads in enumerate(rotations)
    ]


def ci_of(outcomes: list[GameOutcome], bot: str = "ann", seed: int = 0) -> tuple[float, float]:
    lines = {line.bot: line for line in compute_standings(outcomes, seed=seed).bots}
    return lines[bot].ci


def test_interval_resamples_duplicate_sets_not_games() -> None:
    # Two sets of means 4 and 8: a resample of two sets has mean 4, 6 or 8 (a quarter each end),
    # so the interval is [4, 8]. Resampling the four games would give 5 and 7 far more often.
    assert ci_of(duplicate_sets([4, 4], [8, 8])) == (4.0, 8.0)


def test_luck_within_a_set_cancels() -> None:
    # Each set swaps a good hand and a bad one: every set's mean is 6, whatever the resample.
    assert ci_of(duplicate_sets([0, 12], [12, 0], [6, 6])) == (6.0, 6.0)


def test_one_set_gives_a_point_interval() -> None:
    assert ci_of(duplicate_sets([3, 9])) == (6.0, 6.0)


def dealt(outcomes: list[GameOutcome]) -> list[GameOutcome]:
    """The outcomes with a seed of its own for each deal: its cards (`made_up` gives every game
    seed 0, as if every deal had the same cards, and so were one deal)."""
    return [replace(o, spec=replace(o.spec, seed=o.spec.deal + 1)) for o in outcomes]


def test_an_interval_is_shown_from_two_whole_deals_and_its_absence_explained() -> None:
    def duplicate_sets_dealt(*sets: list[int]) -> list[GameOutcome]:
        return dealt(duplicate_sets(*sets))

    one = {line.bot: line for line in compute_standings(duplicate_sets([3, 9])).bots}["ann"]
    assert (one.whole_deals, one.interval) == (1, None)
    assert one.why_no_interval.startswith("one whole deal: an interval needs 2")
    assert one.to_dict()["ci_low"] is None and one.to_dict()["no_interval"]
    half = duplicate_sets_dealt([3, 9], [4, 5])[:3]  # the second deal lacks a rotation
    assert {line.bot: line for line in compute_standings(half).bots}["ann"].interval is None
    two = {line.bot: line for line in compute_standings(duplicate_sets_dealt([3, 9], [4, 5])).bots}
    assert two["ann"].whole_deals == 2 and two["ann"].interval == two["ann"].ci
    same_cards = compute_standings(duplicate_sets([3, 9], [4, 5]))  # one seed: one deal
    assert same_cards.bots[0].whole_deals == 1
    text = standings_table(compute_standings(duplicate_sets([3, 9])))
    assert "no interval for ann, bob: one whole deal: an interval needs 2" in text


def test_interval_holds_the_mean_and_is_deterministic() -> None:
    rng = random.Random(3)
    outcomes = duplicate_sets(*([rng.randrange(30), rng.randrange(30)] for _ in range(25)))
    low, high = ci_of(outcomes)
    mean = sum(outcome.totals[0] for outcome in outcomes) / len(outcomes)
    assert low < mean < high
    assert ci_of(outcomes) == (low, high)
    assert ci_of(outcomes, seed=1) != (low, high)


def test_interval_of_a_bot_ignores_other_bots_games() -> None:
    outcomes = duplicate_sets([1, 5], [7, 3], [2, 2])
    more = [*outcomes, made_up(["cyd", "dan"], [4, 4], seating=1)]
    assert ci_of(more) == ci_of(outcomes)


def test_reads_a_stream_once() -> None:
    standings = compute_standings(iter(ONE_DEAL))
    assert standings == compute_standings(ONE_DEAL)


def test_a_tally_counted_in_parts_gives_the_standings_of_all_its_games() -> None:
    """The live standings count each game as it is saved and take standings between: at every
    moment they are those of the games counted so far, taken whole."""
    rng = random.Random(4)
    outcomes = dealt(duplicate_sets(*([rng.randrange(30), rng.randrange(30)] for _ in range(6))))
    outcomes.append(made_up(SEATS, [0, 2, 9], deal=9, faults=[fault(2, FaultKind.TIMEOUT)]))
    tally = StandingsTally()
    for count, outcome in enumerate(outcomes, start=1):
        tally.add(outcome)
        assert tally.standings(entered=["eve"]) == compute_standings(
            outcomes[:count], entered=["eve"]
        )


def test_needs_resamples() -> None:
    with pytest.raises(ValueError, match="at least 2 resamples"):
        compute_standings(ONE_DEAL, resamples=1)


def test_standings_table() -> None:
    outcomes = [*ONE_DEAL, made_up(SEATS, [0, 0, 1], deal=1, faults=[fault(2, FaultKind.TIMEOUT)])]
    text = standings_table(compute_standings(outcomes))
    header, _, *rows = text.splitlines()[:5]
    for column in ["rank", "bot", "games", "bullheads", "mean", "95% CI", "wins", "faults"]:
        assert column in header
    assert header.rstrip().endswith("disqualified")
    assert [row.split()[:4] for row in rows] == [
        ["1", "bob", "4", "14"],
        ["2", "ann", "4", "16"],
        ["3", "cyd", "4", "26"],
    ]
    assert "1 (timeout 1)" in rows[2]


def test_pairwise_table() -> None:
    lines = pairwise_table(compute_standings(ONE_DEAL)).splitlines()
    assert "negative is better" in lines[0]
    assert lines[1].split() == ["bob", "ann", "cyd"]
    assert lines[3].split() == ["bob", "-0.67", "-3.67"]
    assert lines[4].split() == ["ann", "+0.67", "-3.00"]


def test_json_form() -> None:
    data = json.loads(json.dumps(compute_standings(ONE_DEAL).to_dict()))
    assert data["standings"][0] | {"ci_low": 0, "ci_high": 0} == {
        "rank": 1,
        "bot": "bob",
        "games": 3,
        "bullheads": 14,
        "mean": pytest.approx(14 / 3),
        "ci_low": 0,
        "ci_high": 0,
        "wins": 1.5,
        "faults": 0,
        "faults_by_kind": {},
        "disqualified": False,
        "disqualified_in": None,
        "no_interval": "one whole deal: an interval needs 2 (every rotation of a deal)",
        "whole_deals": 1,
        "strength": pytest.approx(14 / 3),
        "strength_ci_low": None,
        "strength_ci_high": None,
        "los": None,
    }
    assert data["pairwise"][0] == {
        "bot": "bob",
        "opponent": "ann",
        "games": 3,
        "difference": pytest.approx(-2 / 3),
    }


def test_csv(tmp_path: Path) -> None:
    outcomes = [
        *ONE_DEAL[:2],
        made_up(SEATS, [8, 1, 8], rotation=2, faults=[fault(0, FaultKind.MALFORMED)]),
    ]
    write_csv(tmp_path / "standings.csv", compute_standings(outcomes))
    with (tmp_path / "standings.csv").open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert [row["bot"] for row in rows] == ["bob", "ann", "cyd"]
    assert rows[1]["bullheads"] == "16"
    assert (rows[1]["faults"], rows[1]["faults_malformed"], rows[1]["faults_timeout"]) == (
        "1",
        "1",
        "0",
    )
    assert rows[1]["disqualified"] == "False"
    assert rows[1]["ci_low"] == ""  # one deal, and not even whole: no interval
    assert float(rows[1]["strength"]) == pytest.approx(16 / 3)
