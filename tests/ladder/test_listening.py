"""The serve's socket: every connection it accepts has Nagle's algorithm off.

A socket made with protocol 0 (`socket.socket()`) hands that 0 to the connections it accepts,
and asyncio then leaves Nagle on (it sets TCP_NODELAY only where the protocol says TCP): an
answer written in two parts waited 40 ms for the client's delayed ACK.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from arena.ladder.serve import ServeOptions, bind, listening_socket
from arena.server.listen import ListenError


async def _accepted_nodelay(sock: socket.socket, host: str = "127.0.0.1") -> int:
    """TCP_NODELAY on the server's side of one connection accepted by asyncio on `sock`."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted_sock = writer.get_extra_info("socket")
        seen.set_result(accepted_sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=sock)
    try:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection(host, port)
        try:
            return await asyncio.wait_for(seen, 30)
        finally:
            writer.close()
    finally:
        server.close()
        await server.wait_closed()


def test_the_serves_connections_have_nagle_off() -> None:
    assert asyncio.run(_accepted_nodelay(listening_socket("127.0.0.1", 0))) != 0


def test_a_socket_of_protocol_zero_would_have_left_it_on() -> None:
    plain = socket.socket()
    plain.bind(("127.0.0.1", 0))
    plain.listen(8)
    assert asyncio.run(_accepted_nodelay(plain)) == 0


def test_on_ipv6_too() -> None:
    try:
        sock = listening_socket("::1", 0)
    except OSError as error:
        pytest.skip(f"no IPv6 loopback here: {error}")
    assert asyncio.run(_accepted_nodelay(sock, "::1")) != 0


def test_a_port_taken_is_one_line_naming_it(tmp_path: Path) -> None:
    with listening_socket("127.0.0.1", 0) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ListenError, match=rf"cannot listen on 127\.0\.0\.1:{port}: .*--port"):
            bind(ServeOptions(tmp_path, port=port))
