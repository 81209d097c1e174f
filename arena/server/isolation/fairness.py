"""Fair CPU: a bot's deadline is a core of its own, and its time is counted without the arena's.

The policy, in one place:

- **A core per game.** In fair mode each game in progress holds one core (`Cores`), claimed for
  the whole game: every process of every bot at its table is pinned to it (`BotCgroup.pin`,
  before a new process runs its first instruction), so games never share a core. Games at once
  are as many as the cores the arena may use; more wait for one.
- **One decider at a time, everyone else frozen.** Every bot of the table is frozen while it is
  not deciding (`BotCgroup.freeze`: all of its processes, whatever session or priority they
  gave themselves), and the deciding seats are asked one after another, each thawed for its own
  decision alone (`Pacer.decision`). Answers stay secret until all are in, so asking in turn
  reveals nothing; a bot then has its core to itself for exactly its own decision, and nothing
  ponders on another bot's time. An idle bot stays frozen between games. Every bot is frozen,
  not only those seen to run: leaving a bot thawed that has used no CPU since its answer, and
  freezing it on evidence, saves nothing with gRPC bots, which are never quite asleep (a Python
  SDK bot's timer threads wake it from 15 ms after any activity on, and it answers HTTP/2
  pings: 0.5 to 0.9 ms of CPU a second idle), so that every one of them was caught within a few
  turns at fast decisions, each catch letting it take a decision's worth of its neighbour's
  core (bench/NOTES.md, issue 23).
- **An arena process a core.** With two games or more at once, the tournament layer plays each
  core's games in an arena process of its own pinned to that core (`arena.tournament.hosts`):
  this policy holds in each of them, for their one core.
- **Shared mode** (`--cpu shared`, or where the machine cannot freeze and pin) asks every seat
  at once, as contest runners for trusted, fast bots do: faster, but a bot's neighbours compete
  with it for the CPU while it thinks.

In either mode the time a decision took is counted from when its request was written to the
bot's stream to when its answer was read, and the arena's own stalls at its deadline are never
the bot's (`Connection.answer_timed`); the CPU the bot's cgroup used meanwhile is recorded beside
it (`Pacer.decision`).

Two arenas on one machine (two tournaments, or the workers of a `--workers` cluster) spread
their games over the cores too: a game takes the core that the fewest other arenas' games hold
(lock files, `flock`), and shares one only when every core is taken; an arena never waits for
another. Other programs on the machine can still use a bot's core: for exact figures, give the
arena cores of its own (a cpuset, `taskset`) on an otherwise quiet machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.errors import MachineError
from arena.server.isolation.cgroups import BotCgroup, RunCgroups

LOCKS = Path(tempfile.gettempdir()) / "arena-cores"
"""Where the lock files of the cores lie, shared by every arena on the machine."""
MAX_SHARING = 16
"""Games of other arenas a core is counted up to, when choosing the least used one."""


class CpuMode(StrEnum):
    """`--cpu`: how the bots share the machine's CPU."""

    AUTO = "auto"
    """Fair where the machine can pin and freeze bots; otherwise shared, said in one line."""
    FAIR = "fair"
    """A core per game, one decider at a time, the others frozen; or refuse to start."""
    SHARED = "shared"
    """Every seat asked at once, all bots on all cores: for trusted, fast bots."""


class FairnessError(MachineError):
    """`--cpu fair` on a machine where bots cannot be pinned and frozen, with why."""


@dataclass(frozen=True, slots=True)
class CpuPlan:
    """How a session's bots get the CPU, decided once when it opens."""

    asked: CpuMode
    """What the organizer asked for."""
    fair: bool
    """A core per game, one decider at a time (see the module's note); else shared."""
    cores: tuple[int, ...] = ()
    """In fair mode: the cores games are played on (one game each at a time)."""
    note: str = ""
    """Why fair mode is not used, or what it does not cover here; empty when nothing is amiss."""

    @property
    def mode(self) -> CpuMode:
        """The mode in force: FAIR or SHARED."""
        return CpuMode.FAIR if self.fair else CpuMode.SHARED

    def describe(self) -> str:
        """One line for the organizer."""
        if self.fair:
            cores = ", ".join(map(str, self.cores))
            line = f"fair CPU: a core per game ({cores}), one bot deciding at a time"
        elif self.asked is CpuMode.SHARED:
            line = "shared CPU (--cpu shared): every seat is asked at once, on every core"
        else:
            line = "shared CPU: every seat is asked at once, on every core"
        return f"{line}; {self.note}" if self.note else line

    def to_dict(self) -> dict[str, Any]:
        """For standings.json."""
        return {
            "mode": self.mode.value,
            "asked": self.asked.value,
            "cores": list(self.cores),
            "note": self.note,
        }


