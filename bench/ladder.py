"""The ladder's match loop: sets per hour, and the server's own CPU per set against the games'.

Run as `python -m bench.ladder --sets N [--players P] [--reuse-processes]` in a process of its
own; prints one JSON object. A ladder of four sample bots (heuristic, highest, lowest, random),
each one author's vetted version (`seed_ladder`: their built copies laid out as vetting leaves
them, so the figure is the loop's alone, not the builds'), plays N sets through `MatchLoop`
exactly as `arena ladder serve` plays them (one-round games: the figure is what a set costs
beyond its games' length). The server's own CPU is this process's (the loop, matchmaking,
rating, the database, the arena session's servers and referees); the games' CPU is the bots'
(the children it waited for: their start-ups and their decisions), so the ratio says what share
of a set's cost the ladder adds to the games it plays. The bots run unsealed here: a sealed bot
is its sandbox's grandchild, killed with its cgroup before anyone waits for it, so its CPU would
not be counted (what sealing costs is the sealing section's figure).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import random
import resource
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from arena.ladder.db.engine import open_database, upgrade
from arena.ladder.db.models import Author, Bot, Version
from arena.ladder.folder import LadderFolder
from arena.ladder.loop import MatchLoop
from arena.ladder.rating import initial
from arena.ladder.settings import LadderSettings
from arena.tournament.store import BUILDS

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots" / "python"
FIELD = {"heuristic": "heuristic", "highest": "highest", "lowest": "lowest", "random": "random"}
"""The ladder's bots by name, each a sample bot's."""


def seed_ladder(folder: Path, bots: Mapping[str, str | Path], status: str = "placement") -> Engine:
    """A ladder's database in `folder` with one author per bot and one vetted version each (of
    sample bot `bots[name]`, or the bot file it names), its built copy where vetting leaves it
    (`DIR/built/<id>/builds/`)."""
    engine = open_database(folder)
    upgrade(engine)
    now = dt.datetime.now(dt.UTC)
    start = initial()
    with Session(engine) as db, db.begin():
        for index, (name, sample) in enumerate(bots.items()):
            author = Author(name=f"author{index}", token_hash=f"{index:064x}", created_at=now)
            bot = Bot(name=name, author=author, created_at=now)
            version = Version(
                bot=bot,
                number=1,
                digest="0" * 64,
                status=status,
                created_at=now,
                mu=start.mu,
                sigma=start.sigma,
            )
            db.add_all([author, bot, version])
            db.flush()
            lay_out_build(folder, version.id, name, sample)
    return engine


def lay_out_build(folder: Path, version: int, name: str, sample: str | Path) -> None:
    """Version `version`'s built copy of bot `name`: sample bot `sample` (or the bot file it
    names) where vetting leaves it in the ladder `folder` (`DIR/built/<id>/builds/`), so that
    a version written into the database can be seated at once."""
    copy = LadderFolder(folder).built_version(version) / BUILDS / f"{name}-0"
    copy.mkdir(parents=True)
    source = sample if isinstance(sample, Path) else SAMPLES / f"{sample}_bot.py"
    shutil.copy(source, copy / "bot.py")
    (copy / "bot.toml").write_text('command = "python3 bot.py"\n')


async def play(loop: MatchLoop, sets: int) -> None:
    """Run the loop until it has recorded `sets` sets, then stop it as SIGTERM does."""
    stop = asyncio.Event()
    running = asyncio.ensure_future(loop.run(stop))
    while loop.report.played < sets and not running.done():
        await asyncio.sleep(0.05)
    stop.set()
    await running


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(sets: int, players: int, reuse: bool) -> dict[str, Any]:
    """Play `sets` sets of `players` seats and return the figures."""
    settings = LadderSettings(
        players=players, max_rounds=1, deadline=5.0, startup_timeout=60.0, sandbox="off"
    )
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        engine = seed_ladder(folder, FIELD)
        config = replace(settings.tournament_config(folder / "sets", (), 0), reuse_processes=reuse)
        loop = MatchLoop(folder, engine, settings, config, rng=random.Random(2026))
        own, games = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        asyncio.run(play(loop, sets))
        wall = time.perf_counter() - began
        own, games = _cpu(resource.RUSAGE_SELF) - own, _cpu(resource.RUSAGE_CHILDREN) - games
        engine.dispose()
    played = loop.report.played
    return {
        "sets": played,
        "players": players,
        "reuse_processes": reuse,
        "seconds": wall,
        "sets_per_hour": played / wall * 3600,
        "server_cpu_per_set_s": own / played,
        "games_cpu_per_set_s": games / played,
        "bots_deciding_cpu_per_set_s": loop.report.bot_cpu / played,
        "server_over_games": own / games if games else None,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--reuse-processes", action="store_true")
    options = parser.parse_args(argv)
    print(json.dumps(measure(options.sets, options.players, options.reuse_processes)))


if __name__ == "__main__":
    main()
