"""The line-protocol bridge: lets a plain program that reads and writes lines play in the arena.

    python -m arena.sdk.stdio [--name NAME] -- PROGRAM [ARGS...]

The arena runs this for a bot entered as `stdio:COMMAND`. The bridge starts the program, is a
gRPC client of the arena on its behalf (the SDK's own connection code: hello, token, stream),
and speaks JSON Lines to it:

- to the program's stdin, one line per message from the arena, the ArenaMessage in the protobuf
  JSON mapping with the .proto's field names, every field present: `{"request": {...}}` for a
  decision to make, `{"game_started": {...}}` and the other events for news (the Welcome is the
  bridge's own business and is not passed on);
- from the program's stdout, one line per answer, an Answer in the same mapping, e.g.
  `{"request_id": "7", "card": 42}`;
- the program's stderr goes where the bridge's goes: the bot's log.

Why a separate process, not code inside the arena: the bridge is then a bot like any other to
the arena (launched, timed, faulted, restarted and stopped by the same code), and an author can
run it by hand against an arena to debug. A line that is not an answer is logged with the reason
and, when it can be pinned to a request, answers that request with no choice, so the arena
records a MALFORMED fault at once rather than a TIMEOUT later. When the program exits, so does
the bridge (and the arena sees the bot crash); when the arena closes the stream, the bridge
closes the program's stdin and waits for it to exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format

from arena.protocol import ADDRESS_VARIABLE, TLS_CA_VARIABLE, TOKEN_VARIABLE, pb
from arena.sdk.client import (
    Endpoint,
    Stream,
    add_endpoint_options,
    connect,
    endpoint,
    run_connection,
)

EXIT_WAIT = 3.0
"""Seconds the program has to exit once its stdin is closed, before the bridge stops it."""
LINE_LIMIT = 1 << 16
"""The longest line read from the program; an answer is a few dozen bytes."""
SHOWN = 200
"""Characters of a bad line quoted in the log."""
_OPEN_LIMIT = 100
"""Unanswered requests remembered before the long-expired ones are forgotten."""
_HIDDEN_VARIABLES = (ADDRESS_VARIABLE, TOKEN_VARIABLE, TLS_CA_VARIABLE)
"""What the program does not inherit: it talks to the bridge, never to the arena itself."""


class AnswerError(ValueError):
    """A line from the program that is not an Answer; `request_id` when it names one anyway."""

    def __init__(self, reason: str, request_id: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.request_id = request_id


def encode(message: pb.ArenaMessage) -> str | None:
    """The JSON line the program is sent for `message`; None for what it is not sent (the
    Welcome, and kinds from a newer protocol that this bridge cannot spell)."""
    kind = message.WhichOneof("kind")
    if kind is None or kind == "welcome":
        return None
    fields = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return json.dumps(fields, separators=(",", ":"))


def decode(line: str) -> pb.Answer:
    """The Answer a line from the program holds; AnswerError saying what is wrong with it."""
    try:
        value = json.loads(line)
    except ValueError:
        raise AnswerError("not JSON") from None
    if not isinstance(value, dict):
        raise AnswerError(f"a JSON {type(value).__name__}, not an object") from None
    try:
        answer: pb.Answer = json_format.ParseDict(value, pb.Answer())
    except json_format.ParseError as error:
        raise AnswerError(str(error).splitlines()[0], _request_id(value)) from None
    return answer


def _request_id(value: dict[str, object]) -> int | None:
    """The request id a malformed answer names, if it names one clearly."""
    raw = value.get("request_id", value.get("requestId"))
    try:
        return int(raw) if isinstance(raw, int | str) else None
    except ValueError:
        return None


class _Open:
    """The requests the program was sent and has not answered, oldest first, with deadlines."""

    def __init__(self) -> None:
        self._due: dict[int, float] = {}

    def add(self, request: pb.Request) -> None:
        now = time.monotonic()
        if len(self._due) > _OPEN_LIMIT:  # requests long past their deadline are over
            self._due = {rid: due for rid, due in self._due.items() if due > now - 60}
        self._due[request.request_id] = now + request.deadline_ms / 1000

    def discard(self, request_id: int) -> None:
        self._due.pop(request_id, None)

    def culprit(self, named: int | None) -> int | None:
        """The request a bad line is taken to answer: the one it names if open, else the only
        one still inside its deadline; None when that is not clear."""
        if named is not None and named in self._due:
            return named
        now = time.monotonic()
        live = [request_id for request_id, due in self._due.items() if due > now]
        return live[0] if len(live) == 1 else None


def _log(message: str) -> None:
    print(f"[arena bridge] {message}", file=sys.stderr, flush=True)


async def _to_program(stream: Stream, stdin: asyncio.StreamWriter, open_: _Open) -> None:
    """Pass the arena's messages on as lines until the arena closes the stream."""
    async for message in stream:
        kind = message.WhichOneof("kind")
        if kind == "request":
            open_.add(message.request)
        elif kind == "fault" and message.fault.request_id:
            open_.discard(message.fault.request_id)  # it was decided for the program
        line = encode(message)
        if line is None:
            continue
        stdin.write(line.encode() + b"\n")
        await stdin.drain()


