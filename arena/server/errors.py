"""The bots' branch of the error family: an entry, a submission or a listening address that
cannot be used. Imports nothing that loads gRPC, so any layer above may catch these cheaply."""

from arena.errors import ArenaError


class BotError(ArenaError, ValueError):
    """A bot, or where bots connect, that cannot be used as given, with what to change (a
    ValueError too, as its kinds always were)."""
