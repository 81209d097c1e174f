"""What the organizer and its core hosts say to each other, and how: one message a frame.

A frame is an 8-byte length and a pickle. Pickle, because both ends are this package in
processes of the organizer's own (a host is the organizer's child, with the same code): its
socket is one end of a `socketpair` that no bot can reach (a host's bots are started with every
descriptor but their own closed, sealed in sandboxes of their own), and game specs, outcomes and
the bots' options travel as they are, as they do to a cluster's workers.

The conversation: the organizer sends `Setup`; the host answers `Ready` (or `Failed`, and exits);
then, one game at a time, `Play` and `Played` (or `Failed`: the game could not be played there);
at the end `Close`, and the host stops its bots and answers `Closed` with what they wrote as
they stopped. Anything the organizer sends during a game, or its end of the socket closing,
stops the game there (a run stopped early).
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from dataclasses import dataclass
from pathlib import Path

from arena.players import Conduct
from arena.server.botlog import LogLine
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.tournament.outcome import GameOutcome, GameSpec

_LENGTH = struct.Struct("!Q")
MAX_FRAME = 1 << 30
"""Bytes a frame may hold: a game's outcome carries its bots' log lines, each bot's log capped
(`--log-cap`), so a frame this large is a broken host, never a game."""


class WireError(Exception):
    """The other end sent something that is not a frame of this conversation."""


@dataclass(frozen=True)
class Setup:
    """What a host needs to open its arena session: the run's bots and how to treat them."""

    core: int
    """The core it and its bots run on."""
    bots: tuple[BotSpec, ...]
    options: BotOptions
    logs: Path
    """The run's logs folder: every host appends to the same bots' logs."""
    workdir: Path


@dataclass(frozen=True)
class Ready:
    """The host's session is open: its bots may be asked for."""


@dataclass(frozen=True)
class Play:
    """Play this game, under the organizer's record of its seats' bots."""

    spec: GameSpec
    state: dict[str, Conduct]


@dataclass(frozen=True)
class Played:
    """A game played: its outcome, and its seats' conduct there by its end (`sent`: the
    organizer's record it was played under, handed back)."""

    outcome: GameOutcome
    conduct: dict[str, Conduct]
    sent: dict[str, Conduct]


@dataclass(frozen=True)
class Close:
    """Stop the bots and say what they wrote meanwhile."""


@dataclass(frozen=True)
class Closed:
    """The bots are stopped: what they wrote between games since the last game (their exits)."""

    lines: tuple[LogLine, ...] = ()


@dataclass(frozen=True)
class Failed:
    """What went wrong, in one line: the session did not open, or a game raised."""

    why: str


async def send(writer: asyncio.StreamWriter, message: object) -> None:
    """Write one frame and wait until it is on its way."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_LENGTH.pack(len(body)) + body)
    await writer.drain()


async def receive(reader: asyncio.StreamReader) -> object | None:
    """The next message; None where the other end has closed (between frames)."""
    try:
        head = await reader.readexactly(_LENGTH.size)
    except asyncio.IncompleteReadError as error:
        if error.partial:
            raise WireError("the frame's length was cut short") from None
        return None
    (length,) = _LENGTH.unpack(head)
    if length > MAX_FRAME:
        raise WireError(f"a frame of {length} bytes (at most {MAX_FRAME})")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise WireError("the frame was cut short") from None
    message: object = pickle.loads(body)
    return message