def choose_plan(
    mode: CpuMode, cgroups: RunCgroups | None, sealed: bool, why_none: str = ""
) -> CpuPlan:
    """The plan for a session: fair where `mode` allows and the machine can pin and freeze the
    bots' cgroups, shared otherwise (`why_none`: why there are no `cgroups`). Raises
    FairnessError for `fair` where it cannot be."""
    if mode is CpuMode.SHARED:
        return CpuPlan(mode, False)
    missing = f"no cgroups: {why_none}" if cgroups is None else _missing(cgroups)
    if missing:
        if mode is CpuMode.FAIR:
            raise FairnessError(
                f"--cpu fair needs {missing}: run the arena as root on a machine with cgroups "
                "(cpuset and freezer), or use --cpu shared"
            )
        return CpuPlan(mode, False, note=f"fair CPU is unavailable ({missing})")
    assert cgroups is not None
    note = ""
    if not sealed:
        note = (
            "not enforced against hostile bots: unsealed, they run as the arena's own user and "
            "could leave their cgroups"
        )
    return CpuPlan(mode, True, cgroups.cores(), note)


def _missing(cgroups: RunCgroups) -> str:
    """What fair mode lacks here; empty when it has it all."""
    lacking = [
        what
        for what, present in (("cpuset", cgroups.pinned), ("freezer", cgroups.freezable))
        if not present
    ]
    if lacking:
        return f"the bots' cgroups have no {' and no '.join(lacking)}"
    if not cgroups.cores():
        return "no core to pin bots to"
    return ""


class Cores:
    """The cores games are played on in fair mode: each game claims one for its whole length.

    Within this arena a core serves one game at a time, and a game waits for a free one. Among
    this arena's free cores it takes the one that the fewest games of other arenas on the
    machine hold: a claim holds a lock file `core-C.K.lock` (`LOCKS`), the lowest K free for
    its core C, so K counts the other games already there. It never waits for another arena.
    """

    def __init__(self, cores: Sequence[int], locks: Path = LOCKS) -> None:
        if not cores:
            raise ValueError("fair mode needs at least one core")
        self.cores = tuple(cores)
        self._locks = locks
        self._free = list(self.cores)
        self._freed = asyncio.Condition()

    @asynccontextmanager
    async def claim(self) -> AsyncIterator[int]:
        """Hold a core for one game: a free one, waiting while none of this arena's is."""
        async with self._freed:
            await self._freed.wait_for(lambda: bool(self._free))
            core, descriptor = self._take()
            self._free.remove(core)
        try:
            yield core
        finally:
            if descriptor is not None:
                os.close(descriptor)  # releases its lock
            async with self._freed:
                self._free.append(core)
                self._freed.notify()

    def _take(self) -> tuple[int, int | None]:
        """The free core the fewest other arenas' games hold, and the lock that says so."""
        with contextlib.suppress(OSError):
            self._locks.mkdir(mode=0o700, parents=True, exist_ok=True)
        for level in range(MAX_SHARING):
            for core in sorted(self._free):
                path = self._locks / f"core-{core}.{level}.lock"
                try:
                    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                except OSError:
                    return core, None  # no lock files here: this arena's own count alone
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(descriptor)
                    continue
                return core, descriptor
        return min(self._free), None


# -- pacing one game ---------------------------------------------------------------------------


@dataclass
class Used:
    """What one decision cost its bot, filled in as it ends."""

    cpu: float | None = None
    """Seconds of CPU the bot's cgroup used meanwhile; None where it is not accounted."""
    thawed: float = 0.0
    """Seconds it was thawed for the decision (fair mode; 0 in shared mode)."""
    neighbours: float | None = None
    """Seconds of CPU the game's other bots used meanwhile; None where not accounted."""


