"""Outcomes for tests: made up from totals, or played for real with in-process strategies."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.players import Fault, Lowest, Random
from arena.rules import Game, GameRecord, Settings, winners
from arena.tournament import GameOutcome, GameSpec, game_id
from tests.rules.helpers import drive


def made_up(
    seats: Sequence[str],
    totals: Sequence[int],
    seating: int = 0,
    deal: int = 0,
    rotation: int = 0,
    faults: Sequence[Fault] = (),
    disqualified: Sequence[str] = (),
) -> GameOutcome:
    """An outcome with the given totals and no rounds: for standings, which read only totals."""
    settings = Settings(players=len(seats))
    spec = GameSpec(
        game_id(seating, deal, rotation), seating, deal, rotation, tuple(seats), 0, settings
    )
    record = GameRecord(settings, rotation, (), tuple(totals), winners(totals))
    return GameOutcome(spec, record, tuple(faults), tuple(disqualified))


def played(spec: GameSpec, faults: Sequence[Fault] = ()) -> GameOutcome:
    """The outcome of `spec` played in-process: seat 0 plays its lowest card, the rest at random."""
    players = spec.settings.players
    strategies = [Lowest(), *(Random(f"{spec.seed}:{seat}") for seat in range(1, players))]
    game = Game(spec.settings, random.Random(spec.seed), spec.rotation)
    return GameOutcome(spec, drive(game, strategies), tuple(faults), ())
