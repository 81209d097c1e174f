"""The pacer's accounts in fair mode, without a process: every nanosecond of CPU a seat's cgroup
uses while a bot decides is charged to that decision, as the decider's own or as its
neighbours', though the seats are read once a decision (the readings that end one decision
begin the next); and what a decider uses to stop after its answer is its own when its freeze is
done at once, and nobody's when the pacer settles it later, never a neighbour's. Cgroup files
are stood in for by plain files in a temporary folder (v1's `freezer.state` and
`cpuacct.usage`)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.server.isolation.cgroups import FREEZE_PATIENCE, BotCgroup
from arena.server.isolation.fairness import Pacer, Used

Step = tuple[int, tuple[int, ...], bool, int]
"""A decision: the deciding seat, the nanoseconds each seat's cgroup uses meanwhile, whether
its freeze is done at the first look, and the nanoseconds it uses to stop."""


class StandIn(BotCgroup):
    """A bot's cgroup of plain files, whose CPU readings are counted, and whose freeze is done
    at the first look or only once settled, as the test says."""

    reads = 0
    at_once = True
    stopping = 0

    def cpu_time(self) -> float | None:
        StandIn.reads += 1
        return super().cpu_time()

    def begin_freeze(self) -> bool:
        frozen = super().begin_freeze()
        if StandIn.at_once:
            use(self, StandIn.stopping)
        return frozen and StandIn.at_once

    async def settle(self, patience: float = FREEZE_PATIENCE) -> bool:
        use(self, StandIn.stopping)
        return await super().settle(patience)


def stand_in(folder: Path) -> StandIn:
    folder.mkdir()
    (folder / "freezer.state").write_text("THAWED")
    (folder / "cpuacct.usage").write_text("0")
    return StandIn((folder,), 1)


def use(cgroup: BotCgroup, nanoseconds: int) -> None:
    usage = cgroup.directories[0] / "cpuacct.usage"
    usage.write_text(str(int(usage.read_text()) + nanoseconds))


@st.composite
def games(draw: st.DrawFn) -> tuple[int, list[Step]]:
    seats = draw(st.integers(2, 4))
    nanoseconds = st.integers(0, 10**9)
    used = st.tuples(*[nanoseconds] * seats)
    step = st.tuples(st.integers(0, seats - 1), used, st.booleans(), nanoseconds)
    return seats, draw(st.lists(step, min_size=1, max_size=12))


async def play(seats: int, steps: list[Step], folder: Path) -> tuple[list[Used], list[int]]:
    """The steps' decisions paced in fair mode; what each cost, and the reads a decision made."""
    cgroups = [stand_in(folder / f"bot-{seat}") for seat in range(seats)]
    pacer = Pacer(fair=True)
    await pacer.seat(cgroups)
    costs, reads = [], []
    for seat, nanoseconds, at_once, stopping in steps:
        StandIn.reads = 0
        async with pacer.decision(seat) as used:
            assert (cgroups[seat].directories[0] / "freezer.state").read_text() == "THAWED"
            for cgroup, spent in zip(cgroups, nanoseconds, strict=True):
                use(cgroup, spent)
            StandIn.at_once, StandIn.stopping = at_once, stopping
        costs.append(used)
        reads.append(StandIn.reads)
    await pacer.settle()
    assert all((c.directories[0] / "freezer.state").read_text() == "FROZEN" for c in cgroups)
    for cgroup in cgroups:
        cgroup.remove()  # closes its files (the stand-in folders stay: they hold files)
    return costs, reads


@settings(max_examples=80, deadline=None)
@given(games())
def test_every_nanosecond_used_while_a_bot_decides_is_charged_to_it_or_its_neighbours(
    game: tuple[int, list[Step]],
) -> None:
    seats, steps = game
    with tempfile.TemporaryDirectory() as scratch:
        costs, reads = asyncio.run(play(seats, steps, Path(scratch)))
    for (seat, nanoseconds, at_once, stopping), used in zip(steps, costs, strict=True):
        assert used.cpu is not None and used.neighbours is not None
        assert round(used.cpu * 1e9) == nanoseconds[seat] + (stopping if at_once else 0)
        others = sum(spent for at, spent in enumerate(nanoseconds) if at != seat)
        assert abs(used.neighbours * 1e9 - others) < seats  # sums of seconds: rounding alone
    # One read a seat a decision, and one more of the last decider before another one thaws.
    for at, (seat, *_) in enumerate(steps):
        assert reads[at] == seats + (at > 0 and steps[at - 1][0] != seat)
