"""The heuristic sample bot played in process (`Heuristic`): a decent strategy, where the
built-in ones (lowest, highest, random) are all weak enough that playing some of their cards at
random makes them no clearly worse. The ladder's convergence figure and the simulated
comparisons' tests (`tests/tournament/sample_strategies.py`) both play it.

The bot is `sample_bots/python/heuristic_bot.py` itself, imported once under its own name, so
what is measured is the sample bot's own play, not a copy of it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from arena.players import Strategy
from arena.rules import View

SAMPLE_BOTS = Path(__file__).resolve().parents[1] / "sample_bots" / "python"
"""The Python sample bots shipped with the arena."""


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
