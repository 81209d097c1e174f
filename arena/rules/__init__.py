"""The rules of 6 nimmt!, pure: no I/O, no clock, no global random state.

Everything a reader needs to find a rule: cards and bullheads in `cards`, placement and the turn
in `round`, the game loop and dealing in `game`, what a seat may see in `views`, the record in
`record`, the one error family in `errors`.
"""

from arena.rules.cards import (
    BULLHEADS,
    DECK_SIZE,
    HAND_SIZE,
    ROW_COUNT,
    ROW_LIMIT,
    bullheads,
    penalty,
)
from arena.rules.errors import (
    Decision,
    IllegalDecisionError,
    InvalidDealError,
    InvalidSettingsError,
    MisuseError,
    PhaseError,
    RecordError,
    RulesError,
    UnknownCardError,
)
from arena.rules.game import Game, deal, replay, winners
from arena.rules.record import GameRecord, Placement, RoundRecord, TurnRecord, make_placement
from arena.rules.round import (
    Phase,
    Round,
    check_answer,
    check_card,
    check_draft,
    check_row,
    row_for,
)
from arena.rules.settings import DEFAULT_END_SCORE, MAX_PLAYERS, MIN_PLAYERS, Settings, Variant
from arena.rules.views import Rows, View, make_view

__all__ = [
    "BULLHEADS",
    "DECK_SIZE",
    "DEFAULT_END_SCORE",
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "ROW_COUNT",
    "ROW_LIMIT",
    "Decision",
    "Game",
    "GameRecord",
    "IllegalDecisionError",
    "InvalidDealError",
    "InvalidSettingsError",
    "MisuseError",
    "Phase",
    "PhaseError",
    "Placement",
    "RecordError",
    "Round",
    "RoundRecord",
    "Rows",
    "RulesError",
    "Settings",
    "TurnRecord",
    "UnknownCardError",
    "Variant",
    "View",
    "bullheads",
    "check_answer",
    "check_card",
    "check_draft",
    "check_row",
    "deal",
    "make_placement",
    "make_view",
    "penalty",
    "replay",
    "row_for",
    "winners",
]
