"""A contest's folder of submissions: one subfolder per bot, each described by its `bot.toml`.

    submissions/
      alice/bot.toml    command = "python3 bot.py"
      bob/bot.toml      name = "bob"
                        command = "./bot"
                        protocol = "stdio"
                        build = "cc -O2 -o bot bot.c"

Every submission is copied before anything runs (`OUTPUT/builds/NAME-HASH`, HASH the content
hash of the folder as submitted, which is never written to), built there if it says how, with
the build's output at the top of the bot's log, and the bot then runs in that copy. A copy that
built is kept: the next run of the tournament (a resume, more games) builds again only a
submission whose content changed. A submission whose manifest is missing or wrong, whose name
another submission claims too, or whose build fails, is left out with one line saying why, and
the others play: one broken entry must not stop a contest.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.protocol import ADDRESS_VARIABLE, TOKEN_VARIABLE
from arena.server.declared import shown_value
from arena.server.errors import BotError
from arena.server.isolation.cgroups import RunCgroups
from arena.server.isolation.isolate import Isolation, isolate
from arena.server.isolation.process import BotProcess, Limits, bot_environment, write_note
from arena.server.isolation.sandbox import (
    FIRST_UID,
    Sandbox,
    SandboxMode,
    Seal,
    allocate_uids,
)
from arena.server.lobby import BotSpec
from arena.server.specs import PROTOCOLS, BadBotSpec, bot_spec, check_name
from arena.tournament.fingerprint import folder_hash, submission_fingerprint

MANIFEST = "bot.toml"
"""The file that makes a folder a submission."""
BUILD_TIMEOUT = 600.0
"""Seconds a build may take before it is stopped and the submission left out (`--build-timeout`,
declared with this default in `arena.tournament.config`)."""
BUILT = ".arena-built"
"""Left in a build's copy once its build succeeded: the copy is ready, and is not built again."""
BUILD_LOG_CAP = 1 << 20
"""Bytes of a build's output kept in the bot's log."""
_FIELDS: dict[str, str] = {
    "name": "the bot's name in the standings (default: the folder's name)",
    "command": "how to start the bot, run in the submission's folder",
    "protocol": f"{' or '.join(repr(p) for p in PROTOCOLS)} (default 'grpc')",
    "build": "a shell command run once in the folder before the tournament (optional)",
}
"""What a manifest may hold."""


NUL = "no command line can hold one"
"""Why a manifest's text may not hold a NUL: a command and a build become a process's argv, and
exec cannot take one (Python raises ValueError, not the OSError of a program that cannot start,
and out of the ladder's vetting that ended the serve). Refused as the manifest is read, before
anything runs it: at an upload, a 400."""


class BadSubmission(BotError):
    """A submission that cannot play, with what its author should change."""


@dataclass(frozen=True)
class Manifest:
    """A submission's bot.toml, checked."""

    folder: Path
    name: str
    command: str
    protocol: str = "grpc"
    build: str | None = None


@dataclass(frozen=True)
class Rejection:
    """A submission left out, and why."""

    folder: str
    """The submission's folder name."""
    reason: str

    def __str__(self) -> str:
        return f"submission {self.folder!r} left out: {self.reason}"


