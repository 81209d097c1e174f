"""The tournament's branches of the error family: a configuration that cannot run (`ConfigError`,
with `ScheduleError` for a schedule that cannot be made of the bots and sizes given) and a results
database that does not fit the run (`StoreError`, with `FolderBusyError` for an output folder
another run holds). Bad input raises these and nothing else, so a caller that reports them as one
line never reports a bug as bad input."""

from arena.errors import ArenaError


class ConfigError(ArenaError, ValueError):
    """A configuration that cannot run, with what to change (a ValueError too, as it was)."""


class ScheduleError(ConfigError):
    """Bots, table size, deals or sample size that no schedule fits: each bot entered once, enough
    bots for a table, at least one deal, a sample that seats every bot equally often."""


class StoreError(ArenaError, ValueError):
    """A results database that cannot take this run (a ValueError too, as its kinds were)."""


class TournamentMismatchError(StoreError):
    """The database holds another tournament than the one being run, or another game's spec."""


class FolderBusyError(StoreError):
    """The output folder is held by another run (`arena.tournament.folder`)."""
