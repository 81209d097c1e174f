"""The root of every error the arena raises on purpose, `ArenaError`, and its two kinds of cause.

It imports nothing, so every layer can import it. Bad input has one branch per layer:
`arena.rules.errors.RulesError` (a decision or a setting the rules do not allow, or the engine
asked out of turn), `arena.tournament.errors.ConfigError` (a tournament that cannot run as
configured), `arena.server.errors.BotError` (a bot entry, submission or listening address that
cannot be used), `arena.server.declared.OptionError` (a value a declared setting cannot take),
`arena.tournament.errors.StoreError` (a results database that does not fit the run),
`arena.spectate.source.SpectateError` (results that cannot be shown) and
`arena.ladder.errors.LadderError` (a ladder's settings or a version's change that cannot be
used); each is a ValueError too.
`MachineError` is the other cause: the input is fine but the machine cannot do what it asks (no
sandbox for `--sandbox on`, no cgroups for `--cpu fair`, a cluster that cannot be reached), and
the fix is to the machine, or to ask for less. The command line shows either as one line, exit
status 2. Anything else that escapes is a bug, and is never reported as either.
"""


class ArenaError(Exception):
    """Base of every error the arena raises on purpose; messages show the offending value."""


class MachineError(ArenaError):
    """This machine cannot do what was asked, whatever the input: its message says what is
    missing (a sandbox, cgroups, a reachable cluster) and the fix, in one line."""
