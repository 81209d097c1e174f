"""The referee decides what every fault costs, with no process in sight: a scripted player stands
in for a bot, and the referee's methods for what the lobby, the runner and a cluster's worker
tell it (a failed start, a crash, a resumed tournament, the organizer's record)."""

from __future__ import annotations

import ast
import asyncio
import pickle
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.players import Conduct, Fault, FaultKind, Player, PlayerFault, Referee, Seat
from arena.rules import Decision, Settings, View

ARENA = Path(__file__).resolve().parents[2] / "arena"

VIEW = View(
    settings=Settings(players=2),
    seat=1,
    round=0,
    turn=3,
    hand=(7, 40, 99),
    rows=((1,), (2,), (3,), (4,)),
    penalties=(0, 0),
    totals=(0, 0),
    played=(),
)
"""Seat 1 choosing a card: the fallback plays the lowest, 7."""


class Scripted(Player):
    """A player that gives the answers (or raises the faults) it was given, in order, and notes
    what it is told of its faults."""

    def __init__(self, *answers: int | PlayerFault, absent: PlayerFault | None = None) -> None:
        self.answers = list(answers)
        self.absent = absent
        self.asked = 0
        self.told: list[Fault] = []

    async def decide(self, decision: Decision, view: View) -> int:
        self.asked += 1
        answer = self.answers.pop(0)
        if isinstance(answer, PlayerFault):
            raise answer
        return answer

    def absence(self) -> PlayerFault | None:
        return self.absent

    def faulted(self, fault: Fault) -> None:
        self.told.append(fault)


def seat(player: Player, referee: Referee | None = None) -> Seat:
    return Seat(player, referee if referee is not None else Referee("bob", 3), [])


def decide(at: Seat) -> int:
    return asyncio.run(at.decide(Decision.CARD, VIEW))


def fault(turn: int = 0, seat: int = 1) -> Fault:
    return Fault(seat, FaultKind.TIMEOUT, Decision.CARD, 0, turn, "no answer in time")


# -- in a game --


def test_a_legal_answer_is_played_and_costs_nothing() -> None:
    at = seat(Scripted(40))
    assert decide(at) == 40
    assert at.faults == [] and at.referee.faults == 0


def test_an_illegal_answer_is_a_fault_and_the_fallback_plays() -> None:
    player = Scripted(105)
    at = seat(player)
    assert decide(at) == 7
    (recorded,) = at.faults
    assert (recorded.seat, recorded.kind, recorded.round, recorded.turn) == (
        1,
        FaultKind.ILLEGAL,
        0,
        3,
    )
    assert "105" in recorded.message
    assert player.told == [recorded] and at.referee.faults == 1 and not at.out


@pytest.mark.parametrize("kind", [FaultKind.TIMEOUT, FaultKind.MALFORMED])
def test_a_late_or_malformed_answer_is_a_fault_and_the_bot_is_asked_again(
    kind: FaultKind,
) -> None:
    player = Scripted(PlayerFault(kind, "what went wrong"), 99)
    at = seat(player)
    assert decide(at) == 7
    assert [(f.kind, f.message) for f in at.faults] == [(kind, "what went wrong")]
    assert not at.out
    assert decide(at) == 99  # asked again: a bad answer is not an absence
    assert player.asked == 2 and at.referee.faults == 1


def test_a_crash_faults_once_then_the_fallback_plays_the_seat_quietly() -> None:
    player = Scripted(PlayerFault(FaultKind.CRASHED, "the connection dropped"), 99)
    at = seat(player)
    assert decide(at) == 7 and at.out
    assert decide(at) == 7 and decide(at) == 7
    assert [f.kind for f in at.faults] == [FaultKind.CRASHED]
    assert player.asked == 1 and at.referee.faults == 1


def test_a_bot_never_connected_faults_once_and_is_never_asked() -> None:
    player = Scripted(absent=PlayerFault(FaultKind.NOT_CONNECTED, "did not connect"))
    at = seat(player)
    assert [decide(at) for _ in range(3)] == [7, 7, 7]
    assert [f.kind for f in at.faults] == [FaultKind.NOT_CONNECTED]
    assert player.asked == 0 and player.told == at.faults


def test_a_disqualified_bot_still_records_why_it_misses_a_game() -> None:
    referee = Referee("bob", 3)
    assert referee.disqualify("is out")
    at = seat(Scripted(absent=PlayerFault(FaultKind.NOT_CONNECTED, "gone")), referee)
    assert decide(at) == 7
    assert [f.kind for f in at.faults] == [FaultKind.NOT_CONNECTED]
    assert referee.disqualified == "is out"  # the first reason stands


