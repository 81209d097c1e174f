"""Sealed bots: every bot process and every build step in a sandbox of its own (bubblewrap).

A sealed bot runs in its own PID, network, mount, IPC and UTS namespaces, as a uid of its own
(`FIRST_UID` onwards, one per bot; see `allocate_uids`), with no capabilities and
`no_new_privs`. It sees:

- read-only: the system's programs and libraries (`/usr`, and the few files of `/etc` that
  loading them needs), the arena's interpreter, its virtual environment and the `arena` package
  (the SDK and the line-protocol bridge), and its own program: the folders of the files its
  command names (an organizer's `--bot`), or exactly its submission's built copy;
- read-write: a private `HOME` and `/tmp`, both size-capped memory file systems that vanish with
  the process (so nothing it writes reaches the disk, or the next process of the bot);
- the arena's socket, alone in `/run`: its only way out. No network at all.

It does not see the output folder (results, logs, other bots' folders), other submissions, the
arena's or any other bot's processes (`/proc` shows its own namespace), or any secret of the
arena: its environment holds only its address and token. As root, bubblewrap runs without a user
namespace and `setpriv` then drops to the bot's uid, so that the bot is a real unprivileged user
on the machine; otherwise bubblewrap maps the organizer's uid to the bot's in a user namespace.

Where bubblewrap is missing or cannot build a sandbox (`probe` fails), `find_sandbox` says why
(`NoSandbox`), and `isolate` decides: `--sandbox auto` runs the bots unsealed and says so, `on`
refuses.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena.errors import MachineError
from arena.server.isolation.orphans import reap_adopted

FIRST_UID = 61000
"""The first uid given to a sealed bot; bot N (in entry order) gets the N-th free one from
here. A uid that names an account on this machine is skipped."""
SOCKET = Path("/run/arena.sock")
"""Where a sealed bot finds the arena's socket (its ARENA_ADDRESS is `unix:` and this)."""
HOME = Path("/home/bot")
"""A sealed bot's private, writable home and working folder (unless it has a folder of its own)."""
SCRATCH_BYTES = 64 << 20
"""The size of each of a sealed bot's writable memory file systems (HOME, /tmp, /dev/shm);
what it writes there also counts against its memory limit."""
PROBE_TIMEOUT = 30.0
"""Seconds the probe sandbox may take to start an interpreter on a loaded machine."""
_SCRATCH = (HOME, Path("/tmp"), Path("/dev/shm"))
"""A sealed process's private, writable memory file systems."""
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
"""What of /etc a sealed program needs to load its libraries (and a compiler to find itself)."""
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
"""Top-level system folders: symlinks into /usr on merged-/usr systems, folders on others."""
_ARENA_PACKAGE = Path(__file__).resolve().parents[2]
"""The `arena` package itself (the SDK and the bridge a sealed bot imports)."""
_PROTO = _ARENA_PACKAGE.parent / "proto"
"""The protocol's definition, beside the package in a source checkout: public, and what a bot
in another language (the Node.js sample) loads to speak it."""


class SandboxMode(StrEnum):
    """`--sandbox`: whether bots are sealed."""

    AUTO = "auto"
    """Seal them where the machine can; otherwise say in one line that they run unsealed."""
    ON = "on"
    """Seal them, or refuse to start."""
    OFF = "off"
    """Run them unsealed, as the organizer's own user: for bots the organizer trusts."""


class SandboxError(MachineError):
    """`--sandbox on` on a machine where bots cannot be sealed, with why and what to do."""


