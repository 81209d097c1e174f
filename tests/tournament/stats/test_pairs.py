"""The paired design: every deal in every rotation twice, NEW and OLD in the same seat with the
same seed; and the per-deal differences read from the games in any order they finish."""

from __future__ import annotations

import random

import pytest

from arena.rules import Settings
from arena.tournament import ScheduleError
from arena.tournament.stats.pairs import (
    NEW_SEATING,
    OLD_SEATING,
    PairedDeals,
    candidate_seat,
    paired_schedule,
)
from tests.tournament.helpers import made_up

SETTINGS = Settings(players=3)


def test_every_deal_in_every_rotation_once_with_each_candidate() -> None:
    specs = paired_schedule("new", "old", ["zed", "amy"], SETTINGS, seed=4, deals=3)
    assert len(specs) == 3 * 3 * 2
    assert len({spec.game_id for spec in specs}) == len(specs)
    for new, old in zip(specs[::2], specs[1::2], strict=True):
        assert (new.seating, old.seating) == (NEW_SEATING, OLD_SEATING)
        assert (new.deal, new.rotation, new.seed) == (old.deal, old.rotation, old.seed)
        seat = candidate_seat(new.deal, 3)
        assert new.seats[seat] == "new" and old.seats[seat] == "old"
        assert [b for b in new.seats if b != "new"] == ["amy", "zed"]  # the field, sorted
        assert [b for b in old.seats if b != "old"] == ["amy", "zed"]
    assert len({spec.seed for spec in specs}) == 3  # one seed a deal
    assert {candidate_seat(deal, 3) for deal in range(3)} == {0, 1, 2}
    again = paired_schedule("new", "old", ["amy", "zed"], SETTINGS, seed=4, deals=5)
    assert again[: len(specs)] == specs  # more deals extend the schedule, never change it


@pytest.mark.parametrize(
    ("new", "old", "field"),
    [("a", "b", ["c"]), ("a", "a", ["c", "d"]), ("a", "b", ["a", "c"])],
)
def test_a_table_of_distinct_bots_that_fits(new: str, old: str, field: list[str]) -> None:
    with pytest.raises(ScheduleError):
        paired_schedule(new, old, field, SETTINGS, seed=0, deals=1)


def test_deals_are_handed_out_in_order_once_complete_whatever_order_games_end() -> None:
    specs = paired_schedule("new", "old", ["x", "y"], SETTINGS, seed=1, deals=3)
    rng = random.Random(2)
    outcomes = []
    for spec in specs:
        totals = [rng.randrange(20) for _ in spec.seats]
        outcome = made_up(spec.seats, totals, spec.seating, spec.deal, spec.rotation)
        outcomes.append(outcome)
    expected = []
    for deal in range(3):
        games = [o for o in outcomes if o.spec.deal == deal]
        new = [o.bullheads_of("new") for o in games if o.spec.seating == NEW_SEATING]
        old = [o.bullheads_of("old") for o in games if o.spec.seating == OLD_SEATING]
        expected.append((sum(new) - sum(old)) / 3)
    shuffled = outcomes[:]
    rng.shuffle(shuffled)
    deals = PairedDeals("new", "old", 3)
    handed = [difference for outcome in shuffled for difference in deals.add(outcome)]
    assert handed == pytest.approx(expected)
    assert deals.add(shuffled[0]) == []  # a game seen again changes nothing
