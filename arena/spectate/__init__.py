"""For spectators: a tournament's games replayed in the terminal, and its report as one web page.

Reads what `arena run` leaves (the results database, read-only, or a replay file), so it works on
a finished tournament and on one still running. `source` finds the games, `replay` shows one in
the terminal (drawn by `display`, which `arena play` uses too), `report` and `charts` make the
page, whose styles, script and skeleton are the package data in `assets/`.
"""

from arena.spectate.replay import game_list, parse_turn, show_game, step_through, terminal_paint
from arena.spectate.report import DEFAULT_MAX_GAMES, ReportSummary, build_report, write_report
from arena.spectate.source import GameEntry, GameSource, SpectateError, open_games

__all__ = [
    "DEFAULT_MAX_GAMES",
    "GameEntry",
    "GameSource",
    "ReportSummary",
    "SpectateError",
    "build_report",
    "game_list",
    "open_games",
    "parse_turn",
    "show_game",
    "step_through",
    "terminal_paint",
    "write_report",
]
