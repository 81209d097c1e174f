"""Hypothesis strategies for the whole test suite, kept in one place."""

from __future__ import annotations

from collections.abc import Collection

from hypothesis import strategies as st

from arena.rules import DECK_SIZE, MAX_PLAYERS, MIN_PLAYERS, ROW_COUNT, Settings, Variant

players = st.integers(MIN_PLAYERS, MAX_PLAYERS)
variants = st.sampled_from(list(Variant))
seeds = st.integers(0, 2**32 - 1)


@st.composite
def settings(draw: st.DrawFn) -> Settings:
    """Any playable settings; end scores kept low enough for games to stay short."""
    return Settings(
        players=draw(players),
        variant=draw(variants),
        end_score=draw(st.integers(1, 80)),
        max_rounds=draw(st.none() | st.integers(1, 4)),
    )


bot_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,7}", fullmatch=True)
"""Bot names as organizers may write them."""


# -- answers the rules refuse (tests/rules/test_round_machine.py) --------------------------------

answers_of_another_type = st.sampled_from(["7", 7.0, None, True, (7,)])
"""Answers that are no card or row number at all, though some look like one (True == 1)."""

rows_that_do_not_exist = st.one_of(
    st.integers(max_value=-1), st.integers(min_value=ROW_COUNT), answers_of_another_type
)
"""Row choices the rules refuse: rows are numbered 0 to 3."""


def cards_outside(cards: Collection[int]) -> st.SearchStrategy[object]:
    """Card answers outside `cards` (a hand, or the draft table): another card of the deck, a
    number that is no card, or no number at all."""
    others = [card for card in range(1, DECK_SIZE + 1) if card not in cards]
    no_cards = st.sampled_from([-1, 0, DECK_SIZE + 1, 2 * DECK_SIZE])
    if not others:  # the table of a ten-player draft holds the whole deck
        return no_cards | answers_of_another_type
    return st.sampled_from(others) | no_cards | answers_of_another_type
