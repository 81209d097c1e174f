"""Game records as text for people: what `arena play` and `arena replay` print.

One renderer for both, so a game reads the same whether it was just played or dug out of a
tournament. `walk` is the turn-by-turn model underneath (the rows after each turn and the running
totals), also used by the report and its tests to know what the table looked like at any moment.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from arena.players import DecisionTime, Fault
from arena.players.referee import ABSENT
from arena.rules import (
    BULLHEADS,
    Decision,
    GameRecord,
    Placement,
    RoundRecord,
    Rows,
    TurnRecord,
    penalty,
)
from arena.rules.errors import told

Paint = Callable[[str, int], str]
"""Dresses a card's text given its bullheads (colour on a terminal); `plain` leaves it alone."""


def plain(text: str, heads: int) -> str:
    """No dressing: the text as it is, for files, pipes and tests."""
    return text


def card(card: int, paint: Paint = plain) -> str:
    """A card with its bullheads when it has more than one, e.g. `55(7)`."""
    heads = BULLHEADS[card]
    return paint(f"{card}({heads})" if heads > 1 else str(card), heads)


def cards(cards: Sequence[int], paint: Paint = plain) -> str:
    """A pile or row of cards, space-separated."""
    return " ".join(card(c, paint) for c in cards)


def safe(text: str) -> str:
    """Text from a bot (a name, a fault message) with its control characters escaped.

    Bots are untrusted: raw, their text could move the cursor, recolour or clear the terminal.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def fault_line(fault: Fault, names: Sequence[str]) -> str:
    """One fault for people: who, what, where, and the message (escaped)."""
    where = f"round {fault.round + 1}, turn {fault.turn + 1}"
    return f"fault: {names[fault.seat]} {fault.kind} in {where}: {safe(told(fault.message))}"


@dataclass(frozen=True, slots=True)
class Mark:
    """A decision the fallback made for a seat, and why: a fault of this decision, or a quiet
    fallback (the bot crashed or never connected earlier in the game, or is disqualified)."""

    seat: int
    decision: Decision
    kind: str
    """The fault's kind (`timeout`, ...); for a quiet fallback, `crashed`, `not-connected` or
    `disqualified` as the reason it is not asked."""
    message: str
    """The fault's message, or why the bot is not asked."""
    quiet: bool = False
    """No fault of its own: the bot was not asked."""


Marks = Mapping[tuple[int, int], Sequence[Mark]]
"""Fallback decisions by (round, turn), both from 0; a round's draft picks under turn -1."""

DRAFT_TURN = -1
"""The turn a round's draft picks are marked under."""

Logs = Mapping[tuple[int | None, int | None], Sequence[str]]
"""One bot's log lines by where its process was, (round, turn) from 0: (round, None) in the
round's draft, (None, None) in the game before its first decision. Shown escaped (`safe`)."""
LOG = "| "
"""What starts each line of a bot's log in a replay."""

Times = Mapping[tuple[int, int, int, Decision], DecisionTime]
"""How long each decision took, by (round, turn, seat, decision), round and turn from 0 (see
`decision_times`)."""


def decision_times(
    times: Sequence[DecisionTime],
) -> dict[tuple[int, int, int, Decision], DecisionTime]:
    """A game's decision times by where they were made (a draft pick under its round's
    `DRAFT_TURN`, the round's last pick of a seat kept)."""
    return {
        (
            time.round,
            DRAFT_TURN if time.decision is Decision.DRAFT else time.turn,
            time.seat,
            time.decision,
        ): time
        for time in times
    }


def took(time: DecisionTime | None) -> str:
    """A decision's time for people, e.g. ` (312 ms)`, ` (0.8 ms)`; empty when unknown."""
    if time is None:
        return ""
    ms = time.seconds * 1000
    shown = f"{ms:.1f}" if ms < 10 else f"{ms:.0f}"
    bank = f", {time.bank * 1000:.0f} ms of bank" if time.bank > 0 else ""
    return f" ({shown} ms{bank})"


