"""The Python bot SDK against a scripted arena: a small gRPC server in the test that sends a fixed
sequence of messages and records what the bot sends back."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent import futures
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.players import FaultKind
from arena.protocol import PROTOCOL_VERSION, convert, pb, request_message, rpc
from arena.rules import Decision, Settings, TurnRecord, Variant, View
from arena.sdk import Bot, run, time_left
from arena.sdk.client import EVENT_HOOKS, play, wants_events
from tests.protocol.games import play as play_locally

STANDARD = play_locally(Settings(players=3), seed=2)
DRAFT = play_locally(Settings(players=3, variant=Variant.PROFESSIONAL_DRAFT, max_rounds=1), 2)


def first_view(asked: tuple[tuple[Decision, View], ...], decision: Decision) -> View:
    return next(view for kind, view in asked if kind is decision)


CARD_VIEW = next(  # late in a round: every field of the view holds something
    view for kind, view in STANDARD.asked if kind is Decision.CARD and any(view.taken)
)
ROW_VIEW = first_view(STANDARD.asked, Decision.ROW)
DRAFT_VIEW = first_view(DRAFT.asked, Decision.DRAFT)
TURN = STANDARD.record.rounds[0].turns[0]
LIMIT = 30.0
"""Seconds after which a test gives up on an SDK that hangs, instead of hanging itself."""
EPSILON = 1e-6
"""Rounding of the float sums in `Left`; any real mistake is seconds off."""


@dataclass(frozen=True)
class Left:
    """One reading of `time_left()`, with the `time.monotonic` clock (the SDK's) read on either
    side of it: together they pin the instant the request falls due, however loaded the machine,
    so that tests check deadlines without measuring how long anything took."""

    before: float
    seconds: float
    after: float

    @classmethod
    def now(cls) -> Left:
        """`time_left()` now, in the request being answered."""
        before = time.monotonic()
        seconds = time_left()
        return cls(before, seconds, time.monotonic())

    def due(self) -> tuple[float, float]:
        """The earliest and latest instant the request can fall due, given this reading."""
        return self.before + self.seconds, self.after + self.seconds

    def is_deadline_of(self, seconds: float, sent: float) -> bool:
        """Whether the deadline counted down is that of a request of `seconds` sent after the
        instant `sent`: due between `sent + seconds` and this reading's start plus `seconds`
        (the request came before the bot was asked)."""
        earliest, latest = self.due()
        return sent + seconds <= latest + EPSILON and earliest <= self.before + seconds + EPSILON


def welcome() -> pb.ArenaMessage:
    return pb.ArenaMessage(welcome=pb.Welcome(protocol_version=1, bot_name="me", arena_version="t"))


def request(request_id: int, game_id: str, decision: Decision, view: View) -> pb.ArenaMessage:
    return request_message(request_id, game_id, decision, 1000, view)


class ScriptedArena(rpc.ArenaServicer):  # type: ignore[misc]
    """Sends a welcome and `script`, reads `answers` answers, then ends the stream (status OK)."""

    def __init__(self, script: list[pb.ArenaMessage], answers: int) -> None:
        self.script = script
        self.expected = answers
        self.hello: pb.Hello | None = None
        self.answers: list[pb.Answer] = []

    async def Play(
        self, requests: AsyncIterator[pb.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ArenaMessage]:
        self.hello = (await anext(requests)).hello
        yield welcome()
        for message in self.script:
            yield message
        while len(self.answers) < self.expected:
            message = await anext(requests)
            assert message.WhichOneof("kind") == "answer"
            self.answers.append(message.answer)


@asynccontextmanager
async def scripted(arena: rpc.ArenaServicer) -> AsyncIterator[str]:
    """The scripted arena serving on a free loopback port; its address."""
    server = grpc.aio.server()
    rpc.add_ArenaServicer_to_server(arena, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


def serve(bot: Bot, arena: ScriptedArena) -> None:
    """Run `bot` with the SDK against `arena` until the arena ends the stream."""

    async def scenario() -> None:
        async with scripted(arena) as address:
            await asyncio.wait_for(play(bot, address, "the-token", "recorder", "1.2"), LIMIT)

    asyncio.run(scenario())


class Recorder(Bot):
    """Answers from the view and notes every call, with async and plain methods mixed."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def choose_card(self, view: View) -> int:
        await asyncio.sleep(0)
        self.calls.append(("card", view))
        return view.hand[-1]

    def choose_row(self, view: View) -> int:
        self.calls.append(("row", view))
        return 0  # row 0: the answer must still say it is a row

    async def choose_draft(self, view: View) -> int:
        self.calls.append(("draft", view))
        return view.table[-1]

    def on_game_start(
        self, game_id: str, seat: int, settings: Settings, players: list[str]
    ) -> None:
        self.calls.append(("start", game_id, seat, settings, players))

    def on_turn(self, game_id: str, round: int, turn: int, record: TurnRecord) -> None:
        self.calls.append(("turn", game_id, round, turn, record))

    def on_round_end(
        self, game_id: str, round: int, penalties: list[int], totals: list[int]
    ) -> None:
        self.calls.append(("round", game_id, round, penalties, totals))

    def on_game_end(self, game_id: str, totals: list[int], winners: list[int]) -> None:
        self.calls.append(("end", game_id, totals, winners))

    def on_fault(self, game_id: str, kind: str, message: str) -> None:
        self.calls.append(("fault", game_id, kind, message))


@pytest.mark.integration
def test_the_sdk_says_hello_answers_each_kind_of_request_and_relays_every_event() -> None:
    settings = Settings(players=3)
    script = [
        pb.ArenaMessage(
            game_started=convert.game_started_to_proto("g1", 1, settings, ["a", "me", "c"])
        ),
        request(11, "g1", Decision.CARD, CARD_VIEW),
        request(12, "g1", Decision.ROW, ROW_VIEW),
        request(13, "g2", Decision.DRAFT, DRAFT_VIEW),
        pb.ArenaMessage(turn_revealed=convert.turn_to_proto("g1", 0, 4, TURN)),
        pb.ArenaMessage(
            round_ended=convert.round_ended_to_proto("g1", 0, STANDARD.record.rounds[0], (30, 2, 7))
        ),
        pb.ArenaMessage(game_ended=convert.game_ended_to_proto("g1", (70, 12, 9), (2,))),
        pb.ArenaMessage(
            fault=pb.FaultNotice(
                game_id="g1", request_id=11, kind=pb.FAULT_KIND_ILLEGAL, message="not in hand"
            )
        ),
    ]
    arena = ScriptedArena(script, answers=3)
    bot = Recorder()
    serve(bot, arena)

    assert arena.hello == pb.Hello(
        token="the-token", name="recorder", version="1.2", protocol_version=PROTOCOL_VERSION
    )
    answers = {answer.request_id: answer for answer in arena.answers}
    assert set(answers) == {11, 12, 13}
    assert answers[11].WhichOneof("choice") == "card"
    assert answers[11].card == CARD_VIEW.hand[-1]
    assert answers[12].WhichOneof("choice") == "row"
    assert answers[12].row == 0
    assert answers[13].WhichOneof("choice") == "card"
    assert answers[13].card == DRAFT_VIEW.table[-1]

    # The bot saw plain Python objects, equal to what the arena meant, every field included.
    assert CARD_VIEW.start_rows and any(CARD_VIEW.taken) and CARD_VIEW.names[1] == "bot-2-1"
    decisions = [call for call in bot.calls if call[0] in ("card", "row", "draft")]
    assert sorted(decisions, key=lambda call: call[0]) == [
        ("card", CARD_VIEW),
        ("draft", DRAFT_VIEW),
        ("row", ROW_VIEW),
    ]
    events = [call for call in bot.calls if call[0] not in ("card", "row", "draft")]
    assert events == [
        ("start", "g1", 1, settings, ["a", "me", "c"]),
        ("turn", "g1", 0, 4, TURN),
        ("round", "g1", 0, list(STANDARD.record.rounds[0].penalties), [30, 2, 7]),
        ("end", "g1", [70, 12, 9], [2]),
        ("fault", "g1", FaultKind.ILLEGAL, "not in hand"),
    ]
    start, turn = events[0], events[1]
    assert type(start[3]) is Settings and type(start[4]) is list
    assert type(turn[4]) is TurnRecord
    assert events[-1][2] == "illegal"  # a plain string to print or compare


@pytest.mark.integration
def test_answers_go_out_as_they_are_ready_not_in_the_order_asked() -> None:
    class Slow(Bot):
        """Answers game A (seat 0) only after it has answered game B (seat 1)."""

        def __init__(self) -> None:
            self.b_answered = asyncio.Event()

        async def choose_card(self, view: View) -> int:
            if view.seat == 0:
                await self.b_answered.wait()
            else:
                self.b_answered.set()
            return view.hand[0]

    a = CARD_VIEW
    b = replace(a, seat=1)
    arena = ScriptedArena(
        [request(1, "game-a", Decision.CARD, a), request(2, "game-b", Decision.CARD, b)], 2
    )
    serve(Slow(), arena)
    assert [answer.request_id for answer in arena.answers] == [2, 1]


@pytest.mark.integration
def test_a_decision_that_raises_is_reported_and_the_bot_serves_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Flaky(Bot):
        def choose_card(self, view: View) -> int:
            if view.seat == CARD_VIEW.seat:
                raise RuntimeError("my bug")
            return view.hand[0]

    other = replace(CARD_VIEW, seat=2)
    arena = ScriptedArena(
        [request(1, "g", Decision.CARD, CARD_VIEW), request(2, "g", Decision.CARD, other)], 1
    )
    serve(Flaky(), arena)
    assert [answer.request_id for answer in arena.answers] == [2]
    err = capsys.readouterr().err
    assert "request 1" in err and "RuntimeError: my bug" in err


@pytest.mark.integration
def test_a_notice_of_a_fault_kind_the_sdk_does_not_know_reaches_the_bot() -> None:
    """A newer arena may send a newer kind; the bot must not die of it."""
    notice = pb.FaultNotice(game_id="g", kind=99, message="a new kind of fault")  # type: ignore[arg-type]
    arena = ScriptedArena(
        [pb.ArenaMessage(fault=notice), request(1, "g", Decision.CARD, CARD_VIEW)], 1
    )
    bot = Recorder()
    serve(bot, arena)
    assert ("fault", "g", "99", "a new kind of fault") in bot.calls
    assert [answer.request_id for answer in arena.answers] == [1]


class Stateless(Bot):
    """Overrides no event hook: it asks for no events, and still hears of its faults."""

    def __init__(self) -> None:
        self.faults: list[tuple[str, str, str]] = []

    def choose_card(self, view: View) -> int:
        return view.hand[0]

    def on_fault(self, game_id: str, kind: str, message: str) -> None:
        self.faults.append((game_id, kind, message))


def test_a_bot_is_sent_events_iff_it_overrides_an_event_hook() -> None:
    assert wants_events(Recorder())
    assert not wants_events(Stateless())  # on_fault does not count: notices always come
    for hook in EVENT_HOOKS:
        one = type("One", (Stateless,), {hook: lambda self, *args: None})
        assert wants_events(one()), hook
        assert not wants_events(type("Sub", (Stateless,), {})())


@pytest.mark.integration
@pytest.mark.parametrize("bot_class", [Stateless, Recorder])
def test_the_hello_says_whether_the_bot_skips_events_and_fault_notices_still_reach_it(
    bot_class: type[Stateless | Recorder],
) -> None:
    notice = pb.FaultNotice(game_id="g", request_id=1, kind=pb.FAULT_KIND_TIMEOUT, message="late")
    arena = ScriptedArena(
        [request(1, "g", Decision.CARD, CARD_VIEW), pb.ArenaMessage(fault=notice)], 1
    )
    bot = bot_class()
    serve(bot, arena)
    assert arena.hello is not None
    assert arena.hello.skip_events is (bot_class is Stateless)
    assert [answer.request_id for answer in arena.answers] == [1]
    if isinstance(bot, Stateless):
        assert bot.faults == [("g", "timeout", "late")]
    else:
        assert ("fault", "g", "timeout", "late") in bot.calls


@pytest.mark.integration
def test_a_plain_method_is_answered_at_once_and_sees_its_deadline() -> None:
    class Plain(Bot):
        def __init__(self) -> None:
            self.left: list[Left] = []

        def choose_card(self, view: View) -> int:
            self.left.append(Left.now())
            return view.hand[0]

    script = [request_message(1, "g", Decision.CARD, 2_000, CARD_VIEW)]
    bot = Plain()
    sent = time.monotonic()
    serve(bot, ScriptedArena(script, answers=1))
    assert len(bot.left) == 1 and bot.left[0].is_deadline_of(2.0, sent)
    assert time_left() == math.inf  # the deadline belonged to the request alone


# -- run: the entry point, with the arena in another thread --------------------------------


class ThreadedArena(rpc.ArenaServicer):  # type: ignore[misc]
    """A synchronous arena that welcomes the bot and ends the stream, or refuses the bot."""

    def __init__(self, refuse: tuple[grpc.StatusCode, str] | None = None) -> None:
        self.refuse = refuse
        self.tokens: list[str] = []

    def Play(
        self, requests: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.ArenaMessage]:
        self.tokens.append(next(requests).hello.token)
        if self.refuse is not None:
            context.abort(*self.refuse)
        yield welcome()


@contextmanager
def threaded(arena: ThreadedArena) -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    rpc.add_ArenaServicer_to_server(arena, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None).wait()


def run_in_thread(argv: list[str]) -> BaseException | None:
    """Call `run` as a bot's main would, in a thread so a test cannot hang on it."""
    outcome: list[BaseException | None] = []

    def main() -> None:
        try:
            run(Bot(), name="t", argv=argv)
            outcome.append(None)
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    thread.join(LIMIT)
    assert outcome, "run did not return"
    return outcome[0]


@pytest.fixture
def no_arena_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_ADDRESS", raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)


@pytest.mark.usefixtures("no_arena_in_env")
def test_run_without_an_arena_exits_with_one_line_saying_what_to_set() -> None:
    with pytest.raises(SystemExit) as exit:
        run(Bot(), argv=[])
    message = exit.value.code
    assert isinstance(message, str) and "\n" not in message
    assert "ARENA_ADDRESS" in message and "ARENA_TOKEN" in message


@pytest.mark.integration
def test_run_reads_the_environment_and_returns_when_the_arena_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arena = ThreadedArena()
    with threaded(arena) as address:
        monkeypatch.setenv("ARENA_ADDRESS", address)
        monkeypatch.setenv("ARENA_TOKEN", "from-env")
        assert run_in_thread([]) is None
    assert arena.tokens == ["from-env"]


@pytest.mark.integration
@pytest.mark.usefixtures("no_arena_in_env")
def test_run_takes_flags_instead_of_the_environment() -> None:
    arena = ThreadedArena()
    with threaded(arena) as address:
        assert run_in_thread(["--address", address, "--token", "from-flag"]) is None
    assert arena.tokens == ["from-flag"]


@pytest.mark.integration
@pytest.mark.usefixtures("no_arena_in_env")
def test_run_refused_by_the_arena_exits_with_its_status_and_reason() -> None:
    refusal = (grpc.StatusCode.UNAUTHENTICATED, "unknown token: use the ARENA_TOKEN ...")
    with threaded(ThreadedArena(refuse=refusal)) as address:
        error = run_in_thread(["--address", address, "--token", "wrong"])
    assert isinstance(error, SystemExit)
    message = error.code
    assert isinstance(message, str) and "\n" not in message
    assert "UNAUTHENTICATED" in message and "unknown token" in message


@pytest.mark.usefixtures("no_arena_in_env")
def test_run_with_no_arena_listening_exits_naming_the_address(tmp_path: Path) -> None:
    address = f"unix:{tmp_path}/nobody-listens.sock"
    error = run_in_thread(["--address", address, "--token", "t"])
    assert isinstance(error, SystemExit)
    message = error.code
    assert isinstance(message, str) and "\n" not in message
    assert f"the arena at {address} is unavailable" in message
