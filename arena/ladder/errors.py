"""The ladder's branch of bad input: `LadderError`.

A ladder's settings file that cannot be read or holds a value it cannot take, a version asked to
move where its status cannot go: each is one line naming the file's key or the status, the value,
and what would be taken. The HTTP layer turns the ones its callers cause into a 4xx; the command
line shows them as one line, exit status 2, as every `ArenaError`.
"""

from arena.errors import ArenaError


class LadderError(ArenaError, ValueError):
    """A ladder's input that cannot be used (a settings key, a value, a status change), with
    what to change; a ValueError too, as bad input always is."""
