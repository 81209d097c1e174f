"""check-bot's engine: put one bot through scripted situations before it enters a contest.

Built on the arena's own pieces, so that what passes here passes in a tournament: the real
server and lobby start the bot and take its hello (`open_session`), and every situation is a
short scripted game sent through the bot's real `Connection`: the same requests, events,
deadlines and faults as in play. The views come from real deals of the rules engine. A bot that
crashes in one situation is started again for the next, so one bug does not hide the others.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from arena.players import Fault, FaultKind, Player, PlayerFault, fallback, play_game
from arena.protocol import convert, pb
from arena.rules import (
    Decision,
    GameRecord,
    IllegalDecisionError,
    Settings,
    Variant,
    View,
    check_answer,
)
from arena.rules.errors import told
from arena.server.clock import Clock, TimeControl
from arena.server.connection import Connection
from arena.server.lobby import BotSpec, Instance, Lobby
from arena.server.options import BotOptions
from arena.server.session import open_session

LOG_TAIL = 8
"""Lines of the bot's log shown under a failed check."""
_LAST_WORDS = 2.0
"""Seconds a bot whose stream ended may go on running (printing its traceback, say) before it is
stopped: its last words are what its log shows under the failed check."""
_UNKNOWN_KIND = bytes([15 << 3 | 2, 0])
"""An ArenaMessage holding only field 15 (empty): a kind of message from a protocol newer than
this one, which a bot must skip like any event it does not use."""


class Status(StrEnum):
    """How a check ended."""

    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"
    """Not run: the bot could not be started for it."""


@dataclass(frozen=True)
class Check:
    """The outcome of one situation."""

    name: str
    status: Status
    expected: str = ""
    """On failure: what a working bot does."""
    got: str = ""
    """On failure: what this bot did; on success: a note (e.g. how fast it answered)."""
    log: tuple[str, ...] = ()
    """On failure: the last lines of the bot's log."""

    @property
    def passed(self) -> bool:
        """Whether the bot passed this check."""
        return self.status is Status.PASS


EXIT_TIMEOUT = 5.0
"""Seconds the bot has to exit once the arena closed its stream."""


class _Failed(Exception):
    def __init__(self, expected: str, got: str) -> None:
        super().__init__(got)
        self.expected = expected
        self.got = got


# -- scripted games: real deals, played by the fallback ------------------------------------


class _Witness(Player):
    """A seat played by the fallback that remembers every decision it is asked, in order."""

    def __init__(self, asked: list[tuple[Decision, View]]) -> None:
        self._asked = asked

    async def decide(self, decision: Decision, view: View) -> int:
        self._asked.append((decision, view))
        return fallback(decision, view)


@dataclass
class _Game:
    """A real game and every decision its seats were asked."""

    settings: Settings
    record: GameRecord
    asked: list[tuple[Decision, View]] = field(default_factory=list)

    def views(self, decision: Decision, seat: int | None = None) -> list[View]:
        """The views of every `decision` asked (of `seat`, if given), in order."""
        return [v for d, v in self.asked if d is decision and seat in (None, v.seat)]


async def _real_game(settings: Settings, seed: int) -> _Game:
    asked: list[tuple[Decision, View]] = []
    players = [_Witness(asked) for _ in range(settings.players)]
    # Seeds for the bot's own random choices, as a tournament's views carry them.
    result = await play_game(settings, players, random.Random(seed), bot_seed=seed)
    return _Game(settings, result.record, asked)


@dataclass
class _Script:
    """The real games the situations are cut from."""

    standard: _Game
    draft: _Game

    @property
    def fullest(self) -> View:
        """The card view of the standard game with the most seats that took cards, after turn 0
        of a later round: starting rows, takes, totals and earlier turns all hold something."""
        views = [v for v in self.standard.views(Decision.CARD) if v.round > 0 and v.turn > 0]
        return max(views, key=lambda v: (sum(map(bool, v.taken)), v.turn))

    @classmethod
    async def make(cls) -> _Script:
        # The first seed whose game holds a row choice (the fallback's low cards make one soon).
        for seed in range(100):
            standard = await _real_game(Settings(players=4), seed)
            if standard.views(Decision.ROW):
                break
        draft = await _real_game(
            Settings(players=4, variant=Variant.PROFESSIONAL_DRAFT, max_rounds=1), 1
        )
        return cls(standard, draft)


