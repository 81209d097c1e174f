"""`arena replay`: a tournament's games in the terminal, listed, or one of them turn by turn.

The game itself is drawn by `arena.spectate.display`, the renderer `arena play` uses; this
module picks the game, the part of it to show, and the terminal's colours, and escapes what
bots wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import click
from tabulate import tabulate

from arena.spectate.botlogs import BotLines
from arena.spectate.display import (
    LEGEND,
    Marks,
    Paint,
    decision_times,
    fallback_marks,
    fault_line,
    final_lines,
    plain,
    render_game,
    render_round,
    render_turn,
    safe,
)
from arena.spectate.source import GameEntry, SpectateError
from arena.tournament import GameOutcome

_COLOURS = {2: "cyan", 3: "yellow", 5: "red", 7: "magenta"}
"""Cards coloured by bullheads, after the printed game's: the costlier, the louder."""

_TURN = re.compile(r"(?P<round>\d+)(?:\.(?P<turn>\d+))?")


def terminal_paint(text: str, heads: int) -> str:
    """Colour a card by its bullheads (click drops the colour when output is not a terminal)."""
    if heads == 1:  # most cards: left plain, so that the costly ones stand out
        return text
    return click.style(text, fg=_COLOURS.get(heads), bold=heads >= 5)


def game_list(entries: Iterable[GameEntry]) -> str:
    """The games as a table: number, id, each bot's bullheads, winners, faults."""
    rows = [
        [
            entry.number,
            entry.game_id,
            ", ".join(f"{safe(b)} {t}" for b, t in zip(entry.seats, entry.totals, strict=True)),
            " and ".join(safe(bot) for bot in entry.winners),
            entry.faults or "",
        ]
        for entry in entries
    ]
    if not rows:
        return "no finished game yet"
    headers = ["#", "game", "bullheads by seat", "winner", "faults"]
    return tabulate(rows, headers, colalign=("right", "left", "left", "left", "right"))


def parse_turn(text: str) -> tuple[int, int | None]:
    """`R.T` or `R` (both counting from 1) as (round, turn or None); SpectateError otherwise."""
    match = _TURN.fullmatch(text.strip())
    if match is None:
        raise SpectateError(f"--turn {text!r}: give ROUND.TURN like 2.7, or a ROUND like 2")
    turn = match["turn"]
    return int(match["round"]), int(turn) if turn is not None else None


def _where(outcome: GameOutcome, turn: str) -> tuple[int, int | None]:
    """`--turn` checked against the game: (round index from 0, turn from 1 or None)."""
    record, game_id = outcome.record, outcome.game_id
    round_number, turn_number = parse_turn(turn)
    rounds = len(record.rounds)
    if not 1 <= round_number <= rounds:
        raise SpectateError(f"--turn {turn}: game {game_id} has rounds 1 to {rounds}")
    if turn_number is not None:
        turns = len(record.rounds[round_number - 1].turns)
        if not 1 <= turn_number <= turns:
            raise SpectateError(f"--turn {turn}: round {round_number} has turns 1 to {turns}")
    return round_number - 1, turn_number


def _head(outcome: GameOutcome, names: Sequence[str], log: BotLines | None = None) -> list[str]:
    spec = outcome.spec
    lines = [
        f"Game {spec.game_id}: table {spec.seating + 1}, deal {spec.deal + 1}, "
        f"seat rotation {spec.rotation}",
        f"Seats: {', '.join(names)}",
        LEGEND,
    ]
    if log is not None:
        lines.append(log.legend())
    return [*lines, ""]


def outcome_marks(outcome: GameOutcome, out_in: Mapping[str, str] | None = None) -> Marks:
    """The fallback's decisions in a stored game (see `fallback_marks`). `out_in` gives the game
    each disqualified bot was put out in, when the results database says: a bot out by the end
    of this game was put out in it, or before it. Without it, a bot out by the end of this game
    with a fault in it is taken to be put out in it."""
    before, here = [], []
    known = out_in or {}
    for seat, bot in enumerate(outcome.spec.seats):
        if bot not in outcome.disqualified:
            continue
        game = known.get(bot) or None
        faulted = any(fault.seat == seat for fault in outcome.faults)
        if game == outcome.game_id or (game is None and faulted):
            here.append(seat)
        else:
            before.append(seat)
    return fallback_marks(outcome.record, outcome.faults, before, here)