def read_manifest(folder: Path) -> Manifest:
    """The checked manifest of one submission folder; BadSubmission naming what is wrong."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise BadSubmission(f"no {MANIFEST} in {str(folder)!r}") from None
    except OSError as error:
        raise BadSubmission(f"cannot read {str(path)!r}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BadSubmission(f"{MANIFEST} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise BadSubmission(f"{MANIFEST}: unknown key {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    for key, value in data.items():
        if not isinstance(value, str):
            raise BadSubmission(f"{MANIFEST}: {key} must be a string, not {shown_value(value)}")
        if "\0" in value:  # TOML writes it "\u0000"; see `NUL`
            raise BadSubmission(f"{MANIFEST}: {key} holds a NUL character ({NUL}): remove it")
    if not data.get("command", "").strip():
        raise BadSubmission(f"{MANIFEST} needs a command: how to start the bot")
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise BadSubmission(f"{MANIFEST}: protocol must be {_FIELDS['protocol']}, not {protocol!r}")
    try:
        name = check_name(data.get("name", folder.name))
    except BadBotSpec as error:
        raise BadSubmission(f"{MANIFEST}: {error}") from None
    build = data.get("build", "").strip() or None
    return Manifest(folder, name, data["command"], protocol, build)


def check_folder(root: Path) -> None:
    """BadSubmission unless `root` holds a submission at all (a subfolder, hidden ones aside):
    an empty folder (the wrong one given, the uploads not yet there) would enter no bot, and
    say nothing of it."""
    if not any(p.is_dir() and not p.name.startswith(".") for p in root.iterdir()):
        raise BadSubmission(
            f"--submissions {str(root)!r} holds no submission: give the folder with one "
            f"subfolder per bot, each with its {MANIFEST}"
        )


def find_submissions(root: Path) -> tuple[list[Manifest], list[Rejection]]:
    """Every subfolder of `root` (hidden ones aside) as a manifest, or as a rejection.

    Names must be unique: two submissions that claim one name are both left out (neither can
    knock the other out by taking its name), each naming the other's folder.
    """
    manifests: list[Manifest] = []
    rejections: list[Rejection] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            manifests.append(read_manifest(folder))
        except BadSubmission as error:
            rejections.append(Rejection(folder.name, str(error)))
    claims: dict[str, list[str]] = {}
    for manifest in manifests:
        claims.setdefault(manifest.name, []).append(manifest.folder.name)
    for manifest in manifests:
        folders = claims[manifest.name]
        if len(folders) > 1:
            others = " and ".join(repr(f) for f in folders if f != manifest.folder.name)
            reason = (
                f"submissions {others} claim its name {manifest.name!r} too: give each a name "
                f"of its own in its {MANIFEST}"
            )
            rejections.append(Rejection(manifest.folder.name, reason))
    unique = [manifest for manifest in manifests if len(claims[manifest.name]) == 1]
    return unique, sorted(rejections, key=lambda rejection: rejection.folder)


def expected_entries(root: Path) -> tuple[tuple[BotSpec, ...], tuple[tuple[str, str], ...]]:
    """The bots the submissions under `root` enter if each of them builds, with their
    fingerprints: what a run checks before it copies or builds anything (how many bots, their
    names, whether they are the ones that played). Each stands for its bot by its name and
    fingerprint alone: its command is only checked once it is built."""
    manifests, _ = find_submissions(root)
    bots = tuple(BotSpec(manifest.name, (manifest.command,)) for manifest in manifests)
    fingerprints = tuple(
        (manifest.name, submission_fingerprint(manifest.folder, manifest.command))
        for manifest in manifests
    )
    return bots, fingerprints


def bot_of(manifest: Manifest) -> BotSpec:
    """The bot a built submission enters: its command, run in its folder; BadSubmission if the
    command cannot run (its program missing, or outside the folder)."""
    folder = manifest.folder.resolve()
    try:
        spec = bot_spec(manifest.name, manifest.command, manifest.protocol, folder)
    except BadBotSpec as error:
        raise BadSubmission(str(error)) from None
    assert spec.argv is not None
    program = shlex.split(manifest.command)[0]
    if "/" in program and not (folder / program).resolve().is_relative_to(folder):
        raise BadSubmission(f"its program {program!r} lies outside the submission's folder")
    return BotSpec(spec.name, spec.argv, cwd=folder, expose=(folder,))


@dataclass(frozen=True)
class Builder:
    """How builds run: sealed (each in a sandbox of its own, as a uid of its own, its copy the
    one folder it may write, no network) and in cgroups, where the machine allows."""

    sandbox: Sandbox | None = None
    cgroups: RunCgroups | None = None
    uids: tuple[int, ...] = ()
    """One uid per build, in the order `uid` hands them out."""

    def uid(self, index: int) -> int:
        """The uid of build `index` (the sandbox's; 0 unsealed)."""
        return self.uids[index] if self.sandbox is not None else 0

    @classmethod
    def of(cls, isolation: Isolation, builds: int) -> Builder:
        """The builder of `builds` builds sealed as `isolation` seals (a local run's, a
        worker's, a ladder's vetting: every build of the arena is made by this one)."""
        uids = tuple(allocate_uids(builds, BUILD_FIRST_UID))
        return cls(isolation.sandbox, isolation.cgroups, uids)


BUILD_LIMITS = Limits(pids=1024)
"""A build's limits: compilers run many processes; its memory is the machine's."""
BUILD_FIRST_UID = FIRST_UID + 1000
"""Builds run as uids of their own, apart from the bots' (see `sandbox.FIRST_UID`)."""


async def build(
    manifest: Manifest,
    log_path: Path,
    timeout: float = BUILD_TIMEOUT,
    builder: Builder = Builder(),
    index: int = 0,
) -> None:
    """Run the manifest's build command in its folder, its output into `log_path`.

    Raises BadSubmission when it fails, times out, or cannot start. The build gets the bots'
    clean environment (plus HOME: sealed, a private one in memory; unsealed, the organizer's,
    where package managers keep their caches), in its own process group, stopped whole on a
    timeout, and once it ends (so a daemon it started does not outlive it). Sealed, it runs as
    its own uid with its copy as the one folder it may write and no network; once it ends, the
    copy is handed back to the arena's user and made readable to all (the bot that runs it is
    another uid, and sees the copy read-only).
    """
    assert manifest.build is not None
    log_path.parent.mkdir(parents=True, exist_ok=True)
    write_note(log_path, f"[arena: {manifest.name} build: {manifest.build}]\n")
    home = {} if builder.sandbox is not None else {"HOME": os.environ.get("HOME", "/")}
    env = bot_environment("", "", home)
    for variable in (ADDRESS_VARIABLE, TOKEN_VARIABLE):  # a build connects to no arena
        del env[variable]
    uid = builder.uid(index)
    seal = None
    if builder.sandbox is not None:
        _own(manifest.folder, uid)
        seal = Seal(uid, writable=(manifest.folder,), cwd=manifest.folder)
    began = time.monotonic()
    try:
        process = await BotProcess.start(
            ("sh", "-c", manifest.build),
            env,
            manifest.folder,
            log_path,
            BUILD_LOG_CAP,
            BUILD_LIMITS,
            sandbox=builder.sandbox,
            seal=seal,
            cgroups=builder.cgroups,
        )
    except OSError as error:
        raise BadSubmission(f"its build could not start: {error.strerror}") from None
    try:
        status = await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        raise BadSubmission(f"its build took over {timeout:g} s (see {log_path})") from None
    finally:
        await process.stop()  # the build's leftovers go, and its output is drained
        if builder.sandbox is not None:
            _own(manifest.folder, os.getuid(), readable=True)
    took = time.monotonic() - began
    ended = f"[arena: {manifest.name} build ended with status {status} in {took:.1f} s]\n"
    write_note(log_path, ended)
    if status != 0:
        raise BadSubmission(f"its build failed with status {status} (see {log_path})")


def _own(folder: Path, uid: int, readable: bool = False) -> None:
    """Give `folder` and everything in it to `uid` (symlinks themselves, never what they point
    to); with `readable`, also let anyone read it (and enter and run what may be run)."""
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid if uid else os.getgid())
        if readable and not path.is_symlink():
            mode = path.lstat().st_mode
            extra = 0o444 | (0o111 if path.is_dir() or mode & 0o100 else 0)
            path.chmod((mode | extra) & ~0o022)


