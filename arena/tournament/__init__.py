"""Tournaments: schedules, game jobs and their outcomes, the results store, and the standings.

`schedule` decides the games (round-robin or balanced sample, duplicate deals, stable seeds),
`outcome` holds a game job's spec and result, `store` keeps finished games in SQLite, and
`standings` ranks the bots from them; `writer` writes the output files; `errors` holds the
configuration's and the store's errors. The store and the writer do I/O; the schedule, outcomes
and standings are pure.
"""

from arena.tournament.errors import ConfigError, ScheduleError, StoreError
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.schedule import (
    ScheduleSize,
    balanced_sample,
    deal_seed,
    game_id,
    round_robin,
    round_robin_size,
    sample_size,
    schedule,
)
from arena.tournament.standings import (
    RESAMPLES,
    BotStanding,
    Pairing,
    Standings,
    compute_standings,
    pairwise_table,
    standings_table,
)
from arena.tournament.store import ResultStore, TournamentMismatchError

__all__ = [
    "RESAMPLES",
    "BotStanding",
    "ConfigError",
    "GameOutcome",
    "GameSpec",
    "Pairing",
    "ResultStore",
    "ScheduleError",
    "ScheduleSize",
    "Standings",
    "StoreError",
    "TournamentMismatchError",
    "balanced_sample",
    "compute_standings",
    "deal_seed",
    "game_id",
    "pairwise_table",
    "round_robin",
    "round_robin_size",
    "sample_size",
    "schedule",
    "standings_table",
]
