"""The wait for a cgroup's freeze to be done: how often to look, and what to do between looks.

A freeze is written in one call, but each member stops only when the kernel next schedules it
(a bot's last thread is often still on its way back to sleep after answering), and v1 says
nothing when it is done. v2 notifies a change of `cgroup.events`, but the kernel sends a cgroup
file's notices at most once every 10 to 20 ms (its rate limit), where an idle bot freezes in
tens of microseconds: waiting for the notice alone, up to 40% of its freezes took 20 ms
(bench/NOTES.md, issue 23). So `wait_frozen` looks again after a turn of the event loop, then
again and again for a few tens of microseconds (`_SPIN`), then after a few naps of the arena's
own thread (`_NAPS`), then at growing pauses of the event loop, which v2's notice ends early. A
bot pinned to the one core this thread runs on (a core host's) freezes only once we get off
the core: there the looks one after another are a yield of the core instead (60 us of spinning
for nothing in half the decisions, bench/NOTES.md).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable

_NAPS = (20e-6, 40e-6, 80e-6)
"""Seconds of the first pauses between looks at a v1 freezer, in which the arena's thread
sleeps (`time.sleep`), the event loop with it. A bot's last thread freezes only once it is
scheduled, often on the core the arena's thread is running on: the arena must get off it, and
the event loop's own timers cannot wait less than epoll's millisecond, ten times what the bot
needs (measured: half of the freezes not done at the next decision, each then a millisecond
late). With `_SPIN`'s looks before them, under half a millisecond at most here (timer slack
included): below `clock.STALL`, which a stall of the arena's loop must pass before a bot's
deadline is put off by it."""
_SPIN = 60e-6
"""Seconds of looks one after another before the naps: from another core an idle bot's freeze
is done 30 to 60 us after its write, but a 20 us nap takes about 100 here (timer slack, a
virtual machine's timer); quiet, an idle thaw and freeze took 160 us with naps alone, 66 with
the looks first, for less CPU (bench/NOTES.md). On the bot's own core only the naps help."""
SETTLE = 0.01
"""Seconds between looks at a cgroup that is freezing or emptying, at the longest."""


async def wait_frozen(
    frozen: Callable[[], bool],
    patience: float,
    beside_us: bool = False,
    notice: Callable[[float], Awaitable[bool]] | None = None,
) -> bool:
    """Wait until `frozen()` says so; True once it does, False if it does not within
    `patience` seconds. `beside_us`: the cgroup is pinned to this thread's one core; `notice`
    waits up to so many seconds for the kernel's notice of a change (v2's `cgroup.events`),
    True once it came or the time is up, False at once where there is none to wait for."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + patience
    waits, pause = 0, 0.0002
    while not frozen():
        left = give_up - loop.time()
        if left <= 0:
            return False
        waits += 1
        if waits == 1:
            await asyncio.sleep(0)  # a turn of the loop
            if beside_us:  # its last thread runs once we get off the core: at once
                os.sched_yield()
                continue
            until = time.perf_counter() + _SPIN
            while time.perf_counter() < until:  # looks one after another
                if frozen():
                    return True
        elif waits <= 1 + len(_NAPS):
            time.sleep(_NAPS[waits - 2])  # blocks the loop, for a few tens of microseconds
        else:
            if notice is None or not await notice(min(pause, left)):
                await asyncio.sleep(min(pause, left))
            pause = min(SETTLE, pause * 2)
    return True
