"""CPU time of processes, for the benchmark's notes on where the time goes (Linux /proc)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.server.isolation.procfs import process, processes

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu(pid: int) -> float:
    """Seconds of CPU (user and system) process `pid` used so far; 0 if it cannot be read."""
    info = process(pid)
    return info.cpu_ticks / _TICK if info is not None else 0.0


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (none where there is no /proc)."""
    return [p.pid for p in processes() if p.ppid == pid]


def children_cpu(pid: int) -> dict[int, float]:
    """CPU seconds so far of each descendant of `pid` (a sealed bot runs below its sandbox,
    and the launch step's process becomes the sandbox), by process id."""
    below: dict[int, list[int]] = {}
    for info in processes():
        below.setdefault(info.ppid, []).append(info.pid)
    found: dict[int, float] = {}
    todo = list(below.get(pid, []))
    while todo:
        child = todo.pop()
        if child not in found:
            found[child] = process_cpu(child)
            todo.extend(below.get(child, []))
    return found


def machine_busy() -> float:
    """CPU seconds every core of the machine spent busy since boot (all processes)."""
    try:
        line = Path("/proc/stat").read_text().splitlines()[0]
    except OSError:
        return 0.0
    ticks = [int(value) for value in line.split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks[:8]) - idle) / _TICK
