"""Hypothesis strategies for the whole test suite, kept in one place."""

from __future__ import annotations

from hypothesis import strategies as st

from arena.rules import MAX_PLAYERS, MIN_PLAYERS, Settings, Variant

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