def _log_lines(logs: Logs | None, at: tuple[int | None, int | None], indent: str) -> list[str]:
    return [f"{indent}{LOG}{safe(text)}" for text in (logs or {}).get(at, ())]


def fallback_marks(
    record: GameRecord,
    faults: Sequence[Fault],
    out_before: Collection[int] = (),
    out_here: Collection[int] = (),
) -> dict[tuple[int, int], list[Mark]]:
    """Every decision the fallback made in a game, and why, from its record and faults.

    A fault marks its own decision. A seat whose bot crashed or never connected is played by
    the fallback quietly for the rest of the game; a seat of `out_before` (its bot was
    disqualified before the game) for all of it; a seat of `out_here` (disqualified in this
    game) after its last fault in it, since a disqualified bot is not asked again.
    """
    marks: dict[tuple[int, int], list[Mark]] = {}
    quiet_from: dict[int, tuple[tuple[int, int, int], str, str]] = {}
    for seat in out_before:
        quiet_from[seat] = ((-1, -1, -1), "disqualified", "disqualified before this game")
    last: dict[int, Fault] = {}
    for fault in faults:
        at = DRAFT_TURN if fault.decision is Decision.DRAFT else fault.turn
        marks.setdefault((fault.round, at), []).append(
            Mark(fault.seat, fault.decision, str(fault.kind), fault.message)
        )
        last[fault.seat] = fault
        if fault.kind in ABSENT and fault.seat not in quiet_from:
            quiet_from[fault.seat] = (_when(fault), str(fault.kind), "not asked again this game")
    for seat in out_here:
        if seat in last and seat not in quiet_from:
            quiet_from[seat] = (_when(last[seat]), "disqualified", "disqualified in this game")
        elif seat not in quiet_from:
            quiet_from[seat] = ((-1, -1, -1), "disqualified", "disqualified")
    if not quiet_from:
        return marks
    for index, round_ in enumerate(record.rounds):
        for number, turn in enumerate(round_.turns):
            asked = [(seat, Decision.CARD) for seat in range(len(turn.cards))]
            asked += [(p.seat, Decision.ROW) for p in turn.placements if p.chosen]
            for seat, decision in asked:
                start = quiet_from.get(seat)
                when = (index, number, 0 if decision is Decision.CARD else 1)
                if start is None or when <= start[0]:
                    continue
                faulted = marks.get((index, number), [])
                if any(m.seat == seat and m.decision is decision for m in faulted):
                    continue
                mark = Mark(seat, decision, start[1], start[2], quiet=True)
                marks.setdefault((index, number), []).append(mark)
    return marks


def _when(fault: Fault) -> tuple[int, int, int]:
    """A decision's place in the game's order: round, turn, then the card before the row."""
    if fault.decision is Decision.DRAFT:
        return (fault.round, -1, 0)
    return (fault.round, fault.turn, 0 if fault.decision is Decision.CARD else 1)


def mark_line(mark: Mark, names: Sequence[str]) -> str:
    """One fallback decision for people: whose, which decision, and why (escaped)."""
    what = {Decision.CARD: "card", Decision.ROW: "row", Decision.DRAFT: "draft pick"}
    message = told(mark.message)
    why = f"{mark.kind}, {message}" if mark.quiet else f"{mark.kind}: {message}"
    return f"fallback: {names[mark.seat]}'s {what[mark.decision]} ({safe(why)})"


LEGEND = "Cards show their bullheads in brackets when they have more than one: 55(7)."
"""Printed above a replay, so that a reader new to the notation knows what 55(7) means."""


@dataclass(frozen=True, slots=True)
class Moment:
    """A turn of a recorded game with the table around it: what a replay shows at that moment."""

    round: int
    """The round, counting from 0."""
    turn: int
    """The turn within the round, counting from 1."""
    record: TurnRecord
    """The cards revealed and where each went."""
    rows: Rows
    """The rows once the turn's cards are placed."""
    taken: tuple[int, ...]
    """Bullheads each seat took in this turn."""
    totals: tuple[int, ...]
    """Each seat's bullheads in the game so far, this turn included."""


