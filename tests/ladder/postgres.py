"""A real PostgreSQL server for the ladder's tests: Debian's `postgresql` (`make postgresql`
installs it), in a temporary folder, on a unix socket only (no port to race for), as the
`postgres` system user when the tests run as root (PostgreSQL refuses to run as root).

It is started as the `postgres` program itself, so its pid is the postmaster's: stopping it is a
fast shutdown (SIGINT) to that pid, then SIGQUIT (immediate) should it not end; and should the
test process die first, the kernel sends the postmaster SIGQUIT (PR_SET_PDEATHSIG), so no server
outlives the tests whatever ends them; the folder such a death leaves is removed by the next
server's start (`_sweep`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

DEBIAN = Path("/usr/lib/postgresql")
"""Where Debian's packages put each major version's programs (`15/bin/postgres`)."""
PREFIX = "arena-postgres-"
"""A server's temporary folder: PREFIX, the test process's pid, '-', a random part."""
READY_WITHIN = 120.0
"""Seconds a server has to accept connections: generous, for a loaded machine."""
_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)
"""Loaded here, not in the child between fork and exec, where loading could deadlock on a lock
another thread held at the fork."""


def binaries() -> Path | None:
    """The newest installed PostgreSQL's program folder, None where there is none."""
    found = sorted(
        (path.parent for path in DEBIAN.glob("*/bin/postgres")),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1]
    on_path = shutil.which("postgres")
    return Path(on_path).resolve().parent if on_path else None


def absent() -> str | None:
    """Why PostgreSQL cannot be started here, None when it can."""
    if binaries() is None:
        return "PostgreSQL is not installed: `make postgresql` installs Debian's"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "no `postgres` system user to run PostgreSQL as (we are root)"
    return None


@dataclass(frozen=True)
class Server:
    """A running server: its socket folder and its superuser."""

    socket: Path
    user: str

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of one of its databases."""
        return f"postgresql+psycopg://{self.user}@/{database}?host={self.socket}"

    def execute(self, statement: str) -> None:
        """Run one statement outside a transaction (CREATE and DROP DATABASE need that)."""
        with psycopg.connect(host=str(self.socket), user=self.user, dbname="postgres") as db:
            db.autocommit = True
            db.execute(statement.encode())


@dataclass(frozen=True)
class _Who:
    """Whom the server's programs run as: `postgres` when we are root, else ourselves (None)."""

    uid: int | None
    gid: int | None
    extra_groups: list[int] | None

    @classmethod
    def here(cls) -> _Who:
        if os.geteuid() != 0:
            return cls(None, None, None)
        user = pwd.getpwnam("postgres")
        return cls(user.pw_uid, user.pw_gid, [])


def _die_with_parent() -> None:
    """In the child, after its user is set (which would clear it): SIGQUIT when we die."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGQUIT, 0, 0, 0)


@contextlib.contextmanager
def postgres_server() -> Iterator[Server]:
    """A fresh server for the block, stopped and its folder removed whatever happens."""
    programs = binaries()
    assert programs is not None
    _sweep()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    process: subprocess.Popen[bytes] | None = None
    try:
        data, socket = folder / "data", folder / "socket"
        socket.mkdir()
        who = _Who.here()
        if who.uid is not None and who.gid is not None:
            for path in (folder, socket):
                os.chown(path, who.uid, who.gid)
        user = pwd.getpwuid(who.uid if who.uid is not None else os.geteuid()).pw_name
        initdb: list[str | Path] = [programs / "initdb", "-D", data, "-U", user, "--auth=trust"]
        subprocess.run(
            [*initdb, "--no-sync", "-E", "UTF8"],
            check=True,
            capture_output=True,
            timeout=READY_WITHIN,
            user=who.uid,
            group=who.gid,
            extra_groups=who.extra_groups,
        )
        settings = {
            "listen_addresses": "",  # the unix socket alone
            "unix_socket_directories": str(socket),
            "fsync": "off",  # a test's database need not survive a power cut
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        options = [item for key, value in settings.items() for item in ("-c", f"{key}={value}")]
        process = subprocess.Popen(
            [programs / "postgres", "-D", data, *options],
            stdout=subprocess.DEVNULL,
            stderr=open(folder / "server.log", "wb"),  # noqa: SIM115  # the child holds it
            preexec_fn=_die_with_parent,
            user=who.uid,
            group=who.gid,
            extra_groups=who.extra_groups,
        )
        server = Server(socket, user)
        _wait_ready(server, process, folder / "server.log")
        yield server
    finally:
        if process is not None:
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def _sweep() -> None:
    """Remove the folders of servers whose test process died without removing them (killed:
    its server died with it, by PR_SET_PDEATHSIG), named by that process's pid."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        owner = folder.name.removeprefix(PREFIX).partition("-")[0]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass  # alive, another user's


def _wait_ready(server: Server, process: subprocess.Popen[bytes], log: Path) -> None:
    """Return once the server accepts a connection; fail with its log if it ends first."""
    give_up = time.monotonic() + READY_WITHIN
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"PostgreSQL ended at its start: {log.read_text()[-2000:]}")
        try:
            server.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            if time.monotonic() > give_up:
                raise
            time.sleep(0.1)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """A fast shutdown of the postmaster, by its pid; an immediate one if it lingers."""
    for how in (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(how)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=60)
