"""Fair CPU and fair time (issue 14), piece by piece: a stall of the arena's own is never a
bot's timeout, a deadline counts from when the request is written, the time bank, the cores
shared out between arenas, the plan chosen from what the machine can do; and, with real bot
processes, a frozen bot that gets no CPU at all yet keeps its stream."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from arena.players import FaultKind, PlayerFault
from arena.protocol import convert, pb
from arena.rules import Decision
from arena.server.connection import Connection
from arena.server.isolation.cgroups import ROOT, CgroupError, CgroupLimits, RunCgroups
from arena.server.isolation.fairness import Cores, CpuMode, FairnessError, choose_plan
from arena.server.options import BotOptions
from arena.server.session import open_session
from tests.server.helpers import misbehaving
from tests.server.test_connection import VIEW

ANSWER = pb.Answer(card=VIEW.hand[0])


def answer_to(request_id: int) -> pb.Answer:
    return pb.Answer(request_id=request_id, card=VIEW.hand[0])


async def written(connection: Connection) -> pb.Request:
    """Take the next request off the outbox and mark it written, as the server does."""
    message = await connection.outbox.get()
    assert message is not None
    connection.delivered(message)
    request: pb.Request = message.request
    return request


@pytest.mark.parametrize("after", [0.0002, None], ids=["after-the-timer", "with-the-timer"])
def test_a_stall_of_the_arena_itself_is_never_the_bots_timeout(after: float | None) -> None:
    """The answer that came during the stall is read just after the late deadline timer, or
    (None) in the same turn of the loop, before the waiting task sees the timer: either way the
    stall is the arena's."""

    async def scenario() -> tuple[int, float]:
        connection = Connection("bot")
        request_id = connection.request("g", Decision.CARD, VIEW, 0.2)
        asking = asyncio.create_task(connection.answer_timed(request_id))
        await written(connection)
        await asyncio.sleep(0.05)
        time.sleep(0.5)  # the arena's loop is stuck (a slow write, say) past the deadline ...
        loop = asyncio.get_running_loop()  # ... and the answer that came meanwhile is read late
        if after is None:
            connection.receive(answer_to(request_id))
        else:
            loop.call_later(after, connection.receive, answer_to(request_id))
        return await asking

    card, took = asyncio.run(scenario())
    assert card == VIEW.hand[0]  # no timeout
    assert took < 0.3  # read after 0.55 s, but the stall at its deadline is the arena's


def test_the_deadline_runs_from_when_the_request_is_written_to_the_stream() -> None:
    async def scenario() -> float:
        connection = Connection("bot")
        request_id = connection.request("g", Decision.CARD, VIEW, 0.2)
        asking = asyncio.create_task(connection.answer_timed(request_id))
        await asyncio.sleep(0.3)  # queued behind a backlog: not yet the bot's time
        await written(connection)
        await asyncio.sleep(0.05)
        connection.receive(answer_to(request_id))
        return (await asking)[1]

    assert asyncio.run(scenario()) < 0.2


def test_an_answer_past_its_deadline_draws_on_the_bank_and_past_the_bank_times_out() -> None:
    async def scenario() -> tuple[pb.Request, float, PlayerFault]:
        connection = Connection("bot")
        first = connection.request("g", Decision.CARD, VIEW, 0.05, bank=1.0)
        asking = asyncio.create_task(connection.answer_timed(first))
        request = await written(connection)
        await asyncio.sleep(0.15)
        connection.receive(answer_to(first))
        _, took = await asking
        second = connection.request("g", Decision.CARD, VIEW, 0.05, bank=0.05)
        asking = asyncio.create_task(connection.answer_timed(second))
        await written(connection)
        with pytest.raises(PlayerFault) as fault:
            await asking
        return request, took, fault.value

    request, took, fault = asyncio.run(scenario())
    assert request.deadline_ms == 50 and request.bank_ms == 1000
    assert 0.05 < took < 1.05  # past its deadline, within its bank: answered (the bank it
    # draws on is the seat's clock's: tests/server/test_clock.py)
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message.endswith("within 0.05 s and 0.05 s of time bank")


def test_arenas_on_one_machine_spread_their_games_over_the_cores(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, int, list[str]]:
        one, other = Cores((0, 1), tmp_path), Cores((0, 1), tmp_path)
        # With every core taken, the other arena's next game shares one, and never waits.
        async with one.claim() as a, other.claim() as b, other.claim() as c:
            pass
        order: list[str] = []
        async with one.claim(), one.claim():

            async def third() -> None:
                async with one.claim():  # this arena's own cores are all busy: it waits
                    order.append("third")

            waiting = asyncio.create_task(third())
            await asyncio.sleep(0.05)
            order.append("released")
        await waiting
        return a, b, c, order

    a, b, c, order = asyncio.run(scenario())
    assert {a, b} == {0, 1}
    assert c == a  # the core the other arena's game holds, not b's (its own game's)
    assert order == ["released", "third"]