def walk_round(round_: RoundRecord, index: int, totals: Sequence[int]) -> Iterator[Moment]:
    """The turns of one round, from each seat's game total before it (`totals`)."""
    rows = [list(row) for row in round_.rows]
    running = list(totals)
    for number, turn in enumerate(round_.turns, start=1):
        taken = [0] * len(running)
        for p in turn.placements:
            # A take (rule 3 or 4) leaves the card alone in its row; otherwise it joins the row.
            rows[p.row] = [p.card] if p.taken or p.chosen else [*rows[p.row], p.card]
            taken[p.seat] += p.bullheads
        running = [r + t for r, t in zip(running, taken, strict=True)]
        yield Moment(index, number, turn, tuple(map(tuple, rows)), tuple(taken), tuple(running))


def walk(record: GameRecord) -> Iterator[Moment]:
    """Every turn of a game in order, with the rows and running totals after it."""
    totals: Sequence[int] = (0,) * record.settings.players
    for index, round_ in enumerate(record.rounds):
        yield from walk_round(round_, index, totals)
        totals = [t + p for t, p in zip(totals, round_.penalties, strict=True)]


def totals_before(record: GameRecord, round_index: int) -> tuple[int, ...]:
    """Each seat's bullheads over the rounds before `round_index`."""
    totals = [0] * record.settings.players
    for round_ in record.rounds[:round_index]:
        totals = [t + p for t, p in zip(totals, round_.penalties, strict=True)]
    return tuple(totals)


def _placement(p: Placement, names: Sequence[str], paint: Paint) -> str:
    who = names[p.seat]
    row = p.row + 1
    played = card(p.card, paint)
    taken = f"[{cards(p.taken, paint)}] for {p.bullheads}"
    if p.chosen:
        return f"{played} ({who}) is too low: takes row {row} {taken}"
    if p.taken:
        return f"{played} ({who}) is the 6th card of row {row}: takes {taken}"
    return f"{played} ({who}) -> row {row}"


def _row_lines(rows: Rows, indent: str, paint: Paint) -> Iterator[str]:
    """The rows as on the table, one under the other, each with its bullheads at the end."""
    shown = [cards(row) for row in rows]
    width = max(map(len, shown))
    for number, (row, text) in enumerate(zip(rows, shown, strict=True), start=1):
        # Pad on the plain text: colour codes would throw the column off.
        pad = " " * (width - len(text))
        yield f"{indent}row {number}  {cards(row, paint)}{pad}  = {penalty(row)}"


def _turn_lines(
    moment: Moment,
    names: Sequence[str],
    paint: Paint,
    marks: Marks | None = None,
    logs: Logs | None = None,
    times: Times | None = None,
) -> Iterator[str]:
    indent = " " * 11
    at = (moment.round, moment.turn - 1)
    marked = (marks or {}).get(at, ())
    timed = times or {}
    fallback_cards = {m.seat for m in marked if m.decision is Decision.CARD}
    played = ", ".join(
        f"{names[s]} {card(c, paint)}"
        + (" [fallback]" if s in fallback_cards else "")
        + took(timed.get((*at, s, Decision.CARD)))
        for s, c in enumerate(moment.record.cards)
    )
    yield f"  turn {moment.turn:>2}: {played}"
    yield from _log_lines(logs, at, indent)
    fallback_rows = {m.seat for m in marked if m.decision is Decision.ROW}
    for p in moment.record.placements:
        flag = " [fallback]" if p.chosen and p.seat in fallback_rows else ""
        chose = took(timed.get((*at, p.seat, Decision.ROW))) if p.chosen else ""
        yield indent + _placement(p, names, paint) + flag + chose
    for mark in marked:
        yield indent + mark_line(mark, names)
    yield from _row_lines(moment.rows, indent, paint)
    running = ", ".join(
        f"{names[s]} {total}" + (f" (+{took})" if took else "")
        for s, (total, took) in enumerate(zip(moment.totals, moment.taken, strict=True))
    )
    yield f"{indent}bullheads: {running}"