# -- the situations ------------------------------------------------------------------------


class _Scene:
    """One situation's scripted exchange with the bot, and what it was sent (for messages).

    A bot that said `skip_events` in its hello is sent no game events, as in a tournament: only
    requests, fault notices, and messages of kinds it cannot know (which every bot must skip).
    """

    def __init__(self, connection: Connection, bot_name: str, options: BotOptions) -> None:
        self.connection = connection
        self.bot_name = bot_name
        self.options = options
        self.sent: list[str] = []

    def send(self, message: pb.ArenaMessage, what: str) -> None:
        self.connection.send(message)
        self.sent.append(what)

    def event(self, message: pb.ArenaMessage, what: str) -> None:
        """Send a game event, unless the bot asked for none."""
        if not self.connection.skip_events:
            self.send(message, what)

    def names(self, settings: Settings, seat: int) -> tuple[str, ...]:
        """The players' names of a scripted game: the bot's own at its seat."""
        names = [f"check-{n}" for n in range(settings.players)]
        names[seat] = self.bot_name
        return tuple(names)

    def start(self, game_id: str, settings: Settings, seat: int = 0) -> None:
        names = self.names(settings, seat)
        event = convert.game_started_to_proto(game_id, seat, settings, names)
        self.event(pb.ArenaMessage(game_started=event), f"GameStarted {game_id}")

    def end(self, game_id: str, record: GameRecord) -> None:
        event = convert.game_ended_to_proto(game_id, record.totals, record.winners)
        self.event(pb.ArenaMessage(game_ended=event), f"GameEnded {game_id}")

    def request(
        self, game_id: str, decision: Decision, view: View, deadline: float, bank: float = 0.0
    ) -> int:
        """Send a request, the view naming the players as GameStarted did; its id. A protocol
        breach charged to the bot fails the check."""
        view = replace(view, names=self.names(view.settings, view.seat))
        try:
            request_id = self.connection.request(game_id, decision, view, deadline, bank)
        except PlayerFault as fault:
            raise _Failed("no protocol breach", self._fault(fault)) from None
        self.sent.append(f"request {request_id} ({decision})")
        return request_id

    async def answer(self, request_id: int, expected: str) -> tuple[int, float]:
        """The answer to a request sent with `request`, and seconds it took (as a tournament
        counts them); _Failed if none."""
        try:
            return await self.connection.answer_timed(request_id)
        except PlayerFault as fault:
            raise _Failed(expected, self._fault(fault)) from None

    async def ask(
        self,
        game_id: str,
        decision: Decision,
        view: View,
        deadline: float,
        expected: str,
    ) -> tuple[int, float]:
        """Ask one decision and check the answer with the rules; its value and time taken."""
        answer, took = await self.answer(self.request(game_id, decision, view, deadline), expected)
        try:
            check_answer(decision, view, answer)
        except IllegalDecisionError as error:
            raise _Failed(expected, told(str(error))) from None
        return answer, took

    def _fault(self, fault: PlayerFault) -> str:
        got = f"{fault.kind}: {fault.message}"
        if fault.kind is FaultKind.CRASHED:
            got += f" (after it was sent {', '.join(self.sent)})"
        return got


def _hand(view: View) -> str:
    return f"a card from its hand {list(view.hand)}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


async def _card(scene: _Scene, script: _Script) -> str:
    game = script.standard
    view = game.views(Decision.CARD, seat=0)[0]
    scene.start("card", game.settings)
    card, took = await scene.ask(
        "card", Decision.CARD, view, scene.options.first_deadline, _hand(view)
    )
    scene.end("card", game.record)
    return f"card {card} in {_ms(took)}"


