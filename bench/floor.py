"""The floor: a bare gRPC bidirectional stream between two processes, echoing request-sized bytes.

The measuring side plays the arena's part (the gRPC server, on loopback TCP like `arena run`)
and a child process the bot's (a client that opens one stream and sends back every message it
gets). Both sides use raw bytes through gRPC's generic handlers, with no protobuf at all: the
floor is what gRPC itself costs per round trip, so everything the arena adds shows up against it.
The payload is a serialized card request from the middle of a 4-player round, so the transport
carries exactly as many bytes as the arena's own requests.

Run as `python -m bench.floor --seconds S --trials T --in-flight 1,4,16`: prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from arena.players import Lowest
from arena.protocol import request_message
from arena.rules import Decision, Game, Phase, Settings
from bench.cpu import process_cpu

_SERVICE = "bench.Echo"
_METHOD = f"/{_SERVICE}/Echo"


def card_request() -> bytes:
    """A real card request: seat 0's view at turn 5 of a seeded 4-player game, serialized."""
    game = Game(Settings(players=4), random.Random(0))
    lowest = Lowest()
    for _ in range(5):
        game.play([lowest.choose_card(game.view(seat)) for seat in game.deciders])
        while game.phase is Phase.ROW:
            game.choose_row(lowest.choose_row(game.view(game.deciders[0])))
    request = request_message(12345, "t000-d00-r0", Decision.CARD, 1000, game.view(0))
    serialized: bytes = request.SerializeToString()
    return serialized


async def _rounds(
    context: grpc.aio.ServicerContext[bytes, bytes],
    payload: bytes,
    in_flight: int,
    seconds: float,
    echo: int,
) -> dict[str, Any]:
    """Keep `in_flight` messages on the stream for `seconds`; round trips per second, the round
    trip times when one message at a time is in flight, and the CPU time of each side (this
    process, the echo process `echo`) per round trip."""
    cpu_start, echo_start = time.process_time(), process_cpu(echo)
    for _ in range(in_flight):
        await context.write(payload)
    times: list[float] = []
    count = 0
    start = sent = time.perf_counter()
    end = start + seconds
    while True:
        await context.read()
        now = time.perf_counter()
        count += 1
        if in_flight == 1:
            times.append(now - sent)
        if now >= end:
            break
        sent = now
        await context.write(payload)
    for _ in range(in_flight - 1):  # drain: the next round starts with an empty stream
        await context.read()
    total = count + in_flight - 1
    result: dict[str, Any] = {
        "in_flight": in_flight,
        "round_trips_per_s": count / (now - start),
        "server_cpu_per_round_trip_s": (time.process_time() - cpu_start) / total,
        "client_cpu_per_round_trip_s": (process_cpu(echo) - echo_start) / total,
    }
    if times:
        result["median_rtt_s"] = statistics.median(times)
    return result


async def measure(in_flights: Sequence[int], seconds: float, trials: int) -> dict[str, Any]:
    """Start the server and the echo child; run every in-flight level `trials` times,
    interleaved, keeping each level's best trial (noise from other load only ever slows it)."""
    payload = card_request()
    plan: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    async def echo_stream(
        requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> None:
        try:
            best: dict[int, dict[str, Any]] = {}
            for _ in range(trials):
                for level in in_flights:
                    result = await _rounds(context, payload, level, seconds, child.pid)
                    kept = best.setdefault(level, result)
                    if result["round_trips_per_s"] > kept["round_trips_per_s"]:
                        best[level] = result
            plan.set_result({"levels": [best[level] for level in in_flights]})
        except Exception as error:  # report it rather than hang the parent
            plan.set_exception(error)

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        _SERVICE, {"Echo": grpc.stream_stream_rpc_method_handler(echo_stream)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.floor", "echo", f"127.0.0.1:{port}"
    )
    try:
        result = await asyncio.wait_for(plan, 60 + trials * len(in_flights) * seconds * 4)
    finally:
        await server.stop(grace=0.5)
        await child.wait()
    result["payload_bytes"] = len(payload)
    return result


async def echo(address: str) -> None:
    """The bot's side: one stream, every message sent back as it comes, until the server ends."""
    async with grpc.aio.insecure_channel(address) as channel:
        # No serializers: the messages are the raw bytes.
        play: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(_METHOD)
        call = play()
        async for message in call:
            await call.write(message)


def main(argv: Sequence[str] | None = None) -> None:
    """`echo ADDRESS` runs the client; otherwise measure and print JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["echo"]:
        asyncio.run(echo(args[1]))
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--in-flight", default="1,8")
    options = parser.parse_args(args)
    levels = [int(level) for level in options.in_flight.split(",")]
    result = asyncio.run(measure(levels, options.seconds, options.trials))
    result["pid"] = os.getpid()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
