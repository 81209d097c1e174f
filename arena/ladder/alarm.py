"""A task's wake-up call (`Alarm`): what the match loop and the vetting task wait on between
their looks, and what the rest of the serve sets to say "look now".

Why not a bare `asyncio.Event` made with its task's object: an Event binds to the first event
loop that waits on it, and under any other loop its `wait()` fails at once (RuntimeError, "is
bound to a different event loop"). A task that waits on it in a `while` loop then turns without
rest, some 26,000 times a second, as `MatchLoop.run` did under a second `asyncio.run` (a test's,
or a serve run twice in one process). An Alarm outlives its runs, so that a callback handed out
once (`Intake(vetted=matches.wake.set)`, `Served.wake`) wakes every run, and makes a fresh Event
for each run (`arm`), on the loop that run is on.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class Alarm:
    """One task's wake-up call, on whichever event loop its current run is on (see the module's
    note). Like an Event's, `set`, `clear` and `wait` are for that loop's thread alone: a thread
    hands its `set` to the loop (`loop.call_soon_threadsafe`)."""

    _event: asyncio.Event | None = field(default=None, init=False, repr=False)

    def arm(self) -> None:
        """A fresh event for the run starting on the running loop: called first in each run."""
        asyncio.get_running_loop()  # RuntimeError outside a loop: an event made there would bind
        self._event = asyncio.Event()  # to whichever loop first waits, which is what this avoids

    def set(self) -> None:
        """Wake the run waiting. Before any run it does nothing: a run looks before it waits."""
        if self._event is not None:
            self._event.set()

    def clear(self) -> None:
        """Forget the wake-ups a run's last look saw: a run clears its alarm after it looks
        and before it waits (no `await` between), so what is set after that look wakes it."""
        if self._event is not None:
            self._event.clear()

    async def wait(self) -> None:
        """Until `set` (after `arm`, in the run that armed it)."""
        if self._event is None:
            raise RuntimeError("Alarm.wait before arm: a run arms its alarm first")
        await self._event.wait()
