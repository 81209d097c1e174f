"""Control groups for bot processes: one per process, so that its limits hold for everything it
starts and stopping it stops everything it started, whatever that did to its environment,
session or process group.

A run creates one parent, `arena-<pid>-<random>`, beside itself in each hierarchy (under the
cgroup the arena itself runs in, so the organizer's own limits still hold over the bots), and one
child per bot process in it. It only ever touches cgroups it created: the parent and its
children are removed at the end, even on errors, after everything in them has been killed. A
parent left by an arena that was itself killed (its pid no longer runs) is removed by the next
run, its bots killed first, thawed so that a frozen one takes the SIGKILL (`_remove_stale`).

Both kinds of machine are supported:

- cgroup v2 (one unified hierarchy, `/sys/fs/cgroup/cgroup.controllers` exists): `memory.max`,
  `pids.max`, `cpu.weight`, and `cgroup.kill` to stop a bot (or `cgroup.freeze`, then SIGKILL to
  every member, on kernels before 5.14). The controllers must be enabled for the arena's own
  cgroup's children; where the kernel refuses (v2 lets no cgroup that holds processes do so, but
  the root), the run's parent goes under the hierarchy's root instead, and where that fails too,
  the bots still get a cgroup each, which stops them whole, without its limits.
- cgroup v1 (a mount per controller, as on the machines of `make test`): `memory`, `pids`,
  `cpu` and `freezer`, each under its own mount; a bot is stopped by freezing its cgroup, so that
  nothing in it can fork meanwhile, sending SIGKILL to every member, and thawing it.

Where no hierarchy is writable (not root, a read-only /sys), `create` raises CgroupError with
the reason (`isolate` records it), and bots are limited by their rlimits alone and stopped by
process group.

For fair CPU (`fairness`) a bot's cgroup can also be pinned to cores (`pin`: v1's
`cpuset` hierarchy, v2's `cpuset.cpus`), frozen while it is not deciding and thawed for a
decision (`freeze`, `thaw`: v1's freezer, v2's `cgroup.freeze`), and asked how much CPU it has
used (`cpu_time`: v1's `cpuacct.usage`, v2's `cpu.stat`). `RunCgroups.pinned`, `.freezable`
and `.metered` say which of these work here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from arena.errors import MachineError
from arena.server.isolation.cgroupfs import (
    Files,
    enable_controllers,
    inherit_cpuset,
    own_cgroups,
    parse_cpus,
    read,
    relative,
    subdirectories,
    write,
)
from arena.server.isolation.freezing import SETTLE, wait_frozen
from arena.server.isolation.procfs import process

ROOT = Path("/sys/fs/cgroup")
"""Where the hierarchies are mounted on every Linux distribution of the last decade."""
V1_CONTROLLERS = ("memory", "pids", "cpu", "freezer")
"""The v1 controllers a bot's cgroup joins: its limits, and the freezer that stops it whole."""
V2_CONTROLLERS = ("memory", "pids", "cpu")
"""The v2 controllers enabled for the bots' cgroups (freezing and killing are built in)."""
V1_FAIR = ("cpuset", "cpuacct")
"""The v1 hierarchies a bot's cgroup also joins where they are mounted, for fair CPU: the cores
it may run on, and the CPU time it used. Neither limits it until `BotCgroup.pin`."""
V2_FAIR = ("cpuset",)
"""The v2 controller enabled, where the kernel allows, for pinning (CPU time is in `cpu.stat`
of every v2 cgroup)."""
EQUAL_WEIGHT = 100
"""Every bot's CPU weight (v2 `cpu.weight`; v1 `cpu.shares` is ten times it): equal for all, so
under contention every bot process gets the same share of the cores, whatever its niceness."""
PREFIX = "arena-"
"""The name of a run's parent: `arena-<pid>-<random>`."""
_SETTLE = SETTLE
_PATIENCE = 5.0
"""Seconds a cgroup may take to freeze or to empty once killed."""
_KILL_FREEZE = 0.1
"""Seconds `BotCgroup.kill` waits for a cgroup to freeze before it kills member by member
instead (as without a freezer). A sealed bot's cgroup that is already coming down never
freezes: its sandbox's init, exiting, waits in the kernel for the children the freeze holds, so
a longer wait only delayed every bot's end (by the whole 5 s of `_PATIENCE`, at every close of
an arena on a v1 machine)."""
KEEPER = "frozen"
"""An empty v1 freezer cgroup in the run's parent, frozen for the run's whole length. The v1
freezer switches a kernel-wide static key on when a first cgroup starts freezing and off when
the last one thaws, and each switch patches the kernel's code on every core (text poking, with
an IPI to each): the most of a freeze and a thaw's cost (about 200 us of 335) whenever no other
cgroup on the machine was frozen, as at a 2-seat table or in the bench's freeze cycles. With
one cgroup always frozen the key never switches: a bot's freeze and thaw only count it."""
FREEZE_PATIENCE = 1.0
"""Seconds `BotCgroup.freeze` waits for every member to be frozen: a member that is running
freezes as soon as the kernel next schedules it, within milliseconds even when it has many busy
processes on one core."""


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    """What one bot process's cgroup allows it and everything it starts, together."""

    memory_bytes: int | None = None
    """Memory (resident, page cache and tmpfs files included); the kernel's OOM killer ends the
    cgroup's largest process past it. None for no limit."""
    pids: int | None = None
    """Processes and threads at once; past it fork and clone fail. None for no limit."""


