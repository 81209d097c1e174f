"""One error family: every error the arena raises on purpose is an ArenaError, of one of two
causes: bad input, in one branch per layer, or a machine that cannot do what was asked
(`MachineError`). Only these are shown as one line, so a bug is never reported as either. The
classes are found, not listed: every module of the package is imported and every subclass of
ArenaError is checked."""

from __future__ import annotations

import ast
import asyncio
import importlib
import pkgutil
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
import arena.cli.run
from arena.cli import main
from arena.errors import ArenaError, MachineError
from arena.ladder.errors import LadderError
from arena.rules import (
    Game,
    InvalidDealError,
    MisuseError,
    PhaseError,
    Round,
    RulesError,
    Settings,
    UnknownCardError,
    bullheads,
)
from arena.server.declared import OptionError
from arena.server.errors import BotError
from arena.server.isolation.fairness import FairnessError
from arena.server.isolation.sandbox import SandboxError
from arena.server.lobby import BotSpec
from arena.spectate import SpectateError
from arena.tournament import runner, schedule
from arena.tournament.cluster import ClusterError
from arena.tournament.cluster.shipping import ShippingError
from arena.tournament.config import ConfigError, TournamentConfig
from arena.tournament.errors import ScheduleError, StoreError

BAD_INPUT = (
    RulesError,
    ConfigError,
    BotError,
    OptionError,
    StoreError,
    SpectateError,
    LadderError,
)
"""The branches of bad input, one per layer (two for the server's bots and their options)."""
FAMILIES = (*BAD_INPUT, MachineError)
PACKAGE = Path(arena.__file__).parent


def every_module() -> list[str]:
    """Every module of the package but the `python -m` entry points, which run when imported."""
    found = pkgutil.walk_packages(arena.__path__, "arena.")
    return [name for _, name, _ in found if not name.endswith("__main__")]


def subclasses(root: type) -> set[type]:
    found: set[type] = set()
    for kind in root.__subclasses__():
        found |= {kind} | subclasses(kind)
    return found


def every_error() -> list[type]:
    """Every subclass of ArenaError, once every module of the package is imported."""
    for name in every_module():
        importlib.import_module(name)
    return sorted(subclasses(ArenaError), key=lambda kind: kind.__qualname__)


ERRORS = every_error()


def test_every_error_class_the_source_declares_is_found() -> None:
    names = {kind.__name__ for kind in ERRORS} | {"ArenaError"}
    declared = set()  # classes whose source names a base that is an error found
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
                if bases & names:
                    declared.add(node.name)
    assert declared <= names and declared - {"ArenaError"}
    assert {SandboxError, FairnessError, ClusterError, ShippingError} <= set(ERRORS)
    assert len(ERRORS) >= 20


@pytest.mark.parametrize("kind", ERRORS, ids=lambda kind: kind.__name__)
def test_every_error_is_of_one_cause_and_one_branch(kind: type[Exception]) -> None:
    assert [family for family in FAMILIES if issubclass(kind, family)] != []
    (family,) = [family for family in FAMILIES if issubclass(kind, family)]
    assert kind.__doc__, f"{kind.__name__} says what it means"
    if family is not MachineError:
        assert issubclass(kind, ValueError)  # as bad input always was


def test_the_branches_are_apart_and_a_machine_error_is_not_bad_input() -> None:
    for family in FAMILIES:
        assert issubclass(family, ArenaError)
        assert not any(issubclass(family, other) for other in FAMILIES if other is not family)
    assert not issubclass(MachineError, ValueError)
    machine = {kind for kind in ERRORS if issubclass(kind, MachineError)}
    assert {SandboxError, FairnessError, ClusterError} <= machine


MACHINE = [kind for kind in ERRORS if issubclass(kind, MachineError)]


@pytest.mark.parametrize("kind", MACHINE, ids=lambda kind: kind.__name__)
def test_a_machine_error_is_one_line_and_exit_status_2(
    kind: type[Exception], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    said = "no frobnicator on this machine: install one, or run with --frobnicate off"

    async def broken(*args: object) -> None:
        raise kind(said)

    monkeypatch.setattr(arena.cli.run, "_run", broken)
    args = ["run", "--bot", "a=true", "--bot", "b=true", "--output", str(tmp_path / "out")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.output == f"Error: {said}\n"  # one line, no usage: the command was right


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
