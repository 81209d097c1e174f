"""Start a program under resource limits: `python -m arena.server.rlimit LIMITS -- ARGV...`.

The arena launches limited bots through this small step instead of setting the limits in a
`preexec_fn`: that would force a plain fork() of the multi-threaded arena, which gRPC warns
about on every launch and which is unsafe besides. This sets the limits, then becomes the bot.
"""

from __future__ import annotations

import os
import resource
import sys

_NAMES = {"data": resource.RLIMIT_DATA, "cpu": resource.RLIMIT_CPU}


def main(args: list[str]) -> None:
    """Apply `name=value` limits up to `--`, then exec the rest."""
    split = args.index("--")
    for item in args[:split]:
        name, value = item.split("=")
        resource.setrlimit(_NAMES[name], (int(value), int(value)))
    program = args[split + 1 :]
    try:
        os.execvp(program[0], program)
    except OSError as error:
        sys.exit(f"arena: cannot start {program[0]!r}: {error.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
