"""The process table as Linux shows it in /proc: who runs, whose child it is, in which group.

One reader for every place that must find processes by their relations (a bot's escaped
children, the tests' leftover checks, the benchmark's CPU accounting), since /proc's `stat`
line has a trap: the command name may hold spaces and parentheses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """One process, from /proc/PID/stat."""

    pid: int
    state: str
    """R running, S sleeping, Z zombie, X dead, ..."""
    ppid: int
    pgrp: int
    cpu_ticks: int
    """User plus system CPU time, in clock ticks."""

    @property
    def alive(self) -> bool:
        """Still running: a zombie has already died and only awaits its parent."""
        return self.state not in ("Z", "X")


def process(pid: int) -> ProcessInfo | None:
    """The process `pid`, or None when it is gone (or there is no /proc)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, however odd
    return ProcessInfo(
        pid, fields[0], int(fields[1]), int(fields[2]), int(fields[11]) + int(fields[12])
    )


def processes() -> Iterator[ProcessInfo]:
    """Every process now, skipping those that exit while we look."""
    if not PROC.is_dir():
        return
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (info := process(int(entry.name))) is not None:
            yield info


def namespace_depth(pid: int) -> int:
    """How many pid namespaces deep `pid` lives, counted from the one /proc shows (1 there, 2
    for the first process of a sandbox's own namespace); 0 when it is gone or unreadable. A
    zombie still has it: the kernel keeps a dead process's ids until it is reaped."""
    try:
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            return len(line.split()) - 1
    return 1  # a kernel too old to say has no nested namespaces to tell apart


def environment(pid: int) -> list[bytes]:
    """The environment `pid` was started with, as `NAME=value` entries; empty if unreadable."""
    try:
        return (PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return []