def test_at_the_fault_limit_the_bot_is_told_it_is_out_and_never_asked_again() -> None:
    player = Scripted(105, PlayerFault(FaultKind.TIMEOUT, "late"), 105, 40)
    referee = Referee("bob", 3)
    at = seat(player, referee)
    assert [decide(at) for _ in range(4)] == [7, 7, 7, 7]
    assert player.asked == 3 and len(at.faults) == 3 and referee.faults == 3
    assert referee.disqualified == "is disqualified after 3 faults: the fallback plays for it"
    assert referee.last_straw is at.faults[-1]
    notice = player.told[-1]
    assert notice.kind is FaultKind.DISQUALIFIED and notice.message.startswith("bob is ")
    assert player.told[:-1] == at.faults


@given(st.integers(0, 6), st.integers(0, 12))
def test_a_bot_is_out_once_its_faults_reach_the_limit_and_told_so_once(
    limit: int, committed: int
) -> None:
    referee = Referee("bob", limit)
    notices = [referee.charge(fault(turn)) for turn in range(committed)]
    put_out = bool(limit) and committed >= limit
    assert referee.faults == committed
    assert bool(referee.disqualified) == put_out
    assert sum(notice is not None for notice in notices) == int(put_out)
    if put_out:
        assert notices[limit - 1] is not None and referee.last_straw == fault(limit - 1)


# -- between games: what the lobby tells the referee --


def test_two_failed_starts_in_a_row_put_a_bot_out() -> None:
    referee = Referee("bob")
    assert not referee.failed_start()
    referee.started()  # a start that worked in between: the count begins again
    assert not referee.failed_start()  # the first failed start since: still playing
    assert referee.failed_start()
    assert referee.disqualified == "is disqualified: it failed to start twice in a row"
    assert not referee.failed_start()  # out once
    assert referee.faults == 0  # the games it misses record its not-connected faults


def test_a_crash_puts_a_bot_out_only_when_restarts_are_off() -> None:
    restarted = Referee("bob", restarts=True)
    assert not restarted.crashed() and not restarted.disqualified
    kept_down = Referee("bob", restarts=False)
    assert kept_down.crashed()
    assert kept_down.disqualified == "crashed and is not restarted: the fallback plays for it"
    assert not kept_down.crashed()


# -- across runs and machines --


def test_a_resumed_tournament_carries_on_its_faults_and_disqualifications() -> None:
    referee = Referee("bob", 3)
    referee.resume(2)
    assert referee.faults == 2 and not referee.disqualified
    assert referee.charge(fault()) is not None  # the third fault of the tournament
    out = Referee("cyd", 3)
    out.resume(1, "is disqualified: it failed to start twice in a row")
    assert out.faults == 1 and out.disqualified.endswith("twice in a row")
    at = seat(Scripted(40), out)
    assert decide(at) == 7 and at.faults == []  # out: never asked, nothing recorded


def test_a_worker_plays_under_the_organizers_record() -> None:
    organizer, worker = Referee("bob", 3), Referee("bob", 3)
    organizer.resume(2)
    worker.resume(1)
    sent = pickle.loads(pickle.dumps(organizer.conduct()))  # it travels to the worker
    assert sent == Conduct(2, "", 0)
    assert not worker.take(sent)
    assert worker.faults == 2
    worker.resume(2)  # a game of its own, not yet judged by the organizer
    assert not worker.take(organizer.conduct()) and worker.faults == 4  # the larger count
    assert worker.take(Conduct(2, "crashed and is not restarted"))
    assert worker.disqualified == "crashed and is not restarted"
    assert not worker.take(Conduct(2, "another reason"))


def test_the_organizer_judges_a_workers_game_once() -> None:
    organizer = Referee("bob", 3)
    organizer.resume(1)
    faults = [fault(1), fault(2)]
    assert organizer.judge(faults, Conduct(3, "is disqualified after 3 faults"))
    assert organizer.faults == 3 and organizer.last_straw == fault(2)
    assert organizer.disqualified.startswith("is disqualified after 3 faults")
    quiet = Referee("cyd", 3)
    assert not quiet.judge([fault(0)], Conduct(1, ""))
    assert quiet.faults == 1 and not quiet.disqualified
    started = Referee("dan", 3)
    assert started.judge([], Conduct(0, "is disqualified: it failed to start twice in a row"))
    assert started.faults == 0 and started.disqualified.endswith("twice in a row")


