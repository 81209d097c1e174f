"""Every bot of a session: its tokens, its processes, its connections, its fault count.

A bot runs as one or more instances, each a process the arena launched (or, for an external bot,
a program started by hand) with its own fresh token and at most one live stream. An instance
plays one game at a time, so a bot that thinks for its whole deadline gets it in every game;
the arena launches another instance when a bot is wanted at more tables at once.

An instance serves the games of one seat rotation only (unless `BotOptions.reuse_processes`):
every deal is played once per rotation, so no process of a bot ever plays two games of one deal,
and cannot remember in the second the hands it saw in the first (the duplicate format's own
rule). Sealed, its files vanish with it too; unsealed, each rotation has its own working folder.
A launched bot reaches the arena through a unix socket of its own (`sockets`), on which only its
tokens are accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from arena.players import Referee
from arena.protocol import pb
from arena.server.botlog import BotLog, Where
from arena.server.connection import Connection
from arena.server.isolation.cgroups import BotCgroup, RunCgroups
from arena.server.isolation.process import BotProcess, bot_environment, write_note
from arena.server.isolation.sandbox import (
    SOCKET,
    Sandbox,
    Seal,
    allocate_uids,
    exposures,
)
from arena.server.options import BotOptions
from arena.server.service import Refused

EXIT_GRACE = 1.0
"""Seconds a bot has to exit by itself once the arena closed its stream, before it is stopped."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the organizer entered it."""

    name: str
    """Its name in the standings and logs."""
    argv: tuple[str, ...] | None
    """The program and arguments that start it; None for an external bot that connects itself."""
    cwd: Path | None = None
    """Its working folder; None for a folder of its own under the session's."""
    expose: tuple[Path, ...] | None = None
    """What a sealed bot sees of the machine besides the system and the arena's interpreter:
    None for the folders its command names (`sandbox.exposures`: an organizer's entry), or
    exactly these (a submission: its own built copy, whatever its command names)."""


@dataclass(eq=False)
class Instance:
    """One running copy of a bot and its stream."""

    token: str
    rotation: int | None = None
    """The one seat rotation whose games it plays; None: any (see `BotOptions.reuse_processes`)."""
    process: BotProcess | None = None
    connection: Connection | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    busy: bool = False
    watcher: asyncio.Task[None] | None = None
    """For a launched bot: the task that notes its exit, once its output is drained."""

    @property
    def alive(self) -> bool:
        """Connected and, for a launched bot, still running."""
        return self.connection is not None and not self.connection.closed.is_set()

    @property
    def cgroup(self) -> BotCgroup | None:
        """The cgroup of its process, where it has one (the game's `Pacer` holds it)."""
        return self.process.cgroup if self.process is not None else None


@dataclass(eq=False)
class Bot:
    """A bot and what the arena knows of it across games."""

    spec: BotSpec
    log_path: Path
    referee: Referee
    """Its faults across the tournament, and whether it is still asked."""
    instances: list[Instance] = field(default_factory=list)
    problem: str = ""
    """Why the bot is not connected, when it is not: the last thing noted in its log."""
    uid: int = 0
    """The uid its sealed processes run as (its own; 0 when unsealed)."""
    socket: Path | None = None
    """The host path of its own arena socket (None for an external bot)."""
    log_cap: int = 1 << 20
    """Bytes its log file may hold (`BotOptions.log_cap`): past them the arena's notes stop too."""
    lines: BotLog = field(init=False)
    """Its log line by line, each tagged with the game, round and turn it was written in."""

    def __post_init__(self) -> None:
        self.lines = BotLog(self.spec.name)

    @property
    def name(self) -> str:
        """The bot's name."""
        return self.spec.name

    def unreachable(self, message: str) -> None:
        """The bot cannot play: say why in its log, and in the fault of each game it misses."""
        self.problem = message
        self.note(message)

    def disqualify(self, why: str) -> None:
        """Put the bot out of the tournament for `why`, and say so in its log."""
        self.note_out(self.referee.disqualify(why))

    def note_out(self, put_out: bool) -> None:
        """Say in its log why the bot is out, when what its referee was just told put it out."""
        if put_out:
            self.note(self.referee.disqualified)

    def note(self, message: str, where: Where | None = None) -> None:
        """Write what the arena did about the bot into its log, for its author to read (never
        through a symlink: see `open_log`; a log that cannot be written or is full is skipped),
        and into its lines at `where` (None: between games)."""
        try:
            full = self.log_path.stat().st_size >= self.log_cap
        except OSError:
            full = False
        if not full:
            write_note(self.log_path, f"[arena: {self.name} {message}]\n")
        self.lines.note(f"{self.name} {message}", where)


