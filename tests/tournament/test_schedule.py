"""Schedules: round-robin tables, duplicate deals, stable seeds, balanced samples, bad input."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter, defaultdict
from itertools import combinations
from math import comb, gcd
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.players import Lowest, play_local
from arena.rules import Settings, Variant, deal
from arena.tournament import (
    GameSpec,
    balanced_sample,
    deal_seed,
    round_robin,
    round_robin_size,
    sample_size,
    schedule,
)
from tests import strategies

BOTS = ["eve", "cyd", "ann", "dan", "bob"]
"""Entered out of order on purpose: schedules sort the names."""
ROOT = Path(__file__).resolve().parents[2]


def games_per_bot(specs: list[GameSpec]) -> Counter[str]:
    return Counter(bot for spec in specs for bot in spec.seats)


def meetings(seatings: list[tuple[str, ...]], bots: list[str]) -> list[int]:
    """How often each pair of bots sat at one table."""
    met = Counter(frozenset(pair) for seating in seatings for pair in combinations(seating, 2))
    return [met[frozenset(pair)] for pair in combinations(bots, 2)]


def test_full_round_robin() -> None:
    specs = schedule(BOTS, Settings(players=3), deals=2, seed=1)
    size = round_robin_size(len(BOTS), 3, 2)
    assert (size.seatings, size.games) == (10, 60)
    assert len(specs) == size.games
    assert {frozenset(spec.seats) for spec in specs} == {
        frozenset(seating) for seating in combinations(BOTS, 3)
    }
    assert set(games_per_bot(specs).values()) == {size.games_per_bot}
    assert len({spec.game_id for spec in specs}) == len(specs)


def test_specs_in_schedule_order_with_sorted_seats() -> None:
    specs = schedule(BOTS, Settings(players=3), deals=2, seed=1)
    places = [(spec.seating, spec.deal, spec.rotation) for spec in specs]
    assert places == sorted(places)
    assert specs[0].game_id == "t000-d00-r0"
    assert specs[7].game_id == "t001-d00-r1"
    assert specs[0].seats == ("ann", "bob", "cyd")
    assert all(list(spec.seats) == sorted(spec.seats) for spec in specs)


def test_one_table_when_the_bots_fill_it() -> None:
    specs = schedule(BOTS, Settings(players=5), deals=3, seed=1)
    assert {spec.seats for spec in specs} == {("ann", "bob", "cyd", "dan", "eve")}
    assert len(specs) == 3 * 5
    assert round_robin_size(5, 5, 3).seatings == 1


def test_round_robin_in_combination_order() -> None:
    assert round_robin(["a", "b", "c", "d"], 3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "c", "d"),
        ("b", "c", "d"),
    ]


def test_every_bot_holds_every_hand_of_a_deal() -> None:
    settings = Settings(players=4)
    specs = schedule(BOTS, settings, deals=2, seed=3)
    sets: dict[tuple[int, int], list[GameSpec]] = defaultdict(list)
    for spec in specs:
        sets[spec.seating, spec.deal].append(spec)
    for games in sets.values():
        assert sorted(spec.rotation for spec in games) == [0, 1, 2, 3]
        assert len({spec.seed for spec in games}) == 1
        assert len({spec.seats for spec in games}) == 1
        held: dict[str, set[tuple[int, ...]]] = defaultdict(set)
        for spec in games:
            _, hands = deal(settings, random.Random(spec.seed), spec.rotation)
            for bot, hand in zip(spec.seats, hands, strict=True):
                held[bot].add(tuple(hand))
        _, dealt = deal(settings, random.Random(games[0].seed))
        assert all(hands == {tuple(hand) for hand in dealt} for hands in held.values())


def test_each_deal_has_its_own_seed() -> None:
    specs = schedule(BOTS, Settings(players=3), deals=3, seed=1)
    assert len({spec.seed for spec in specs}) == len(specs) // 3


def test_seed_derivation_is_pinned() -> None:
    # A change here changes every tournament's games: it must come with a new SEED_SCHEME.
    assert deal_seed(7, ("ann", "bob", "cyd"), 0) == 4993001152895498351
    assert deal_seed(7, ("cyd", "ann", "bob"), 1) == 9022372318233453486


@pytest.mark.integration
def test_seeds_are_the_same_in_another_process() -> None:
    code = "from arena.tournament import deal_seed; print(deal_seed(7, ('ann', 'bob', 'cyd'), 0))"
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.stdout.strip() == "4993001152895498351", result.stderr


def test_seeds_depend_on_tournament_seed_table_and_deal() -> None:
    base = deal_seed(7, ("ann", "bob"), 0)
    assert deal_seed(8, ("ann", "bob"), 0) != base
    assert deal_seed(7, ("ann", "cyd"), 0) != base
    assert deal_seed(7, ("ann", "bob"), 1) != base
    assert 0 <= base < 2**64


@given(
    names=st.lists(strategies.bot_names, min_size=3, max_size=6, unique=True),
    order=st.randoms(use_true_random=False),
    seed=strategies.seeds,
)
@settings(max_examples=30, deadline=None)
def test_same_schedule_whatever_the_entry_order(
    names: list[str], order: random.Random, seed: int
) -> None:
    shuffled = names[:]
    order.shuffle(shuffled)
    game = Settings(players=3)
    assert schedule(shuffled, game, 2, seed) == schedule(names, game, 2, seed)


def test_same_inputs_same_schedule() -> None:
    game = Settings(players=4)
    assert schedule(BOTS, game, 2, 9, seatings=5) == schedule(list(BOTS), game, 2, 9, seatings=5)


def test_balanced_schedule() -> None:
    bots = [f"bot{i}" for i in range(9)]
    specs = schedule(bots, Settings(players=3), deals=2, seed=4, seatings=12)
    size = sample_size(9, 3, 12, 2)
    assert len(specs) == size.games == 12 * 2 * 3
    assert set(games_per_bot(specs).values()) == {size.games_per_bot}
    seatings = sorted({spec.seats for spec in specs})
    assert len(seatings) == 12
    assert meetings(seatings, bots) == [1] * comb(9, 2)  # a Steiner triple system


@pytest.mark.parametrize(
    ("bots", "players", "seatings"),
    [
        (7, 3, 7),  # Fano plane: every pair exactly once
        (8, 4, 14),  # every pair exactly 3 times
        (13, 4, 13),  # projective plane of order 3
        (16, 4, 20),  # affine plane of order 4
        (6, 3, 8),
        (12, 4, 30),
        (10, 5, 14),
        (20, 4, 100),
        (6, 3, 18),  # more than half the round-robin: built as a complement
    ],
)
def test_balanced_sample_pairs_meet_evenly(bots: int, players: int, seatings: int) -> None:
    names = [f"b{i:02d}" for i in range(bots)]
    sample = balanced_sample(names, players, seatings, seed=0)
    assert len(set(sample)) == seatings
    assert set(Counter(bot for seating in sample for bot in seating).values()) == {
        seatings * players // bots
    }
    met = meetings(sample, names)
    assert max(met) - min(met) <= 1


@st.composite
def samples(draw: st.DrawFn) -> tuple[int, int, int]:
    """A number of bots, a table size and a number of tables that seats every bot equally."""
    bots = draw(st.integers(3, 8))
    players = draw(st.integers(2, bots))
    step = bots // gcd(bots, players)
    seatings = step * draw(st.integers(1, comb(bots, players) // step))
    return bots, players, seatings


@given(sample=samples(), seed=strategies.seeds)
@settings(max_examples=40, deadline=None)
def test_balanced_sample_invariants(sample: tuple[int, int, int], seed: int) -> None:
    bots, players, seatings = sample
    names = [f"b{i}" for i in range(bots)]
    chosen = balanced_sample(names, players, seatings, seed)
    assert len(chosen) == len(set(chosen)) == seatings
    assert set(chosen) <= set(round_robin(names, players))
    assert chosen == sorted(chosen)
    appearances = Counter(bot for seating in chosen for bot in seating)
    assert sorted(appearances) == names
    assert set(appearances.values()) == {seatings * players // bots}
    assert balanced_sample(names, players, seatings, seed) == chosen


def test_whole_round_robin_as_a_sample() -> None:
    assert balanced_sample(BOTS, 3, 10, seed=1) == round_robin(BOTS, 3)


def test_unequal_sample_names_valid_choices() -> None:
    with pytest.raises(
        ValueError, match=r"12 tables of 4 cannot seat 10 bots.*use 10 or 15 tables"
    ):
        balanced_sample([f"b{i}" for i in range(10)], 4, 12, seed=0)


@pytest.mark.parametrize("seatings", [0, 11])
def test_sample_size_within_the_round_robin(seatings: int) -> None:
    with pytest.raises(ValueError, match=f"1 to 10 tables .*not {seatings}"):
        schedule(BOTS, Settings(players=3), 1, 0, seatings=seatings)


def test_refuses_a_bot_entered_twice() -> None:
    with pytest.raises(ValueError, match="bot 'ann' is entered twice"):
        schedule([*BOTS, "ann"], Settings(players=3), 1, 0)


def test_refuses_too_few_bots() -> None:
    with pytest.raises(ValueError, match="5 bots cannot fill a table of 6"):
        schedule(BOTS, Settings(players=6), 1, 0)


def test_refuses_no_deals() -> None:
    with pytest.raises(ValueError, match="at least 1 deal, not 0"):
        schedule(BOTS, Settings(players=3), 0, 0)


def test_the_draft_is_played_once_per_seat_rotation() -> None:
    """docs/rules.md: the draft's set-up has no chance, so a second deal would be the same games."""
    draft = Settings(players=3, variant=Variant.PROFESSIONAL_DRAFT)
    specs = schedule(BOTS, draft, 1, 0)
    assert len(specs) == comb(5, 3) * 3
    for seating in {spec.seating for spec in specs}:
        assert sorted(s.rotation for s in specs if s.seating == seating) == [0, 1, 2]
    with pytest.raises(ValueError, match="professional-draft variant deals nothing at random"):
        schedule(BOTS, draft, 2, 0)


def test_every_rotation_of_a_draft_game_opens_with_another_first_picker() -> None:
    """The rotation is all that tells the games of a table apart: each bot picks first once."""
    draft = Settings(players=3, variant=Variant.PROFESSIONAL_DRAFT, max_rounds=1)
    firsts = []
    for rotation in range(3):
        strategies_ = [Lowest(), Lowest(), Lowest()]
        record = play_local(draft, strategies_, random.Random(rotation), rotation).record
        firsts.append(record.rounds[0].first_picker)
    assert sorted(firsts) == [0, 1, 2]
