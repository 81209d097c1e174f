"""`arena ladder serve`: the HTTP API and the match loop in one process, on one asyncio loop.

uvicorn serves the API (`api.create_app`) on a socket bound here (so that port 0 is told as the
port it got), the match loop (`loop.MatchLoop`) plays sets, and the vetting task
(`intake.Intake`) vets the versions received; none blocks another, as each awaits. The games run
on this machine (a session per set) or on a Dask cluster opened once for the whole serve
(`--cluster` or `--workers`, exactly as `arena run` opens one: `open_cluster`), never one per
set.

SIGTERM or Ctrl-C: no new set starts, the running sets are stopped by the runner's own stop (the
games under way abandoned, every bot stopped) and left `abandoned`, to be played again at the
next start; the API stops with them. The ladder's folder is held (`hold_output`) for the serve:
a second serve of it is refused with one line naming the process that holds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import uvicorn

from arena.ladder.api.app import create_app
from arena.ladder.api.deps import Served
from arena.ladder.db.engine import open_database, upgrade
from arena.ladder.folder import SETS, open_ladder
from arena.ladder.intake import Intake
from arena.ladder.loop import MatchLoop
from arena.ladder.settings import LadderSettings, read_settings
from arena.server.listen import Listener, ListenError
from arena.tournament.config import TournamentConfig
from arena.tournament.folder import hold_output

GRACE = 1.0
"""Seconds the API has to finish its requests once the serve stops."""
CONNECTIONS = 512
"""Connections (and requests) the API serves at once; one past them is answered 503 at once and
closed. uvicorn sets no time limit on a request's body, so a client that sends its headers and
then nothing holds its connection, and a file descriptor, as long as it likes: without a bound,
enough of them (1,024 on a stock system) take the descriptors the match loop's bots and
database need, and their EMFILE would end the serve as a fault of the machine. Far above what a
ladder's spectators and authors hold (a browser keeps a few idle connections a tab, closed
after uvicorn's 5 s keep-alive)."""


@dataclass(frozen=True)
class ServeOptions:
    """How `arena ladder serve` runs (its options)."""

    folder: Path
    host: str = "127.0.0.1"
    port: int = 8600
    database: str | None = None
    cluster: str | None = None
    workers: int | None = None
    concurrency: int | None = None
    """Games at once (of every set together); the machine's cores by default."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    insecure: bool = False
    reuse_processes: bool = False
    """One process per bot per set instead of one per game (tests: sealing is not theirs)."""
    seed: int | None = None
    """Matchmaking's and the deals' randomness (tests); secret by default."""

    def listener(self) -> Listener:
        """Where the API listens, checked as `arena run --listen` is: beyond loopback it needs
        TLS or `--insecure`."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return Listener(f"{host}:{self.port}", self.tls_cert, self.tls_key, self.insecure)


def template(options: ServeOptions, settings: LadderSettings) -> TournamentConfig:
    """The sets' tournament settings: the ladder's rules and limits (`tournament_config`), with
    where the games run from the serve's options."""
    base = settings.tournament_config(options.folder / SETS, (), 0)
    changes: dict[str, Any] = {
        "cluster": options.cluster,
        "workers": options.workers,
        "reuse_processes": options.reuse_processes,
        "insecure": options.insecure and options.cluster is not None,
    }
    if options.concurrency is not None:
        changes["concurrency"] = options.concurrency
    return replace(base, **changes)


def check(options: ServeOptions) -> tuple[LadderSettings, TournamentConfig]:
    """Everything checked before the serve starts: the folder's settings, the address (TLS
    beyond loopback), the cluster's options; one line (LadderError, ListenError, ConfigError)."""
    settings = read_settings(open_ladder(options.folder).settings)
    options.listener().check()
    config = template(options, settings)
    config.check_cluster()
    return settings, config


class _Server(uvicorn.Server):
    """uvicorn, leaving the signals to the serve (which stops the loop first)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Any:
        yield


def bind(options: ServeOptions) -> socket.socket:
    """The API's socket, bound (port 0: any free port); ListenError naming the address."""
    try:
        sock = listening_socket(options.host, options.port)
    except OSError as error:
        raise ListenError(
            f"cannot listen on {options.host}:{options.port}: {error.strerror}: choose another "
            "--port (or stop what holds it)"
        ) from None
    sock.set_inheritable(False)
    return sock


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host` and `port`, listening: made with IPPROTO_TCP named, because
    asyncio turns Nagle's algorithm off (TCP_NODELAY) only on a socket whose protocol says TCP,
    and a socket made with protocol 0 passes that on to every connection it accepts. Without
    it, each answer written in two parts (headers, then body) waited for the client's delayed
    ACK: 40 ms of every request on loopback, against 1 ms with it (bench.pages)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    return sock


async def serve(options: ServeOptions, say: Callable[[str], None]) -> None:
    """Serve the ladder until SIGTERM or Ctrl-C (see the module's note); `say` is told the
    address first (`serving URL`), then what the organizer should know."""
    settings, config = check(options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        with hold_output(options.folder):
            engine = open_database(options.database or options.folder)
            upgrade(engine)
            async with contextlib.AsyncExitStack() as stack:
                venue = None
                workers = 1
                count: Callable[[], Awaitable[int]] | None = None
                if config.distributed:  # one cluster for the whole serve
                    from arena.tournament.cluster import open_cluster

                    cluster = await stack.enter_async_context(open_cluster(config))
                    venue = cluster

                    async def count() -> int:
                        return len(await cluster.workers())

                    workers = await count()
                rng = random.Random(options.seed) if options.seed is not None else None
                matches = MatchLoop(
                    options.folder,
                    engine,
                    settings,
                    config,
                    venue=venue,
                    workers=count,
                    rng=rng,
                    say=say,
                )
                matches.report.workers_up = workers
                intake = Intake(options.folder, engine, settings, vetted=matches.wake.set, say=say)
                served = Served(
                    options.folder,
                    engine,
                    settings,
                    matches.report,
                    time.monotonic(),
                    intake.wake.set,
                )
                await _run(options, served, matches, intake, stop, say)
            engine.dispose()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


async def _run(
    options: ServeOptions,
    served: Served,
    matches: MatchLoop,
    intake: Intake,
    stop: asyncio.Event,
    say: Callable[[str], None],
) -> None:
    """The API, the match loop and the vetting task, until `stop` or until one fails (its
    error then ends the serve, once the others have stopped)."""
    sock = bind(options)
    tls = options.tls_cert is not None
    server = _Server(
        uvicorn.Config(
            create_app(served),
            log_level="warning",
            access_log=False,
            lifespan="off",
            ssl_certfile=str(options.tls_cert) if tls else None,
            ssl_keyfile=str(options.tls_key) if tls else None,
            timeout_graceful_shutdown=int(GRACE),
            limit_concurrency=CONNECTIONS,
        )
    )
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    say(f"serving {'https' if tls else 'http'}://{shown}:{port}/ (the API's reference: /docs)")
    tasks = [
        asyncio.ensure_future(server.serve(sockets=[sock])),
        asyncio.ensure_future(matches.run(stop)),
        asyncio.ensure_future(intake.run(stop)),
    ]
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([*tasks, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.set()
        server.should_exit = True
        stopping.cancel()
        await asyncio.wait(tasks)
        sock.close()
    for task in tasks:
        task.result()  # the first error of any, now that all have stopped
