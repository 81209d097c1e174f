"""The tournament seed: secret unless the organizer chooses one.

Every game's deal derives from the tournament seed and the game's place in the schedule, by the
arena's public code (`schedule.deal_seed`): whoever knows the seed knows every hand of every
game, the opponents' included. So the default seed is drawn from the operating system's random
source (63 bits: far too many to guess), stored with the results (the tournament's rules in the
results database, which no sealed bot can reach) and shown to the organizer alone (a line at the
start, and standings.json); a resumed run takes it from the results. A bot never sees it: not in
its environment, its view or its files, and not in the arena's memory or command line, which a
sealed bot cannot read. A seed the organizer chooses (`--seed`) makes a tournament repeatable, and
reveals every deal to anyone who knows it and the bots.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
from dataclasses import replace
from pathlib import Path

from arena.tournament.config import TournamentConfig
from arena.tournament.store import read_only_uri

SEED_BITS = 63
"""A drawn seed is below 2**63: it fits SQLite's integers and JSON readers' exact ones."""


def stored_seed(database: Path, held: bool = False) -> int | None:
    """The seed a results database was played with, read without writing (None if there is no
    database yet, or it holds no tournament); `held`: as `ResultStore.reader` takes it."""
    if not database.is_file():
        return None
    with contextlib.suppress(sqlite3.Error, ValueError, TypeError, KeyError):
        db = sqlite3.connect(read_only_uri(database, held), uri=True)
        try:
            row = db.execute("SELECT settings FROM tournament WHERE id = 1").fetchone()
        finally:
            db.close()
        if row is not None:
            seed = json.loads(row[0])["seed"]
            return int(seed) if seed is not None else None
    return None


def choose_seed(
    config: TournamentConfig, database: Path, held: bool = False
) -> tuple[TournamentConfig, str]:
    """`config` with its seed decided (the one chosen; else the stored tournament's; else a new
    random one), and a line for the organizer saying which and what it means; `held`: the
    caller holds the output folder (`ResultStore.reader`)."""
    if config.seed is not None:
        return config, (
            f"seed {config.seed}, chosen: anyone who knows it can compute every deal; "
            "leave --seed out for a secret one"
        )
    stored = stored_seed(database, held)
    if stored is not None:
        return replace(config, seed=stored), (
            f"seed {stored}, this tournament's own (secret: keep it to yourself)"
        )
    seed = secrets.randbelow(1 << SEED_BITS)
    return replace(config, seed=seed), (
        f"seed {seed}, drawn at random (secret: keep it to yourself; a resume keeps it, "
        f"--seed {seed} plays the same deals again)"
    )
