"""One real ladder for the pages' tests: `arena ladder serve` as a process on 127.0.0.1 over a
ladder of three authors' sample bots, one of which gets a second version while it plays, and
three hostile bots whose names are markup (`pages_ladder`; each test file serves a ladder of its
own from these pieces, once for the module, which `make test` runs in one worker).

The versions are written into the database with their built copies laid out as vetting leaves
them (`bench.ladder.lay_out_build`), not uploaded: uploads and vetting have their own tests
(`tests/ladder/test_serve.py`), and skipping them makes the ladder play within seconds. The
hostile names could not come in through the API at all (a bot's and an author's name are
letters, digits, '_', '.' and '-'): they stand for a bad row, which the pages must not trust
either. Their versions are benched, so the match loop never seats them; two sets among them are
recorded by hand, which gives each a rating history to draw.

A ladder plays as long as it can seat a table, and every set that no test reads is CPU taken
from the suite's other worker. `set_playing` benches a version (or puts it back), as the
organizer's button does: benched once the set a test needs is under way (`PagesLadder.begun`),
that set is played to its end and rated, and then, with fewer authors in play than seats,
matchmaking makes no table and the ladder rests while the pages are read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.ladder.authors import hash_token, new_token
from arena.ladder.benching import bench, restore
from arena.ladder.db import repository
from arena.ladder.db.engine import open_database, write_first
from arena.ladder.db.models import SetSeat, Version
from arena.ladder.loop import record_set
from arena.ladder.match import SetResult
from arena.ladder.rating import initial
from arena.ladder.settings import LadderSettings
from arena.ladder.versions import VersionStatus
from bench.ladder import lay_out_build
from tests.ladder.serving import Served, make_ladder, serving

HOSTILE = ("<script>alert(1)</script>", "</textarea>", "&amp;")
"""Bot and author names that would be markup if a page did not escape them."""
SAMPLES = {"alice": "heuristic", "bob": "lowest", "carol": "random"}
"""Each author's sample bot, under the sample's name."""
SECOND = "heuristic"
"""The bot that gets a second version (its graph's version mark)."""
OPTIONS = ("--reuse-processes", "--seed", "25", "--concurrency", "1")
SETTINGS: dict[str, Any] = {"players": 3, "placement_sets": 2, "sets_at_once": 1}
"""Three seats; placed after two sets, so the second version goes active (its first retired).
One set at a time, its games one at a time: what a ladder plays beyond what a test waits for is
spent CPU, taken from the suite's other worker (two sets at once made the public pages' module
cost 39 CPU s against 26, in the same time, when its ladder played on for the module's length)."""
RESTS = "the ladder rests while its pages are read"
"""The reason a version benched by `set_playing` gives."""


@dataclass
class PagesLadder:
    """The served ladder the pages' tests read."""

    served: Served
    folder: Path
    settings: LadderSettings
    tokens: dict[str, str]
    """Each author's token by author name, the hostile authors' too (to sign in)."""
    versions: dict[str, list[int]] = field(default_factory=dict)
    """Each sample bot's versions' ids, in order."""

    @property
    def url(self) -> str:
        return self.served.url

    def api(self, path: str) -> Any:
        """A public JSON route's answer."""
        answer = self.served.get(path)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def sets_of(self, version: int) -> int:
        return int(self.api(f"/api/versions/{version}")["sets"])

    def begun(self, version: int) -> int:
        """The sets that seat `version`, under way or done (read from the database: the API
        lists the done ones)."""
        engine = open_database(self.folder)
        try:
            with Session(engine) as db:
                seats = select(func.count()).where(SetSeat.version_id == version)
                return db.scalar(seats) or 0
        finally:
            engine.dispose()


@contextlib.contextmanager
def writing(folder: Path) -> Iterator[Session]:
    """A session on the ladder's database whose transaction begins as a writer's
    (`write_first`), committed on leaving: the served ladder's match loop writes meanwhile, and
    a transaction that reads first and writes later fails at once ("database is locked")
    whenever the loop committed in between."""
    engine = open_database(folder)
    try:
        with Session(engine) as db:
            write_first(db)
            yield db
            db.commit()
    finally:
        engine.dispose()


def add_version(folder: Path, author: str, bot: str, sample: str | Path, token: str | None) -> int:
    """A vetted version of sample bot `sample` (or the bot file it names) as `author`'s bot
    `bot`, in placement (the author made with `token` if they are new): its id."""
    with writing(folder) as db:
        found = repository.author_named(db, author)
        if found is None:
            assert token is not None
            found = repository.add_author(db, author, hash_token(token))
        version = repository.add_version(
            db, found, bot, "0" * 64, VersionStatus.PLACEMENT, initial()
        )
        db.flush()
        made = version.id
    lay_out_build(folder, made, bot, sample)
    return made


def seed_hostile(folder: Path, settings: LadderSettings) -> dict[str, str]:
    """The hostile bots and authors, benched, with two sets among them: their tokens."""
    tokens = {name: new_token() for name in HOSTILE}
    engine = open_database(folder)
    try:
        with Session(engine) as db, db.begin():
            ids = []
            for name in HOSTILE:
                author = repository.add_author(db, name, hash_token(tokens[name]))
                version = repository.add_version(
                    db, author, name, "0" * 64, VersionStatus.BENCHED, initial()
                )
                version.reason = name  # why it is benched: its author's alone
                ids.append(version.id)
            for bullheads in ((4, 9, 13), (11, 2, 6)):
                played = repository.create_set(db, ids, 7)
                assert record_set(db, played.id, SetResult(bullheads, (0, 1, 0), 3, 0.0), settings)
    finally:
        engine.dispose()
    return tokens


def set_playing(folder: Path, version: int, playing: bool) -> None:
    """Bench `version` (`playing` False: for `RESTS`), or put it back in play, in placement, as
    the organizer's button does (without the organizer's record), straight in the database."""
    with writing(folder) as db:
        found = db.get_one(Version, version)
        changed = restore(found) if playing else bench(found, RESTS)
        assert changed, f"version {version} is {found.status}: it cannot be {playing=}"


def samples_ladder(
    folder: Path, hostile: bool = True, **settings: Any
) -> tuple[LadderSettings, dict[str, str], dict[str, list[int]]]:
    """A ladder made in `folder` with `SETTINGS` (and `settings`), each author's sample bot in
    placement, and the hostile bots (or not): its settings, tokens and versions, for a
    `PagesLadder`."""
    made = make_ladder(folder, **{**SETTINGS, **settings})
    tokens = {author: new_token() for author in SAMPLES}
    versions = {
        bot: [add_version(folder, author, bot, bot, tokens[author])]
        for author, bot in SAMPLES.items()
    }
    if hostile:
        tokens.update(seed_hostile(folder, made))
    return made, tokens, versions


@contextlib.contextmanager
def pages_ladder(root: Path, hostile: bool = True, sets: int = 2) -> Iterator[PagesLadder]:
    """The ladder served (see the module's note), once the second version of `SECOND` has
    played `sets` sets (two place it), playing on; with the hostile bots, or without (the
    screenshots)."""
    folder = root / "contest"
    settings, tokens, versions = samples_ladder(folder, hostile)
    with serving(folder, *OPTIONS) as served:
        found = PagesLadder(served, folder, settings, tokens, versions)
        first = versions[SECOND][0]
        served.wait_for("the first version placed", lambda: found.sets_of(first) >= 2)
        second = add_version(folder, "alice", SECOND, SECOND, None)
        versions[SECOND].append(second)
        served.wait_for(f"{sets} sets of the second version", lambda: found.sets_of(second) >= sets)
        yield found
