"""Every fault kind, each with a purpose-built misbehaving bot (tests/bots): the game finishes,
the fault is recorded with its kind and a readable message, the fallback plays, the bot is told,
and no bot process is left running."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from arena.players import Fault, FaultKind, GameResult, Highest, Lowest, Strategy
from arena.rules import Decision, GameRecord, Settings
from arena.server.isolation.sandbox import SandboxMode
from arena.server.lobby import Bot, BotSpec
from arena.server.options import BotOptions
from arena.server.session import open_session
from tests.server.helpers import (
    Scripted,
    assert_stopped,
    live_members,
    misbehaving,
    play_locally,
    sample,
    started_groups,
)

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

ONE_ROUND = Settings(players=2, max_rounds=1)
"""Two seats, one round: ten turns, enough for every fault and quick to play."""
PATIENT = BotOptions(deadline=5.0, first_deadline=10.0)
UNSEALED = replace(PATIENT, sandbox=SandboxMode.OFF)
"""For the process-group stop beneath the sandbox: unsealed, the bot's children are visible by
their pids and group (sealed, tests/hostile shows that nothing outlives a bot either)."""
"""For bots whose faults do not depend on time: deadlines no loaded machine reaches."""
HURRIED = BotOptions(deadline=0.5, first_deadline=2.0)
"""For the bots that answer late or not at all: each such answer costs one deadline."""


@dataclass
class Played:
    """What a session of games left behind."""

    results: list[GameResult]
    bots: dict[str, Bot]
    groups: list[int]
    """The process group of every bot process started."""
    logs: Path

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")


def play(
    logs: Path,
    specs: Sequence[BotSpec],
    options: BotOptions,
    games: Sequence[tuple[str, int]],
    settings: Settings = ONE_ROUND,
) -> Played:
    """Play `games` (id, seed) one after another with the bots in seat order, then close the
    session; check that every bot process it started is gone."""

    async def session() -> Played:
        seats = [spec.name for spec in specs]
        async with open_session(list(specs), logs, options) as live:
            results = [await live.play(id, settings, seats, seed) for id, seed in games]
        return Played(results, live.lobby.bots, started_groups(live.lobby), logs)

    played = asyncio.run(session())
    assert_stopped(played.groups)
    return played


def cards_of(record: GameRecord, seat: int) -> list[int]:
    """The cards `seat` played, turn after turn."""
    return [turn.cards[seat] for round in record.rounds for turn in round.turns]


def of_seat(result: GameResult, seat: int) -> list[Fault]:
    return [fault for fault in result.faults if fault.seat == seat]


def expected(seat_zero: Strategy, seed: int, settings: Settings = ONE_ROUND) -> GameRecord:
    """The game in-process: `seat_zero` (the bot as it is seen to play) against Highest."""
    return play_locally(settings, [seat_zero, Highest()], seed).record


def assert_told(log: str, kind: FaultKind) -> None:
    """The bot got a fault notice of `kind` (the SDK prints each to the bot's log)."""
    assert re.search(rf"arena: fault in game \S+: {kind}: ", log), log[-2000:]


def test_an_answer_past_the_deadline_is_a_timeout_and_is_never_applied(logs: Path) -> None:
    played = play(logs, [misbehaving("late_bot"), sample("highest")], HURRIED, [("late", 4)])
    result = played.results[0]
    faults = of_seat(result, 0)
    # Turns 1 and 2 were answered only after the next request came: both timed out, and the
    # second one stays a timeout though the first one's late answer came while it waited.
    assert [(f.kind, f.decision, f.round, f.turn) for f in faults] == [
        (FaultKind.TIMEOUT, Decision.CARD, 0, 1),
        (FaultKind.TIMEOUT, Decision.CARD, 0, 2),
    ]
    assert re.fullmatch(r"no answer to request \d+ \(card\) within 0.5 s", faults[0].message)
    # The fallback's lowest card was played at those turns, never the late second-highest.
    late = Scripted(lambda view: view.hand[0] if view.turn in (1, 2) else view.hand[-1])
    assert cards_of(result.record, 0) == cards_of(expected(late, 4), 0)
    log = played.log("late_bot")
    assert "answering turn 1 late" in log and "answering turn 2 late" in log
    assert_told(log, FaultKind.TIMEOUT)


def test_a_late_answer_costs_one_fault_though_the_fallbacks_card_needs_a_row(logs: Path) -> None:
    # Every answer of `late_bot every` comes after its deadline (held until the next request);
    # seed 1 gives the fallback's lowest card six turns too low for every row. The fallback
    # settles each timed-out card decision whole, its row too: the bot is never asked for a row
    # it would answer late again.
    seed, hurried = 1, BotOptions(deadline=0.3, first_deadline=0.3)
    specs = [misbehaving("late_bot", "every"), sample("highest")]
    result = play(logs, specs, hurried, [("always-late", seed)]).results[0]
    alone = expected(Lowest(), seed)
    too_low = [p for turn in alone.rounds[0].turns for p in turn.placements if p.chosen]
    assert sum(p.seat == 0 for p in too_low) == 6
    assert result.record == alone  # the fallback's cards, and the fallback's rows
    faults = of_seat(result, 0)
    assert [(f.kind, f.decision, f.turn) for f in faults] == [
        (FaultKind.TIMEOUT, Decision.CARD, turn) for turn in range(10)
    ]
    log = (logs / "late_bot.log").read_text()
    asked = re.findall(r"asked (\w+) 0\.(\d+)", log)
    assert asked == [("card", str(turn)) for turn in range(10)]
    # Each card but the last was answered late (the last was still held as the game ended):
    # one fault per late answer, and one for the answer that never came.
    assert re.findall(r"late (\w+) 0\.(\d+)", log) == asked[:-1]


def test_a_bot_that_exits_mid_game_is_a_crash_then_the_fallback_plays_silently(
    logs: Path,
) -> None:
    specs = [misbehaving("crash_bot"), sample("highest")]
    played = play(logs, specs, PATIENT, [("crash-1", 6), ("after", 8)])
    crashed, after = played.results
    faults = of_seat(crashed, 0)
    assert [(f.kind, f.decision, f.turn) for f in faults] == [(FaultKind.CRASHED, Decision.CARD, 3)]
    assert "unanswered" in faults[0].message
    # Highest until the crash at turn 3, then the fallback's lowest card for the rest.
    until_crash = Scripted(lambda view: view.hand[-1] if view.turn < 3 else view.hand[0])
    assert crashed.record == expected(until_crash, 6)
    # Restarted for the next game, it answers again: its own highest card, no fault.
    assert after.faults == ()
    assert after.record == expected(Highest(), 8)
    assert len(played.groups) == 3  # the crashed copy, its restart, and the opponent
    assert "exiting in game crash-1" in played.log("crash_bot")
    assert not played.bots["crash_bot"].referee.disqualified


def test_a_bot_that_crashed_is_not_restarted_when_restarts_are_off(logs: Path) -> None:
    options = BotOptions(deadline=5.0, first_deadline=10.0, restart=False)
    specs = [misbehaving("crash_bot"), sample("highest")]
    played = play(logs, specs, options, [("crash-1", 6), ("after", 8)])
    crashed, after = played.results
    assert [f.kind for f in crashed.faults] == [FaultKind.CRASHED]
    # Not started again: the fallback plays the whole next game, quietly.
    assert after.faults == ()
    assert after.record == expected(Lowest(), 8)
    assert len(played.groups) == 2
    assert played.bots["crash_bot"].referee.disqualified
    assert "not restarted" in played.log("crash_bot")


def test_a_card_not_in_hand_is_illegal_and_the_fallback_plays_the_lowest(logs: Path) -> None:
    specs = [misbehaving("illegal_card_bot"), sample("highest")]
    played = play(logs, specs, PATIENT, [("illegal", 3)])
    result = played.results[0]
    assert [(f.kind, f.turn) for f in result.faults] == [
        (FaultKind.ILLEGAL, turn) for turn in range(10)
    ]
    assert all(f.seat == 0 and f.decision is Decision.CARD for f in result.faults)
    first = result.record.rounds[0]
    assert result.faults[0].message == (
        f"seat 0: illegal card {first.rows[0][0]}: not in the hand {first.hands[0]}"
    )
    assert result.record == expected(Lowest(), 3)
    assert_told(played.log("illegal_card_bot"), FaultKind.ILLEGAL)


def test_row_7_is_illegal_and_the_fallback_takes_the_cheapest_row(logs: Path) -> None:
    specs = [misbehaving("row7_bot"), sample("highest")]
    played = play(logs, specs, PATIENT, [("row7", 2)])
    result = played.results[0]
    chosen = [
        (i, p.card)
        for i, turn in enumerate(result.record.rounds[0].turns)
        for p in turn.placements
        if p.seat == 0 and p.chosen
    ]
    assert chosen, "the bot never had to choose a row: pick another seed"
    assert [(f.kind, f.decision, f.turn) for f in result.faults] == [
        (FaultKind.ILLEGAL, Decision.ROW, turn) for turn, _ in chosen
    ]
    assert result.faults[0].message == "seat 0: illegal row 7: the protocol numbers rows 0 to 3"
    # Lowest card, and for each row the fallback's cheapest: exactly the built-in Lowest.
    assert result.record == expected(Lowest(), 2)
    assert played.log("row7_bot").count("asked for a row") == len(chosen)
    assert_told(played.log("row7_bot"), FaultKind.ILLEGAL)


def test_an_answer_under_the_wrong_request_id_is_malformed(logs: Path) -> None:
    played = play(logs, [misbehaving("wrong_id_bot"), sample("highest")], HURRIED, [("id", 5)])
    result = played.results[0]
    faults = of_seat(result, 0)
    assert [(f.kind, f.decision, f.turn) for f in faults] == [
        (FaultKind.MALFORMED, Decision.CARD, 2)
    ]
    log = played.log("wrong_id_bot")
    sent = re.search(r"answering request (\d+) as (\d+)", log)
    assert sent is not None
    request, stray = sent.groups()
    # The bot is told which of its requests failed.
    assert f"notice about request {request}: FAULT_KIND_MALFORMED" in log
    assert faults[0].message.startswith(f"no answer to request {request} (card)")
    assert f"an answer to request {stray}" in faults[0].message
    wrong_at_2 = Scripted(lambda view: view.hand[0] if view.turn == 2 else view.hand[-1])
    assert cards_of(result.record, 0) == cards_of(expected(wrong_at_2, 5), 0)


def test_bots_that_never_connect_are_not_connected_and_the_fallback_plays(logs: Path) -> None:
    options = BotOptions(startup_timeout=0.5)
    specs = [misbehaving("silent_bot"), BotSpec("quitter", misbehaving("silent_bot", "exit").argv)]
    played = play(logs, specs, options, [("silent", 1)])
    result = played.results[0]
    assert [(f.seat, f.kind, f.turn) for f in result.faults] == [
        (0, FaultKind.NOT_CONNECTED, 0),
        (1, FaultKind.NOT_CONNECTED, 0),
    ]
    silent, quitter = result.faults
    assert "did not connect within 0.5 s" in silent.message
    assert "exited with status 2 before connecting" in quitter.message
    assert result.record == play_locally(ONE_ROUND, [Lowest(), Lowest()], 1).record
    assert "did not connect within 0.5 s" in played.log("silent_bot")
    assert "giving up before connecting" in played.log("quitter")


def test_a_bot_is_disqualified_after_max_faults_and_is_asked_nothing_more(logs: Path) -> None:
    options = BotOptions(deadline=5.0, first_deadline=10.0, max_faults=3)
    specs = [misbehaving("illegal_card_bot"), sample("highest")]
    played = play(logs, specs, options, [("dq-1", 3), ("dq-2", 4)])
    first, second = played.results
    assert [(f.kind, f.turn) for f in first.faults] == [(FaultKind.ILLEGAL, t) for t in range(3)]
    assert played.bots["illegal_card_bot"].referee.disqualified
    assert played.bots["illegal_card_bot"].referee.faults == 3
    # The fallback played every card, and the bot was asked only the three times it faulted.
    assert first.record == expected(Lowest(), 3)
    assert second.faults == ()
    assert second.record == expected(Lowest(), 4)
    log = played.log("illegal_card_bot")
    assert log.count("asked for a card") == 3
    assert_told(log, FaultKind.DISQUALIFIED)


def test_a_flooding_bot_s_log_is_capped_and_the_game_goes_on(logs: Path) -> None:
    cap = 10_000
    options = BotOptions(deadline=5.0, first_deadline=10.0, log_cap=cap)
    played = play(logs, [misbehaving("flood_bot"), sample("highest")], options, [("flood", 7)])
    assert played.results[0].faults == ()
    assert played.results[0].record == expected(Lowest(), 7)
    log = (logs / "flood_bot.log").read_bytes()
    started, flood = log.split(b"\n", 1)  # the arena's note that it started the bot, then its flood
    assert started.startswith(b"[arena: flood_bot started process ") and flood.startswith(b"flood")
    marker = f"\n[arena: log capped at {cap} bytes]\n".encode()
    assert log.endswith(marker)
    assert len(log) == cap + len(marker)


def test_a_child_the_bot_started_is_stopped_with_it(logs: Path) -> None:
    async def session() -> tuple[list[int], list[int]]:
        specs = [misbehaving("forking_bot"), sample("highest")]
        async with open_session(specs, logs, UNSEALED) as live:
            await live.play("fork", ONE_ROUND, [spec.name for spec in specs], 1)
            group = live.lobby.bots["forking_bot"].instances[0].process
            assert group is not None
            members = live_members(group.pid)
        return members, started_groups(live.lobby)

    members, groups = asyncio.run(session())
    assert len(members) == 2  # the bot and the child it left in its group
    assert_stopped(groups)
    child = re.search(r"child (\d+)", (logs / "forking_bot.log").read_text())
    assert child is not None and int(child.group(1)) in members


def test_a_bot_that_crashes_leaving_a_child_takes_the_child_with_it_at_once(logs: Path) -> None:
    async def session() -> tuple[list[int], list[int]]:
        specs = [misbehaving("forking_bot", "crash"), sample("highest")]
        async with open_session(specs, logs, UNSEALED) as live:
            result = await live.play("fork", ONE_ROUND, [spec.name for spec in specs], 1)
            assert [f.kind for f in result.faults] == [FaultKind.CRASHED]
            bot = live.lobby.bots["forking_bot"].instances[0].process
            assert bot is not None
            # While the session still runs: the child goes as soon as the bot is gone, not at
            # the end of the tournament. (Waits for that outcome, up to 10 s.)
            for _ in range(500):
                if not (members := live_members(bot.pid)):
                    break
                await asyncio.sleep(0.02)
        return members, started_groups(live.lobby)

    members, groups = asyncio.run(session())
    assert members == []
    assert_stopped(groups)
    assert "exiting, the child stays" in (logs / "forking_bot.log").read_text()
