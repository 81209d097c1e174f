"""Game specs and outcomes: JSON round trips, consistency checks and per-bot helpers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.players import Fault, FaultKind
from arena.rules import Decision, Settings, Variant
from arena.tournament import GameOutcome, GameSpec
from tests.tournament.helpers import made_up, played

SETTINGS = Settings(players=3, variant=Variant.PROFESSIONAL, end_score=30, max_rounds=3)
SPEC = GameSpec("t002-d01-r1", 2, 1, 1, ("ann", "bob", "cyd"), 2**64 - 1, SETTINGS)
FAULT = Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 3, "no answer in 1.0 s")


def through_json(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


def test_spec_round_trips_through_json() -> None:
    assert GameSpec.from_dict(through_json(SPEC.to_dict())) == SPEC


def test_outcome_round_trips_through_json() -> None:
    outcome = played(SPEC, faults=[FAULT])
    outcome = GameOutcome(outcome.spec, outcome.record, outcome.faults, ("bob",))
    again = GameOutcome.from_dict(through_json(outcome.to_dict()))
    assert again == outcome
    assert again.faults[0].kind is FaultKind.TIMEOUT


def test_spec_needs_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="3 seats"):
        GameSpec("g", 0, 0, 0, ("ann", "bob"), 1, SETTINGS)


def test_spec_rotation_in_range() -> None:
    with pytest.raises(ValueError, match="rotation 3"):
        GameSpec("g", 0, 0, 3, ("ann", "bob", "cyd"), 1, SETTINGS)


def test_outcome_refuses_a_record_of_another_rotation() -> None:
    record = played(SPEC).record
    other = GameSpec("g", 2, 1, 0, SPEC.seats, SPEC.seed, SETTINGS)
    with pytest.raises(ValueError, match="another game"):
        GameOutcome(other, record, (), ())


def test_per_bot_helpers() -> None:
    fault = Fault(2, FaultKind.ILLEGAL, Decision.ROW, 1, 4, "row 7")
    outcome = made_up(["ann", "bob", "cyd"], [12, 3, 3], faults=[fault])
    assert outcome.totals == (12, 3, 3)
    assert outcome.scores == {"ann": 12, "bob": 3, "cyd": 3}
    assert outcome.winners == ("bob", "cyd")
    assert outcome.seat_of("cyd") == 2
    assert outcome.bullheads_of("ann") == 12
    assert outcome.faults_of("cyd") == (fault,)
    assert outcome.faults_of("ann") == ()
    with pytest.raises(ValueError, match="'dan' did not play"):
        outcome.seat_of("dan")


def test_a_specs_seating_is_stored_under_its_old_key_so_older_folders_resume() -> None:
    spec = made_up(["ann", "bob"], [1, 2], seating=3, deal=1, rotation=1).spec
    stored = spec.to_dict()
    assert stored["table"] == 3 and "seating" not in stored
    assert GameSpec.from_dict(json.loads(json.dumps(stored))) == spec
    assert spec.game_id == "t003-d01-r1"
