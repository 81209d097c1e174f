"""A neighbour for the fair-CPU tests (issue 14): answers what the fallback would, at once.

`quiet`: nothing else. `hog`: before it connects it starts 16 busy processes, each in a session
of its own (so that no process group reaches them all), and at every decision it tries to lower
the priority of every other process it can see and of the users the arena gives sealed bots, so
that whatever else runs on its core gets less of it. It logs what it managed:
`hog: N busy processes; reniced M of K processes and U of V users`.
"""

from __future__ import annotations

import contextlib
import os
import sys

from arena.sdk import Bot, View, run

MODE = sys.argv[1] if len(sys.argv) > 1 else "quiet"
BUSY = 16
"""Busy processes the hog starts."""
UIDS = range(62000, 62064)
"""Where the arena's sealed users begin (`arena.server.isolation.sandbox`): the hog tries them
all."""


def spin() -> None:
    """Start one busy process in a session of its own; it runs until it is killed."""
    if os.fork() == 0:
        with contextlib.suppress(OSError):
            os.setsid()
        while True:
            pass


def renice() -> str:
    """Lower the priority of every other process and user it can; what it managed."""
    mine = {os.getpid(), os.getppid()}
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]
    done = 0
    for pid in pids:
        try:
            os.setpriority(os.PRIO_PROCESS, pid, 19)
            done += 1
        except OSError:
            pass
    users = 0
    for uid in UIDS:
        if uid == os.getuid():
            continue
        try:
            os.setpriority(os.PRIO_USER, uid, 19)
            users += 1
        except OSError:
            pass
    return f"reniced {done} of {len(pids)} processes and {users} of {len(UIDS) - 1} users"


class Neighbour(Bot):
    def choose_card(self, view: View) -> int:
        if MODE == "hog":
            print(f"hog: {BUSY} busy processes; {renice()}", file=sys.stderr, flush=True)
        return view.hand[0]  # the fallback's card; the row and the draft keep the SDK's defaults


if __name__ == "__main__":
    if MODE == "hog":
        for _ in range(BUSY):
            spin()
    run(Neighbour(), name=MODE)