class CgroupError(MachineError, OSError):
    """A cgroup that could not be created, joined or removed."""


@dataclass
class BotCgroup:
    """The cgroup of one bot process: a directory in each hierarchy (one on v2)."""

    directories: tuple[Path, ...]
    """Where the process joins: its pid goes into `cgroup.procs` of each, before it runs any
    code of the bot's (`arena.server.isolation.rlimit` does it)."""
    version: int
    removed: bool = False
    pinned_to: str | None = None
    """The cores `pin` last pinned it to; None before."""
    beside_us: bool = False
    """Pinned to the one core this thread may run on (a core host and its bots): its threads
    run only when we get off that core."""
    _found: dict[str, Path | None] = field(default_factory=dict, repr=False, compare=False)
    """The file of each name looked up by `_cached` (one lookup, then every decision)."""
    _files: Files = field(default_factory=Files, repr=False, compare=False)
    """The files touched around every decision (freezer, CPU time), kept open until `remove`."""
    _look: Callable[[], bool] | None = field(default=None, repr=False, compare=False)
    """Whether the freeze written last is done (`begin_freeze`); None before one."""

    def members(self) -> set[int]:
        """The pids in the cgroup now (the host's pids, whatever namespace they run in)."""
        found: set[int] = set()
        for directory in self.directories:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
        return found

    def signal(self, number: int) -> None:
        """Send a signal to every member (those that exit meanwhile are skipped)."""
        for pid in self.members():
            with contextlib.suppress(OSError):
                os.kill(pid, number)

    async def kill(self) -> None:
        """Kill everything in the cgroup and wait until it is empty.

        v2: `cgroup.kill`, which the kernel applies atomically, forks in flight included. Else
        freeze it first (v2 `cgroup.freeze`, v1 `freezer.state`), so that no member can fork
        while they are killed, then SIGKILL each member and thaw, so the kills are delivered.
        Without a freezer (v1 machines without that controller), or where the cgroup does not
        freeze at once (`_KILL_FREEZE`), kill until empty: forks are bounded by the cgroup's
        `pids.max`.
        """
        if self.removed or not self.members():
            return
        kill_file = self._file("cgroup.kill")
        if kill_file is not None:
            write(kill_file, "1")
        else:
            frozen = await self.freeze(_KILL_FREEZE)
            for _ in range(1 if frozen else 100):
                self.signal(signal.SIGKILL)
                with contextlib.suppress(OSError):  # delivers the kills: frozen, none is taken
                    self.thaw()
                if frozen or not self.members():
                    break
                await asyncio.sleep(_SETTLE)
        for _ in range(int(_PATIENCE / _SETTLE)):
            if not self.members():
                return
            await asyncio.sleep(_SETTLE)

    def out_of_memory(self) -> bool:
        """Whether the kernel's OOM killer has killed a member for the cgroup's memory limit
        (`oom_kill` in v2's memory.events, v1's memory.oom_control): read as the bot exits, so
        that its exit can say it ran out of memory rather than give a bare signal's status."""
        for name in ("memory.events", "memory.oom_control"):
            path = self._file(name)
            if path is None:
                continue
            with contextlib.suppress(OSError, ValueError):
                for line in path.read_text().splitlines():
                    key, _, count = line.partition(" ")
                    if key == "oom_kill" and int(count) > 0:
                        return True
        return False

    def remove(self) -> None:
        """Remove the cgroup's directories; it must be empty (see `kill`). Idempotent; a
        directory that is still busy is left for the run's parent to retry."""
        self._files.close()
        for directory in self.directories:
            with contextlib.suppress(OSError):  # gone already, or busy: see `RunCgroups.close`
                directory.rmdir()
        self.removed = True

    def _file(self, name: str) -> Path | None:
        for directory in self.directories:
            if (directory / name).exists():
                return directory / name
        return None

    def _cached(self, name: str) -> Path | None:
        if name not in self._found:
            self._found[name] = self._file(name)
        return self._found[name]

    # -- fair CPU ---------------------------------------------------------------------------

    def pin(self, cpus: str) -> bool:
        """Let everything in the cgroup run on `cpus` only (a cpuset list: "1", "0-3"), from
        now on and whatever it starts later; False where the cgroup has no cpuset. Pinning
        it where it is pinned already writes nothing."""
        path = self._cached("cpuset.cpus")
        if path is None:
            return False
        if self.pinned_to != cpus:
            write(path, cpus)
            self.pinned_to = cpus
            ours = os.sched_getaffinity(0)
            self.beside_us = len(ours) == 1 and parse_cpus(cpus) == ours
        return True

    def thaw(self) -> bool:
        """Let the cgroup run again (at once: thawing does not wait); False without a freezer."""
        return self._set_frozen(False) is not None

    async def freeze(self, patience: float = FREEZE_PATIENCE) -> bool:
        """Stop everything in the cgroup, and wait until it is stopped (each member freezes
        when next scheduled: a busy one within a few milliseconds); True once it is, False
        without a freezer or if it is not frozen after `patience` seconds: `begin_freeze`,
        then `settle`."""
        return self.begin_freeze() or await self.settle(patience)

    def begin_freeze(self) -> bool:
        """Write the freeze, and look once whether it is done: True if it is; False without a
        freezer or not yet (`settle` waits for it). Apart from `settle` for a caller with its
        own work to do meanwhile (the pacer's), as a bot's last thread still running after its
        answer (about half the time) freezes only when next scheduled."""
        self._look = self._set_frozen(True)
        return self._frozen_now()

    async def settle(self, patience: float = FREEZE_PATIENCE) -> bool:
        """Wait until the freeze begun last (`begin_freeze`) is done (`freezing.wait_frozen`:
        how, and why so); True once it is, False without a freezer or if it is not after
        `patience` seconds."""
        if self._look is None:
            return False
        events = self._cached("cgroup.events") if self.version == 2 else None
        notice = None if events is None else partial(self._files.changed, events)
        return await wait_frozen(self._frozen_now, patience, self.beside_us, notice)

    def _frozen_now(self) -> bool:
        try:
            return self._look is not None and self._look()
        except OSError:
            return False

    def _set_frozen(self, frozen: bool) -> Callable[[], bool] | None:
        """The one freeze primitive, for fair CPU, for `kill` and for a dead run's clean-up:
        write the freezer's state (v2 `cgroup.freeze`, v1 `freezer.state`), and return a look
        that says whether the whole cgroup is frozen now; None without a freezer."""
        v2, v1 = self._cached("cgroup.freeze"), self._cached("freezer.state")
        files = self._files
        if v2 is not None:
            files.write(v2, "1" if frozen else "0")
            events = v2.with_name("cgroup.events")
            return lambda: "frozen 1" in files.read(events).splitlines()
        if v1 is not None:
            files.write(v1, "FROZEN" if frozen else "THAWED")
            return lambda: files.read(v1).strip() == "FROZEN"
        return None

    def cpu_time(self) -> float | None:
        """Seconds of CPU everything in the cgroup has used since it was made (its members'
        children included); None where that is not accounted."""
        v1 = self._cached("cpuacct.usage")
        try:
            if v1 is not None:
                return int(self._files.read(v1)) / 1e9
            v2 = self._cached("cpu.stat") if self.version == 2 else None
            if v2 is not None:
                for line in self._files.read(v2).splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
        except (OSError, ValueError):
            return None
        return None


