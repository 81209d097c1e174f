"""The replay viewer's data: each game `arena report` embeds, in the compact form the page's
script reads (`assets/report.js`), with the lines its bots wrote.

A bot controls its name, its fault messages and its log, so every string here is cut to a bounded
length, and the JSON is written so that no string can end the page's script element early
(`script_json`); in the browser it only ever reaches `textContent`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any

from arena.rules import BULLHEADS, Decision
from arena.rules.errors import told
from arena.server.botlog import ARENA
from arena.spectate.replay import outcome_marks
from arena.spectate.source import GameSource, SpectateError
from arena.tournament import GameOutcome

MESSAGE_CHARS = 300
"""A fault message is cut to this many characters: a bot controls its length."""

_LOG_LINES = 60
"""Lines of each bot's log embedded per game (`arena logs` prints them all); each is cut like a
fault message."""

_PLACED, _SIXTH, _CHOSEN = 0, 1, 2
"""How a placement is encoded for the viewer: joined a row, took it as 6th card, chose it."""


def compact(
    outcome: GameOutcome,
    number: int,
    bots: dict[str, int],
    out_in: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A game as the viewer reads it: seats as indexes into the bots, turns as short arrays.

    Each turn is [cards by seat, moves], a move [seat, row, how] in the order the cards were
    placed; the viewer rebuilds the rows from them (and the taken cards from the rows). About
    2.5 kB a game.
    """
    record = outcome.record
    rounds = []
    for round_ in record.rounds:
        turns = []
        for turn in round_.turns:
            moves = [
                [p.seat, p.row, _CHOSEN if p.chosen else _SIXTH if p.taken else _PLACED]
                for p in turn.placements
            ]
            turns.append([list(turn.cards), moves])
        # No hands: each seat's hand is the cards it plays, which the turns hold already.
        compact_round: dict[str, Any] = {
            "rows": [list(row) for row in round_.rows],
            "turns": turns,
            "penalties": list(round_.penalties),
        }
        if round_.picks:
            compact_round["picks"] = list(round_.picks)
            compact_round["first"] = round_.first_picker
        rounds.append(compact_round)
    faults = [[f.seat, f.kind.value, f.round, f.turn] for f in outcome.faults]
    # Each decision the fallback made: [round, turn from 1 (0: the draft), seat, decision, kind,
    # message, quiet], for the viewer to mark where it happened.
    marks = [
        [
            index,
            turn + 1,
            mark.seat,
            mark.decision.value,
            mark.kind,
            told(mark.message)[:MESSAGE_CHARS],
            int(mark.quiet),
        ]
        for (index, turn), found in sorted(outcome_marks(outcome, out_in).items())
        for mark in found
    ]
    game = {
        "id": outcome.game_id,
        "n": number,
        "seats": [bots[bot] for bot in outcome.spec.seats],
        "totals": list(record.totals),
        "winners": list(record.winners),
        "faults": faults,
        "marks": marks,
        "rounds": rounds,
    }
    if outcome.times:  # [round, turn from 1 (0: the draft), seat, decision, ms, CPU ms, bank ms]
        game["times"] = [
            [
                time.round,
                0 if time.decision is Decision.DRAFT else time.turn + 1,
                time.seat,
                time.decision.value,
                round(time.seconds * 1000, 1),
                None if time.cpu is None else round(time.cpu * 1000, 1),
                round(time.bank * 1000),
            ]
            for time in outcome.times
        ]
    return game


def add_logs(
    games: Sequence[dict[str, Any]], source: GameSource, ids: Sequence[str], bots: dict[str, int]
) -> None:
    """Give each compact game the lines its bots wrote in it, for the viewer: `logs` maps a seat
    (as a string, JSON's keys) to [round, turn, from the arena (1) or the bot (0), text] in the
    order written, round and turn from 0 or null (before the first decision; turn: the draft).
    At most `_LOG_LINES` a seat, each cut at `MESSAGE_CHARS`; `logs_more` counts the rest.
    Bots control this text: it reaches the page only through `script_json` and `textContent`."""
    try:
        lines = list(source.bot_lines(games=ids))
    except SpectateError:  # a replay file: no logs
        return
    by_game = {game["id"]: game for game in games}
    kept: dict[tuple[str, str], list[list[Any]]] = {}
    more: Counter[tuple[str, str]] = Counter()
    for line in lines:
        game = by_game.get(line.game_id or "")
        if game is None or bots.get(line.bot) not in game["seats"]:
            continue
        key = (game["id"], line.bot)
        found = kept.setdefault(key, [])
        if len(found) < _LOG_LINES:
            arena = int(line.source == ARENA)
            found.append([line.round, line.turn, arena, line.text[:MESSAGE_CHARS]])
        else:
            more[key] += 1
    for (game_id, bot), found in kept.items():
        game = by_game[game_id]
        seat = str(game["seats"].index(bots[bot]))
        game.setdefault("logs", {})[seat] = found
        if more[game_id, bot]:
            game.setdefault("logs_more", {})[seat] = more[game_id, bot]


def viewer_data(
    bots: Sequence[str], colours: Mapping[str, str], games: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """What the viewer's script reads from the page's `#data` element: the bots (the games'
    seats index them), their colours, each card's bullheads and the compact games."""
    return {
        "bots": list(bots),
        "colours": [colours[bot] for bot in bots],
        "bullheads": list(BULLHEADS),
        "games": list(games),
    }


def viewer_markup() -> str:
    """The viewer's markup (`assets/viewer.html`: its game picker, board and log), for a page
    that embeds it beside `viewer_data` and `assets/report.js`; it holds no bot's text."""
    return files("arena.spectate").joinpath("assets", "viewer.html").read_text(encoding="utf-8")


def script_json(value: Any) -> str:
    """JSON safe inside a `<script>` element: no string in it can end the element early."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