def test_failed_starts_in_a_row_count_over_every_arena_that_starts_the_bot() -> None:
    """Two core hosts (or workers) that each fail to start a bot in games played at once make
    two failed starts in a row, as one arena's two games would: the organizer puts it out; and
    a start that works anywhere ends a run of them."""
    organizer, first, second = Referee("eve", 0), Referee("eve", 0), Referee("eve", 0)
    sent = pickle.loads(pickle.dumps(organizer.conduct()))  # both games go out at once
    for host in (first, second):
        host.take(sent)
        assert not host.failed_start()
    assert not organizer.judge([], first.conduct(), sent)
    assert organizer.failed_starts == 1
    assert organizer.judge([], second.conduct(), sent)
    assert organizer.disqualified.endswith("failed to start twice in a row")
    lucky, host = Referee("fay", 0), Referee("fay", 0)
    host.failed_start()
    assert not lucky.judge([], host.conduct(), Conduct()) and lucky.failed_starts == 1
    echoed = lucky.conduct()  # a game where its process was already up: no start, no failure
    assert not lucky.judge([], echoed, echoed) and lucky.failed_starts == 1
    host.started()
    assert not lucky.judge([], host.conduct(), echoed) and lucky.failed_starts == 0


def test_the_game_that_put_a_bot_out_is_the_one_holding_its_last_straw() -> None:
    referee = Referee("bob", 2)
    referee.charge(fault(0))
    referee.charge(fault(4))
    from_the_wire = pickle.loads(pickle.dumps(fault(4)))  # equal, not the same object
    assert referee.put_out_in([fault(0), from_the_wire], seat=1)
    assert not referee.put_out_in([fault(0)], seat=1)
    # Another game, in which another bot sat at seat 1 and faulted just as bob did: not bob's.
    assert not referee.put_out_in([fault(4)], seat=0)
    other = Referee("cyd")  # put out otherwise: the first game in which it faulted
    other.disqualify("is disqualified: it failed to start twice in a row")
    assert other.put_out_in([fault(0, seat=2)], seat=2)
    assert not other.put_out_in([fault(0, seat=2)], seat=0)


# -- nobody else assigns a referee's fields --


FIELDS = frozenset(field.name for field in fields(Referee))
OWN = frozenset({"max_faults", "restarts", "last_straw", "failed_starts"})
"""Fields whose names only a referee uses: an assignment to them anywhere is the referee's."""


def referee_assignments(source: str) -> list[str]:
    """The assignments in `source` to a referee's fields: `x.referee.f`, `referee.f` or any
    `x.f` for a field only a referee has, whether `=`, `+=` or `x: T = ...`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"setattr", "delattr"}
            and "referee" in ast.unparse(node.args[0])
        ):
            found.append(ast.unparse(node))
            continue
        else:
            continue
        for target in (t for each in targets for t in ast.walk(each)):
            if not isinstance(target, ast.Attribute) or target.attr not in FIELDS:
                continue
            base = target.value
            of_referee = (isinstance(base, ast.Attribute) and base.attr == "referee") or (
                isinstance(base, ast.Name) and "referee" in base.id
            )
            if of_referee or target.attr in OWN:
                found.append(f"line {target.lineno}: {ast.unparse(target)}")
    return found


def test_the_source_check_finds_what_the_runner_and_the_worker_once_did() -> None:
    before = """
bots[outcome.spec.seats[fault.seat]].referee.faults += 1
bot.referee.faults = max(bot.referee.faults, faults)
bot.failed_starts += 1
referee.disqualified: str = "out"
setattr(bot.referee, "faults", 3)
"""
    assert len(referee_assignments(before)) == 5
    assert referee_assignments("outcome.faults = []\nbot.referee.charge(fault)\n") == []


def test_no_module_but_the_referees_assigns_a_referees_fields() -> None:
    own = ARENA / "players" / "referee.py"
    modules = [path for path in sorted(ARENA.rglob("*.py")) if path != own]
    assert len(modules) > 50
    found = {
        str(path.relative_to(ARENA.parent)): hits
        for path in modules
        if (hits := referee_assignments(path.read_text()))
    }
    assert found == {}
    assert referee_assignments(own.read_text())  # the check sees the referee's own
