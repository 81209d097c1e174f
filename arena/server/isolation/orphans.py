"""The arena as the subreaper of its bots' processes: what they orphan becomes the arena's child,
so that nothing a bot starts can slip away to init, and so the arena must also reap it.

One place for the three duties that come with it: adopting (`adopt_orphans`, once, before the
first bot starts), stopping what escaped a bot's process group where no cgroup holds it
(`kill_escaped`, by the token in its environment) and reaping the dead it adopted
(`reap_adopted`), which nobody else waits for. It knows nothing of the protocol (a bot is
known by the environment entry it is given): the CLI loads it, and must load no protobuf.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Collection

from arena.server.isolation.procfs import PROC, environment, namespace_depth, processes

_PR_SET_CHILD_SUBREAPER = 36
_LOOK = 0.01
"""Seconds between looks for the dead on their way to us."""


def adopt_orphans() -> None:
    """Make this process the subreaper of its descendants (Linux): a bot's child that leaves
    the bot's process group (setsid) and is orphaned becomes our child, not init's, so
    `kill_escaped` can still find and stop it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_adopted(group: int, members: Collection[int] = ()) -> int:
    """Reap the dead that this process adopted as their subreaper (`adopt_orphans`) from the
    bot whose process group is `group`, `members` the pids last seen in its cgroup; how many.

    A subreaper that never reaps collects zombies: each sealed bot leaves one, its sandbox's
    first process (bwrap's inner half, in a session of its own), orphaned to us when bwrap's
    outer half dies first; a bot's child that outlived it leaves another. Over a ladder's weeks
    they would use up the machine's process ids. Only these are reaped, never a child anybody
    else waits for (asyncio's and subprocess's own children, which live in our pid namespace
    and lead their own groups): a dead child of ours in a pid namespace below ours, which we
    never start directly; a dead member of the bot's group other than the bot itself (the
    group's id stays the bot's while any member, dead or alive, holds it); or one of the bot's
    cgroup's `members`, which only the bot's descendants join (a pid freed meanwhile is handed
    out again only once the kernel's counter has gone round every other pid).
    """
    me = os.getpid()
    depth = namespace_depth(me)
    ours = set(members) - {group}
    reaped = 0
    for child in processes():
        if child.ppid != me or child.alive:
            continue
        adopted = child.pid in ours or (child.pgrp == group and child.pid != group)
        if adopted or namespace_depth(child.pid) > depth:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, os.WNOHANG)
                reaped += 1
    return reaped


async def reap_adopted_soon(
    group: int, members: Collection[int] = (), patience: float = 2.0
) -> int:
    """`reap_adopted` until every one of `members` is gone, or for `patience` seconds; how
    many. The dead take a moment to become ours: a process leaves its
    cgroup's list as it begins to exit, and hands its children over to us only as it finishes,
    so right after a cgroup is empty some of its dead may still be on their way."""
    waiting = set(members) - {group}
    reaped = reap_adopted(group, members)
    until = time.monotonic() + patience
    while time.monotonic() < until and any((PROC / str(pid)).exists() for pid in waiting):
        await asyncio.sleep(_LOOK)
        reaped += reap_adopted(group, members)
    return reaped


def kill_escaped(mark: str) -> None:
    """Kill and reap our children that carry this bot's `mark` in their environment (its token's
    entry, `NAME=value`): processes the bot started that escaped its process group and were
    orphaned to us. A bot's children inherit it, which tells them from any other child of the
    arena. An empty mark marks nothing."""
    if not mark:
        return
    entry = mark.encode()
    me = os.getpid()
    for child in processes():
        if child.ppid != me or entry not in environment(child.pid):
            continue
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to reap
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