async def _from_program(stdout: asyncio.StreamReader, stream: Stream, open_: _Open) -> None:
    """Pass the program's answers on until it closes its stdout; report lines that are not."""
    number = 0
    while True:
        try:
            raw = await stdout.readline()
        except ValueError:  # longer than LINE_LIMIT: the reader dropped it
            number += 1
            await _bad(stream, open_, number, "<a line over 64 KiB>", AnswerError("far too long"))
            continue
        if not raw:
            return
        number += 1
        line = raw.decode(errors="replace").strip()
        if not line:
            continue
        try:
            answer = decode(line)
        except AnswerError as error:
            await _bad(stream, open_, number, line, error)
            continue
        open_.discard(answer.request_id)
        await stream.send(answer)


async def _bad(stream: Stream, open_: _Open, number: int, line: str, error: AnswerError) -> None:
    """Log a line that is not an answer and fail the request it was meant for, if that is clear."""
    shown = line if len(line) <= SHOWN else line[:SHOWN] + "..."
    culprit = open_.culprit(error.request_id)
    consequence = (
        f"request {culprit} is answered as malformed"
        if culprit is not None
        else "it answers no request"
    )
    _log(
        f"line {number} of the program's output is not an answer ({error.reason}); "
        f"{consequence}. Write one JSON object a line, such as "
        f'{{"request_id": "7", "card": 42}}, and print anything else to stderr: {shown!r}'
    )
    if culprit is not None:
        open_.discard(culprit)
        await stream.send(pb.Answer(request_id=culprit))  # no choice: a MALFORMED fault, now


async def bridge(argv: Sequence[str], where: Endpoint, name: str) -> int:
    """Run the program behind one connection to the arena; the exit status for the bridge."""
    env = {key: value for key, value in os.environ.items() if key not in _HIDDEN_VARIABLES}
    try:
        program = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            limit=LINE_LIMIT,
        )
    except OSError as error:
        _log(f"cannot start {argv[0]!r}: {error.strerror}")
        return 127
    assert program.stdin is not None and program.stdout is not None
    open_ = _Open()
    arena_done = False
    try:
        async with connect(where.address, where.token, name, tls_ca=where.tls_ca) as stream:
            inbound = asyncio.create_task(_to_program(stream, program.stdin, open_))
            outbound = asyncio.create_task(_from_program(program.stdout, stream, open_))
            await asyncio.wait((inbound, outbound), return_when=asyncio.FIRST_COMPLETED)
            outbound.cancel()
            if inbound.done() and not _broken_pipe(inbound):
                arena_done = True
                inbound.result()  # the arena's error status, if it ended the stream with one
            inbound.cancel()
    finally:
        status = await _finish(program, arena_done)
    return status


def _broken_pipe(task: asyncio.Task[None]) -> bool:
    """Whether the task stopped because the program no longer reads its stdin (it is exiting)."""
    error = task.exception()
    return isinstance(error, BrokenPipeError | ConnectionResetError)


async def _finish(program: asyncio.subprocess.Process, arena_done: bool) -> int:
    """Close the program's stdin, give it EXIT_WAIT seconds to exit, and report how it ended.

    The status is the program's own (128 + N when killed by signal N); a program that exits
    while the arena still plays with it exits the bridge with 1 at least, since it crashed.
    """
    assert program.stdin is not None
    with contextlib.suppress(OSError):
        program.stdin.close()
    try:
        status = await asyncio.wait_for(program.wait(), EXIT_WAIT)
    except TimeoutError:
        _log(f"the program did not exit within {EXIT_WAIT:g} s of its input ending; stopping it")
        program.kill()
        await program.wait()
        return 1
    finally:
        if program.returncode is None:  # cancelled (the bridge is being stopped): take it along
            program.kill()
    code = 128 - status if status < 0 else status
    if arena_done:
        if status:
            _log(f"the program exited with status {_describe(status)} at the end of its input")
        return code
    _log(f"the program exited with status {_describe(status)} while the arena played with it")
    return code or 1


def _describe(status: int) -> str:
    if status >= 0:
        return str(status)
    try:
        return f"{status} (killed by {signal.Signals(-status).name})"
    except ValueError:
        return str(status)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and bridge until the arena is done; exits with the bridge's status."""
    parser = argparse.ArgumentParser(
        prog="python -m arena.sdk.stdio",
        description="Run a line-protocol 6 nimmt! bot (JSON Lines on stdin/stdout) in the arena.",
    )
    add_endpoint_options(parser)
    parser.add_argument("--name", help="the bot's name for the arena's logs (default: the program)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    args = parser.parse_args(argv)
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not command:
        parser.error("name the program to run: python -m arena.sdk.stdio -- PROGRAM [ARGS...]")
    where = endpoint(args)
    status = 0

    async def serve() -> None:
        nonlocal status
        status = await bridge(command, where, args.name or Path(command[0]).name)

    run_connection(serve(), where.address)
    sys.exit(status)


if __name__ == "__main__":
    main()
