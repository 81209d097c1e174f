"""A cgroup's files, as the kernel expects them used: each read and each write in one call.

Fair CPU touches a bot's cgroup around every decision (a thaw, a freeze and the looks that it
is done, the CPU time of every seat), so those files stay open (`Files`): each touch is then
one `pread` or `pwrite`, not an `open` with its walk through sysfs's paths, the call, and a
`close`; the walk alone was a third of the arena's kernel time per decision (bench/NOTES.md,
2026-12-02). Files written once (limits, cores) go through `read` and `write`, which open and
close. An open descriptor does not keep a removed cgroup alive: its calls fail (ENODEV) once the
directory is gone. And the two writes a new cgroup needs before it takes a process: its
children's controllers (v2) and its cores and memory nodes (v1's cpuset).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
from collections.abc import Iterator
from pathlib import Path


def read(path: Path) -> str:
    """A cgroup file's text, in one read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(descriptor, 4096).decode()
    finally:
        os.close(descriptor)


def write(path: Path, value: str) -> None:
    """Write a cgroup file in one write() call, as the kernel expects."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(descriptor, value.encode())
    finally:
        os.close(descriptor)


class Files:
    """One cgroup's files that are read or written again and again, each opened once and kept
    open until `close` (the cgroup's removal). A call that fails closes its descriptor, so that
    the next one opens the file anew."""

    def __init__(self) -> None:
        self._open: dict[tuple[Path, int], int] = {}

    def read(self, path: Path) -> str:
        """The file's whole text, read from its start in one call."""
        descriptor = self._descriptor(path, os.O_RDONLY)
        try:
            return os.pread(descriptor, 4096, 0).decode()
        except OSError:
            self._drop(path, os.O_RDONLY)
            raise

    def write(self, path: Path, value: str) -> None:
        """Write `value` in one call, as the kernel expects."""
        descriptor = self._descriptor(path, os.O_WRONLY)
        try:
            os.pwrite(descriptor, value.encode(), 0)
        except OSError:
            self._drop(path, os.O_WRONLY)
            raise

    async def changed(self, path: Path, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the kernel to say the file has changed since it was
        last read (a v2 cgroup's `cgroup.events`: kernfs raises POLLPRI on it), without
        polling; True once it says so or the time is up, False at once where the file cannot
        be waited on (a plain file, in tests): the caller then looks again in its own time."""
        try:
            descriptor = self._descriptor(path, os.O_RDONLY)
            poller = select.epoll()
        except OSError:
            return False
        loop = asyncio.get_running_loop()
        try:
            poller.register(descriptor, select.EPOLLPRI | select.EPOLLERR)
            told: asyncio.Future[None] = loop.create_future()

            def tell() -> None:
                if not told.done():
                    told.set_result(None)

            loop.add_reader(poller.fileno(), tell)
            try:
                await asyncio.wait((told,), timeout=timeout)
            finally:
                loop.remove_reader(poller.fileno())
        except OSError:
            return False
        finally:
            poller.close()
        return True

    def close(self) -> None:
        """Close every descriptor (idempotent; the object may be used again after)."""
        for descriptor in self._open.values():
            with contextlib.suppress(OSError):
                os.close(descriptor)
        self._open.clear()

    def _descriptor(self, path: Path, mode: int) -> int:
        descriptor = self._open.get((path, mode))
        if descriptor is None:
            descriptor = os.open(path, mode | os.O_CLOEXEC)
            self._open[(path, mode)] = descriptor
        return descriptor

    def _drop(self, path: Path, mode: int) -> None:
        descriptor = self._open.pop((path, mode), None)
        if descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(descriptor)


def parse_cpus(text: str) -> set[int]:
    """The cores of a cpuset list such as "0-3,8,10-11"."""
    cores: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        cores.update(range(int(first), int(last or first) + 1))
    return cores


def relative(path: str) -> str:
    """A cgroup's path as /proc gives it, relative to its hierarchy's mount."""
    return path.lstrip("/")


def own_cgroups() -> dict[str, str]:
    """The arena's own cgroup in each hierarchy, by controller ("" for v2's unified one)."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def subdirectories(path: Path) -> Iterator[Path]:
    """The folders in `path` (none if it cannot be read)."""
    with contextlib.suppress(OSError):
        yield from (entry for entry in path.iterdir() if entry.is_dir())


def enable_controllers(directory: Path, controllers: list[str]) -> bool:
    """Enable `controllers` for the children of a v2 cgroup; False if the kernel refuses."""
    control = directory / "cgroup.subtree_control"
    enabled = set(control.read_text().split())
    missing = [c for c in controllers if c not in enabled]
    if not missing:
        return True
    try:
        write(control, " ".join(f"+{c}" for c in missing))
    except OSError:
        return False
    return True


def inherit_cpuset(directory: Path) -> None:
    """A new v1 cpuset cgroup has no cores and no memory nodes, and takes no process until it
    has both: give it its parent's. (Nothing to do elsewhere: v2 inherits them.)"""
    if not (directory / "cpuset.mems").exists() or (directory / "cpuset.cpus.effective").exists():
        return
    for name in ("cpuset.cpus", "cpuset.mems"):
        if not read(directory / name).strip():
            write(directory / name, read(directory.parent / name).strip())