@dataclass(frozen=True, slots=True)
class Seal:
    """What one sealed process may see and do, besides the system and the arena's interpreter."""

    uid: int
    """The uid it runs as (its gid is the same number)."""
    readable: tuple[Path, ...] = ()
    """Host folders (or files) it sees read-only, at the same paths."""
    writable: tuple[Path, ...] = ()
    """Host folders it may write, at the same paths: a build's copy of its submission."""
    socket: Path | None = None
    """The host path of its arena socket, seen at `SOCKET`; None for a build, which has none."""
    cwd: Path | None = None
    """Its working folder (at the same path inside); None for its private `HOME`."""
    scratch_bytes: int = SCRATCH_BYTES
    """The size of its private HOME, /tmp and /dev/shm, each."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """A working bubblewrap on this machine, and what every sealed process sees of the system."""

    bwrap: str
    """The bwrap program."""
    setpriv: str | None
    """setpriv, which drops to the bot's uid when the arena runs as root; None: a user
    namespace maps the organizer's uid to the bot's instead (bubblewrap's own unprivileged
    mode)."""
    system: tuple[Path, ...]
    """Read-only for every sealed process: /usr, the interpreter, the venv, the arena package."""
    links: tuple[tuple[str, Path], ...]
    """Top-level symlinks into /usr (`/lib -> usr/lib` on merged-/usr systems)."""

    @property
    def privileged(self) -> bool:
        """Whether bubblewrap runs as root (no user namespace; a real uid of the bot's own)."""
        return self.setpriv is not None

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """A bot's environment as it is inside: its own HOME and /tmp."""
        return {**env, "HOME": str(HOME), "TMPDIR": "/tmp"}

    def wrap(self, argv: Sequence[str], seal: Seal) -> list[str]:
        """`argv` run inside a new sandbox as `seal` says (bwrap, then setpriv when root).

        The environment is the one the wrapped command is started with: bwrap passes it on
        unchanged, so no secret ever appears on a command line (which /proc shows to anyone).
        """
        args = [
            self.bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "sandbox",
        ]
        if not self.privileged:
            args += ["--unshare-user", "--uid", str(seal.uid), "--gid", str(seal.uid)]
            args += ["--disable-userns", "--cap-drop", "ALL"]
        # First what every sandbox has (its /proc, /dev and private scratch folders), then what
        # it sees of the machine: a file bound under /tmp must not be hidden by the new /tmp.
        args += ["--proc", "/proc", "--dev", "/dev"]
        for folder in HOME.parents:
            if folder != Path("/"):
                args += ["--perms", "0755", "--dir", str(folder)]
        for scratch in _SCRATCH:
            args += ["--size", str(seal.scratch_bytes), "--perms", "1777", "--tmpfs", str(scratch)]
        for name, target in self.links:
            args += ["--symlink", str(target), f"/{name}"]
        readable = _outermost([*self.system, *seal.readable])
        writable = _outermost(seal.writable)
        mounted = [*readable, *writable]
        if seal.socket is not None:
            mounted.append(SOCKET)
        made = [*readable, *writable, *_SCRATCH, *HOME.parents[:-1]]  # all but /
        for folder in _ancestors(mounted, covered=made):
            args += ["--perms", "0755", "--dir", str(folder)]
        binds = [("--ro-bind", p) for p in readable] + [("--bind", p) for p in writable]
        for option, path in sorted(binds, key=lambda bind: len(bind[1].parts)):
            args += [option, str(path), str(path)]
        if seal.socket is not None:
            args += ["--ro-bind", str(seal.socket), str(SOCKET)]  # a socket connects even so
        args += ["--chdir", str(seal.cwd or HOME), "--"]
        if self.setpriv is not None:
            args += [
                self.setpriv,
                f"--reuid={seal.uid}",
                f"--regid={seal.uid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
            ]
        return [*args, *argv]


def exposures(argv: Sequence[str], hidden: Iterable[Path]) -> tuple[Path, ...]:
    """What of an organizer's bot command a sealed bot sees: the folder of every existing file
    its command names by an absolute path (its program, its script, its data), and every folder
    it names, as given and with symlinks resolved.

    Never a folder that holds one of `hidden` (the output folder, the arena's sockets): the file
    alone, then. Never `/`.
    """
    hidden = [Path(os.path.abspath(path)) for path in hidden]
    found: list[Path] = []
    for argument in argv:
        if not os.path.isabs(argument) or not os.path.exists(argument):
            continue
        for path in {Path(argument), Path(os.path.realpath(argument))}:
            folder = path if path.is_dir() else path.parent
            if folder == Path("/") or any(h.is_relative_to(folder) for h in hidden):
                if path.is_file():
                    found.append(path)
                continue
            found.append(folder)
    return tuple(dict.fromkeys(found))


def allocate_uids(count: int, first: int = FIRST_UID) -> list[int]:
    """`count` uids for sealed bots from `first` on, skipping any that names an account here."""
    uids: list[int] = []
    uid = first
    while len(uids) < count:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            uids.append(uid)
        uid += 1
    return uids


def system_view() -> tuple[tuple[Path, ...], tuple[tuple[str, Path], ...]]:
    """What every sealed process sees of the system: read-only folders, and top-level symlinks.

    The interpreter (`sys.base_prefix`), the virtual environment (`sys.prefix`) and the `arena`
    package are computed, never assumed: wherever they live (under a home folder of mode 0700,
    say), the sandbox shows them at the same paths, with the folders above them readable.
    """
    readable = [Path("/usr")]
    links: list[tuple[str, Path]] = []
    for name in _TOP_LEVEL:
        top = Path("/") / name
        if top.is_symlink():
            links.append((name, Path(os.readlink(top))))
        elif top.is_dir():
            readable.append(top)
    readable += [Path("/etc") / name for name in _ETC if (Path("/etc") / name).exists()]
    for prefix in (sys.base_prefix, sys.prefix, _ARENA_PACKAGE, _PROTO):
        path = Path(prefix)
        if path.exists():
            readable += [path, Path(os.path.realpath(path))]
    return tuple(dict.fromkeys(readable)), tuple(links)


class NoSandbox(Exception):
    """This machine cannot seal bots, and why (no bubblewrap, or one that cannot start a
    sealed interpreter here): `isolate` records it, or refuses for `--sandbox on`."""


_probed: dict[str, Sandbox | NoSandbox] = {}
"""`find_sandbox`'s answer, once per run (per process): probing costs a sandbox start."""


async def find_sandbox() -> Sandbox:
    """A sandbox that works on this machine; NoSandbox saying why there is none.

    The probe starts the arena's own interpreter sealed and imports the SDK, as a bot would: it
    runs once per process, and its answer is kept.
    """
    if "answer" not in _probed:
        try:
            _probed["answer"] = await _probe()
        except NoSandbox as why:
            _probed["answer"] = why
    answer = _probed["answer"]
    if isinstance(answer, NoSandbox):
        raise answer
    return answer


async def _probe() -> Sandbox:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise NoSandbox(
            "bubblewrap (bwrap) is not installed: install Debian's bubblewrap (`make test` does)"
        )
    setpriv = None
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise NoSandbox("setpriv (util-linux) is not installed, and the arena runs as root")
    system, links = system_view()
    sandbox = Sandbox(bwrap, setpriv, system, links)
    check = "import os, arena.sdk; print(os.getuid())"
    argv = sandbox.wrap([sys.executable, "-c", check], Seal(FIRST_UID))
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except OSError as error:
        raise NoSandbox(f"bwrap cannot be run: {error.strerror}") from error
    try:
        output, _ = await asyncio.wait_for(process.communicate(), PROBE_TIMEOUT)
    except TimeoutError as error:
        process.kill()
        await process.wait()
        raise NoSandbox(f"a sandbox did not start within {PROBE_TIMEOUT:g} s") from error
    finally:  # the sandbox's first process, if it outlived bwrap's outer one and is ours:
        reap_adopted(process.pid)  # one still on its way is reaped with the first bot's dead
    lines = output.decode(errors="replace").strip().splitlines()
    if process.returncode != 0 or lines[-1:] != [str(FIRST_UID)]:
        why = lines[-1] if lines else f"status {process.returncode}"
        raise NoSandbox(f"bwrap cannot seal a bot on this machine ({why})")
    return sandbox


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths none of which lies inside another (a folder inside a bound folder is bound
    with it)."""
    unique = sorted(set(paths), key=lambda path: len(path.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def _ancestors(paths: Iterable[Path], covered: Sequence[Path]) -> list[Path]:
    """The folders above `paths` that the sandbox must make (readable by anyone), outermost
    first; none inside a bound folder, which has its own."""
    needed: set[Path] = set()
    for path in paths:
        for folder in path.parents:
            if folder == Path("/") or folder in covered:
                continue  # the root, or a folder the sandbox has made already
            if not any(folder.is_relative_to(c) for c in covered if c not in _SCRATCH):
                needed.add(folder)  # not inside a bound folder (inside a scratch one is fine)
    return sorted(needed, key=lambda folder: (len(folder.parts), str(folder)))
