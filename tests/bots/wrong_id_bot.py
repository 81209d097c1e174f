"""Answers under the wrong request id, written on raw gRPC (the SDK always gets the id right).

It plays its highest card and takes the cheapest row, but answers the card request of turn 2
of the first round with request_id + 1000. It prints every fault notice with its request id.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import grpc

from arena.protocol import PROTOCOL_VERSION, pb, rpc
from arena.sdk import cheapest_row

OFFSET = 1000


def answer(request: pb.Request) -> pb.Answer:
    view = request.view
    if request.decision == pb.DECISION_ROW:
        rows = tuple(tuple(row.cards) for row in view.rows)
        return pb.Answer(request_id=request.request_id, row=cheapest_row(rows))
    request_id = request.request_id
    if (view.round, view.turn) == (0, 2):
        request_id += OFFSET
        print(f"answering request {request.request_id} as {request_id}", flush=True)
    return pb.Answer(request_id=request_id, card=view.hand[-1])


async def main() -> None:
    outbox: asyncio.Queue[pb.BotMessage] = asyncio.Queue()
    hello = pb.Hello(
        token=os.environ["ARENA_TOKEN"], name="wrong-id", protocol_version=PROTOCOL_VERSION
    )
    outbox.put_nowait(pb.BotMessage(hello=hello))

    async def outgoing() -> AsyncIterator[pb.BotMessage]:
        while True:
            yield await outbox.get()

    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        async for message in rpc.ArenaStub(channel).Play(outgoing()):
            kind = message.WhichOneof("kind")
            if kind == "request":
                outbox.put_nowait(pb.BotMessage(answer=answer(message.request)))
            elif kind == "fault":
                fault = message.fault
                kind_name = pb.FaultKind.Name(fault.kind)
                print(f"notice about request {fault.request_id}: {kind_name}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
