"""The bot's lean simulator places cards exactly as the rules engine does."""

from __future__ import annotations

import random
from collections import Counter

from arena.rules import DECK_SIZE, ROW_COUNT, ROW_LIMIT, Phase, Round, Settings, penalty
from arena.sdk import cheapest_row
from tests.montecarlo.bot import montecarlo


def random_position(rng: random.Random) -> tuple[int, list[list[int]], list[list[int]]]:
    """Players, rows of 1 to 5 ascending cards, and equal hands: any table a round can reach."""
    players = rng.randint(2, 10)
    sizes = [rng.randint(1, ROW_LIMIT) for _ in range(ROW_COUNT)]
    size = rng.randint(1, min(10, (DECK_SIZE - sum(sizes)) // players))
    cards = rng.sample(range(1, DECK_SIZE + 1), sum(sizes) + players * size)
    rows, start = [], 0
    for count in sizes:
        rows.append(sorted(cards[start : start + count]))
        start += count
    hands = [cards[start + seat * size : start + (seat + 1) * size] for seat in range(players)]
    return players, rows, hands


def test_turns_resolve_as_in_the_engine() -> None:
    """300 random positions played out at random, rows chosen as the simulator chooses them:
    after every turn the simulator's table and penalties are the engine's."""
    taken = Counter[bool]()
    for seed in range(300):
        rng = random.Random(seed)
        players, rows, hands = random_position(rng)
        engine = Round(Settings(players), 0, [0] * players, rows, hands)
        ends, sizes, heads = montecarlo.table(rows)
        penalties = [0] * players
        while engine.phase is not Phase.OVER:
            cards = [rng.choice(hand) for hand in hands]
            for seat, card in enumerate(cards):
                hands[seat].remove(card)
            engine.play(cards)
            while engine.phase is Phase.ROW:
                engine.choose_row(cheapest_row(engine.rows))
            plays = sorted(zip(cards, range(players), strict=True))
            montecarlo.resolve(ends, sizes, heads, plays, penalties)
            assert (ends, sizes, heads) == montecarlo.table(engine.rows), f"seed {seed}"
            assert tuple(penalties) == engine.penalties, f"seed {seed}"
        taken.update(p.chosen for turn in engine.turns for p in turn.placements if p.taken)
    # Both ways of taking a row were exercised, many times: the sixth card and the too-low card.
    assert taken[False] > 100 and taken[True] > 100, taken


def test_the_table_keeps_each_rows_end_size_and_bullheads() -> None:
    rows = [[3], [21, 34], [46, 55, 58], [60, 63, 66, 70, 73]]
    assert montecarlo.table(rows) == (
        [3, 34, 58, 73],
        [1, 2, 3, 5],
        [1, 2, 9, penalty(rows[3])],
    )


def test_a_rollout_plays_every_card_and_hands_out_every_bullhead_it_takes() -> None:
    rng = random.Random(5)
    for _ in range(50):
        players, rows, hands = random_position(rng)
        ends, sizes, heads = montecarlo.table(rows)
        on_table = sum(heads) + sum(penalty(hand) for hand in hands)
        penalties = [0] * players
        noise = [rng.random() for _ in range(players * len(hands[0]))]
        montecarlo.rollout(ends, sizes, heads, hands, noise, 0, penalties)
        assert hands == [[] for _ in range(players)]
        # Bullheads are neither made nor lost: each is on the table or in someone's pile.
        assert sum(heads) + sum(penalties) == on_table
