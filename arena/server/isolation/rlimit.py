"""Start a program under resource limits: the step every bot process and build step begins as.

The arena launches bots through this small step instead of setting their limits in a
`preexec_fn`: that would force a plain fork() of the multi-threaded arena, which gRPC warns
about on every launch and which is unsafe besides. The step enters the bot's cgroups (so that
the bot is inside them before it runs a single instruction of its own), sets the limits, then
becomes the program (the sandbox, or the bot itself).

It is a POSIX shell script, `/bin/sh -c STEP arena SETTINGS -- ARGV...`: the system's shell starts
in about 1 ms of CPU, where even `python -I -S` took some 12 ms, paid again by every bot process
of every set.

Settings: `data=BYTES` (RLIMIT_DATA, in whole KiB), `cpu=SECONDS` (RLIMIT_CPU), `nofile=N`
(RLIMIT_NOFILE), each set hard and soft alike; and `cgroup=DIR` (repeatable: a cgroup directory
whose `cgroup.procs` the step joins). It fails closed: a cgroup it cannot join, or a limit it
cannot set, ends it with status 1 (the shell's line, with the reason, then the arena's) before
the program runs. A program that cannot be started ends it as the shell says: 127 when it is not
found, 126 when it cannot be run, with the shell's line (`arena: 1: exec: PROGRAM: not found`).
"""

from __future__ import annotations

from collections.abc import Sequence

SHELL = "/bin/sh"
"""The POSIX shell that runs the step (dash on Debian)."""

STEP = """\
while [ "$#" -gt 0 ]; do
    setting=$1
    shift
    case $setting in
    --)
        exec "$@" ;;
    cgroup=*)
        printf '%s\\n' "$$" > "${setting#cgroup=}/cgroup.procs" || {
            echo "arena: cannot enter the cgroup ${setting#cgroup=}" >&2
            exit 1
        } ;;
    data=*)
        ulimit -d "$((${setting#data=} / 1024))" || exit 1 ;;
    cpu=*)
        ulimit -t "${setting#cpu=}" || exit 1 ;;
    nofile=*)
        ulimit -n "${setting#nofile=}" || exit 1 ;;
    *)
        echo "arena: unknown setting $setting" >&2
        exit 1 ;;
    esac
done
echo "arena: no program to start" >&2
exit 1
"""
"""The step itself. `$$` is the step's own process, which the program becomes (`exec`)."""


def command(settings: Sequence[str], argv: Sequence[str]) -> list[str]:
    """`argv` behind the step that applies `settings` (see above) and then becomes it."""
    return [SHELL, "-c", STEP, "arena", *settings, "--", *argv]