def _round_head(
    round_: RoundRecord,
    index: int,
    names: Sequence[str],
    paint: Paint,
    marks: Marks | None,
    logs: Logs | None = None,
) -> list[str]:
    lines = [f"Round {index + 1}"]
    if round_.picks:
        picks = " ".join(map(str, round_.picks))
        lines.append(f"  draft, {names[round_.first_picker]} first: {picks}")
        for mark in (marks or {}).get((index, DRAFT_TURN), ()):
            lines.append("           " + mark_line(mark, names))
        lines.extend(_log_lines(logs, (index, None), "           "))
    lines.append("  rows as dealt:" if not round_.picks else "  rows after the draft:")
    lines.extend(_row_lines(round_.rows, "           ", paint))
    width = max(map(len, names))
    for seat, hand in enumerate(round_.hands):
        lines.append(f"  {names[seat]:>{width}} holds {cards(hand, paint)}")
    return lines


def _round_lines(
    record: GameRecord,
    index: int,
    names: Sequence[str],
    paint: Paint,
    marks: Marks | None,
    logs: Logs | None = None,
    times: Times | None = None,
) -> Iterator[str]:
    round_ = record.rounds[index]
    before = totals_before(record, index)
    yield from _round_head(round_, index, names, paint, marks, logs)
    for moment in walk_round(round_, index, before):
        yield from _turn_lines(moment, names, paint, marks, logs, times)
    scores = ", ".join(
        f"{names[s]} {pen} (total {b + pen})"
        for s, (pen, b) in enumerate(zip(round_.penalties, before, strict=True))
    )
    yield f"  bullheads this round: {scores}"


def _header(record: GameRecord) -> str:
    s = record.settings
    return f"{s.players} players, {s.variant}, game ends at {s.end_score} bullheads"


def final_lines(record: GameRecord, names: Sequence[str]) -> list[str]:
    """The final totals and the winners."""
    won = " and ".join(names[s] for s in record.winners)
    return [
        "Final: " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(record.totals)),
        f"Winner{'s' if len(record.winners) > 1 else ''}: {won}",
    ]


def render_game(
    record: GameRecord,
    names: Sequence[str],
    paint: Paint = plain,
    marks: Marks | None = None,
    logs: Logs | None = None,
    times: Times | None = None,
) -> str:
    """The whole game, round by round and turn by turn, ending with the winners; each decision
    the fallback made (`marks`, from `fallback_marks`) is marked where it was made, a bot's
    log lines (`logs`) are shown under the turn they were written in, and with `times` each
    card and row choice says how long its bot took."""
    lines = [_header(record), *_log_lines(logs, (None, None), "  ")]
    for index in range(len(record.rounds)):
        lines.append("")
        lines.extend(_round_lines(record, index, names, paint, marks, logs, times))
    lines.append("")
    lines.extend(final_lines(record, names))
    return "\n".join(lines)


def render_round(
    record: GameRecord,
    index: int,
    names: Sequence[str],
    paint: Paint = plain,
    marks: Marks | None = None,
    logs: Logs | None = None,
    times: Times | None = None,
) -> str:
    """One round of a game: its deal, its turns and its scores. `index` counts from 0."""
    return "\n".join(_round_lines(record, index, names, paint, marks, logs, times))


def render_turn(
    record: GameRecord,
    index: int,
    turn: int,
    names: Sequence[str],
    paint: Paint = plain,
    marks: Marks | None = None,
    logs: Logs | None = None,
    times: Times | None = None,
) -> str:
    """One turn of a game, after the rows it found, so that it reads on its own.

    `index` counts rounds from 0, `turn` counts turns from 1.
    """
    round_ = record.rounds[index]
    moments = list(walk_round(round_, index, totals_before(record, index)))
    moment = moments[turn - 1]
    rows = moments[turn - 2].rows if turn > 1 else round_.rows
    lines = [f"Round {index + 1}, turn {turn} of {len(round_.turns)}", "  rows before the turn:"]
    lines.extend(_row_lines(rows, " " * 11, paint))
    lines.extend(_turn_lines(moment, names, paint, marks, logs, times))
    return "\n".join(lines)