async def _in_time(scene: _Scene, script: _Script) -> str:
    game = script.standard
    deadline = scene.options.deadline
    views = game.views(Decision.CARD, seat=0)[1:6]
    scene.start("deadline", game.settings)
    slowest = 0.0
    for view in views:
        expected = f"{_hand(view)} within {deadline:g} s"
        _, took = await scene.ask("deadline", Decision.CARD, view, deadline, expected)
        slowest = max(slowest, took)
    scene.end("deadline", game.record)
    return f"{len(views)} answers, the slowest in {_ms(slowest)} of {_ms(deadline)}"


async def _time_bank(scene: _Scene, script: _Script) -> str:
    game = script.standard
    deadline, bank = scene.options.deadline, scene.options.time_bank
    views = game.views(Decision.CARD, seat=0)[6:9]
    scene.start("bank", game.settings)
    clock = Clock(TimeControl(deadline, deadline, bank))  # as a tournament's seat has
    for view in views:
        allowance = clock.allowance()
        left = allowance.bank
        expected = f"{_hand(view)} within {deadline:g} s and the {left:.3g} s left of its bank"
        request_id = scene.request("bank", Decision.CARD, view, allowance.deadline, left)
        card, took = await scene.answer(request_id, expected)
        try:
            check_answer(Decision.CARD, view, card)
        except IllegalDecisionError as error:
            raise _Failed(expected, told(str(error))) from None
        clock.update(took)
    scene.end("bank", game.record)
    used = bank - clock.bank
    return f"{len(views)} answers with a {bank:g} s bank (Request.bank_ms), {_ms(used)} of it used"


async def _row_choice(scene: _Scene, script: _Script) -> str:
    game = script.standard
    view = game.views(Decision.ROW)[0]
    scene.start("row", game.settings, view.seat)
    row, took = await scene.ask(
        "row", Decision.ROW, view, scene.options.deadline, "Answer.row 0 to 3"
    )
    scene.end("row", game.record)
    return f"Answer.row {row} in {_ms(took)}"


async def _draft(scene: _Scene, script: _Script) -> str:
    game = script.draft
    view = game.views(Decision.DRAFT, seat=0)[0]
    scene.start("draft", game.settings)
    expected = f"a card from the table {list(view.table)}"
    card, took = await scene.ask("draft", Decision.DRAFT, view, scene.options.deadline, expected)
    scene.end("draft", game.record)
    return f"card {card} in {_ms(took)}"


async def _two_games(scene: _Scene, script: _Script) -> str:
    game = script.standard
    first, second = game.views(Decision.CARD)[:2]  # seats 0 and 1 of one turn: disjoint hands
    games = {"two-a": first, "two-b": second}
    deadline = scene.options.deadline
    for game_id, view in games.items():
        scene.start(game_id, game.settings, view.seat)
    ids = {
        game_id: scene.request(game_id, Decision.CARD, v, deadline) for game_id, v in games.items()
    }
    answers = await asyncio.gather(
        *(
            scene.answer(ids[game_id], f"in game {game_id}, {_hand(v)}")
            for game_id, v in games.items()
        )
    )
    for (game_id, view), (card, _) in zip(games.items(), answers, strict=True):
        if card not in view.hand:
            other = next((g for g, v in games.items() if g != game_id and card in v.hand), None)
            mixed = f", from game {other}'s hand" if other else ", in neither hand"
            raise _Failed(f"in game {game_id}, {_hand(view)}", f"card {card}{mixed}")
        scene.end(game_id, game.record)
    return "both answered, " + " and ".join(f"card {card}" for card, _ in answers)