def show_game(
    outcome: GameOutcome,
    turn: str | None = None,
    paint: Paint = plain,
    out_in: Mapping[str, str] | None = None,
    log: BotLines | None = None,
) -> str:
    """One game for the terminal: all of it, or one round (`turn` "R") or one turn ("R.T"), each
    decision the fallback made marked with its fault (`outcome_marks`), each decision's time
    when the results database kept it, and with `log` one bot's log lines under the turns they
    were written in."""
    record = outcome.record
    names = [safe(bot) for bot in outcome.spec.seats]
    marks = outcome_marks(outcome, out_in)
    logs = log.by_turn() if log is not None else None
    times = decision_times(outcome.times)
    if turn is None:
        body = render_game(record, names, paint, marks, logs, times)
    else:
        index, turn_number = _where(outcome, turn)
        if turn_number is None:
            body = render_round(record, index, names, paint, marks, logs, times)
        else:
            body = render_turn(record, index, turn_number, names, paint, marks, logs, times)
    faults = [fault_line(fault, names) for fault in outcome.faults]
    head = _head(outcome, names, log)
    return "\n".join([*head, body, *(["", *faults] if faults else [])])


_NEXT = {"\x1b[C", "n", " ", "\r", "\n", "l"}
_BACK = {"\x1b[D", "p", "\x7f", "\x08", "h"}
_NEXT_ROUND = {"\x1b[6~", "N"}
_BACK_ROUND = {"\x1b[5~", "P"}
_QUIT = {"q", "Q", "\x1b", "\x03", "\x04", ""}
KEYS = "→/n next · ←/p back · PgDn/N PgUp/P round · q quit"
"""The stepping keys, as shown under each turn."""


def step_through(
    outcome: GameOutcome,
    read_key: Callable[[], str],
    show: Callable[[str], None],
    turn: str | None = None,
    paint: Paint = plain,
    out_in: Mapping[str, str] | None = None,
    log: BotLines | None = None,
) -> None:
    """Show a game one turn at a time, moving with the keys `read_key` returns, until quit.

    `show` puts one screen up (clearing the last); starts at `turn` ("R" or "R.T") if given;
    with `log`, one bot's lines under each turn.
    """
    record = outcome.record
    names = [safe(bot) for bot in outcome.spec.seats]
    marks = outcome_marks(outcome, out_in)
    logs = log.by_turn() if log is not None else None
    times = decision_times(outcome.times)
    spots = [
        (index, number)
        for index, round_ in enumerate(record.rounds)
        for number in range(1, len(round_.turns) + 1)
    ]
    at = 0
    if turn is not None:
        index, number = _where(outcome, turn)
        at = spots.index((index, number or 1))
    while True:
        index, number = spots[at]
        shown = render_turn(record, index, number, names, paint, marks, logs, times)
        screen = [*_head(outcome, names, log), shown]
        if at == len(spots) - 1:
            screen += ["", *final_lines(record, names)]
        show("\n".join([*screen, "", f"{at + 1}/{len(spots)} · {KEYS}"]))
        key = read_key()
        if key in _QUIT:
            return
        if key in _NEXT:
            at = min(at + 1, len(spots) - 1)
        elif key in _BACK:
            at = max(at - 1, 0)
        elif key in _NEXT_ROUND:
            at = next((i for i, (r, _) in enumerate(spots) if r > index), len(spots) - 1)
        elif key in _BACK_ROUND:
            target = index - 1 if number == 1 else index
            at = next(i for i, (r, _) in enumerate(spots) if r == max(target, 0))
