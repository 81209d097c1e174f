"""Says skip_events in its hello, then exits with status 3 at the first game event it is sent:
whoever honours skip_events (a tournament, check-bot) never sends it one."""

from __future__ import annotations

import argparse
import sys

from arena.players import fallback
from arena.protocol import convert
from arena.sdk.client import add_endpoint_options, connect, endpoint, run_connection

EVENTS = ("game_started", "turn_revealed", "round_ended", "game_ended")


async def serve(address: str, token: str) -> None:
    async with connect(address, token, "strict-skip", skip_events=True) as stream:
        async for message in stream:
            kind = message.WhichOneof("kind")
            if kind in EVENTS:
                print(f"sent a {kind} event despite skip_events", file=sys.stderr, flush=True)
                sys.exit(3)
            if kind == "request":
                request = message.request
                decision = convert.decision_from_proto(request.decision)
                choice = fallback(decision, convert.view_from_proto(request.view))
                await stream.send(convert.answer_to_proto(request.request_id, decision, choice))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    add_endpoint_options(parser)
    where = endpoint(parser.parse_args())
    run_connection(serve(where.address, where.token), where.address)
