"""Unit tests of one connection's request/answer matching, without a server: the outbox stands
in for the stream, `receive` for the bot's answers."""

from __future__ import annotations

import asyncio

import pytest

from arena.players import FaultKind, PlayerFault
from arena.protocol import pb
from arena.rules import Decision, Settings, View
from arena.server.connection import Connection

VIEW = View(
    settings=Settings(players=2),
    seat=1,
    round=0,
    turn=0,
    hand=(3, 17, 40),
    rows=((5,), (22,), (61,), (90,)),
    penalties=(0, 0),
    totals=(0, 0),
    played=(),
)
SHORT = 0.05
"""A deadline for requests meant to time out: nothing here depends on how long it really took."""
LONG = 30.0
"""A deadline for requests that are answered: never reached."""


async def next_request(connection: Connection) -> pb.Request:
    message = await connection.outbox.get()
    assert message is not None and message.WhichOneof("kind") == "request"
    request: pb.Request = message.request
    return request


async def answered(
    connection: Connection, answers: list[pb.Answer], decision: Decision = Decision.CARD
) -> int:
    """Ask one question and answer it with `answers` in turn (the last one matching it)."""
    asking = asyncio.create_task(connection.ask("g", decision, VIEW, LONG))
    request = await next_request(connection)
    for answer in answers:
        if answer.request_id == 0:
            answer.request_id = request.request_id
        connection.receive(answer)
    return await asking


async def timed_out(connection: Connection) -> PlayerFault:
    """Ask one question that gets no answer, and take its request off the outbox."""
    with pytest.raises(PlayerFault) as fault:
        await connection.ask("g", Decision.CARD, VIEW, SHORT)
    await next_request(connection)
    return fault.value


def test_a_request_carries_its_id_game_deadline_and_view_and_its_answer_is_returned() -> None:
    async def scenario() -> tuple[pb.Request, int]:
        connection = Connection("bot")
        asking = asyncio.create_task(connection.ask("game-1", Decision.CARD, VIEW, 1.5))
        request = await next_request(connection)
        connection.receive(pb.Answer(request_id=request.request_id, card=17))
        return request, await asking

    request, card = asyncio.run(scenario())
    assert card == 17
    assert request.request_id != 0
    assert request.game_id == "game-1"
    assert request.decision == pb.DECISION_CARD
    assert request.deadline_ms == 1500
    assert list(request.view.hand) == [3, 17, 40]


def test_request_ids_are_never_reused() -> None:
    async def scenario() -> list[int]:
        connection = Connection("bot")
        ids = []
        for _ in range(5):
            asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG))
            request = await next_request(connection)
            ids.append(request.request_id)
            connection.receive(pb.Answer(request_id=request.request_id, card=3))
            await asking
        return ids

    ids = asyncio.run(scenario())
    assert len(set(ids)) == 5 and 0 not in ids


def test_no_answer_in_time_is_a_timeout_naming_the_request() -> None:
    async def scenario() -> PlayerFault:
        return await timed_out(Connection("bot"))

    fault = asyncio.run(scenario())
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message == "no answer to request 1 (card) within 0.05 s"


def test_a_late_answer_is_discarded_and_never_applied_to_a_later_request() -> None:
    async def scenario() -> tuple[int, int]:
        connection = Connection("bot")
        await timed_out(connection)  # request 1
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG))
        request = await next_request(connection)
        connection.receive(pb.Answer(request_id=1, card=40))  # request 1's late answer
        connection.receive(pb.Answer(request_id=request.request_id, card=3))
        return await asking, connection.strays

    card, strays = asyncio.run(scenario())
    assert card == 3
    assert strays == 1


def test_a_request_that_times_out_while_an_earlier_late_answer_comes_is_still_a_timeout() -> None:
    async def scenario() -> PlayerFault:
        connection = Connection("bot")
        await timed_out(connection)  # request 1
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, SHORT))
        await next_request(connection)
        connection.receive(pb.Answer(request_id=1, card=40))  # late, but honest
        with pytest.raises(PlayerFault) as fault:
            await asking
        return fault.value

    fault = asyncio.run(scenario())
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message == "no answer to request 2 (card) within 0.05 s"


def test_answers_under_ids_never_sent_make_the_unanswered_request_malformed() -> None:
    async def scenario() -> PlayerFault:
        connection = Connection("bot")
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, SHORT))
        request = await next_request(connection)
        connection.receive(pb.Answer(request_id=request.request_id + 1000, card=17))
        with pytest.raises(PlayerFault) as fault:
            await asking
        return fault.value

    fault = asyncio.run(scenario())
    assert fault.kind is FaultKind.MALFORMED
    assert "no answer to request 1 (card)" in fault.message
    assert "an answer to request 1001" in fault.message


def test_a_repeated_answer_is_a_stray_too() -> None:
    async def scenario() -> PlayerFault:
        connection = Connection("bot")
        await answered(connection, [pb.Answer(card=3)])  # request 1
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, SHORT))
        await next_request(connection)
        connection.receive(pb.Answer(request_id=1, card=17))  # request 1 again, not 2
        with pytest.raises(PlayerFault) as fault:
            await asking
        return fault.value

    fault = asyncio.run(scenario())
    assert fault.kind is FaultKind.MALFORMED
    assert "an answer to request 1" in fault.message


