"""The games' bot seeds (`GameSpec.bot_seed`): keyed with the tournament seed, one per game of a
tournament, shared by NEW's and OLD's game of one deal and rotation in `arena compare` and by no
other two games, stored with the game and read back from folders that have none."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import Settings
from arena.tournament import GameSpec, schedule
from arena.tournament.schedule import bot_seed, deal_seed
from arena.tournament.stats.pairs import NEW_SEATING, paired_schedule

BOTS = ["ann", "bob", "cyd", "dan", "eve"]
RULES = Settings(players=3, max_rounds=1)
tournament_seeds = st.integers(0, 2**63 - 1)


@settings(max_examples=20, deadline=None)
@given(seed=tournament_seeds)
def test_every_game_of_a_tournament_has_a_bot_seed_of_its_own(seed: int) -> None:
    specs = schedule(BOTS, RULES, deals=3, seed=seed)
    seeds = [spec.bot_seed for spec in specs]
    assert None not in seeds and len(set(seeds)) == len(specs) == 10 * 3 * 3
    assert all(0 <= s < 2**64 for s in seeds if s is not None)
    other = schedule(BOTS, RULES, deals=3, seed=seed + 1)  # another tournament: none in common
    assert not {spec.bot_seed for spec in other} & set(seeds)


@settings(max_examples=20, deadline=None)
@given(seed=tournament_seeds, deals=st.integers(1, 4))
def test_new_and_old_share_each_deal_and_rotations_bot_seed_and_no_other_games_do(
    seed: int, deals: int
) -> None:
    specs = paired_schedule("new", "old", ["zed", "amy"], RULES, seed, deals)
    by_game = Counter(spec.bot_seed for spec in specs)
    assert set(by_game.values()) == {2} and len(by_game) == deals * 3
    new = {(s.deal, s.rotation): s.bot_seed for s in specs if s.seating == NEW_SEATING}
    old = {(s.deal, s.rotation): s.bot_seed for s in specs if s.seating != NEW_SEATING}
    assert new == old


def test_the_bot_seed_is_keyed_with_the_tournament_seed() -> None:
    """A bot sees seeds derived from it: who knows the deal seed and the rotation (they are in
    the stored spec) still cannot compute it without the tournament seed, which keys it."""
    dealt = deal_seed(7, ["ann", "bob", "cyd"], 0)
    assert bot_seed(7, dealt, 0) != bot_seed(8, dealt, 0)
    assert bot_seed(7, dealt, 0) != bot_seed(7, dealt, 1) != bot_seed(7, dealt + 1, 1)
    assert bot_seed(7, dealt, 0) == bot_seed(7, dealt, 0)  # in any process: a pure function


def test_a_spec_keeps_its_bot_seed_and_an_older_one_reads_without() -> None:
    spec = schedule(BOTS, RULES, deals=1, seed=3)[4]
    stored = json.loads(json.dumps(spec.to_dict()))
    assert stored["bot_seed"] == spec.bot_seed and GameSpec.from_dict(stored) == spec
    older = {key: value for key, value in stored.items() if key != "bot_seed"}
    read = GameSpec.from_dict(older)
    assert read.bot_seed is None and read == replace(spec, bot_seed=None)
    assert "bot_seed" not in read.to_dict()  # written back as it was
