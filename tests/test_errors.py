"""One error family: every error the arena raises on purpose is an ArenaError, in one branch per
layer, and bad input is told from a bug: only bad input raises a branch a command reports as one
line."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.rules import (
    Game,
    IllegalDecisionError,
    InvalidDealError,
    InvalidSettingsError,
    MisuseError,
    PhaseError,
    RecordError,
    Round,
    RulesError,
    Settings,
    UnknownCardError,
    bullheads,
)
from arena.server.errors import BotError
from arena.server.listen import ListenError
from arena.server.lobby import BotSpec
from arena.server.specs import BadBotSpec
from arena.spectate import SpectateError
from arena.tournament import runner, schedule
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.errors import ScheduleError, StoreError
from arena.tournament.store import TournamentMismatchError
from arena.tournament.submissions import BadSubmission

BRANCHES = {
    RulesError: (
        InvalidSettingsError,
        IllegalDecisionError,
        UnknownCardError,
        InvalidDealError,
        RecordError,
        MisuseError,
        PhaseError,
    ),
    ConfigError: (ScheduleError,),
    BotError: (BadBotSpec, ListenError, BadSubmission),
    StoreError: (TournamentMismatchError,),
    SpectateError: (),
}


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_one_root_one_branch_per_layer(branch: type[Exception]) -> None:
    assert issubclass(branch, ArenaError)
    assert issubclass(branch, ValueError)  # as each always was
    for kind in BRANCHES[branch]:
        assert issubclass(kind, branch)
    others = [other for other in BRANCHES if other is not branch]
    assert not any(issubclass(branch, other) for other in others)


def test_a_phase_error_is_a_runtime_error_as_it_was() -> None:
    assert issubclass(PhaseError, RuntimeError) and issubclass(PhaseError, MisuseError)


def test_the_rules_raise_only_their_own_errors() -> None:
    settings = Settings(2)
    with pytest.raises(UnknownCardError, match="there is no card 105"):
        bullheads(105)
    with pytest.raises(InvalidDealError, match="not 3 and 2"):
        Round.dealt(settings, 0, [0, 0], [1, 2, 3], [[4] * 10, [5] * 10])
    with pytest.raises(InvalidDealError, match=r"not \[10, 9\]"):
        Round.dealt(settings, 0, [0, 0], [1, 2, 3, 4], [[4] * 10, [5] * 9])
    game = Game(settings, random.Random(1))
    with pytest.raises(MisuseError, match="expected 2 cards, got 1"):
        game.play([game.view(0).hand[0]])
    with pytest.raises(PhaseError, match="the game is not over"):
        game.record()


def test_bad_schedule_input_is_a_config_error() -> None:
    with pytest.raises(ScheduleError, match="'ann' is entered twice"):
        schedule(["ann", "ann", "bob"], Settings(2), 1, 0)


def test_a_bug_in_the_schedule_is_not_reported_as_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(runner, "schedule", broken)
    bots = (BotSpec("a", ("true",)), BotSpec("b", ("true",)))
    config = TournamentConfig(bots=bots, output=tmp_path)
    with pytest.raises(ValueError, match="a bug") as caught:
        asyncio.run(runner.run_tournament(config))
    assert not isinstance(caught.value, ArenaError)
