"""The one way into isolation: a session, a build and a cluster worker all ask `isolate` what
this machine gives its bot processes, and get one typed answer (`Isolation`).

It finds the sandbox (`sandbox.find_sandbox`), makes the run's cgroups (`RunCgroups.create`,
which first kills and removes what dead arenas left), and chooses how the bots share the CPU
(`fairness.choose_plan`). What is missing is never an error, only an `Off` with its reason,
unless the organizer asked for it outright: `--sandbox on` without a sandbox raises
SandboxError, `--cpu fair` without pinning and freezing raises FairnessError (both one line).
On leaving, whatever is left in the bots' cgroups is killed and the cgroups removed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from arena.server.isolation.cgroups import CgroupError, RunCgroups
from arena.server.isolation.fairness import CpuMode, CpuPlan, choose_plan
from arena.server.isolation.sandbox import (
    NoSandbox,
    Sandbox,
    SandboxError,
    SandboxMode,
    find_sandbox,
)

SANDBOX = "sandbox"
"""`Off.part` of a machine (or a choice) without sealing."""
CGROUPS = "cgroups"
"""`Off.part` of a machine without writable cgroups."""
LIMITS = "cgroup limits"
"""`Off.part` of cgroups that stop bots whole but lack some of their limits."""
NOTHING_TO_RUN = "nothing to isolate: no build step to run"
"""Why everything is off for a set of submissions that has no build step."""


@dataclass(frozen=True, slots=True)
class Off:
    """One part of isolation that is off here, and why."""

    part: str
    """`SANDBOX`, `CGROUPS` or `LIMITS`."""
    why: str
    """The reason, for the organizer."""

    def describe(self) -> str:
        """The organizer's line for it (`Sealing.notes`)."""
        if self.part == SANDBOX:
            return f"no sandbox ({self.why})"
        if self.part == CGROUPS:
            return f"no cgroups ({self.why}): rlimits and process groups only"
        return self.why


@dataclass(frozen=True, slots=True)
class Sealing:
    """How a session's bots run: sealed or not, in cgroups or not, and why not."""

    sealed: bool
    """Every bot process and build step runs in a sandbox (`sandbox.py`)."""
    cgroups: bool
    """Every bot process runs in a cgroup of its own (`cgroups.py`)."""
    notes: tuple[str, ...] = ()
    """What is missing, and why, for the organizer."""

    def describe(self) -> str:
        """One line for the organizer: how the bots run."""
        if self.sealed and self.cgroups and not self.notes:
            return "bots run sealed: each in its own sandbox, user and cgroup"
        state = "sealed" if self.sealed else "UNSEALED (any bot can reach the others and the arena)"
        return f"bots run {state}: " + "; ".join(self.notes)

    def to_dict(self) -> dict[str, object]:
        """For standings.json."""
        return {"sealed": self.sealed, "cgroups": self.cgroups, "notes": list(self.notes)}


@dataclass(frozen=True, slots=True)
class Isolation:
    """What this machine gives the bot processes of one session or one set of builds."""

    sandbox: Sandbox | None
    """The sandbox every process runs sealed in; None: unsealed (see `off`)."""
    cgroups: RunCgroups | None
    """The run's cgroups, one per bot process made in them; None: none (see `off`)."""
    cpu: CpuPlan
    """How the bots share the CPU: fair or shared, and why not fair (`CpuPlan.note`)."""
    off: tuple[Off, ...] = ()
    """What is off, and why: the sandbox, the cgroups, some cgroup limits."""

    @property
    def on(self) -> tuple[str, ...]:
        """What is on: "sandbox", "cgroups", "fair CPU"."""
        parts = [(SANDBOX, self.sandbox), (CGROUPS, self.cgroups), ("fair CPU", self.cpu.fair)]
        return tuple(name for name, present in parts if present)

    @property
    def sealing(self) -> Sealing:
        """How the bots run, as the organizer is told and standings.json records it."""
        notes = tuple(off.describe() for off in self.off)
        return Sealing(self.sandbox is not None, self.cgroups is not None, notes)


@asynccontextmanager
async def isolate(
    sandbox: SandboxMode, cpu: CpuMode = CpuMode.SHARED, *, needed: bool = True
) -> AsyncIterator[Isolation]:
    """What this machine gives bot processes, as `sandbox` and `cpu` ask; on leaving, kill
    whatever is left in the bots' cgroups and remove them.

    `needed` False (a set of submissions without a build step) probes and makes nothing.
    Raises SandboxError for `--sandbox on` on a machine that cannot seal, FairnessError for
    `--cpu fair` on one that cannot pin and freeze the bots' cgroups.
    """
    if not needed:
        nothing = (Off(SANDBOX, NOTHING_TO_RUN), Off(CGROUPS, NOTHING_TO_RUN))
        yield Isolation(None, None, CpuPlan(cpu, False), nothing)
        return
    isolation = await _choose(sandbox, cpu)
    try:
        yield isolation
    finally:
        if isolation.cgroups is not None:
            await isolation.cgroups.close()


async def _choose(mode: SandboxMode, cpu: CpuMode) -> Isolation:
    """The sandbox, the cgroups and the CPU plan; see `isolate`."""
    off: list[Off] = []
    found: Sandbox | None = None
    if mode is SandboxMode.OFF:
        off.append(Off(SANDBOX, "--sandbox off"))
    else:
        try:
            found = await find_sandbox()
        except NoSandbox as why:
            if mode is SandboxMode.ON:
                raise SandboxError(f"--sandbox on, but {why}") from None
            off.append(Off(SANDBOX, str(why)))
    cgroups: RunCgroups | None = None
    why_none = ""
    try:
        cgroups = RunCgroups.create()
    except CgroupError as error:
        why_none = str(error)
        off.append(Off(CGROUPS, why_none))
    if cgroups is not None and cgroups.note:
        off.append(Off(LIMITS, cgroups.note))
    try:
        plan = choose_plan(cpu, cgroups, sealed=found is not None, why_none=why_none)
    except BaseException:
        if cgroups is not None:
            with contextlib.suppress(OSError):
                await cgroups.close()
        raise
    return Isolation(found, cgroups, plan, tuple(off))