async def _events(scene: _Scene, script: _Script) -> str:
    game = script.standard
    record = game.record
    first_round = record.rounds[0]
    views = game.views(Decision.CARD, seat=0)
    view = next((v for v in views if v.round == 1), views[-1])
    sample = Fault(0, FaultKind.TIMEOUT, Decision.CARD, 0, 0, "check-bot: a sample notice")
    newer = pb.ArenaMessage()
    newer.MergeFromString(_UNKNOWN_KIND)
    events = {
        "TurnRevealed": pb.ArenaMessage(
            turn_revealed=convert.turn_to_proto("events", 0, 0, first_round.turns[0])
        ),
        "RoundEnded": pb.ArenaMessage(
            round_ended=convert.round_ended_to_proto(
                "events", 0, first_round, first_round.penalties
            )
        ),
        "FaultNotice": pb.ArenaMessage(fault=convert.fault_to_proto("events", 0, sample)),
        "a message of a kind from a newer protocol": newer,
        "GameEnded for a game it is not in": pb.ArenaMessage(
            game_ended=convert.game_ended_to_proto("not-yours", record.totals, record.winners)
        ),
    }
    scene.start("events", game.settings)
    always = ("FaultNotice", "a message of a kind from a newer protocol")
    for what, message in events.items():
        if what in always:
            scene.send(message, what)
        else:
            scene.event(message, what)
    expected = f"after every kind of event, {_hand(view)}"
    card, _ = await scene.ask("events", Decision.CARD, view, scene.options.deadline, expected)
    scene.end("events", record)
    if scene.connection.skip_events:
        return f"card {card} after {', '.join(always)} (it skips events: sent no others)"
    return f"card {card} after {len(events) + 1} events"


async def _full_view(scene: _Scene, script: _Script) -> str:
    game = script.standard
    view = script.fullest
    scene.start("full", game.settings, view.seat)
    took = sum(map(bool, view.taken))
    expected = (
        f"{_hand(view)}, from a view late in round {view.round + 1} (View.round {view.round})"
    )
    card, took_ms = await scene.ask("full", Decision.CARD, view, scene.options.deadline, expected)
    scene.end("full", game.record)
    return (
        f"card {card} in {_ms(took_ms)}, from a view of turn {view.turn + 1} "
        f"(View.turn {view.turn}) with the starting rows, {took} seats' takes and the names"
    )


Situation = Callable[[_Scene, _Script], Awaitable[str]]

SITUATIONS: Sequence[tuple[str, Situation]] = (
    ("answers a card request with a card in hand", _card),
    ("answers within the deadline", _in_time),
    ("keeps to a time bank", _time_bank),
    ("handles a row choice", _row_choice),
    ("handles a draft request", _draft),
    ("handles two games at once", _two_games),
    ("ignores events it does not use", _events),
    ("reads a view with every field filled", _full_view),
)
HELLO = "connects and says hello in time"
EXIT = "exits when the stream closes"
NAMES = (HELLO, *(name for name, _ in SITUATIONS), EXIT)
"""Every check, in the order they run."""


# -- running them ----------------------------------------------------------------------------