def test_the_plan_follows_what_the_machine_can_do() -> None:
    lacking = RunCgroups(1, (), ())  # no cpuset, no freezer
    plan = choose_plan(CpuMode.AUTO, lacking, sealed=True)
    assert not plan.fair and plan.to_dict()["mode"] == "shared"
    assert plan.describe() == (
        "shared CPU: every seat is asked at once, on every core; fair CPU is unavailable "
        "(the bots' cgroups have no cpuset and no freezer)"
    )
    with pytest.raises(FairnessError, match="--cpu fair needs"):
        choose_plan(CpuMode.FAIR, None, sealed=True, why_none="not root")
    shared = choose_plan(CpuMode.SHARED, None, sealed=True, why_none="not root")
    assert shared.to_dict()["mode"] == "shared"


# -- with real bot processes ----------------------------------------------------------------


def _fair_machine() -> RunCgroups:
    try:
        made = RunCgroups.create()
    except CgroupError as why:
        pytest.skip(f"this machine has no cgroups for bots: {why}")
    if not (made.pinned and made.freezable and made.metered):
        asyncio.run(made.close())
        pytest.skip(f"this machine cannot pin, freeze and meter bots: {made}")
    return made


@pytest.mark.integration
def test_a_frozen_bot_gets_no_cpu_whatever_it_started_and_keeps_its_stream(
    logs: Path, no_leftover_processes: None
) -> None:
    """The hog's 16 busy processes, each in a session of its own, stop with it and run on its
    core alone; events sent while it is frozen wait in its stream, and it answers once thawed."""
    asyncio.run(asyncio.wait_for(_frozen_hog(logs), 120))


async def _frozen_hog(logs: Path) -> None:
    await _fair_machine().close()
    options = BotOptions(cpu=CpuMode.FAIR, startup_timeout=60)
    async with open_session([misbehaving("hog_bot", "hog")], logs, options) as session:
        core = session.cpu.cores[-1]
        instance = await session.lobby.acquire("hog_bot", cpus=str(core))
        assert instance is not None and instance.process is not None
        assert instance.connection is not None
        cgroup = instance.process.cgroup
        assert cgroup is not None
        members = cgroup.members()
        assert len(members) > 16  # the bot, its sandbox, and its busy processes
        for pid in members:
            status = Path(f"/proc/{pid}/status").read_text()
            assert f"Cpus_allowed_list:\t{core}\n" in status
        assert await cgroup.freeze()
        frozen_at = cgroup.cpu_time()
        for turn in range(5):  # news it cannot read now
            record = convert.turn_from_proto(
                pb.TurnRevealed(game_id="g", round=0, turn=turn, cards=[1, 2])
            )
            instance.connection.send(convert.turn_message("g", 0, turn, record))
        await asyncio.sleep(1.0)
        assert cgroup.cpu_time() == frozen_at  # not a nanosecond, for all its 16 spinners
        assert cgroup.thaw()
        card = await instance.connection.ask("g", Decision.CARD, VIEW, 30.0)
        assert card == VIEW.hand[0]
        later = cgroup.cpu_time()
        assert frozen_at is not None and later is not None and later > frozen_at
        await cgroup.freeze()
        await session.lobby.release(session.lobby.bots["hog_bot"], instance)


@pytest.mark.integration
def test_the_v2_freezer_and_cpu_account_work_too(no_leftover_processes: None) -> None:
    """Most machines have cgroup v2 only: `cgroup.freeze` and `cpu.stat`, on the unified
    hierarchy (this machine's hybrid one, where v1 is what the arena uses)."""
    mounts = [ROOT, ROOT / "unified"]
    mount = next((m for m in mounts if (m / "cgroup.controllers").exists()), None)
    if mount is None:
        pytest.skip("no cgroup v2 hierarchy here")

    async def scenario() -> tuple[float | None, float | None, float | None]:
        try:
            run = RunCgroups.create_v2(mount)
        except OSError as error:
            pytest.skip(f"cannot create cgroups in {mount}: {error}")
        try:
            assert run.freezable and run.metered
            cgroup = run.child(CgroupLimits())
            spinner = await asyncio.create_subprocess_exec(
                sys.executable, "-c", "while True: pass", start_new_session=True
            )
            (cgroup.directories[0] / "cgroup.procs").write_text(str(spinner.pid))
            await asyncio.sleep(0.2)
            assert await cgroup.freeze()
            frozen = cgroup.cpu_time()
            await asyncio.sleep(0.3)
            still = cgroup.cpu_time()
            assert cgroup.thaw()
            await asyncio.sleep(0.2)
            thawed = cgroup.cpu_time()
            await cgroup.kill()
            await spinner.wait()
            return frozen, still, thawed
        finally:
            await run.close()

    frozen, still, thawed = asyncio.run(scenario())
    assert frozen is not None and still == frozen  # frozen: not a microsecond more
    assert thawed is not None and thawed > frozen
