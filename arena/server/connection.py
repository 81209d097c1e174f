"""One bot's open stream: requests out, answers matched back to them by id, events on the side.

Request ids are unique for the life of the connection, so a late answer can only match a request
that is already closed: it is noted and discarded, never applied to a later request. An answer
under an id that is neither open nor late (never sent, or already answered) is a stray: most likely
the bot got the request id wrong, so a request left unanswered meanwhile is malformed, not late.

The connection only measures a request's time, by the rules of `arena.server.clock`: from when
it was written to the bot's stream (`delivered`) to when its answer was read (`receive`). A late
answer that the arena itself was too busy to read is never a timeout: when the deadline comes,
answers that have arrived are read first, and if the arena's event loop only got round to the
deadline late (stalled by other games, the results database, or not scheduled at all), the
deadline is put off by as much, and that time is not the bot's. What the time costs (the bank it
draws on) is the seat's `Clock`'s.

Writing costs the arena more than anything else it does for a decision (a gRPC send is a
syscall that wakes the bot), so a decision's path is kept short: a request made while the
stream is idle is written by the task that asks it, which then sleeps until the answer or its
deadline, whichever comes first (one future, one timer). Everything else (events, notices,
requests behind them) goes through the outbox, which the service's task writes in order
(`pump`). Before this, every request woke the pump and then its asker twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from arena.players import FaultKind, PlayerFault
from arena.protocol import ProtocolError, answer_from_proto, pb, request_message
from arena.rules import Decision, View
from arena.server.clock import SETTLE, SETTLE_TURNS, STALL, UNWRITTEN_GRACE, WRITE_SLACK

Write = Callable[[pb.ArenaMessage], Awaitable[None]]
"""Writes one message to the bot's stream, returning once gRPC has taken it."""

STRAY_LIMIT = 50
"""Stray answers kept for fault messages; the rest are only counted."""
LATE_LIMIT = 1000
"""Timed-out request ids remembered, so that their late answers are not taken for strays."""


@dataclass
class _Open:
    decision: Decision
    deadline: float
    answer: asyncio.Future[pb.Answer]
    strays: list[str] = field(default_factory=list)
    bank: float = 0.0
    """Seconds of time bank the request may draw on past its deadline."""
    queued: float = 0.0
    """When it was put in the outbox (the loop's clock)."""
    sent: float | None = None
    """When it was written to the stream; None until then."""
    read: float | None = None
    """When its answer was read; None until then."""
    message: pb.ArenaMessage | None = None
    """The request, held for its asker to write (`answer_timed`) when the stream was idle as it
    was made; None once written or queued."""
    wake: asyncio.Future[bool] | None = None
    """While its asker waits: done when the answer comes, the request is written, or the stream
    ends (a timer ends the wait at the deadline)."""

    def rouse(self) -> None:
        """Wake the asker, if it waits."""
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(True)