@pytest.mark.parametrize(
    ("decision", "answer", "words"),
    [
        (Decision.CARD, pb.Answer(row=2), "not 'row'"),
        (Decision.ROW, pb.Answer(card=17), "not 'card'"),
        (Decision.DRAFT, pb.Answer(), "not None"),
    ],
)
def test_an_answer_of_the_wrong_kind_is_malformed(
    decision: Decision, answer: pb.Answer, words: str
) -> None:
    async def scenario() -> PlayerFault:
        connection = Connection("bot")
        with pytest.raises(PlayerFault) as fault:
            await answered(connection, [answer], decision)
        return fault.value

    fault = asyncio.run(scenario())
    assert fault.kind is FaultKind.MALFORMED
    assert fault.message.startswith("request 1: ")
    assert words in fault.message


def test_row_zero_is_an_answer() -> None:
    assert asyncio.run(answered(Connection("bot"), [pb.Answer(row=0)], Decision.ROW)) == 0


def test_a_stream_that_ends_fails_the_open_request_as_a_crash_and_every_later_one() -> None:
    async def scenario() -> tuple[PlayerFault, PlayerFault, pb.ArenaMessage | None]:
        connection = Connection("bot")
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG))
        await next_request(connection)
        connection.close("the bot exited with status 3")
        with pytest.raises(PlayerFault) as open_fault:
            await asking
        with pytest.raises(PlayerFault) as later:
            await connection.ask("g", Decision.CARD, VIEW, LONG)
        connection.send(pb.ArenaMessage(game_ended=pb.GameEnded(game_id="g")))  # dropped
        return open_fault.value, later.value, await connection.outbox.get()

    open_fault, later, end = asyncio.run(scenario())
    assert open_fault.kind is FaultKind.CRASHED
    assert open_fault.message == "request 1 unanswered: the bot exited with status 3"
    assert later.kind is FaultKind.CRASHED
    assert "the bot exited with status 3" in later.message
    assert end is None  # the writer's signal to end the stream, and nothing after it


class Stream:
    """The stream's writing side as the service hands it to the pump: every message written,
    in order, with the task that wrote it; `hold` keeps a write from finishing until set."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str]] = []
        self.finished = 0
        self.hold: asyncio.Event | None = None

    async def write(self, message: pb.ArenaMessage) -> None:
        task = asyncio.current_task()
        self.written.append((message.WhichOneof("kind"), task.get_name() if task else ""))
        if self.hold is not None:
            await self.hold.wait()
        self.finished += 1


async def pumping(connection: Connection, stream: Stream) -> asyncio.Task[None]:
    pump = asyncio.create_task(connection.pump(stream.write), name="pump")
    await asyncio.sleep(0)  # the pump is waiting on the outbox
    return pump


async def written(stream: Stream, count: int) -> None:
    while len(stream.written) < count:
        await asyncio.sleep(0)


def test_every_message_is_written_by_the_streams_own_task_in_the_order_sent() -> None:
    async def scenario() -> tuple[list[tuple[str, str]], int]:
        connection, stream = Connection("bot"), Stream()
        pump = await pumping(connection, stream)
        connection.send(pb.ArenaMessage(game_ended=pb.GameEnded(game_id="g")))
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG), name="asker")
        await written(stream, 2)
        connection.receive(pb.Answer(request_id=1, card=17))
        card = await asking
        connection.close("done")
        await pump
        return stream.written, card

    written_by, card = asyncio.run(scenario())
    assert written_by == [("game_ended", "pump"), ("request", "pump")]
    assert card == 17


def test_a_cancelled_asker_leaves_the_write_whole_and_its_late_answer_harmless() -> None:
    """A game may be cancelled while its request is being written (an executor stopping early)
    and its bot's process serve another game: gRPC cannot write again on a stream whose write
    was cancelled halfway, and the answer that still comes is no breach of the protocol."""

    async def scenario() -> tuple[int, int, int, int]:
        connection, stream = Connection("bot"), Stream()
        stream.hold = asyncio.Event()
        pump = await pumping(connection, stream)
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG))
        await written(stream, 1)  # the write has begun, and does not finish yet
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        stream.hold.set()
        connection.receive(pb.Answer(request_id=1, card=17))  # the cancelled request's answer
        asking = asyncio.create_task(connection.ask("g", Decision.CARD, VIEW, LONG))
        await written(stream, 2)
        connection.receive(pb.Answer(request_id=2, card=40))
        card = await asking
        connection.close("done")
        await pump
        return stream.finished, len(stream.written), card, connection.strays

    finished, writes, card, strays = asyncio.run(scenario())
    assert finished == writes == 2
    assert card == 40  # no fault for the late answer, and the stream still writes
    assert strays == 1


def test_a_deadline_counts_from_the_write_however_long_the_request_waited_to_be_written() -> None:
    async def scenario() -> tuple[int, float]:
        connection, stream = Connection("bot"), Stream()
        stream.hold = asyncio.Event()
        pump = await pumping(connection, stream)
        connection.send(pb.ArenaMessage(game_ended=pb.GameEnded(game_id="g")))
        await written(stream, 1)  # a message the bot does not read holds up the stream
        asking = asyncio.create_task(
            connection.answer_timed(connection.request("g", Decision.CARD, VIEW, 0.2))
        )
        await asyncio.sleep(0.3)  # longer than the deadline, all of it before the write
        stream.hold.set()
        await written(stream, 2)
        connection.receive(pb.Answer(request_id=1, card=3))
        answer = await asking
        connection.close("done")
        await pump
        return answer

    card, took = asyncio.run(scenario())
    assert card == 3
    assert took < 0.2
