"""The ladder's pages and JSON API under a ladder's weight: the leaderboard and a bot's page, as
HTML and as JSON, and the last sets, with many bots and sets stored, beside a static file from
the same server.

Run as `python -m bench.pages --bots N --sets M --requests R`, in a process of its own; prints
one JSON object. It stores a ladder through the repository layer, as the match loop does
(`seed_ladder`: authors, several versions a bot, older ones retired, sets of 3 and 4 seats
created and rated one by one), starts the real app under uvicorn on loopback in a child
process (`python -m bench.pages --serve FOLDER`, configured as `arena ladder serve` configures
it), and asks each route R times, the routes taking turns (so that a change in the machine's
load falls on all of them alike), after a few requests each not counted (templates compiled,
caches warm). A bot's routes go through the bots in turn, so their figures cover small bots and
the busiest.

For each route: the time from sending the request to the last byte of its answer, median and
99th percentile, as the client sees it over one kept-alive connection; and the server's CPU for
it, the sum over the server's threads of the scheduler's own count (`/proc/PID/task/*/schedstat`,
nanoseconds; FastAPI runs the routes in a thread pool), read before and after each request. The
baseline is the static stylesheet (`/static/site.css`) from the same server: what any request
costs, so each route's ratio is what its queries and rendering add.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.orm import Session

from arena.ladder.db import repository
from arena.ladder.db.engine import open_database, upgrade
from arena.ladder.db.models import LadderSet, SetSeat, Version
from arena.ladder.rating import Rating, initial, replay
from arena.ladder.settings import LadderSettings
from arena.ladder.versions import VersionStatus

BASELINE = "static file"
ROUTES = {
    "leaderboard page": "/",
    "bot page": "/bots/{bot}",
    "leaderboard API": "/api/leaderboard",
    "bot API": "/api/bots/{bot}",
    "sets API": "/api/sets",
    BASELINE: "/static/site.css",
}
"""What is measured, by name: the routes, `{bot}` standing for each bot in turn. The sets API
lists the last 50 sets, the query the planner's statistics matter most to."""
WARM_UP = 3
"""Requests of each route before the counted ones."""
SEATS = (3, 4)
VERSIONS = (1, 2, 3, 4)
"""A set seats 3 or 4 bots; a bot has 1 to 4 versions, the newest playing, the others retired."""
AUTHOR_SHARE = 0.7
"""Authors per bot: some authors have two bots."""
BUILD_LOG = "".join(f"Collecting package{n} (from -r requirements.txt)\n" for n in range(400))
CHECK_BOT = "".join(
    f'{{"check": "situation {n}", "passed": true, "seconds": 0.01}}\n' for n in range(60)
)
"""What vetting keeps of every version: its build's output (some 20 kB, a pip install's) and
check-bot's lines (some 3 kB); the pages that do not show them should not pay for them."""
RECORDED = 100
"""Sets stored last one by one through `record_set` (a tenth of them in a small ladder)."""


@dataclass(frozen=True)
class Seeded:
    """A stored ladder's shape, and what storing it cost."""

    bots: list[str]
    versions: int
    sets: int
    seats: int
    seconds: float
    """Wall seconds to store it all."""
    recorded: int
    """The last sets, stored one by one through `record_set` as the match loop stores them..."""
    record_cpu_s: float
    """...and the CPU seconds a set that took (the ladder's full size already stored)."""


@dataclass(frozen=True)
class _Drawn:
    """A set to store: its seats' versions and bullheads, and when it was played."""

    versions: list[int]
    bullheads: list[int]
    at: dt.datetime


def bot_name(index: int) -> str:
    return f"bot{index:03d}"


