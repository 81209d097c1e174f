"""The bots' per-turn logs in the results store: written with their game, in its transaction,
once; lines from between games stored as they come."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from arena.rules import Settings
from arena.server.botlog import ARENA, BOT, LogLine
from arena.tournament import ResultStore, schedule
from tests.tournament.helpers import played

SETTINGS = {"players": 2, "seed": 1}


def stored(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT bot, game_id, round, turn, source, text FROM bot_logs ORDER BY id"
        ).fetchall()


def test_a_game_s_lines_are_stored_with_it_once(tmp_path: Path) -> None:
    spec = schedule(["a", "b"], Settings(2), 1, 1)[0]
    lines = (
        LogLine("a", None, None, None, ARENA, "a started process 7"),
        LogLine("a", spec.game_id, 0, 3, BOT, "thinking"),
        LogLine("b", spec.game_id, None, None, BOT, "hello <b>"),
    )
    outcome = replace(played(spec), logs=lines)
    assert outcome == played(spec)  # the lines are not part of what the outcome is
    assert "logs" not in outcome.to_dict()
    path = tmp_path / "results.sqlite"
    with ResultStore(path, SETTINGS) as store:
        assert store.save(outcome)
        assert not store.save(outcome)
        store.save_lines([LogLine("a", None, None, None, ARENA, "a exited with status 0")])
    assert stored(path) == [
        ("a", None, None, None, "arena", "a started process 7"),
        ("a", spec.game_id, 0, 3, "bot", "thinking"),
        ("b", spec.game_id, None, None, "bot", "hello <b>"),
        ("a", None, None, None, "arena", "a exited with status 0"),
    ]
