"""The bot options, declared once (`arena.server.options`): bounds, the first deadline, the
limits, and the options of a stored tournament rebuilt from its rules."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.server.declared import OptionError, Range
from arena.server.isolation.process import PIDS as PROCESS_PIDS
from arena.server.options import OPTIONS, RULES, BotOptions
from arena.tournament.config import SETTINGS, TournamentConfig

BOUNDED = [declared for declared in OPTIONS if isinstance(declared.bound, Range)]


def test_the_declaration_holds_every_option_an_organizer_sets() -> None:
    names = [declared.name for declared in OPTIONS]
    assert names == [
        "deadline",
        "first_deadline",
        "startup_timeout",
        "max_faults",
        "restart",
        "memory_mb",
        "pids",
        "cpu_seconds",
        "sandbox",
        "reuse_processes",
        "time_bank",
        "cpu",
    ]
    assert RULES == ("deadline", "first_deadline", "max_faults", "time_bank")
    assert all(declared.help.endswith((".", ")")) for declared in OPTIONS)


def test_every_bot_setting_of_a_tournament_is_its_declared_option() -> None:
    settings = {setting.name: setting for setting in SETTINGS}
    for declared in OPTIONS:
        setting = settings[declared.name]
        seen = (
            setting.kind,
            setting.optional,
            setting.default,
            setting.help,
            setting.shown,
            setting.bound,
        )
        assert seen == (
            declared.kind,
            declared.optional,
            declared.default,
            declared.help,
            declared.shown,
            declared.bound,
        ), declared.name
    assert TournamentConfig().bot_options() == BotOptions()  # one default for each


def test_every_number_has_a_range() -> None:
    numbers = [declared.name for declared in OPTIONS if declared.kind in (int, float)]
    assert numbers == [declared.name for declared in BOUNDED]


@pytest.mark.parametrize("declared", BOUNDED, ids=lambda declared: declared.name)
def test_a_value_out_of_its_range_is_refused_by_name(declared: Any) -> None:
    bound = declared.bound
    below = declared.kind(bound.low) - (0 if bound.above else 1)
    beyond = declared.kind(bound.high) + 1
    refused = [below, beyond, *((math.nan, math.inf, -math.inf) if declared.kind is float else ())]
    for value in refused:
        with pytest.raises(
            OptionError, match=f"^{declared.name} is .*, not {declared.accepted()}$"
        ):
            BotOptions(**{declared.name: value}).check()
    BotOptions(**{declared.name: declared.default}).check()
    BotOptions(**{declared.name: declared.kind(bound.high)}).check()


def test_the_first_deadline_is_never_less_than_the_deadline() -> None:
    assert BotOptions.of({"deadline": 8.0}).first_deadline == 8.0
    assert BotOptions.of({"deadline": 0.5}).first_deadline == BotOptions().first_deadline
    assert BotOptions.of({"deadline": 2.0, "first_deadline": 3.0}).first_deadline == 3.0


def test_the_limits_are_the_declared_ones_in_the_process_modules_terms() -> None:
    limits = BotOptions.of({"memory_mb": 64, "cpu_seconds": 3}).limits
    assert (limits.memory_bytes, limits.cpu_seconds, limits.pids) == (64 << 20, 3, PROCESS_PIDS)
    assert BotOptions.of({"memory_mb": None}).limits.memory_bytes is None


@given(
    deadline=st.floats(0.001, 100),
    first=st.floats(0.001, 100),
    faults=st.integers(0, 1000),
    bank=st.sampled_from([0.0, 0.25, 3.0]),
)
def test_a_stored_tournaments_options_come_back_from_its_rules(
    deadline: float, first: float, faults: int, bank: float
) -> None:
    config = TournamentConfig(
        players=4, deadline=deadline, first_deadline=first, max_faults=faults, time_bank=bank
    )
    rules = config.rules()  # as the results database holds them
    rebuilt = BotOptions.from_rules(rules)
    played = config.bot_options()
    assert [getattr(rebuilt, name) for name in RULES] == [getattr(played, name) for name in RULES]
    assert ("time_bank" in rules) == (bank > 0)  # older tournaments, with no bank, still match


def test_the_rules_of_an_older_tournament_give_no_time_bank() -> None:
    rules = {"players": 4, "deadline": 0.5, "first_deadline": 2.0, "max_faults": 3}
    assert BotOptions.from_rules(rules) == BotOptions(
        deadline=0.5, first_deadline=2.0, max_faults=3
    )