def seed_ladder(engine: Engine, bots: int, sets: int, rng: random.Random) -> Seeded:
    """Store `bots` bots and `sets` rated sets in the (migrated) database: authors and versions
    through the repository layer (`add_author`, `add_version`), each bot's versions submitted
    in turn over the ladder's life, older ones retired; every set seating the version of each
    of its bots that was newest when it was played, with bullheads drawn from the bots' hidden
    strengths. The sets but the last `RECORDED` are written in bulk with the ratings
    `rating.replay` gives them, the same arithmetic in the same order as `record_set`'s (so
    `arena ladder rerate` finds nothing to change): one by one, `record_set`'s statements cost
    some 8 ms of CPU a set, minutes for 10,000. The last ones go through `create_set` and
    `record_set`, and what that costs is a figure."""
    began = time.perf_counter()
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    step = dt.timedelta(minutes=2)
    ids = _versions(engine, bots, sets, rng, start, step)
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    drawn = []
    for number in range(sets):
        table = rng.sample(range(bots), min(rng.choice(SEATS), bots))
        drawn.append(
            _Drawn(
                versions=[ids[bot][number * len(ids[bot]) // sets] for bot in table],
                bullheads=[max(0, round(rng.gauss(40 + 12 * strength[bot], 10))) for bot in table],
                at=start + step * number,
            )
        )
    recorded = min(RECORDED, max(1, sets // 10))
    tau = LadderSettings().tau
    _store_in_bulk(engine, drawn[: sets - recorded], tau, step)
    cpu = time.process_time()
    for one in drawn[sets - recorded :]:
        with Session(engine) as db, db.begin():
            played = repository.create_set(db, one.versions, seed=len(drawn), at=one.at)
            faults = [0] * len(one.versions)
            repository.record_set(db, played.id, one.bullheads, faults, tau, at=one.at + step)
    record_cpu = (time.process_time() - cpu) / max(recorded, 1)
    return Seeded(
        bots=[bot_name(index) for index in range(bots)],
        versions=sum(len(theirs) for theirs in ids),
        sets=sets,
        seats=sum(len(one.versions) for one in drawn),
        seconds=time.perf_counter() - began,
        recorded=recorded,
        record_cpu_s=record_cpu,
    )


def _versions(
    engine: Engine,
    bots: int,
    sets: int,
    rng: random.Random,
    start: dt.datetime,
    step: dt.timedelta,
) -> list[list[int]]:
    """The authors, bots and versions, through the repository: each bot's version ids."""
    authors = max(1, math.ceil(bots * AUTHOR_SHARE))
    ids: list[list[int]] = []
    with Session(engine) as db, db.begin():
        made = [
            repository.add_author(db, f"author{n:02d}", f"{n:064x}", at=start)
            for n in range(authors)
        ]
        for index in range(bots):
            count = rng.choice(VERSIONS)
            ids.append([])
            for number in range(count):
                status = VersionStatus.RETIRED if number < count - 1 else _newest(rng)
                version = repository.add_version(
                    db,
                    made[index % authors],
                    bot_name(index),
                    f"{index:032x}{number:032x}",
                    status,
                    initial(),
                    at=start + step * (sets * number // count),
                )
                version.build_log = BUILD_LOG
                version.check_bot = CHECK_BOT
                ids[-1].append(version.id)
    return ids


def _store_in_bulk(engine: Engine, drawn: Sequence[_Drawn], tau: float, step: dt.timedelta) -> None:
    """The sets, done and rated in order, each seat's rating before and after from
    `rating.replay`, and each version's rating, set count and last play after them: what
    `record_set` would have stored, set by set."""
    replayed = replay([(one.versions, one.bullheads) for one in drawn], tau)
    sets: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    final: dict[int, tuple[Rating, int, dt.datetime]] = {}
    for number, (one, (before, after)) in enumerate(zip(drawn, replayed, strict=True), 1):
        done = one.at + step
        sets.append(
            {
                "id": number,
                "status": repository.DONE,
                "seed": number,
                "created_at": one.at,
                "started_at": one.at,
                "finished_at": done,
                "rated": number,
            }
        )
        for seat, (version, heads, old, new) in enumerate(
            zip(one.versions, one.bullheads, before, after, strict=True)
        ):
            seats.append(
                {
                    "set_id": number,
                    "seat": seat,
                    "version_id": version,
                    "bullheads": heads,
                    "faults": 0,
                    "mu_before": old.mu,
                    "sigma_before": old.sigma,
                    "mu_after": new.mu,
                    "sigma_after": new.sigma,
                }
            )
            final[version] = (new, final.get(version, (new, 0, done))[1] + 1, done)
    with Session(engine) as db, db.begin():
        if sets:
            db.execute(insert(LadderSet), sets)
            db.execute(insert(SetSeat), seats)
        for stored in db.scalars(select(Version).where(Version.id.in_(final))):
            rating, count, last = final[stored.id]
            stored.mu, stored.sigma = rating.mu, rating.sigma
            stored.sets, stored.last_played = count, last


def _newest(rng: random.Random) -> VersionStatus:
    """A bot's newest version: most play, a few are placed yet or benched."""
    return rng.choices(
        (VersionStatus.ACTIVE, VersionStatus.PLACEMENT, VersionStatus.BENCHED), (18, 1, 1)
    )[0]


def serve(folder: Path) -> None:
    """The server child: the ladder's app on a loopback port of its own, its number printed
    first, configured as `arena ladder serve` configures uvicorn; until SIGTERM."""
    import uvicorn

    from arena.ladder.api.app import create_app
    from arena.ladder.api.deps import Served
    from arena.ladder.serve import listening_socket

    engine = open_database(folder)
    sock = listening_socket("127.0.0.1", 0)  # listening before the port is told
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(
        create_app(Served(folder, engine, LadderSettings())),
        log_level="warning",
        access_log=False,
        lifespan="off",
    )
    uvicorn.Server(config).run(sockets=[sock])
    engine.dispose()


def server_cpu_ns(pid: int) -> int:
    """The CPU the process `pid` has used, in nanoseconds, over its threads alive now."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a thread ended
            total += int((task / "schedstat").read_text().split()[0])
    return total


@dataclass
class Route:
    """One route's samples: seconds to the last byte, the server's CPU nanoseconds, sizes."""

    name: str
    path: str
    seconds: list[float]
    cpu_ns: list[int]
    size: int = 0


def ask(connection: http.client.HTTPConnection, pid: int, path: str) -> tuple[float, int, bytes]:
    """GET `path`: the seconds to its whole answer, the server's CPU for it, its body; a
    RuntimeError for any status but 200 (a figure of an error page is no figure)."""
    cpu = server_cpu_ns(pid)
    began = time.perf_counter()
    connection.request("GET", path)
    answer = connection.getresponse()
    body = answer.read()
    took = time.perf_counter() - began
    used = server_cpu_ns(pid) - cpu
    if answer.status != 200:
        raise RuntimeError(f"GET {path}: {answer.status} {body[:300]!r}")
    return took, max(used, 0), body


def measure_routes(port: int, pid: int, bots: Sequence[str], requests: int) -> list[Route]:
    """Each route asked `requests` times (after `WARM_UP`), the routes taking turns."""
    routes = [Route(name, path, [], []) for name, path in ROUTES.items()]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        for turn in range(-WARM_UP, requests):
            for route in routes:
                bot = bots[turn % len(bots)]
                took, used, body = ask(connection, pid, route.path.format(bot=bot))
                if "{bot}" in route.path and bot.encode() not in body:
                    raise RuntimeError(f"{route.path.format(bot=bot)} does not name its bot")
                if turn >= 0:
                    route.seconds.append(took)
                    route.cpu_ns.append(used)
                    route.size = max(route.size, len(body))
    finally:
        connection.close()
    return routes


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def summary(route: Route, baseline: Route) -> dict[str, Any]:
    """A route's figures, and its ratios to the baseline's."""
    p50, p99 = _percentile(route.seconds, 0.5), _percentile(route.seconds, 0.99)
    cpu = statistics.median(route.cpu_ns) / 1e9
    base_p50 = _percentile(baseline.seconds, 0.5)
    base_cpu = statistics.median(baseline.cpu_ns) / 1e9
    return {
        "route": route.name,
        "path": route.path,
        "requests": len(route.seconds),
        "p50_s": p50,
        "p99_s": p99,
        "cpu_median_s": cpu,
        "cpu_mean_s": statistics.fmean(route.cpu_ns) / 1e9,
        "bytes": route.size,
        "p50_over_baseline": p50 / base_p50 if base_p50 else None,
        "cpu_over_baseline": cpu / base_cpu if base_cpu else None,
    }


def measure(bots: int, sets: int, requests: int, seed: int = 2026) -> dict[str, Any]:
    """Store the ladder, serve it, ask every route; the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        engine = open_database(folder)
        upgrade(engine)
        seeded = seed_ladder(engine, bots, sets, random.Random(seed))
        engine.dispose()
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.pages", "--serve", str(folder)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            routes = measure_routes(port, server.pid, seeded.bots, requests)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    baseline = next(route for route in routes if route.name == BASELINE)
    return {
        "bots": bots,
        "versions": seeded.versions,
        "sets": seeded.sets,
        "seats": seeded.seats,
        "seed_seconds": seeded.seconds,
        "recorded": seeded.recorded,
        "record_cpu_per_set_s": seeded.record_cpu_s,
        "requests": requests,
        "routes": [summary(route, baseline) for route in routes],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--sets", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve is not None:
        serve(options.serve)
        return
    if options.bots < 2:
        parser.error("--bots: a set seats two bots at least")
    print(json.dumps(measure(options.bots, options.sets, options.requests)))


if __name__ == "__main__":
    main()
