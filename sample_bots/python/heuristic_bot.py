"""Plays the card least likely to cost bullheads.

For each card in hand it finds the row the card would join and estimates the chance that enough
of the other players' cards land there first to make it the sixth card; a card lower than every
row would take the cheapest row. It plays the card with the lowest expected cost, and among
safe cards the one closest to its row end, keeping far-off cards for later.
"""

from math import comb

from arena.sdk import BULLHEADS, Bot, View, cheapest_row, row_for, run


def unseen(view: View) -> set[int]:
    """Cards that may still be in the other players' hands: not in its own, not on the rows as
    they are or as they started (a starting card taken since is on no row), not played."""
    seen = set(view.hand).union(*view.rows, *view.start_rows, *view.played)
    return set(range(1, view.settings.deck_size + 1)) - seen


def chance_at_least(needed: int, tries: int, p: float) -> float:
    """P(at least `needed` successes in `tries`), each with probability `p`."""
    return sum(comb(tries, k) * p**k * (1 - p) ** (tries - k) for k in range(needed, tries + 1))


def cost(view: View, card: int, hidden: set[int]) -> tuple[float, int]:
    rows = view.rows
    row = row_for(rows, card)
    if row is None:
        return sum(BULLHEADS[c] for c in rows[cheapest_row(rows)]) + 0.5, 0
    end = rows[row][-1]
    gap = sum(1 for c in hidden if end < c < card)
    others = view.settings.players - 1
    p = gap / len(hidden) if hidden else 0.0
    needed = 5 - len(rows[row])
    risk = 1.0 if needed == 0 else chance_at_least(needed, others, min(1.0, p))
    return risk * sum(BULLHEADS[c] for c in rows[row]) + risk, gap


class HeuristicBot(Bot):
    def choose_card(self, view: View) -> int:
        hidden = unseen(view)
        return min(view.hand, key=lambda card: cost(view, card, hidden))


if __name__ == "__main__":
    run(HeuristicBot(), name="heuristic")
