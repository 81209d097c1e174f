"""The root of every error the arena raises on purpose: `ArenaError`.

It imports nothing, so every layer can import it. Each layer has one branch under it:
`arena.rules.errors.RulesError` (a decision or a setting the rules do not allow, or the engine
asked out of turn), `arena.tournament.errors.ConfigError` (a tournament that cannot run as
configured), `arena.server.errors.BotError` (a bot entry, submission or listening address that
cannot be used), `arena.tournament.errors.StoreError` (a results database that does not fit the
run) and `arena.spectate.source.SpectateError` (results that cannot be shown). Anything else that
escapes is a bug, and is never reported as bad input.
"""


class ArenaError(Exception):
    """Base of every error the arena raises on purpose; messages show the offending value."""
