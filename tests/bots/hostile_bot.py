"""Every way a bot can attack or break the arena, one mode at a time (the first argument).

Wherever a mode still answers, it answers what the arena's fallback would (lowest card, cheapest
row, lowest draft card), so that a tournament with this bot must end exactly like one where the
fallback plays its seat: any difference is damage the hostility did.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Queue

import grpc

from arena.players import fallback
from arena.protocol import PROTOCOL_VERSION, convert, pb

MODE = sys.argv[1]
ADDRESS = os.environ["ARENA_ADDRESS"]
TOKEN = {"no-token": "", "wrong-token": "not-a-token"}.get(MODE, os.environ["ARENA_TOKEN"])
FOREVER = 3600.0


def hello() -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(token=TOKEN, name=MODE, protocol_version=PROTOCOL_VERSION))


def fallback_answer(request: pb.Request) -> pb.BotMessage:
    decision = convert.decision_from_proto(request.decision)
    value = fallback(decision, convert.view_from_proto(request.view))
    return pb.BotMessage(answer=convert.answer_to_proto(request.request_id, decision, value))


def answers(request: pb.Request) -> list[bytes]:
    """What this mode sends in reply to one request, as raw bytes."""
    honest = fallback_answer(request)
    if MODE == "sleep":  # past the deadline, then the right answer
        time.sleep(request.deadline_ms / 1000 + 0.2)
    elif MODE in ("hang", "spin"):
        end = time.monotonic() + FOREVER
        while MODE == "spin" and time.monotonic() < end:
            pass
        time.sleep(FOREVER)
    elif MODE == "exit":
        os._exit(3)
    elif MODE == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif MODE == "garbage":
        return [b"\x0a\xff\xff\xff\xff\x0f" + os.urandom(16)]
    elif MODE == "huge":  # a valid answer, swollen by an unknown field to 2 MiB
        size = 1 << 21
        padding = varint(1000 << 3 | 2) + varint(size) + b"x" * size
        return [honest.SerializeToString() + padding]
    elif MODE == "twice":
        return [honest.SerializeToString()] * 2
    elif MODE == "unsolicited":
        stranger = pb.BotMessage(answer=pb.Answer(request_id=10**9, card=1))
        return [honest.SerializeToString(), stranger.SerializeToString()]
    elif MODE == "bad-card":
        bad = pb.Answer(request_id=request.request_id, card=105)
        if request.decision == pb.DECISION_ROW:
            return [honest.SerializeToString()]
        return [pb.BotMessage(answer=bad).SerializeToString()]
    elif MODE == "bad-row" and request.decision == pb.DECISION_ROW:
        bad = pb.Answer(request_id=request.request_id, row=7)
        return [pb.BotMessage(answer=bad).SerializeToString()]
    elif MODE == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(1 << 24))
    return [honest.SerializeToString()]


def varint(value: int) -> bytes:
    """Protobuf's base-128 encoding of a number."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def flood() -> None:
    line = b"flood " * 1000 + b"\n"
    for _ in range(2000):  # 12 MB on each stream
        os.write(1, line)
        os.write(2, line)


def spawn_survivors() -> None:
    """Children that try to outlive the bot: one in its group, one that leaves it (setsid)."""
    pids = Path("survivors.txt")
    keep = [sys.executable, "-c", "import signal, time; signal.signal(15, 1); time.sleep(3600)"]
    child = subprocess.Popen(keep)
    escaper = subprocess.Popen(keep, start_new_session=True)
    with pids.open("a") as out:
        out.write(f"{child.pid}\n{escaper.pid}\n")


def main() -> None:
    if MODE == "never-connect":
        time.sleep(FOREVER)
    if MODE == "flood":
        flood()
    if MODE == "fork":
        spawn_survivors()
    outbox: Queue[bytes | None] = Queue()
    outbox.put(hello().SerializeToString())

    def outgoing() -> Iterator[bytes]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(ADDRESS) as channel:
        play = channel.stream_stream(
            "/sixnimmt.v1.Arena/Play",
            request_serializer=lambda raw: raw,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        if MODE == "connect-twice":  # a second stream with its own token, beside the first
            second: Queue[bytes | None] = Queue()
            second.put(hello().SerializeToString())
            threading.Thread(target=lambda: list(play(iter(second.get, None))), daemon=True).start()
        for message in play(outgoing()):
            if message.WhichOneof("kind") != "request":
                continue
            if MODE == "close":  # end its side of the stream, and linger
                outbox.put(None)
                time.sleep(FOREVER)
            for raw in answers(message.request):
                outbox.put(raw)


if __name__ == "__main__":
    try:
        main()
    except grpc.RpcError as error:
        sys.exit(f"refused: {error.code().name}: {error.details()}")
