"""The 300 rounds of the rules' test vectors (docs/rules.md), on which three independent
implementations agree.

A copy lives in tests/vectors so that a clone tests on its own; when the shared original is
beside the repo, it must not have changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.players import cheapest_row
from arena.rules import Phase, Round, Settings

VECTORS = Path(__file__).parent.parent / "vectors" / "rounds.jsonl"
SHARED = Path(__file__).parents[3] / "shared" / "vectors" / "rounds.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines()]


def test_all_300_rounds_are_here() -> None:
    assert len(CASES) == 300


@pytest.mark.skipif(not SHARED.exists(), reason="no shared/ beside this clone")
def test_the_copy_matches_the_shared_vectors() -> None:
    assert VECTORS.read_bytes() == SHARED.read_bytes()


@pytest.mark.parametrize("case", CASES, ids=[f"round{i}" for i in range(len(CASES))])
def test_round(case: dict[str, Any]) -> None:
    players = case["players"]
    game = Round.dealt(Settings(players), 0, [0] * players, case["rows"], case["hands"])
    for cards in case["plays"]:
        game.play(cards)
        while game.phase is Phase.ROW:
            game.choose_row(0 if case["row_choice"] == "first" else cheapest_row(game.rows))
    assert game.phase is Phase.OVER
    assert list(game.penalties) == case["penalties"]
    assert [list(row) for row in game.rows] == case["final_rows"]
