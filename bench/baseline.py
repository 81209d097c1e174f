"""The straightforward baseline: 6 nimmt! as a plain loop over lists, no views, no records.

Written the way one would write the rules down in an afternoon, and held to the same games as
the engine: the same seeded deal (a shuffled deck of 104, 10 cards a seat, then 4 row cards)
and the same choices, drawn in the same order from the same generators (a random card from
each seat's own generator; the cheapest row, lowest index on ties, when a card is too low).
So for every seed its totals equal the engine's, which `bench.engine` checks before timing.
"""

from __future__ import annotations

import random

END_SCORE = 66


def bullheads(card: int) -> int:
    """The penalty points on one card."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def play_baseline(players: int, seed: int) -> list[int]:
    """One game to 66 bullheads; each seat's total."""
    deal_rng = random.Random(seed)
    pickers = [random.Random(f"{seed}:{seat}") for seat in range(players)]
    scores = [0] * players
    while max(scores) < END_SCORE:
        deck = list(range(1, 105))
        deal_rng.shuffle(deck)
        hands = [sorted(deck[seat * 10 : (seat + 1) * 10]) for seat in range(players)]
        rows = [[card] for card in deck[players * 10 : players * 10 + 4]]
        for _turn in range(10):
            chosen = []
            for seat in range(players):
                card = pickers[seat].choice(hands[seat])
                hands[seat].remove(card)
                chosen.append((card, seat))
            for card, seat in sorted(chosen):
                below = [index for index, row in enumerate(rows) if row[-1] < card]
                if not below:  # too low: take the cheapest row
                    costs = [sum(bullheads(c) for c in row) for row in rows]
                    taken = costs.index(min(costs))
                    scores[seat] += costs[taken]
                    rows[taken] = [card]
                    continue
                target = max(below, key=lambda index: rows[index][-1])
                if len(rows[target]) == 5:  # the sixth card takes the row
                    scores[seat] += sum(bullheads(c) for c in rows[target])
                    rows[target] = [card]
                else:
                    rows[target].append(card)
    return scores
