"""The engine's quick paths build exactly what the plain ones do: views, placements, records'
JSON form; and an illegal row changes nothing."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest
from hypothesis import given, settings

from arena.rules import (
    GameRecord,
    IllegalDecisionError,
    Phase,
    Placement,
    Round,
    Settings,
    View,
    make_placement,
    make_view,
)
from tests import strategies
from tests.rules.helpers import random_game


def test_a_quick_view_is_a_view() -> None:
    fields = {
        "settings": Settings(players=3),
        "seat": 1,
        "round": 2,
        "turn": 3,
        "hand": (4, 50, 99),
        "rows": ((1, 2), (30,), (60, 61, 62), (90,)),
        "penalties": (0, 5, 1),
        "totals": (10, 0, 3),
        "played": ((5, 6, 7),),
        "revealed": (),
        "table": (),
        "hands": (),
        "start_rows": ((1,), (30,), (60,), (90,)),
        "taken": ((), (10, 20), ()),
        "names": ("a", "b", "c"),
        "seed": 12345,
    }
    quick, plain = make_view(**fields), View(**fields)
    assert type(quick) is View
    assert quick == plain and hash(quick) == hash(plain) and repr(quick) == repr(plain)
    assert dataclasses.asdict(quick) == dataclasses.asdict(plain)
    assert pickle.loads(pickle.dumps(quick)) == plain
    assert copy.deepcopy(quick) == plain
    assert dataclasses.replace(quick, seat=0) == dataclasses.replace(plain, seat=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.seat = 2  # type: ignore[misc]


def test_a_quick_placement_is_a_placement() -> None:
    quick, plain = make_placement(2, 17, 1, (3, 4), True), Placement(2, 17, 1, (3, 4), True)
    assert type(quick) is Placement
    assert quick == plain and hash(quick) == hash(plain) and repr(quick) == repr(plain)
    assert quick.bullheads == plain.bullheads == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.row = 0  # type: ignore[misc]


@settings(max_examples=40, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_to_dict_is_asdict(game: Settings, seed: int) -> None:
    record = random_game(game, seed)
    assert record.to_dict() == dataclasses.asdict(record)
    # Key order too: the replay file is written without sorting keys.
    assert json.dumps(record.to_dict()) == json.dumps(dataclasses.asdict(record))
    assert GameRecord.from_json(record.to_json()) == record


def test_an_illegal_row_leaves_the_card_waiting() -> None:
    game = Round(Settings(2), 0, [0, 0], [[50], [60], [70], [80]], [[1], [2]])
    game.play([1, 2])
    with pytest.raises(IllegalDecisionError):
        game.choose_row(4)
    assert game.phase is Phase.ROW and game.deciders == (0,)
    turn = game.choose_row(2)
    assert turn is not None
    assert [(p.seat, p.card, p.row, p.taken) for p in turn.placements] == [
        (0, 1, 2, (70,)),
        (1, 2, 2, ()),
    ]


def test_views_share_nothing_that_changes() -> None:
    """A view taken earlier is not changed by the play that follows (it shares only tuples)."""
    game = Round(Settings(2), 0, [0, 0], [[10], [20], [30], [40]], [[11, 21], [12, 22]])
    before = game.view(0)
    game.play([11, 12])
    assert before.hand == (11, 21) and before.rows == ((10,), (20,), (30,), (40,))
    assert game.view(0).rows == ((10, 11, 12), (20,), (30,), (40,))
