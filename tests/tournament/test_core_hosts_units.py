"""The core hosts' pure parts: which game a host takes next, when hosts are used at all, and the
frames between the organizer and a host (over a real socket pair, no host process)."""

from __future__ import annotations

import asyncio
import socket
import struct
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.players import Conduct
from arena.rules import Settings
from arena.server.isolation.fairness import CpuMode, CpuPlan
from arena.server.lobby import BotSpec
from arena.server.session import Session
from arena.tournament import GameSpec, game_id
from arena.tournament.config import TournamentConfig
from arena.tournament.hosts.executor import pick, wanted
from arena.tournament.hosts.wire import MAX_FRAME, Play, WireError, receive, send


def jobs(players: int, deals: int) -> list[GameSpec]:
    """A table's games in schedule order: deal, then rotation."""
    settings = Settings(players=players)
    seats = tuple(f"b{seat}" for seat in range(players))
    return [
        GameSpec(game_id(0, deal, rotation), 0, deal, rotation, seats, deal, settings)
        for deal in range(deals)
        for rotation in range(players)
    ]


@given(
    players=st.integers(2, 6),
    deals=st.integers(1, 5),
    hosts=st.integers(2, 4),
    order=st.randoms(use_true_random=False),
)
def test_every_game_is_taken_once_and_a_host_keeps_its_rotations_while_it_can(
    players: int, deals: int, hosts: int, order: Any
) -> None:
    pending = jobs(players, deals)
    taken: list[str] = []
    for _ in range(len(pending)):
        host = order.randrange(hosts)  # hosts finish their games in any order
        mine = [spec for spec in pending if spec.rotation % hosts == host]
        spec = pending.pop(pick(pending, host, hosts))
        taken.append(spec.game_id)
        if mine:  # its own rotation's next game, in schedule order
            assert spec == mine[0]
    assert sorted(taken) == sorted(s.game_id for s in jobs(players, deals))
    assert len(set(taken)) == len(taken)


def test_a_host_with_none_of_its_rotations_left_takes_the_first_game_waiting() -> None:
    pending = [spec for spec in jobs(3, 2) if spec.rotation != 1]
    assert pick(pending, 1, 3) == 0


def session(fair: bool, cores: tuple[int, ...], address: str = "") -> Session:
    plan = CpuPlan(CpuMode.AUTO, fair, cores if fair else ())
    return cast(Session, SimpleNamespace(cpu=plan, address=address))


def config(tmp_path: Path, **changes: Any) -> TournamentConfig:
    bots = tuple(BotSpec(name, ("true",)) for name in ("a", "b", "c"))
    base = TournamentConfig(bots=bots, players=3, games=3, concurrency=4, output=tmp_path)
    return replace(base, **changes)


def test_hosts_are_used_in_fair_mode_with_two_games_or_more_at_once(tmp_path: Path) -> None:
    assert wanted(session(True, (0, 1, 2)), config(tmp_path)) == 3  # one a core, at most
    assert wanted(session(True, (0, 1, 2, 3, 4)), config(tmp_path)) == 4  # one a game at once
    assert wanted(session(True, (0, 1)), config(tmp_path, concurrency=1)) == 0
    assert wanted(session(True, (0,)), config(tmp_path)) == 0  # one core: one game at a time
    assert wanted(session(False, ()), config(tmp_path)) == 0  # shared mode
    assert wanted(session(True, (0, 1)), config(tmp_path, core_processes=False)) == 0
    here = session(True, (0, 1), "127.0.0.1:7000")  # bots started by hand connect here
    assert wanted(here, config(tmp_path)) == 0


async def pair() -> tuple[
    tuple[asyncio.StreamReader, asyncio.StreamWriter],
    tuple[asyncio.StreamReader, asyncio.StreamWriter],
]:
    one, two = socket.socketpair()
    return await asyncio.open_connection(sock=one), await asyncio.open_connection(sock=two)


def test_a_frame_arrives_equal_and_a_closed_end_reads_as_none() -> None:
    async def talk() -> tuple[object, object]:
        (_, writer), (reader, _) = await pair()
        spec = jobs(2, 1)[0]
        message = Play(spec, {"b0": Conduct(2, ""), "b1": Conduct(0, "out")})
        await send(writer, message)
        writer.close()
        return message, (await receive(reader), await receive(reader))

    sent, (first, second) = asyncio.run(talk())
    assert first == sent and second is None


@pytest.mark.parametrize(
    "raw",
    [
        struct.pack("!Q", 10) + b"short",  # the body cut short
        b"\x00\x00\x00",  # the length cut short
        struct.pack("!Q", MAX_FRAME + 1),  # a length no game needs
    ],
)
def test_a_broken_frame_is_a_wire_error(raw: bytes) -> None:
    async def read() -> object:
        (_, writer), (reader, _) = await pair()
        writer.write(raw)
        await writer.drain()
        writer.close()
        return await receive(reader)

    with pytest.raises(WireError):
        asyncio.run(read())
