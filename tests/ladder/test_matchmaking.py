"""Matchmaking: Halite III's seed rules and opponents near the seed, never two versions of one
author at a table, one version per bot; and the uniform baseline. Invariants by Hypothesis; the
shares of each rule measured with a seeded generator (the same draws every run)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ladder.errors import LadderError
from arena.ladder.matchmaking import (
    Candidate,
    choose_seed,
    choose_table,
    playable,
    uniform_table,
    window,
)
from arena.ladder.rating import Rating
from arena.ladder.settings import LadderSettings

SETTINGS = LadderSettings()


def candidate(
    version: int,
    author: str | None = None,
    *,
    bot: str | None = None,
    mu: float = 25.0,
    sets: int = 50,
    last_played: float | None = 1000.0,
) -> Candidate:
    return Candidate(
        version=version,
        bot=bot or f"bot{version}",
        author=author or f"author{version}",
        rating=Rating(mu, 3.0),
        sets=sets,
        last_played=last_played,
    )


@st.composite
def fields(draw: st.DrawFn) -> list[Candidate]:
    """Any candidates: a few authors, each with a few bots, each bot with a few versions."""
    count = draw(st.integers(0, 24))
    made = []
    for version in range(1, count + 1):
        author = draw(st.sampled_from("abcdefgh"))
        made.append(
            Candidate(
                version=version,
                bot=f"{author}-{draw(st.integers(0, 2))}",
                author=author,
                rating=Rating(draw(st.floats(0, 50)), draw(st.floats(0.5, 8.4))),
                sets=draw(st.integers(0, 40)),
                last_played=draw(st.none() | st.floats(0, 1e6)),
            )
        )
    return draw(st.permutations(made))


@given(fields(), st.integers(2, 10), st.integers(0, 2**32 - 1), st.booleans())
def test_a_table_seats_each_author_and_version_once_or_is_none(
    field: list[Candidate], players: int, seed: int, uniform: bool
) -> None:
    rng = random.Random(seed)
    if uniform:
        table = uniform_table(field, players, rng)
    else:
        table = choose_table(field, players, rng, SETTINGS)
    authors = {c.author for c in field}
    if len(authors) < players:
        assert table is None
        return
    assert table is not None and len(table) == players
    by_version = {c.version: c for c in field}
    seated = [by_version[v] for v in table]
    assert len(set(table)) == players
    assert len({c.author for c in seated}) == players
    newest = {c.version for c in playable(field)}
    assert set(table) <= newest  # one version per bot: its newest


def test_a_bots_newest_version_stands_for_it() -> None:
    old, new = candidate(3, "a", bot="x"), candidate(7, "a", bot="x")
    assert playable([new, candidate(5, "b"), old]) == [candidate(5, "b"), new]


def test_a_version_given_twice_is_refused() -> None:
    with pytest.raises(LadderError, match="version 3 is a candidate twice"):
        playable([candidate(3), candidate(3)])


def test_a_table_the_rules_cannot_seat_is_refused() -> None:
    for players in (1, 11, True):
        with pytest.raises(LadderError, match="a table has 2 to 10 seats"):
            choose_table([candidate(1), candidate(2)], players, random.Random(1), SETTINGS)


@given(fields(), st.integers(0, 2**32 - 1))
def test_a_placement_seed_is_in_placement_when_any_is(field: list[Candidate], seed: int) -> None:
    field = playable(field)
    if not field:
        return
    chosen = choose_seed(field, 0.9, random.Random(seed), SETTINGS.placement_sets)
    placing = [c for c in field if c.sets < SETTINGS.placement_sets]
    if placing:
        assert chosen.sets < SETTINGS.placement_sets
        never = [c for c in placing if c.last_played is None]
        if never:  # the longest waiting are drawn from, those that never played first
            assert chosen.last_played is None or len(never) < 15


@given(fields(), st.integers(0, 2**32 - 1))
def test_an_idle_seed_is_the_one_that_waited_longest(field: list[Candidate], seed: int) -> None:
    field = playable(field)
    if not field:
        return
    chosen = choose_seed(field, 0.05, random.Random(seed), SETTINGS.placement_sets)
    never = [c for c in field if c.last_played is None]
    if never:
        assert chosen.last_played is None and chosen.version == min(c.version for c in never)
    else:
        assert chosen.last_played == min(c.last_played or 0.0 for c in field)


def test_new_versions_are_seated_first() -> None:
    # eight old versions and one new: the new one sits at far more than its share of tables
    field = [candidate(v, sets=200, mu=20.0 + v) for v in range(1, 9)]
    field.append(candidate(9, sets=0, last_played=None))
    rng = random.Random(2024)
    seated = Counter(v for _ in range(2000) for v in choose_table(field, 4, rng, SETTINGS) or ())
    uniform = Counter(v for _ in range(2000) for v in uniform_table(field, 4, rng) or ())
    assert seated[9] > 2000 * 0.6  # the seed about 3 tables in 4, and often an opponent too
    assert uniform[9] < 2000 * 0.55  # 4 of 9 seats at random: 44%
    assert min(seated[v] for v in range(1, 9)) > 0  # and every old one still plays


def test_the_seed_rules_take_their_shares() -> None:
    # a field where each rule picks someone else: the placement rule version 1, the idle
    # rule version 2 (never played, but placed), the weighted rule mostly 3 (fewest sets)
    field = [
        candidate(1, sets=0, last_played=50.0),
        candidate(2, sets=500, last_played=None),
        *[candidate(v, sets=10_000) for v in range(4, 10)],
        candidate(3, sets=10),
    ]
    rng = random.Random(7)
    seeds = Counter(choose_seed(field, rng.random(), rng, 10).version for _ in range(10_000))
    weights = {c.version: 1 / (c.sets + 1) for c in field}
    weighted = 0.65 * weights[1] / sum(weights.values())
    assert seeds[1] / 10_000 == pytest.approx(0.25 + weighted, abs=0.02)
    assert seeds[2] / 10_000 == pytest.approx(0.10, abs=0.02)
    assert seeds[3] / 10_000 == pytest.approx(0.65 * weights[3] / sum(weights.values()), abs=0.02)


def test_opponents_are_drawn_near_the_seeds_mu() -> None:
    # a seed at mu 25 among 40 others spread from 0 to 50: most opponents within the nearest
    field = [candidate(0, sets=0, last_played=None)]
    field += [candidate(v, mu=50.0 * v / 40, sets=100) for v in range(1, 41)]
    rng = random.Random(11)
    gaps = []
    for _ in range(500):
        table = choose_table(field, 4, rng, SETTINGS)
        assert table is not None
        if table[0] == 0:
            gaps += [abs(50.0 * v / 40 - 25.0) for v in table[1:]]
    assert len(gaps) > 500
    assert sorted(gaps)[len(gaps) // 2] < 6.0  # the median opponent within the nearest dozen
    assert max(gaps) > 15.0  # and now and then far: the randomness of the window


def test_the_window_is_halites() -> None:
    rng = random.Random(3)
    sizes = sorted(window(rng) for _ in range(10_000))
    # int(5 / (0.01 + u) ** 0.65): 4 at the least, 7 at the median, 99 at u = 0
    assert (sizes[0], sizes[len(sizes) // 2]) == (4, 7) and sizes[-1] > 50


def test_too_few_authors_make_no_table() -> None:
    field = [candidate(1, "a"), candidate(2, "a", bot="y"), candidate(3, "b")]
    assert choose_table(field, 3, random.Random(1), SETTINGS) is None
    assert uniform_table(field, 3, random.Random(1)) is None
    assert choose_table([], 2, random.Random(1), SETTINGS) is None
    assert sorted(choose_table(field, 2, random.Random(1), SETTINGS) or ()) in ([1, 3], [2, 3])


def test_the_same_generator_gives_the_same_tables() -> None:
    field = [candidate(v, mu=v, sets=v % 5, last_played=None if v % 3 else v) for v in range(12)]
    runs = [
        [choose_table(field, 4, rng, SETTINGS) for _ in range(50)]
        for rng in (random.Random(5), random.Random(5))
    ]
    assert runs[0] == runs[1]