@dataclass
class RunCgroups:
    """One run's parent cgroup in each hierarchy, and the bot processes' cgroups in it."""

    version: int
    parents: tuple[Path, ...]
    limited: tuple[str, ...]
    """The controllers that limit the bots: every one on v1 and on most v2 machines."""
    note: str = ""
    """What the bots' cgroups cannot do here, for the organizer (empty when they do it all)."""
    pinned: bool = False
    """Bots' cgroups can be pinned to cores (`BotCgroup.pin`)."""
    freezable: bool = False
    """Bots' cgroups can be frozen and thawed (`BotCgroup.freeze`, `BotCgroup.thaw`)."""
    metered: bool = False
    """Bots' cgroups account their CPU time (`BotCgroup.cpu_time`)."""
    _children: list[BotCgroup] = field(default_factory=list)
    _count: int = 0

    @classmethod
    def create(cls, root: Path = ROOT) -> RunCgroups:
        """A new run parent in the machine's hierarchies; CgroupError saying why there can be
        none (see `arena.server.isolation.isolate`, which records it)."""
        try:
            if (root / "cgroup.controllers").exists():
                return cls._create_v2(root)
            return cls._create_v1(root)
        except OSError as error:
            raise CgroupError(
                f"cannot create cgroups under {root} ({error.strerror or error})"
            ) from error

    @classmethod
    def create_v2(cls, mount: Path) -> RunCgroups:
        """A run parent in the v2 hierarchy mounted at `mount` (for a machine whose unified
        hierarchy sits beside the v1 mounts, as in systemd's hybrid mode); OSError if it is not
        writable."""
        return cls._create_v2(mount)

    @classmethod
    def _create_v2(cls, mount: Path) -> RunCgroups:
        own = mount / relative(own_cgroups().get("", "/"))
        run = cls._create_v2_under(mount, own)
        if run.limited or own == mount:
            return run
        # v2 lets no cgroup that holds processes (the arena's own, and whatever shares it)
        # enable controllers for its children, the root alone excepted: there, then.
        run._remove_empty()
        try:
            return cls._create_v2_under(mount, mount)
        except OSError:
            return cls._create_v2_under(mount, own)

    def _remove_empty(self) -> None:
        """Remove a run parent that has no bot cgroup yet."""
        for parent in self.parents:
            with contextlib.suppress(OSError):
                parent.rmdir()

    @classmethod
    def _create_v2_under(cls, mount: Path, base: Path) -> RunCgroups:
        _remove_stale([base], 2)
        parent = base / _name()
        parent.mkdir()
        try:
            available = set((base / "cgroup.controllers").read_text().split())
            wanted = [c for c in V2_CONTROLLERS if c in available]
            note = ""
            enabled = enable_controllers(base, wanted) and enable_controllers(parent, wanted)
            if not enabled:
                note = (
                    f"the kernel will not enable {', '.join(wanted) or 'the controllers'} for "
                    f"{base}'s children: bots are stopped whole but limited by rlimits alone"
                )
            elif len(wanted) < len(V2_CONTROLLERS):
                missing = ", ".join(c for c in V2_CONTROLLERS if c not in wanted)
                note = f"no {missing} controller in {mount}: bots are not limited by it"
            fair = [c for c in V2_FAIR if c in available]
            pinned = bool(fair) and all(enable_controllers(d, fair) for d in (base, parent))
            run = cls(2, (parent,), tuple(wanted) if enabled else (), note)
            run.pinned = pinned
            run.freezable = (parent / "cgroup.freeze").exists()
            run.metered = (parent / "cpu.stat").exists()
            return run
        except BaseException:
            with contextlib.suppress(OSError):
                parent.rmdir()
            raise

    @classmethod
    def _create_v1(cls, root: Path) -> RunCgroups:
        mounts = _v1_mounts(root)
        own = own_cgroups()
        name = _name()
        parents: list[Path] = []
        used: set[Path] = set()
        bases: list[Path] = []
        for controller in (*V1_CONTROLLERS, *V1_FAIR):
            mount = mounts.get(controller)
            if mount is not None and mount not in used:  # else absent, or co-mounted
                used.add(mount)
                bases.append(mount / relative(own.get(controller, "/")))
        _remove_stale(bases, 1)  # in every hierarchy at once: the freezer's thaw frees them all
        try:
            for base in bases:
                parent = base / name
                parent.mkdir()
                parents.append(parent)
                inherit_cpuset(parent)
        except BaseException:
            for parent in parents:
                with contextlib.suppress(OSError):
                    parent.rmdir()
            raise
        if not parents:
            raise CgroupError(f"no cgroup hierarchy mounted under {root}")
        limited = tuple(c for c in V1_CONTROLLERS if c in mounts)
        missing = [c for c in V1_CONTROLLERS if c not in mounts]
        note = f"no {', '.join(missing)} cgroup controller: bots are not limited by it" * bool(
            missing
        )
        run = cls(1, tuple(parents), limited, note)
        run.pinned = any((p / "cpuset.cpus").exists() for p in parents)
        run.freezable = any((p / "freezer.state").exists() for p in parents)
        run.metered = any((p / "cpuacct.usage").exists() for p in parents)
        for parent in parents:
            if (parent / "freezer.state").exists():
                with contextlib.suppress(OSError):  # a saving, not a need
                    (parent / KEEPER).mkdir()
                    write(parent / KEEPER / "freezer.state", "FROZEN")
        return run

    def child(self, limits: CgroupLimits) -> BotCgroup:
        """A new, empty cgroup for one bot process, with its limits set; OSError if the
        kernel refuses."""
        self._count += 1
        name = f"bot-{self._count}"
        made: list[Path] = []
        try:
            for parent in self.parents:
                (parent / name).mkdir()
                made.append(parent / name)
            for directory in made:
                inherit_cpuset(directory)
                _limit(directory, limits, self.version)
        except BaseException:
            for directory in made:
                with contextlib.suppress(OSError):
                    directory.rmdir()
            raise
        cgroup = BotCgroup(tuple(made), self.version)
        self._children.append(cgroup)
        return cgroup

    async def close(self) -> None:
        """Kill whatever is left in the bots' cgroups, and remove them and the parent."""
        for cgroup in self._children:
            if not cgroup.removed:
                await cgroup.kill()
                cgroup.remove()
        self._children.clear()
        for _ in range(int(_PATIENCE / _SETTLE)):  # a cgroup stays busy until its last exit
            if _sweep(self.parents, self.version):
                return
            await asyncio.sleep(_SETTLE)
        # Still busy after all that (a process stuck in the kernel): the next run removes it.

    def cores(self) -> tuple[int, ...]:
        """The cores the bots may be pinned to: those of the run's cpuset that this process may
        run on too (a container's, a `taskset`'s)."""
        allowed = set(os.sched_getaffinity(0))
        for parent in self.parents:
            for name in ("cpuset.effective_cpus", "cpuset.cpus.effective"):
                with contextlib.suppress(OSError, ValueError):
                    allowed &= parse_cpus(read(parent / name))
                    break
        return tuple(sorted(allowed))

    def forget(self, cgroup: BotCgroup) -> None:
        """A bot process's cgroup was removed: the parent no longer needs to clean it up."""
        with contextlib.suppress(ValueError):
            self._children.remove(cgroup)