class _Checker:
    def __init__(self, lobby: Lobby, spec: BotSpec, options: BotOptions) -> None:
        self.lobby = lobby
        self.spec = spec
        self.options = options
        self.bot = lobby.bots[spec.name]
        self.instance: Instance | None = None
        self._mark = 0
        """Where in the log the current check began: a failure shows only what it wrote."""

    def begin(self) -> None:
        """A check begins: note where the log stands."""
        try:
            self._mark = self.bot.log_path.stat().st_size
        except OSError:
            self._mark = 0

    def tail(self) -> tuple[str, ...]:
        """The last lines the bot wrote to its log during the current check."""
        try:
            with self.bot.log_path.open("rb") as log:
                log.seek(self._mark)
                lines = log.read().decode(errors="replace").splitlines()
        except OSError:
            return ()
        return tuple(lines[-LOG_TAIL:])

    def failed(self, name: str, expected: str, got: str) -> Check:
        return Check(name, Status.FAIL, expected, got, self.tail())

    async def connect(self) -> Connection | None:
        """The live connection of the bot, started again if it died; None if it cannot be."""
        if self.instance is not None and self.instance.alive:
            assert self.instance.connection is not None
            return self.instance.connection
        if self.instance is not None and self.instance.process is not None:
            await self.instance.process.stop(patience=_LAST_WORDS)
        self.instance = await self.lobby.acquire(self.spec.name)
        return self.instance.connection if self.instance is not None else None

    async def hello(self) -> Check:
        began = time.monotonic()
        if await self.connect() is None:
            expected = f"a hello within {self.options.startup_timeout:g} s of starting"
            return self.failed(HELLO, expected, self.bot.problem or "no connection")
        return Check(HELLO, Status.PASS, got=f"connected in {time.monotonic() - began:.2f} s")

    async def situation(self, name: str, situation: Situation, script: _Script) -> Check:
        self.begin()
        connection = await self.connect()
        if connection is None:
            return Check(name, Status.SKIP, got=f"the bot could not be started: {self.bot.problem}")
        scene = _Scene(connection, self.spec.name, self.options)
        try:
            note = await situation(scene, script)
        except _Failed as failure:
            instance = self.instance
            if instance is not None and instance.process is not None and not instance.alive:
                await instance.process.stop(patience=_LAST_WORDS)
            return self.failed(name, failure.expected, failure.got)
        return Check(name, Status.PASS, got=note)

    async def exits(self) -> Check:
        self.begin()
        connection = await self.connect()
        instance = self.instance
        if connection is None or instance is None or instance.process is None:
            return Check(EXIT, Status.SKIP, got=f"the bot could not be started: {self.bot.problem}")
        limit = EXIT_TIMEOUT
        expected = f"exit with status 0 within {limit:g} s"
        began = time.monotonic()
        connection.close("check-bot closed the stream")
        try:
            status = await asyncio.wait_for(instance.process.wait(), limit)
        except TimeoutError:
            await instance.process.stop()
            return self.failed(EXIT, expected, f"still running after {limit:g} s")
        await instance.process.stop()  # drained: the log is complete
        if status != 0:
            return self.failed(EXIT, expected, f"exited with status {status}")
        return Check(EXIT, Status.PASS, got=f"exited in {time.monotonic() - began:.2f} s")


async def check_bot(
    spec: BotSpec,
    log_dir: Path,
    options: BotOptions,
    report: Callable[[Check], None] | None = None,
) -> list[Check]:
    """Run every check against the bot `spec` launches, in order; `report` hears each as it ends.

    The bot's output goes to `log_dir/NAME.log`. Every process started is stopped on return.
    """
    if spec.argv is None:
        raise ValueError("check-bot launches the bot itself: give its command")
    results: list[Check] = []

    def done(check: Check) -> None:
        results.append(check)
        if report is not None:
            report(check)

    bot_options = replace(options, max_faults=0)  # each check is its own: never disqualified
    script = await _Script.make()
    async with open_session([spec], log_dir, bot_options) as session:
        checker = _Checker(session.lobby, spec, options)
        done(await checker.hello())
        if not results[-1].passed:
            for name in NAMES[1:]:
                done(Check(name, Status.SKIP, got="the bot never connected"))
            return results
        for name, situation in SITUATIONS:
            done(await checker.situation(name, situation, script))
        done(await checker.exits())
    return results


def render(check: Check) -> str:
    """A check as the command prints it: one line, and on failure what was expected and got."""
    line = f"{check.status}  {check.name}"
    if check.passed or check.status is Status.SKIP:
        return f"{line}: {check.got}" if check.got else line
    lines = [line, f"      expected: {check.expected}", f"      got:      {check.got}"]
    if check.log:
        lines.append("      the bot's log ends:")
        lines.extend(f"        {entry}" for entry in check.log)
    return "\n".join(lines)
