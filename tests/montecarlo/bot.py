"""The Monte Carlo bot's module, loaded from its file (sample bots are programs, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

from arena.players import Strategy
from arena.rules import View
from tests.server.helpers import SAMPLE_BOTS

PATH = SAMPLE_BOTS / "montecarlo_bot.py"


def load() -> ModuleType:
    """The bot's module, imported once under the name `montecarlo_bot`."""
    if "montecarlo_bot" in sys.modules:
        return sys.modules["montecarlo_bot"]
    spec = importlib.util.spec_from_file_location("montecarlo_bot", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["montecarlo_bot"] = module
    spec.loader.exec_module(module)
    return module


montecarlo = load()


class Searching(Strategy):
    """The bot played in-process: its synchronous searches as a strategy."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def choose_card(self, view: View) -> int:
        card: int = self.bot.best_card(view)
        return card

    def choose_row(self, view: View) -> int:
        row: int = self.bot.best_row(view)
        return row