def _limit(directory: Path, limits: CgroupLimits, version: int) -> None:
    """Write `limits` into the files of one controller's directory (those it has)."""
    memory = "max" if limits.memory_bytes is None else str(limits.memory_bytes)
    pids = "max" if limits.pids is None else str(limits.pids)
    if version == 2:
        settings = [("memory.max", memory), ("memory.swap.max", "0"), ("pids.max", pids)]
        settings.append(("cpu.weight", str(EQUAL_WEIGHT)))
    else:
        v1_memory = "-1" if limits.memory_bytes is None else memory
        settings = [
            ("memory.limit_in_bytes", v1_memory),
            ("memory.memsw.limit_in_bytes", v1_memory),  # with swap accounting: no swap either
            ("pids.max", pids),
            ("cpu.shares", str(EQUAL_WEIGHT * 10)),
        ]
    for name, value in settings:
        if (directory / name).exists():
            write(directory / name, value)


def _name() -> str:
    return f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def _v1_mounts(root: Path) -> dict[str, Path]:
    """Where each v1 controller is mounted under `root`, from /proc/self/mountinfo."""
    found: dict[str, Path] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            before, _, after = line.partition(" - ")
            fstype, _, options = [*after.split(" "), "", "", ""][:3]
            point = Path(before.split(" ")[4])
            if fstype != "cgroup" or not point.is_relative_to(root):
                continue
            for option in options.split(","):
                if option in V1_CONTROLLERS or option in V1_FAIR:
                    found.setdefault(option, point)
    return found


