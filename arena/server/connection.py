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

Every message goes through the outbox, which the stream's own task writes in order (`pump`):
never the asker, whose game may be cancelled, and a gRPC write cancelled halfway leaves its
stream unable to write again. The asker sleeps until its answer comes, its stream ends or its
deadline passes, on one future and one timer; when the request is written, its deadline is
moved on that timer (`_Open.rearm`), without waking the asker. Before, every decision woke the
asker at the write as well, through `asyncio.wait` on two futures.
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
"""Ids of requests that timed out (or whose asker was cancelled) remembered, so that their late
answers are not taken for strays."""


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
    stalled: float = 0.0
    """Seconds the arena's loop was late at its deadline: not the bot's (`answer_timed`)."""
    wake: asyncio.Future[bool] | None = None
    """While its asker waits: True once the answer comes or the stream ends, False when the
    timer finds the deadline passed."""
    timer: asyncio.TimerHandle | None = None
    """While its asker waits: the timer set for the deadline (`due`)."""

    def due(self) -> float:
        """When its deadline (and bank) runs out, on the loop's clock: counted from its write,
        or, until it is written, from `UNWRITTEN_GRACE` times its allowance after it was
        queued; put off by the loop's stalls."""
        limit = self.deadline + self.bank
        start = self.sent if self.sent is not None else self.queued + UNWRITTEN_GRACE * limit
        return start + limit + self.stalled

    def rouse(self) -> None:
        """Wake the asker, if it waits."""
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(True)

    def rearm(self) -> None:
        """Its deadline has moved (it was written): the waiting asker's timer follows."""
        if self.timer is not None and self.wake is not None:
            self.timer.cancel()
            self.timer = asyncio.get_running_loop().call_at(self.due(), _expire, self.wake)


class Connection:
    """A connected bot's stream, as the arena's side sees it."""

    def __init__(self, bot_name: str, skip_events: bool = False) -> None:
        self.bot_name = bot_name
        self.skip_events = skip_events
        """The bot said it keeps no state (Hello.skip_events): send it requests and fault notices
        only, never the game's events."""
        self.outbox: asyncio.Queue[pb.ArenaMessage | None] = asyncio.Queue()
        """Messages waiting for the stream: the pump writes them in order (`pump`)."""
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
        self.outbox.put_nowait(message)
        return request_id

    async def pump(self, write: Write) -> None:
        """Write the outbox to the stream with `write`, in order, until the connection closes:
        the service's part, in the stream's own task, for as long as the stream is open."""
        loop = asyncio.get_running_loop()
        while (message := await self.outbox.get()) is not None:
            began = loop.time()
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
                waiting.rearm()  # its deadline starts now, not at the grace's end

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
        settled = False
        try:
            while not waiting.answer.done():
                if loop.time() < waiting.due():
                    settled = False
                    roused = await _until(waiting)
                    # How late the loop was at the deadline: when the timer woke it, or, when the
                    # answer was read in the same turn as a late timer, when it was read (the
                    # bot's answer waited in the stream while the loop was stuck). The deadline
                    # is read again: the request's write may have moved it meanwhile.
                    due = waiting.due()
                    if not roused:
                        late = loop.time() - due
                    else:
                        late = (waiting.read if waiting.read is not None else due) - due
                    if late > STALL:
                        waiting.stalled += late
                    continue
                if not settled:  # an answer that arrived but is not read yet still counts
                    settled = True
                    began = loop.time()
                    await _settle(waiting.answer)
                    late = loop.time() - began - SETTLE
                    if late > STALL:  # the loop stalled even then: that is the arena's too
                        waiting.stalled += late
                    continue
                # An answer under another id while it waited is most likely a wrong request id.
                kind = FaultKind.MALFORMED if waiting.strays else FaultKind.TIMEOUT
                raise PlayerFault(kind, _late(request_id, waiting))
            answer = waiting.answer.result()  # raises the CRASHED fault of a closed stream
        finally:
            del self._open[request_id]
            if not waiting.answer.done():  # timed out, or its asker was cancelled: an answer
                self._expect_late(request_id)  # may still come, late
        start = waiting.sent if waiting.sent is not None else waiting.queued
        read = waiting.read if waiting.read is not None else loop.time()
        seconds = max(0.0, read - start - waiting.stalled)
        try:
            return answer_from_proto(answer, waiting.decision), seconds
        except ProtocolError as error:
            raise PlayerFault(FaultKind.MALFORMED, f"request {request_id}: {error}") from None

    def send(self, message: pb.ArenaMessage) -> None:
        """Queue an event or notice for the bot; dropped once the stream is closed.

        Sends what it is given: whoever builds an event checks `skip_events` first.
        """
        if not self.closed.is_set():
            self.outbox.put_nowait(message)

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


async def _until(waiting: _Open) -> bool:
    """Wait until the request's asker is roused (`_Open.rouse`) or the loop's clock reaches its
    deadline, wherever its write moves it (`_Open.rearm`); True if roused. One future and one
    timer: no task, no callbacks on the answer."""
    loop = asyncio.get_running_loop()
    wake: asyncio.Future[bool] = loop.create_future()
    waiting.wake = wake
    waiting.timer = loop.call_at(waiting.due(), _expire, wake)
    try:
        await wake
    finally:
        waiting.timer.cancel()
        waiting.wake = waiting.timer = None
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
