"""Start a program under resource limits: `python -I -S rlimit.py SETTINGS -- ARGV...`.

The arena launches bots through this small step instead of setting their limits in a
`preexec_fn`: that would force a plain fork() of the multi-threaded arena, which gRPC warns
about on every launch and which is unsafe besides. This enters the bot's cgroups (so that the
bot is inside them before it runs a single instruction of its own), sets the limits, then
becomes the program (the sandbox, or the bot itself).

It imports nothing but the standard library, so the arena runs it as a plain script with
`-I -S` (no site, no user paths, no environment variables): a few milliseconds, not the tens a
full interpreter with the arena's packages takes.

Settings: `data=BYTES` (RLIMIT_DATA), `cpu=SECONDS` (RLIMIT_CPU), `nofile=N` (RLIMIT_NOFILE),
and `cgroup=DIR` (repeatable: a cgroup directory whose `cgroup.procs` this process joins).
"""

from __future__ import annotations

import os
import resource
import sys

_NAMES = {
    "data": resource.RLIMIT_DATA,
    "cpu": resource.RLIMIT_CPU,
    "nofile": resource.RLIMIT_NOFILE,
}


def main(args: list[str]) -> None:
    """Apply the settings up to `--`, then exec the rest."""
    split = args.index("--")
    for item in args[:split]:
        name, value = item.split("=", 1)
        if name == "cgroup":
            try:
                with open(os.path.join(value, "cgroup.procs"), "w") as procs:
                    procs.write(str(os.getpid()))
            except OSError as error:  # fail closed: never run a bot outside its cgroup
                sys.exit(f"arena: cannot enter the cgroup {value}: {error.strerror}")
        else:
            resource.setrlimit(_NAMES[name], (int(value), int(value)))
    program = args[split + 1 :]
    try:
        os.execvp(program[0], program)
    except OSError as error:
        sys.exit(f"arena: cannot start {program[0]!r}: {error.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
