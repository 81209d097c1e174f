"""The heuristic sample bot played in-process: a decent strategy for simulated comparisons (the
built-in ones, lowest, highest and random, are all weak enough that playing 30% of their cards at
random does not make them clearly worse)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from arena.players import Lowest, Random, Strategy
from arena.rules import View
from arena.tournament.simulate import Maker, Noisy
from tests.server.helpers import SAMPLE_BOTS


def _load() -> ModuleType:
    """The bot's module, imported once under the name `heuristic_bot`."""
    if "heuristic_bot" in sys.modules:
        return sys.modules["heuristic_bot"]
    spec = importlib.util.spec_from_file_location("heuristic_bot", SAMPLE_BOTS / "heuristic_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["heuristic_bot"] = module
    spec.loader.exec_module(module)
    return module


_BOT = _load().HeuristicBot()


class Heuristic(Strategy):
    """The heuristic sample bot's card choice; the cheapest row, as the SDK's default."""

    def choose_card(self, view: View) -> int:
        card: int = _BOT.choose_card(view)
        return card


def heuristic(seed: str) -> Strategy:
    return Heuristic()


def noisy(share: float, salt: str = "") -> Maker:
    """The heuristic playing `share` of its cards at random, from a generator seeded per game."""
    return lambda seed: Noisy(Heuristic(), share, salt + seed)


def lowest(seed: str) -> Strategy:
    return Lowest()


FIELD: tuple[Maker, ...] = (heuristic, lowest, Random)
"""The default field of `arena compare` in-process: heuristic, lowest and random."""