class Lobby:
    """Admits bots to the server, launches and restarts their processes, stops them all."""

    def __init__(
        self,
        specs: list[BotSpec],
        log_dir: Path,
        options: BotOptions = BotOptions(),
        workdir: Path | None = None,
        *,
        sockets: Path | None = None,
        sandbox: Sandbox | None = None,
        cgroups: RunCgroups | None = None,
    ) -> None:
        """`sockets` is the private folder of the bots' own sockets (`socket_of`); with a
        `sandbox`, bots run sealed, and with `cgroups`, each process in a cgroup of its own."""
        self.options = options
        self.address = ""
        """Where external bots connect (empty when the session has none)."""
        self._log_dir = log_dir
        self._workdir = workdir or log_dir
        self._sockets = sockets
        self.sandbox = sandbox
        self.cgroups = cgroups
        self.bots = {spec.name: self._enter(spec, log_dir) for spec in specs}
        launched = [bot for bot in self.bots.values() if bot.spec.argv is not None]
        for index, (bot, uid) in enumerate(
            zip(launched, allocate_uids(len(launched)), strict=True)
        ):
            bot.uid = uid if sandbox is not None else 0
            if sockets is not None:
                bot.socket = sockets / f"bot-{index}.sock"  # short: a socket's path is limited
        self._tokens: list[tuple[str, Bot, Instance]] = []
        self.processes: list[BotProcess] = []
        """Every bot process the lobby started, running or not, in the order started."""
        self._watchers: set[asyncio.Task[None]] = set()

    def _enter(self, spec: BotSpec, log_dir: Path) -> Bot:
        referee = Referee(spec.name, self.options.max_faults, self.options.restart)
        return Bot(spec, log_dir / f"{spec.name}.log", referee, log_cap=self.options.log_cap)

    # -- the server's side ------------------------------------------------------------------

    def admit(self, hello: pb.Hello, scope: str | None = None) -> Connection:
        """Bind a new stream to the instance whose token it shows; refuse unknown or reused ones.

        On a launched bot's own socket (`scope` names it) only that bot's tokens are known; on
        the shared server (`scope` None), only those of bots without a socket of their own.
        """
        found = None
        for token, bot, instance in self._tokens:  # compare every token, in constant time
            if hmac.compare_digest(token.encode(), hello.token.encode()):
                found = bot, instance
        if found is not None:  # another bot's token, or a launched bot's on the shared server
            owner = found[0]
            if (owner.name != scope) if scope is not None else (owner.socket is not None):
                found = None
        if found is None:
            raise Refused("unknown token: use the ARENA_TOKEN the arena gave this bot")
        bot, instance = found
        if instance.alive:
            bot.note("a second connection with its token was refused")
            raise Refused(
                f"the token of {bot.name!r} is already connected: a bot opens one stream and "
                "keeps it open; is another copy of it running?"
            )
        connection = Connection(bot.name)
        instance.connection = connection
        instance.connected.set()
        bot.note("connected", bot.lines.where(instance))
        return connection

    def leave(self, connection: Connection) -> None:
        """A stream ended; its instance is no longer alive (see `Instance.alive`).

        An external bot may connect again with the same token (its author restarted it): the
        next game waits for that as for a first connection.
        """
        for _, _, instance in self._tokens:
            if instance.connection is connection and instance.process is None:
                instance.connected.clear()

    # -- the tournament's side --------------------------------------------------------------

    def external_token(self, name: str) -> str:
        """A fresh token for an external bot (one started by hand), to hand to its author."""
        bot = self.bots[name]
        instance = Instance(secrets.token_urlsafe(24))
        bot.instances.append(instance)
        self._tokens.append((instance.token, bot, instance))
        return instance.token

    async def acquire(
        self, name: str, rotation: int = 0, cpus: str | None = None
    ) -> Instance | None:
        """An instance of the bot to play one game of seat rotation `rotation`, launched if
        needed (pinned to the cores `cpus`, when given: fair CPU); None if it cannot play.

        None means the bot is disqualified, or it could not be started or did not connect in
        time; the caller seats the fallback and records why.
        """
        bot = self.bots[name]
        if bot.referee.disqualified:
            return None
        external = bot.spec.argv is None
        key = None if self.options.reuse_processes else rotation
        for instance in bot.instances:
            if external or (not instance.busy and instance.alive and instance.rotation == key):
                if external and not await self._wait_connected(instance):
                    bot.unreachable(
                        f"did not connect within {self.options.startup_timeout:g} s: start it "
                        "with the address and token the arena gave"
                    )
                instance.busy = True
                return instance
        if external:
            return None
        await self._retire_dead(bot)
        if bot.referee.disqualified:  # it crashed, and restarts are off
            return None
        launched = await self._launch(bot, key, cpus)
        if launched is not None:
            launched.busy = True
        return launched

    async def release(self, bot: Bot, instance: Instance) -> None:
        """The game is over: the instance may serve another, unless its bot was disqualified,
        whose processes are stopped at once so they cost the other bots no CPU or memory."""
        instance.busy = False
        if instance.watcher is not None and not instance.alive:
            # It died in this game: its last words and its exit belong to it, noted once drained.
            await asyncio.wait({instance.watcher}, timeout=EXIT_GRACE)
        bot.lines.at(instance, None)  # between games: what it writes now belongs to none
        if bot.referee.disqualified and instance.process is not None:
            if instance.connection is not None:
                instance.connection.close("the bot is disqualified")
            await instance.process.stop(patience=EXIT_GRACE)

    async def close(self) -> None:
        """End every stream and stop every process the lobby started.

        A bot whose stream ends may exit by itself (and flush its output) for `EXIT_GRACE`
        seconds; then its process group is stopped.
        """
        for bot in self.bots.values():
            for instance in bot.instances:
                if instance.connection is not None:
                    instance.connection.close("the arena is shutting down")
        await asyncio.gather(*(process.stop(patience=EXIT_GRACE) for process in self.processes))
        if self._watchers:  # every process has exited: let them note it (a second at most)
            await asyncio.wait(set(self._watchers), timeout=1.0)
        for watcher in self._watchers:
            watcher.cancel()

    # -- processes ------------------------------------------------------------------------

    def hidden(self) -> tuple[Path, ...]:
        """What no sealed bot may see, whatever its command names: logs, working folders and
        sockets."""
        return tuple(p for p in (self._log_dir, self._workdir, self._sockets) if p is not None)

    def seal(self, bot: Bot) -> Seal:
        """What a sealed process of `bot` sees: see `BotSpec.expose`, its own socket."""
        assert bot.spec.argv is not None
        readable = bot.spec.expose
        if readable is None:
            readable = exposures(bot.spec.argv, self.hidden())
        return Seal(bot.uid, readable, socket=bot.socket, cwd=bot.spec.cwd)

    async def _launch(
        self, bot: Bot, rotation: int | None, cpus: str | None = None
    ) -> Instance | None:
        assert bot.spec.argv is not None
        instance = Instance(secrets.token_urlsafe(24), rotation)
        self._tokens.append((instance.token, bot, instance))
        bot.instances.append(instance)
        sealed = self.sandbox is not None
        workdir = bot.spec.cwd or self._workdir / bot.name  # names are checked: stays inside
        if bot.spec.cwd is None and rotation is not None:
            workdir = workdir / f"r{rotation}"  # no file of one rotation is seen by the next
        if not sealed:  # a sealed bot's working folder is its own, in memory
            workdir.mkdir(parents=True, exist_ok=True)
        address = f"unix:{SOCKET if sealed else bot.socket}" if bot.socket else self.address
        try:
            instance.process = await BotProcess.start(
                bot.spec.argv,
                bot_environment(address, instance.token),
                workdir,
                bot.log_path,
                self.options.log_cap,
                self.options.limits,
                sandbox=self.sandbox,
                seal=self.seal(bot) if sealed else None,
                cgroups=self.cgroups,
                on_output=bot.lines.feeder(instance),
                cpus=cpus,
            )
        except OSError as error:
            bot.unreachable(f"could not start {shlex.join(bot.spec.argv)!r}: {error}")
            bot.note_out(bot.referee.failed_start())
            return None
        self.processes.append(instance.process)
        bot.note(f"started process {instance.process.pid}: {shlex.join(bot.spec.argv)}")
        watcher = instance.watcher = asyncio.create_task(self._watch(bot, instance))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        if not await self._wait_connected(instance):
            status = instance.process.returncode
            if status is None:
                bot.unreachable(f"did not connect within {self.options.startup_timeout:g} s")
            else:
                line = instance.process.exit_line(status)
                bot.unreachable(f"{line} before connecting")
            await instance.process.stop()
            self._forget(bot, instance)
            bot.note_out(bot.referee.failed_start())
            return None
        bot.referee.started()
        bot.problem = ""
        return instance

    async def _wait_connected(self, instance: Instance) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(instance.connected.wait(), self.options.startup_timeout)
        return instance.alive

    async def _retire_dead(self, bot: Bot) -> None:
        """Stop what is left of instances whose stream ended, before launching a new one."""
        dead = [i for i in bot.instances if not i.alive and i.connected.is_set()]
        for instance in dead:  # forgotten first: a concurrent acquire must not retire it too
            self._forget(bot, instance)
        for instance in dead:
            if instance.process is not None:
                await instance.process.stop()
            bot.note_out(bot.referee.crashed())

    def _forget(self, bot: Bot, instance: Instance) -> None:
        """Drop a dead instance, and its token with it: nobody may connect with that again.
        Idempotent: a failed launch and a concurrent acquire may both retire the same one."""
        if instance in bot.instances:
            bot.instances.remove(instance)
        self._tokens = [t for t in self._tokens if t[2] is not instance]

    async def _watch(self, bot: Bot, instance: Instance) -> None:
        """When a launched bot exits, close its stream at once with a message saying so; once
        its output is drained, note the exit after its last words."""
        assert instance.process is not None
        status = await instance.process.wait()
        if instance.connection is not None:
            instance.connection.close(f"the bot {instance.process.exit_line(status)}")
        instance.connected.set()  # wake anyone still waiting for it to connect
        await instance.process.stop()  # it has exited: this only waits for its output
        where = bot.lines.where(instance)
        bot.lines.flush(instance)
        bot.note(instance.process.exit_line(status), where)
