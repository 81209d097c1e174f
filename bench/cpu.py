"""CPU time of processes, for the benchmark's notes on where the time goes (Linux /proc)."""

from __future__ import annotations

import os
import time
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


def descendants(pid: int) -> list[int]:
    """Every descendant of `pid` (a sealed bot runs below its sandbox, and the launch step's
    process becomes the sandbox), parents before their children."""
    below: dict[int, list[int]] = {}
    for info in processes():
        below.setdefault(info.ppid, []).append(info.pid)
    found: list[int] = []
    todo = list(below.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(below.get(child, []))
    return found


def children_cpu(pid: int) -> dict[int, float]:
    """CPU seconds so far of each descendant of `pid`, by process id."""
    return {child: process_cpu(child) for child in descendants(pid)}


HOST = "arena.tournament.hosts.host"
"""The module a core host runs (`arena.tournament.hosts`): the arena's own process for a core,
in fair mode, whose CPU is the arena's, not its bots'."""


def is_host(pid: int) -> bool:
    """Whether process `pid` is one of the arena's core hosts."""
    try:
        return HOST in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def arena_and_bots() -> tuple[float, dict[int, float]]:
    """The CPU seconds so far of the arena, this process (`time.process_time`) and its core
    hosts, and of each other descendant of this process (its bots, their sandboxes), by process
    id."""
    arena = time.process_time()
    bots: dict[int, float] = {}
    for child, used in children_cpu(os.getpid()).items():
        if is_host(child):
            arena += used
        else:
            bots[child] = used
    return arena, bots


def hosts_peak_memory(pid: int) -> dict[int, int]:
    """The peak resident memory (bytes) of each core host of the arena `pid`, by process id."""
    found: dict[int, int] = {}
    for child in children(pid):
        if not is_host(child):
            continue
        try:
            status = Path(f"/proc/{child}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                found[child] = int(line.split()[1]) * 1024
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