def copy_of(manifest: Manifest, builds: Path) -> tuple[Manifest, str, bool]:
    """The manifest of the submission's copy under `builds` (made if missing), its fingerprint,
    and whether the copy still needs its build.

    The copy is named after the bot and the submitted folder's content hash: a changed folder
    gets a new copy, an unchanged one keeps the copy it built before. A copy whose build did
    not finish is made afresh.
    """
    content = folder_hash(manifest.folder)
    copy = builds / f"{manifest.name}-{content[:12]}"
    fingerprint = submission_fingerprint(manifest.folder, manifest.command)
    if (copy / BUILT).is_file():
        return replace(manifest, folder=copy), fingerprint, False
    if copy.exists():
        shutil.rmtree(copy)
    builds.mkdir(parents=True, exist_ok=True)
    shutil.copytree(manifest.folder, copy, symlinks=True)
    if manifest.build is None:
        (copy / BUILT).write_text("no build\n")
    return replace(manifest, folder=copy), fingerprint, manifest.build is not None


@dataclass
class Entered:
    """What a folder of submissions enters: bots, their fingerprints, and the ones left out."""

    bots: list[BotSpec] = field(default_factory=list)
    """In name order, each running in its built copy."""
    fingerprints: dict[str, str] = field(default_factory=dict)
    """Each bot's fingerprint, by name: what it must stay for its stored games to count."""
    left_out: list[Rejection] = field(default_factory=list)


async def enter_submissions(
    root: Path,
    log_dir: Path,
    concurrency: int = os.cpu_count() or 1,
    report: Callable[[Rejection], None] | None = None,
    builds: Path | None = None,
    timeout: float = BUILD_TIMEOUT,
    sandbox: SandboxMode = SandboxMode.AUTO,
) -> Entered:
    """The bots of every playable submission under `root`, each copied into `builds` (default:
    `builds` beside `log_dir`) and built there unless built already, and the submissions left
    out (each also told to `report` as it is found).

    Each build runs sealed as `sandbox` says (see `Builder`; SandboxError for `on` where the
    machine cannot), in a cgroup of its own where the machine has them. Each bot then sees its
    own copy, and only that, read-only (`BotSpec.expose`). Cancelling it (Ctrl-C, SIGTERM) stops
    every build in progress, whole cgroups and process groups.
    """
    manifests, rejections = find_submissions(root)
    if report is not None:
        for rejection in rejections:
            report(rejection)
    builds = builds or log_dir.parent / "builds"
    gate = asyncio.Semaphore(concurrency)
    entered = Entered(left_out=rejections)
    async with isolate(sandbox, needed=any(m.build for m in manifests)) as isolation:
        builder = Builder.of(isolation, len(manifests))

        async def enter(index: int, manifest: Manifest) -> None:
            try:
                copy, fingerprint, unbuilt = copy_of(manifest, builds)
                if unbuilt:
                    async with gate:
                        log = log_dir / f"{manifest.name}.log"
                        await build(copy, log, timeout, builder, index)
                    (copy.folder / BUILT).write_text("built\n")
                entered.bots.append(bot_of(copy))
                entered.fingerprints[manifest.name] = fingerprint
            except BadSubmission as error:
                rejection = Rejection(manifest.folder.name, str(error))
                entered.left_out.append(rejection)
                if report is not None:
                    report(rejection)

        await asyncio.gather(*(enter(i, manifest) for i, manifest in enumerate(manifests)))
    entered.bots.sort(key=lambda spec: spec.name)
    entered.left_out.sort(key=lambda rejection: rejection.folder)
    return entered