class Connection:
    """A connected bot's stream, as the arena's side sees it."""

    def __init__(self, bot_name: str, skip_events: bool = False) -> None:
        self.bot_name = bot_name
        self.skip_events = skip_events
        """The bot said it keeps no state (Hello.skip_events): send it requests and fault notices
        only, never the game's events."""
        self.outbox: asyncio.Queue[pb.ArenaMessage | None] = asyncio.Queue()
        """Messages waiting for the stream: the pump writes them in order (`pump`)."""
        self._write: Write | None = None
        """The stream's writer, once the pump runs; without one the outbox is the stream."""
        self._writing = asyncio.Lock()
        """Held while a message is being written: one write at a time, in order."""
        self._held: _Open | None = None
        """The request held for its asker to write, if any (at most one)."""
        self.closed = asyncio.Event()
        self.close_reason = ""
        self.strays = 0
        """Answers that matched no open request (late, repeated, or to a request never sent)."""
        self._last_id = 0
        """The last request id sent; ids count up from 1, so any id up to it was sent."""
        self._open: dict[int, _Open] = {}
        self._late: set[int] = set()
        """Requests that timed out and whose answer has not come yet."""
        self._violations: list[str] = []
        """Protocol faults tied to no open request, charged at the bot's next decision."""

    async def ask(self, game_id: str, decision: Decision, view: View, deadline: float) -> int:
        """Send one request and wait up to `deadline` seconds for its answer (`request`, then
        `answer`)."""
        return await self.answer(self.request(game_id, decision, view, deadline))

    def request(
        self,
        game_id: str,
        decision: Decision,
        view: View,
        deadline: float,
        bank: float = 0.0,
        public: pb.View | None = None,
    ) -> int:
        """Send one request, answerable within `deadline` seconds (and `bank` seconds more of
        time bank) of being written to the stream; its request id. `public`: the view's public
        part, when the game has built it already (`convert.public_view`).

        When the stream is idle (nothing queued, nothing being written) the request is held for
        its asker, who writes it as it begins to wait (`answer_timed`): a decision then takes no
        turn of the pump's task, only the asker's. Anything sent meanwhile queues it first, so
        the bot reads every message in the order it was sent.

        Raises PlayerFault (CRASHED) when the stream has ended.
        """
        if self.closed.is_set():
            raise PlayerFault(FaultKind.CRASHED, f"not connected: {self.close_reason}")
        if self._violations:  # the fallback takes this decision, and the fault is on record
            raise PlayerFault(FaultKind.MALFORMED, self._violations.pop(0))
        self._last_id = request_id = self._last_id + 1
        loop = asyncio.get_running_loop()
        waiting = _Open(decision, deadline, loop.create_future(), bank=max(0.0, bank))
        waiting.queued = loop.time()
        self._open[request_id] = waiting
        deadline_ms, bank_ms = round(deadline * 1000), round(waiting.bank * 1000)
        message = request_message(request_id, game_id, decision, deadline_ms, view, bank_ms, public)
        if self._idle():
            waiting.message, self._held = message, waiting
        else:
            self._post(message)
        return request_id

    async def pump(self, write: Write) -> None:
        """Write the outbox to the stream with `write`, in order, until the connection closes:
        the service's part, for as long as the stream is open. Requests made while the stream
        is idle are written by their askers meanwhile (`request`)."""
        self._write = write
        try:
            while (message := await self.outbox.get()) is not None:
                async with self._writing:
                    await self._written(write, message)
        finally:
            self._write = None

    def _idle(self) -> bool:
        """Whether a message made now could be written at once: a pump runs, and nothing is
        queued, held or being written."""
        return (
            self._write is not None
            and self._held is None
            and self.outbox.empty()
            and not self._writing.locked()
        )

    def _post(self, message: pb.ArenaMessage) -> None:
        """Queue a message for the pump, behind the request held for its asker, if one is."""
        held, self._held = self._held, None
        if held is not None and held.message is not None:
            self.outbox.put_nowait(held.message)
            held.message = None
        self.outbox.put_nowait(message)

    async def _write_held(self, waiting: _Open) -> None:
        """Write the request held for its asker (see `request`); a stream that breaks meanwhile
        closes the connection, which fails the request as a crash."""
        message, waiting.message, self._held = waiting.message, None, None
        write = self._write
        if message is None or write is None:  # the pump has ended: the stream is closing
            return
        async with self._writing:
            try:
                await self._written(write, message)
            except Exception as error:  # a broken stream surfaces as many kinds of error
                self.close(f"the stream broke: {error!r}")

    async def _written(self, write: Write, message: pb.ArenaMessage) -> None:
        """Write one message, and note when a request's time starts (`delivered`)."""
        began = asyncio.get_running_loop().time()
        await write(message)
        self.delivered(message, began)

    def delivered(self, message: pb.ArenaMessage, began: float | None = None) -> None:
        """`message` was written to the stream, the write having begun at `began` (the loop's
        clock; None: now): a request's time starts then, or now if the write took longer than
        `WRITE_SLACK`."""
        if message.WhichOneof("kind") == "request":
            waiting = self._open.get(message.request.request_id)
            if waiting is not None and waiting.sent is None:
                now = asyncio.get_running_loop().time()
                quick = began is not None and now - began <= WRITE_SLACK
                waiting.sent = began if quick and began is not None else now
                waiting.rouse()  # its deadline starts now, not at the grace's end

    async def answer(self, request_id: int) -> int:
        """The card or row that answers a request sent with `request`, once it comes (see
        `answer_timed`)."""
        value, _ = await self.answer_timed(request_id)
        return value

    async def answer_timed(self, request_id: int) -> tuple[int, float]:
        """The card or row that answers a request sent with `request`, and the seconds it took:
        from when the request was written to the stream to when its answer was read, less the
        time the arena's loop was stalled at its deadline.

        Its deadline (and bank) counts from when the request was written to the stream (or, if
        it is not written by then, from `UNWRITTEN_GRACE` times its allowance after it was
        queued). When it comes, answers that have arrived are read first, and a timer that the
        arena's loop ran late (`STALL`) puts the deadline off by as much.

        Raises PlayerFault: TIMEOUT when the deadline passes first (MALFORMED if stray answers
        came meanwhile), CRASHED when the stream ends first, MALFORMED for an answer of the wrong
        kind.
        """
        waiting = self._open[request_id]
        loop = asyncio.get_running_loop()
        limit = waiting.deadline + waiting.bank
        stalled = 0.0  # seconds the loop was late at this request's deadline: not the bot's
        settled = False
        try:
            if waiting.message is not None:  # held for its asker: written now
                await self._write_held(waiting)
            while not waiting.answer.done():
                if waiting.sent is not None:
                    start = waiting.sent
                else:  # the deadline starts once it is written: `delivered` wakes it then
                    start = waiting.queued + UNWRITTEN_GRACE * limit
                due = start + limit + stalled
                if loop.time() < due:
                    settled = False
                    roused = await _until(waiting, due)
                    # How late the loop was at the deadline: when the timer woke it, or, when the
                    # answer was read in the same turn as a late timer, when it was read (the
                    # bot's answer waited in the stream while the loop was stuck).
                    if not roused:
                        late = loop.time() - due
                    else:
                        late = (waiting.read if waiting.read is not None else due) - due
                    if late > STALL:
                        stalled += late
                    continue
                if not settled:  # an answer that arrived but is not read yet still counts
                    settled = True
                    began = loop.time()
                    await _settle(waiting.answer)
                    late = loop.time() - began - SETTLE
                    if late > STALL:  # the loop stalled even then: that is the arena's too
                        stalled += late
                    continue
                self._expect_late(request_id)
                # An answer under another id while it waited is most likely a wrong request id.
                kind = FaultKind.MALFORMED if waiting.strays else FaultKind.TIMEOUT
                raise PlayerFault(kind, _late(request_id, waiting))
            answer = waiting.answer.result()  # raises the CRASHED fault of a closed stream
        finally:
            del self._open[request_id]
        start = waiting.sent if waiting.sent is not None else waiting.queued
        read = waiting.read if waiting.read is not None else loop.time()
        seconds = max(0.0, read - start - stalled)
        try:
            return answer_from_proto(answer, waiting.decision), seconds
        except ProtocolError as error:
            raise PlayerFault(FaultKind.MALFORMED, f"request {request_id}: {error}") from None

    def send(self, message: pb.ArenaMessage) -> None:
        """Queue an event or notice for the bot; dropped once the stream is closed.

        Sends what it is given: whoever builds an event checks `skip_events` first.
        """
        if not self.closed.is_set():
            self._post(message)

    def receive(self, answer: pb.Answer) -> None:
        """An answer arrived: resolve its request, or note it as stray."""
        waiting = self._open.get(answer.request_id)
        if waiting is not None and not waiting.answer.done():
            waiting.read = asyncio.get_running_loop().time()
            waiting.answer.set_result(answer)
            waiting.rouse()
            return
        self.strays += 1
        if answer.request_id in self._late:  # late: discarded, but no sign of a wrong id
            self._late.discard(answer.request_id)
            return
        if self._open:  # most likely a wrong id for an open request: its fault will say so
            for other in self._open.values():
                if len(other.strays) < STRAY_LIMIT:
                    other.strays.append(f"an answer to request {answer.request_id}")
        elif 0 < answer.request_id <= self._last_id:  # sent, not open, not late: answered
            self.violation(f"answered request {answer.request_id} twice")
        else:
            self.violation(f"answered request {answer.request_id}, which it was never sent")

    def violation(self, message: str) -> None:
        """A breach of the protocol tied to no open request: it costs the bot its next decision."""
        if len(self._violations) < STRAY_LIMIT:
            self._violations.append(message)

    def _expect_late(self, request_id: int) -> None:
        """Remember a timed-out request, so that its answer, if it comes, is known to be late."""
        if len(self._late) >= LATE_LIMIT:  # a bot that never answers: forget the oldest
            self._late.discard(min(self._late))
        self._late.add(request_id)

    def close(self, reason: str) -> None:
        """The stream ended: every open request fails as a crash, and the writer stops."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        for request_id, waiting in self._open.items():
            if not waiting.answer.done():
                waiting.answer.set_exception(
                    PlayerFault(FaultKind.CRASHED, f"request {request_id} unanswered: {reason}")
                )
                waiting.rouse()
        self.outbox.put_nowait(None)


async def _until(waiting: _Open, due: float) -> bool:
    """Wait until the request's asker is roused (`_Open.rouse`) or the loop's clock reaches
    `due`; True if roused. One future and one timer: no task, no callbacks on the answer."""
    loop = asyncio.get_running_loop()
    wake: asyncio.Future[bool] = loop.create_future()
    waiting.wake = wake
    timer = loop.call_at(due, _expire, wake)
    try:
        await wake
    finally:
        timer.cancel()
        waiting.wake = None
    return wake.result()


def _expire(wake: asyncio.Future[bool]) -> None:
    if not wake.done():
        wake.set_result(False)


async def _settle(answer: asyncio.Future[pb.Answer]) -> None:
    """Give an answer that has arrived the chance to be read: a few turns of the event loop,
    then a moment for gRPC's threads."""
    for _ in range(SETTLE_TURNS):
        await asyncio.sleep(0)
        if answer.done():
            return
    await asyncio.wait((answer,), timeout=SETTLE)


def _late(request_id: int, waiting: _Open) -> str:
    within = f"{waiting.deadline:g} s"
    if waiting.bank:
        within += f" and {waiting.bank:.3g} s of time bank"
    message = f"no answer to request {request_id} ({waiting.decision}) within {within}"
    if waiting.strays:
        message += "; meanwhile it sent " + ", ".join(waiting.strays[:3])
    return message
