"""The seeds of the players' own random choices in every view: one per decision, from the game's
bot seed alone, the same at the same place of two games with one bot seed, whatever the cards
did; none (0) without a bot seed; and `View.random` a generator drawn from it."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.players import Highest, Lowest, Random, Strategy
from arena.rules import Decision, Game, Phase, Settings, Variant, View
from arena.rules.views import SEED_BITS, decision_seed, seed_key
from tests import strategies
from tests.rules.helpers import drive

Place = tuple[int, int, int, str, int]
"""A decision's place: seat, round, turn, kind and the cards the seat holds."""


def seeds_by_place(game: Game, players: list[Strategy]) -> dict[Place, int]:
    """Play `game` out with `players`, and return the seed of every view a seat decided on."""
    seen: dict[Place, int] = {}

    def note(game: Game) -> None:
        if game.phase is Phase.OVER:
            return
        kind = game.phase.value
        for seat in game.deciders:
            view = game.view(seat)
            seen[seat, view.round, view.turn, kind, len(view.hand)] = view.seed

    drive(game, players, note)
    return seen


@settings(max_examples=30, deadline=None)
@given(rules=strategies.settings(), deal=strategies.seeds, bot_seed=st.integers(0, 2**64 - 1))
def test_every_decision_of_a_game_has_a_seed_of_its_own(
    rules: Settings, deal: int, bot_seed: int
) -> None:
    players: list[Strategy] = [Random(f"{deal}:{seat}") for seat in range(rules.players)]
    seen = seeds_by_place(Game(rules, random.Random(deal), bot_seed=bot_seed), players)
    assert all(0 <= seed < 2**SEED_BITS for seed in seen.values())
    assert max(Counter(seen.values()).values()) == 1  # no two decisions share one


def test_two_games_with_one_bot_seed_give_a_seat_the_same_seed_wherever_both_decide() -> None:
    """NEW's and OLD's game in `arena compare`: the candidate (seat 0) plays otherwise, the
    cards part at once, and the field's seeds stay the same decision for decision."""
    rules = Settings(4, max_rounds=3)
    field: list[Strategy] = [Random("a"), Lowest(), Random("b")]
    new = seeds_by_place(Game(rules, random.Random(5), bot_seed=9), [Lowest(), *field])
    old = seeds_by_place(Game(rules, random.Random(5), bot_seed=9), [Highest(), *field])
    shared = new.keys() & old.keys()
    assert len(shared) > 30 and any(place[0] == 0 for place in shared)
    assert all(new[place] == old[place] for place in shared)
    other = seeds_by_place(Game(rules, random.Random(5), bot_seed=10), [Lowest(), *field])
    assert not set(other.values()) & set(new.values())


def test_a_draft_gives_every_pick_its_own_seed() -> None:
    rules = Settings(3, Variant.PROFESSIONAL_DRAFT, max_rounds=1)
    players: list[Strategy] = [Random(str(seat)) for seat in range(3)]
    seen = seeds_by_place(Game(rules, random.Random(1), bot_seed=2), players)
    drafts = [seed for place, seed in seen.items() if place[3] == Decision.DRAFT]
    assert len(drafts) == len(set(drafts)) == 30


def test_without_a_bot_seed_every_view_has_seed_0() -> None:
    players: list[Strategy] = [Random(str(seat)) for seat in range(4)]
    seen = seeds_by_place(Game(Settings(4, max_rounds=1), random.Random(3)), players)
    assert set(seen.values()) == {0}


def test_the_key_is_the_bot_seed_and_the_place_is_every_part_of_it() -> None:
    key = seed_key(2**64 - 1)
    base = decision_seed(key, 1, 2, 3, Decision.CARD, 7)
    others = [
        decision_seed(seed_key(2**64 - 2), 1, 2, 3, Decision.CARD, 7),
        decision_seed(key, 0, 2, 3, Decision.CARD, 7),
        decision_seed(key, 1, 3, 3, Decision.CARD, 7),
        decision_seed(key, 1, 2, 4, Decision.CARD, 7),
        decision_seed(key, 1, 2, 3, Decision.ROW, 7),
        decision_seed(key, 1, 2, 3, Decision.CARD, 6),
    ]
    assert base == decision_seed(key, 1, 2, 3, Decision.CARD, 7)
    assert base not in others and len(set(others)) == len(others)


def test_view_random_draws_from_the_seed_alone() -> None:
    view = View(Settings(2), 0, 0, 0, (1, 2), (), (0, 0), (0, 0), (), seed=12345)
    assert view.random().random() == random.Random(12345).random()
    again = View(Settings(2), 1, 3, 4, (7, 8), (), (0, 0), (0, 0), (), seed=12345)
    assert again.random().random() == view.random().random()  # the seed, not the cards
    assert view.random("mine").random() != view.random().random()
    assert view.random("mine").random() == view.random("mine").random()