@dataclass
class Pacer:
    """How one game's bots get the CPU: in fair mode, pinned to the game's core and frozen but
    for their own decisions; in shared mode, left alone (but still metered).

    The data goes one way: the game's core goes down to the launch of its bots (`cpus`, so a
    new process runs its first instruction there), the seats' cgroups are handed to the pacer
    once (`seat`), and a decision names its seat, never a cgroup."""

    fair: bool
    core: int | None = None
    """The game's core (fair mode)."""
    slow_freezes: int = 0
    """Freezes that did not complete within `cgroups.FREEZE_PATIENCE` (a bot still running)."""
    _seats: tuple[BotCgroup | None, ...] = ()
    """Each seat's cgroup, by seat; None for a seat without one (the fallback, no cgroups)."""
    _readings: tuple[float | None, ...] = ()
    """In fair mode, each seat's CPU time when the last decision ended (or when they were
    seated), its bot frozen since: the next decision's figures start from them."""
    _settling: int | None = None
    """In fair mode, the last decider, frozen (or freezing) since its decision ended: `settle`
    reads it again before anyone else is thawed."""
    _unsettled: bool = False
    """Its freeze was not done at the look that ended its decision: `settle` waits for it."""

    @property
    def cpus(self) -> str | None:
        """The cpuset list new bot processes of this game are pinned to; None for any core."""
        return str(self.core) if self.fair and self.core is not None else None

    async def seat(
        self, cgroups: Sequence[BotCgroup | None], playing: Sequence[bool] | None = None
    ) -> None:
        """The game's bots are seated: `cgroups` by seat, whose CPU is watched while each of
        the others decides. In fair mode those `playing` (default: all) are pinned to the
        game's core (a no-op for a process that started there) and frozen until their first
        decision."""
        self._seats = tuple(cgroups)
        if not self.fair:
            return
        flags = playing if playing is not None else [True] * len(self._seats)
        chosen = [c for c, plays in zip(self._seats, flags, strict=True) if c is not None and plays]
        cpus = self.cpus
        for cgroup in chosen:
            with contextlib.suppress(OSError):
                if cpus is not None:
                    cgroup.pin(cpus)
        await asyncio.gather(*(self._freeze(cgroup) for cgroup in chosen))
        self._readings = self._read()

    def _read(self) -> tuple[float | None, ...]:
        """Every seat's CPU time now (None where it has no cgroup or is not accounted)."""
        return tuple(None if cgroup is None else cgroup.cpu_time() for cgroup in self._seats)

    @asynccontextmanager
    async def decision(
        self, seat: int, ended: Callable[[], bool] = lambda: False
    ) -> AsyncIterator[Used]:
        """Around one decision of the bot at `seat`: thaw it first and freeze it after (fair
        mode), and measure the CPU it used meanwhile, and the CPU its table's other bots used
        (none, in fair mode). A bot whose stream has `ended` meanwhile is left thawed, to exit."""
        used = Used()
        cgroup = self._seats[seat] if 0 <= seat < len(self._seats) else None
        if cgroup is None:
            yield used
            return
        if self.fair:
            if self._settling != seat:
                await self.settle()
            self._settling, self._unsettled = None, False  # thawed again: its own time
            thawed = time.perf_counter()
            with contextlib.suppress(OSError):
                cgroup.thaw()
            try:
                yield used
            finally:
                self._fair_end(seat, cgroup, ended, used, thawed)
            return
        others = [c for at, c in enumerate(self._seats) if at != seat and c is not None]
        before = cgroup.cpu_time()
        around = [other.cpu_time() for other in others]
        try:
            yield used
        finally:
            used.cpu = _spent([(before, cgroup.cpu_time())])
            later = [other.cpu_time() for other in others]
            used.neighbours = _spent(zip(around, later, strict=True))

    def _fair_end(
        self, seat: int, cgroup: BotCgroup, ended: Callable[[], bool], used: Used, thawed: float
    ) -> None:
        """The end of a decision in fair mode: freeze the decider, then read every seat's CPU
        time once. A game's decisions come one at a time and every bot is frozen between them,
        so the readings that end one decision begin the next: one read a seat and a decision,
        not two (half the reads at a 4-seat table).

        The freeze is not waited for here: about half the time the bot's last thread is still
        on its way back to sleep, and freezes only when next scheduled. The arena goes on with
        its own work (the answer's checks, the next request) while it does, and `settle` waits
        before the next bot is thawed, then reads the decider again: what it used to stop is
        then nobody's, never a neighbour's in the next decision. It reads it again even when
        the freeze was done at once: a thread the freezer counts as frozen may still be on its
        way off the core, and its last microsecond is accounted only once it is off."""
        if not ended():
            with contextlib.suppress(OSError):  # its cgroup is gone: the bot has exited
                self._unsettled = not cgroup.begin_freeze()
                self._settling = seat
        used.thawed = time.perf_counter() - thawed
        before, self._readings = self._readings, self._read()
        pairs = list(zip(before, self._readings, strict=True))
        used.cpu = _spent(pairs[seat : seat + 1])
        seats = self._seats
        used.neighbours = _spent(
            pair for at, pair in enumerate(pairs) if at != seat and seats[at] is not None
        )

    async def settle(self) -> None:
        """Wait until the last decider's freeze is done (see `_fair_end`), and take its CPU
        time then as where its next figures start; the session calls it as a game ends too,
        so a bot leaves its game frozen."""
        seat, self._settling = self._settling, None
        cgroup = self._seats[seat] if seat is not None else None
        if seat is None or cgroup is None:
            return
        if self._unsettled:
            self._unsettled = False
            try:
                frozen = await cgroup.settle()
            except OSError:
                return
            if not frozen:
                self.slow_freezes += 1
        readings = list(self._readings)
        readings[seat] = cgroup.cpu_time()
        self._readings = tuple(readings)

    async def _freeze(self, cgroup: BotCgroup) -> None:
        try:
            frozen = await cgroup.freeze()
        except OSError:  # its cgroup is gone: the bot has exited
            return
        if not frozen:
            self.slow_freezes += 1


def _spent(readings: Iterable[tuple[float | None, float | None]]) -> float | None:
    """The CPU seconds used between each pair of readings (before, after), all told; None if
    any of them is not accounted."""
    total = 0.0
    for before, after in readings:
        if before is None or after is None:
            return None
        total += max(0.0, after - before)
    return total
