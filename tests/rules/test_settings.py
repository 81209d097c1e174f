"""Settings own their dict form, checked both ways: what `to_dict` writes `from_dict` reads back
equal, and `from_dict` refuses anything else with InvalidSettingsError naming it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rules import MAX_PLAYERS, MIN_PLAYERS, InvalidSettingsError, Settings, Variant

SETTINGS = st.builds(
    Settings,
    players=st.integers(MIN_PLAYERS, MAX_PLAYERS),
    variant=st.sampled_from(Variant),
    end_score=st.integers(1, 200),
    max_rounds=st.none() | st.integers(1, 20),
)


@given(SETTINGS)
def test_the_dict_form_reads_back_equal(settings: Settings) -> None:
    data = settings.to_dict()
    assert list(data) == ["players", "variant", "end_score", "max_rounds"]
    assert Settings.from_dict(json.loads(json.dumps(data))) == settings


def test_the_dict_form_is_plain_json_values() -> None:
    data = Settings(3, Variant.PROFESSIONAL_DRAFT, 40, None).to_dict()
    assert data == {
        "players": 3,
        "variant": "professional-draft",
        "end_score": 40,
        "max_rounds": None,
    }
    assert type(data["variant"]) is str


GOOD: dict[str, Any] = {"players": 4, "variant": "standard", "end_score": 66, "max_rounds": None}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**GOOD, "deadline": 1.0}, "unknown setting 'deadline'"),
        ({"players": 4, "variant": "standard", "end_score": 66}, "missing setting 'max_rounds'"),
        ({**GOOD, "variant": "chinese"}, "unknown variant 'chinese'"),
        ({**GOOD, "variant": 3}, "unknown variant 3"),
        ({**GOOD, "players": 11}, "players must be 2 to 10, not 11"),
        ({**GOOD, "players": "4"}, "players must be a whole number, not '4'"),
        ({**GOOD, "players": True}, "players must be a whole number, not True"),
        ({**GOOD, "end_score": 0}, "end score must be at least 1, not 0"),
        ({**GOOD, "end_score": 66.0}, "end_score must be a whole number, not 66.0"),
        ({**GOOD, "max_rounds": "2"}, "max_rounds must be a whole number, not '2'"),
        ([4, "standard"], "settings must be a dict"),
    ],
)
def test_from_dict_refuses_what_is_not_settings(data: Any, message: str) -> None:
    with pytest.raises(InvalidSettingsError, match=message):
        Settings.from_dict(data)


def test_the_constructor_checks_types_too() -> None:
    with pytest.raises(InvalidSettingsError, match=r"players must be a whole number, not 4\.0"):
        Settings(4.0)  # type: ignore[arg-type]