def _remove_stale(bases: Iterable[Path], version: int) -> None:
    """Kill the bots of arenas that no longer run, and remove their run parents: an arena that
    was itself killed (SIGKILL, a dead cluster worker) could not clean up, and its bots may sit
    frozen, waiting for a thaw that would never come. A parent whose arena still runs is left
    alone. `bases` are where run parents lie, one per hierarchy (v1: each controller's)."""
    stale = [
        parent
        for base in bases
        for parent in subdirectories(base)
        if parent.name.startswith(PREFIX) and not _runs(parent.name)
    ]
    for _ in range(int(_PATIENCE / _SETTLE) if stale else 0):
        if _sweep(stale, version):
            return
        time.sleep(_SETTLE)


def _runs(name: str) -> bool:
    """Whether the arena that made the run parent `name` (`arena-<pid>-<random>`) still runs."""
    pid = name[len(PREFIX) :].split("-", 1)[0]
    if not pid.isdigit():
        return True  # not a name of ours: leave it alone
    found = process(int(pid))
    return found is not None and found.alive  # a zombie runs no more, reaped or not


def _sweep(parents: Sequence[Path], version: int) -> bool:
    """One pass over run parents: SIGKILL everything in their bots' cgroups and thaw them (a
    frozen process takes no signal, not even SIGKILL, until thawed), then remove every empty
    cgroup, the parents last; True once none is left. A v1 bot's cgroup is one directory per
    hierarchy, and only the freezer's thaws it: the others empty once that is done, by the
    next pass."""
    for parent in parents:
        for child in subdirectories(parent):
            cgroup = BotCgroup((child,), version)
            cgroup.signal(signal.SIGKILL)
            with contextlib.suppress(OSError):
                cgroup.thaw()
            cgroup.remove()  # busy until its last member has exited: the next pass, then
        with contextlib.suppress(OSError):
            parent.rmdir()
    return not any(parent.exists() for parent in parents)
