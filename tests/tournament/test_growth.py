"""The pure and stored parts of a tournament that grows and tells the truth (issue 15): tables
that keep their numbers, the disqualified ranked last, the problems an organizer acts on, bots'
fingerprints, and the store's bots, notes and `--replace`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.players import Fault, FaultKind, Referee
from arena.rules import Decision, Settings
from arena.server.lobby import Bot, BotSpec
from arena.tournament import ResultStore, compute_standings, schedule
from arena.tournament.fingerprint import (
    EXTERNAL,
    bot_fingerprint,
    differences,
    folder_hash,
    submission_fingerprint,
)
from arena.tournament.outcome import Disqualification
from arena.tournament.problems import LeftOut, find_problems
from arena.tournament.runner import _newly_out
from arena.tournament.schedule import keep_seatings
from arena.tournament.store import PLANNED, Entry
from tests.tournament.helpers import made_up, played

RULES = {"players": 2, "seed": 5}


def test_stored_tables_keep_their_numbers_and_new_ones_come_after() -> None:
    settings = Settings(players=2, end_score=20)
    three = schedule(["bob", "cyd", "dan"], settings, 1, 5)
    four = schedule(["ann", "bob", "cyd", "dan"], settings, 1, 5)  # "ann" sorts first
    known = {spec.seats: spec.seating for spec in three}
    kept = keep_seatings(four, known)
    assert all(spec in kept for spec in three)  # the same tables, ids and seeds
    new = [spec for spec in kept if "ann" in spec.seats]
    assert sorted({spec.seating for spec in new}) == [3, 4, 5]
    assert {spec.game_id[:4] for spec in new} == {"t003", "t004", "t005"}
    assert keep_seatings(three, {}) == three  # a new tournament: the schedule's own numbers


def test_the_disqualified_rank_last_the_first_one_out_last() -> None:
    games = [
        made_up(["ann", "bob"], [30, 10], seating=0),
        made_up(["cyd", "dan"], [5, 40], seating=1),
        made_up(["ann", "cyd"], [1, 2], seating=2),
    ]
    out = {
        "cyd": Disqualification("cyd", "is disqualified after 20 faults", "t001-d00-r0", 2),
        "bob": Disqualification("bob", "failed to start twice", "t000-d00-r0", 1),
    }
    standings = compute_standings(games, entered=["eve"], disqualified=out)
    assert [line.bot for line in standings.bots] == ["ann", "dan", "eve", "cyd", "bob"]
    lines = {line.bot: line for line in standings.bots}
    assert lines["bob"].disqualified and lines["bob"].disqualified_in == "t000-d00-r0"
    assert (lines["eve"].games, lines["eve"].to_dict()["mean"]) == (0, None)
    # Without the store's record, a bot is out from the first game that lists it.
    listed = [made_up(["ann", "bob"], [1, 2], disqualified=["bob"]), *games[1:]]
    derived = {line.bot: line for line in compute_standings(listed).bots}
    assert derived["bob"].disqualified_in == "t000-d00-r0"
    assert [line.bot for line in compute_standings(listed).bots][-1] == "bob"


def test_ranked_by_bullheads_per_game_when_bots_played_unequally() -> None:
    """A gauntlet entry plays fewer games: its total is not comparable, its mean is."""
    games = [made_up(["ann", "bob"], [10, 12], deal=d) for d in range(3)]
    games.append(made_up(["ann", "new"], [10, 9], seating=1))
    assert [line.bot for line in compute_standings(games).bots] == ["new", "ann", "bob"]


def test_problems_name_what_to_act_on() -> None:
    absent = Fault(1, FaultKind.NOT_CONNECTED, Decision.CARD, 0, 0, "ghost exited with status 2")
    late = Fault(0, FaultKind.TIMEOUT, Decision.CARD, 0, 1, "no answer in 1 s")
    games = [
        made_up(["ann", "ghost"], [3, 9], faults=[late, absent]),
        made_up(["ann", "ghost"], [4, 8], rotation=1, faults=[absent]),
    ]
    out = [Disqualification("ghost", "is disqualified: it failed to start twice", "t000-d00-r0", 1)]
    standings = compute_standings(games, disqualified={"ghost": out[0]})
    problems = find_problems(
        standings, out, [LeftOut("dave", "its build failed")], {"ghost": ["Traceback", "boom"]}
    )
    assert problems.serious
    assert [absent.bot for absent in problems.never_connected] == ["ghost"]
    assert problems.faults == {"ann": {"timeout": 1}, "ghost": {"not-connected": 2}}
    assert problems.lines() == [
        "disqualified in game t000-d00-r0: ghost is disqualified: it failed to start twice",
        "never connected: ghost (the fallback played its 2 games), its log ends:",
        "    | Traceback",
        "    | boom",
        "left out: submission 'dave': its build failed",
        "faults: ann 1 (timeout 1); ghost 2 (not-connected 2)",
    ]
    assert json.loads(json.dumps(problems.to_dict()))["never_connected"][0]["log_tail"] == [
        "Traceback",
        "boom",
    ]
    clean = find_problems(compute_standings(games[:0]), [])
    assert not clean.serious and clean.lines() == []


def test_a_folder_hash_follows_content_not_times(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    (folder / "src").mkdir(parents=True)
    (folder / "bot.toml").write_text('command = "./bot"\n')
    (folder / "src" / "bot.c").write_text("int main(void) { return 0; }\n")
    first = folder_hash(folder)
    os.utime(folder / "bot.toml", (0, 0))
    assert folder_hash(folder) == first
    (folder / "src" / "bot.c").chmod(0o755)
    assert folder_hash(folder) != first  # executable or not is part of a program
    (folder / "src" / "bot.c").chmod(0o644)
    assert folder_hash(folder) == first
    (folder / "src" / "bot.c").write_text("int main(void) { return 1; }\n")
    assert folder_hash(folder) != first
    changed = folder_hash(folder)
    (folder / "__pycache__").mkdir()  # what running a Python bot writes is not the bot
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\x00" * 16)
    (folder / "src" / ".git").write_text("gitdir: elsewhere\n")
    assert folder_hash(folder) == changed
    other = submission_fingerprint(folder, "./bot")
    assert differences(submission_fingerprint(folder, "./bot2"), other).startswith("its command")


def test_a_bot_fingerprint_is_its_command_and_its_files(tmp_path: Path) -> None:
    program = tmp_path / "mine.py"
    program.write_text("print('v1')\n")
    spec = BotSpec("mine", ("/usr/bin/python3", str(program), "--fast"))
    before = bot_fingerprint(spec)
    program.write_text("print('v2')\n")
    assert differences(before, bot_fingerprint(spec)) == "the content of mine.py"
    slower = BotSpec("mine", ("/usr/bin/python3", str(program), "--slow"))
    assert differences(bot_fingerprint(spec), bot_fingerprint(slower)).startswith("its command")
    assert bot_fingerprint(BotSpec("ext", None)) == EXTERNAL


def test_the_store_keeps_bots_notes_and_replaces_a_bot(tmp_path: Path) -> None:
    specs = schedule(["ann", "bob", "cyd"], Settings(players=2, end_score=20), 1, 5)
    path = tmp_path / "results.sqlite"
    with ResultStore(path, RULES) as store:
        entries = [Entry(name, f"fp-{name}", name, ("x",), None) for name in ("ann", "bob", "cyd")]
        store.enter(entries, {PLANNED: len(specs)})
        out = Disqualification("bob", "is disqualified after 20 faults", "", 0)
        for spec in specs:
            store.save(played(spec), [out] if spec.game_id == "t000-d00-r1" else [])
        assert store.seatings() == {("ann", "bob"): 0, ("ann", "cyd"): 1, ("bob", "cyd"): 2}
        assert store.deals() == 1 and store.notes() == {PLANNED: 6}
        gone = store.entries()["bob"].disqualified
        assert gone is not None and (gone.game_id, gone.order) == ("t000-d00-r1", 2)
        assert store.replace("bob", "fp-bob-2") == 4
        assert {o.spec.seats for o in store.outcomes()} == {("ann", "cyd")}
        # Dropped, bob's seatings keep their numbers: played again, their games keep their ids.
        assert store.seatings() == {("ann", "bob"): 0, ("ann", "cyd"): 1, ("bob", "cyd"): 2}
        bob = store.entries()["bob"]
        assert (bob.fingerprint, bob.disqualified) == ("fp-bob-2", None)
        store.enter([Entry("bob", "fp-ignored", "bob v3", ("y",), "/w")], {})
        bob = store.entries()["bob"]  # known: its start is updated, its fingerprint never
        assert (bob.fingerprint, bob.argv, bob.cwd) == ("fp-bob-2", ("y",), "/w")
    with ResultStore.reader(path) as reader:
        assert reader.count() == 2 and set(reader.entries()) == {"ann", "bob", "cyd"}
        assert [o.totals for o in reader.results()] == [o.totals for o in reader.outcomes()]
        with pytest.raises(Exception, match="readonly"):
            reader.enter([], {PLANNED: 1})


def test_a_bot_is_put_out_in_the_game_that_holds_its_last_straw(tmp_path: Path) -> None:
    """Two games at once: the one that ends first shows the bot out too, but the game it was put
    out in is the one holding the fault that reached the limit."""
    referee = Referee("bob", max_faults=2)
    bots = {name: Bot(BotSpec(name, None), tmp_path / f"{name}.log", referee) for name in ["bob"]}
    bots["ann"] = Bot(BotSpec("ann", None), tmp_path / "ann.log", Referee("ann"))
    first = Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 0, "late")
    straw = Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 4, "late")
    early = made_up(["ann", "bob"], [1, 2], seating=0, faults=[first], disqualified=["bob"])
    later = made_up(["ann", "bob"], [1, 2], seating=1, faults=[straw], disqualified=["bob"])
    assert referee.charge(first) is None and referee.charge(straw) is not None
    out: set[str] = set()
    assert _newly_out(early, bots, out) == []
    (gone,) = _newly_out(later, bots, out)
    assert (gone.bot, gone.game_id) == ("bob", later.game_id)
    assert gone.reason == "is disqualified after 2 faults: the fallback plays for it"
    assert _newly_out(later, bots, out) == []  # on record once
