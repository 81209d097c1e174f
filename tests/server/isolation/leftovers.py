"""What a dead arena (or a dead cluster worker, which is one) can leave on the machine: its run
cgroups (`arena-<pid>-<random>`, in every hierarchy mounted, v1 or v2) and the bot processes in
them, frozen ones included. Used by the tests that SIGKILL an arena and start another run."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena.server.isolation.cgroups import PREFIX

_DEPTH = 6
"""How deep under a mount run parents are looked for (under the arena's own cgroup)."""


@dataclass(frozen=True)
class Leftovers:
    """A dead arena's run parents and the processes still in their bots' cgroups."""

    parents: tuple[Path, ...]
    pids: frozenset[int]
    frozen: tuple[Path, ...]
    """Bot cgroups whose freezer says they are frozen (v1 `FROZEN`, v2 `frozen 1`)."""

    def states(self) -> dict[int, str]:
        """Each live pid's state letter (a frozen process shows D on v1)."""
        return {pid: state for pid in self.pids if (state := process_state(pid)) not in ("", "Z")}


def mounts() -> list[Path]:
    """Every cgroup hierarchy mounted (v1 controllers and a v2 unified one alike)."""
    found: list[Path] = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        if after.split(" ")[0] in ("cgroup", "cgroup2"):
            found.append(Path(before.split(" ")[4]))
    return found


def run_parents(pid: int) -> list[Path]:
    """The run parents the arena of `pid` made, in every hierarchy."""
    found: list[Path] = []
    for mount in mounts():
        _walk(mount, f"{PREFIX}{pid}-", 0, found)
    return found


def _walk(folder: Path, prefix: str, depth: int, found: list[Path]) -> None:
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.is_dir(follow_symlinks=False):
                continue
            if entry.name.startswith(prefix):
                found.append(Path(entry.path))
            elif depth < _DEPTH and not entry.name.startswith(PREFIX):
                _walk(Path(entry.path), prefix, depth + 1, found)


def leftovers(pid: int) -> Leftovers:
    """What the arena of `pid` left: its run parents, their members, the frozen bot cgroups."""
    parents = run_parents(pid)
    pids: set[int] = set()
    frozen: list[Path] = []
    for parent in parents:
        for child in _children(parent):
            with contextlib.suppress(OSError, ValueError):
                pids.update(int(p) for p in (child / "cgroup.procs").read_text().split())
            if _is_frozen(child):
                frozen.append(child)
    return Leftovers(tuple(parents), frozenset(pids), tuple(frozen))


def _children(parent: Path) -> list[Path]:
    with contextlib.suppress(OSError):
        return [Path(e.path) for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
    return []


def _is_frozen(cgroup: Path) -> bool:
    with contextlib.suppress(OSError):
        if (cgroup / "freezer.state").exists():
            return (cgroup / "freezer.state").read_text().strip() == "FROZEN"
        if (cgroup / "cgroup.events").exists():
            return "frozen 1" in (cgroup / "cgroup.events").read_text().splitlines()
    return False


def process_state(pid: int) -> str:
    """The state letter of `pid` in /proc (R, S, D, Z, ...); empty when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[0]


def clear(pid: int) -> None:
    """Whatever happened in a test, leave nothing of the arena of `pid`: kill and thaw every
    member of its bots' cgroups, then remove them (the clean-up under test, done by hand)."""
    for _ in range(500):
        found = leftovers(pid)
        if not found.parents:
            return
        for member in found.pids:
            with contextlib.suppress(OSError):
                os.kill(member, signal.SIGKILL)
        for parent in found.parents:
            for child in _children(parent):
                for name, thawed in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                    with contextlib.suppress(OSError):
                        (child / name).write_text(thawed)
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                parent.rmdir()
        time.sleep(0.01)
