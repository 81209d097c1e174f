"""One core's arena: a process the organizer starts for each core in fair mode, pinned to it with
every thread it and its bots ever start, playing the games it is handed there one at a time.

Run as `python -m arena.tournament.hosts.host FD CORE PARENT` (by `HostsExecutor`, never by
hand): FD is its end of the organizer's socket, CORE its core, PARENT the organizer's pid. It
dies with the organizer (`PR_SET_PDEATHSIG`), ignores the terminal's Ctrl-C (the organizer
decides when it stops: it closes the socket), and writes nothing to the organizer's terminal;
what goes wrong is sent back as one line (`wire.Failed`), and a traceback, if any, goes to its
stderr, a file in the run's work folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import sys
import traceback
from collections.abc import Coroutine, Sequence
from typing import Any

from arena.server.session import open_session
from arena.tournament.executor import LocalExecutor
from arena.tournament.hosts.wire import (
    Close,
    Closed,
    Failed,
    Play,
    Played,
    Ready,
    Setup,
    WireError,
    receive,
    send,
)
from arena.tournament.judging import conducts, take

_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """SIGKILL this process when the organizer dies, whatever kills it; exit now if it already
    has (it died before the request took hold)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def main(argv: Sequence[str] | None = None) -> None:
    """Pin to the core before any thread exists (each thread inherits its creator's cores: the
    imports start none), then serve the organizer."""
    fd, core, parent = (int(value) for value in (argv or sys.argv[1:]))
    _die_with(parent)
    os.sched_setaffinity(0, {core})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(_serve(fd))


async def _serve(fd: int) -> None:
    os.set_inheritable(fd, False)  # nothing it starts inherits the organizer's socket
    reader, writer = await asyncio.open_connection(sock=socket.socket(fileno=fd))
    try:
        setup = await receive(reader)
        if setup is None:
            return
        if not isinstance(setup, Setup):
            raise WireError(f"expected the setup, not {type(setup).__name__}")
        await _host(setup, reader, writer)
    except Exception as error:  # told to the organizer in one line; the traceback to stderr
        traceback.print_exc()
        with contextlib.suppress(Exception):
            await send(writer, Failed(_line(error)))
    finally:
        writer.close()


async def _host(setup: Setup, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Open the session, say so, play each game handed over until told to stop; then stop the
    bots and hand back what they wrote as they stopped."""
    async with open_session(
        list(setup.bots), setup.logs, setup.options, workdir=setup.workdir
    ) as session:
        executor = LocalExecutor(session, 1)
        await send(writer, Ready())
        await _games(executor, reader, writer)
    bots = session.lobby.bots.values()
    await send(writer, Closed(tuple(line for bot in bots for line in bot.lines.take_loose())))


async def _games(
    executor: LocalExecutor, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Play each game handed over, one at a time, until `Close` (or the organizer's end closes)."""
    while isinstance(message := await receive(reader), Play):
        answer = await _unless_told(reader, _play(executor, message))
        if answer is None:
            return
        await send(writer, answer)
    if message is not None and not isinstance(message, Close):
        raise WireError(f"expected a game, not {type(message).__name__}")


async def _play(executor: LocalExecutor, play: Play) -> Played | Failed:
    """One game under the organizer's record: Played, or Failed with why."""
    bots = executor.bots
    take(bots, play.state, note=False)  # the organizer noted it in the same log
    try:
        outcome = await executor.play(play.spec)
    except Exception as error:
        traceback.print_exc()
        return Failed(_line(error))
    return Played(outcome, conducts(bots, play.spec.seats), play.state)


async def _unless_told(
    reader: asyncio.StreamReader, work: Coroutine[Any, Any, Played | Failed]
) -> Played | Failed | None:
    """`work`'s result; None, with the game cancelled, if the organizer says anything meanwhile
    (its `Close`: a run stopped early) or its end closes: it sends nothing else during a game."""
    game = asyncio.ensure_future(work)
    closed = asyncio.ensure_future(reader.read(1))
    try:
        await asyncio.wait({game, closed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (game, closed):
            if not task.done():
                task.cancel()
        await asyncio.gather(game, closed, return_exceptions=True)
    return game.result() if not game.cancelled() and closed.cancelled() else None


def _line(error: BaseException) -> str:
    """The error in one line: its message, else its type's name."""
    return " ".join(str(error).split()) or type(error).__name__


if __name__ == "__main__":
    main()
