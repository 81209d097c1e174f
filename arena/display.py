"""Game records as text for people: what `arena play` prints."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from arena.rules import BULLHEADS, GameRecord, Placement, RoundRecord


def card(card: int) -> str:
    """A card with its bullheads when it has more than one, e.g. `55(7)`."""
    heads = BULLHEADS[card]
    return f"{card}({heads})" if heads > 1 else str(card)


def cards(cards: Sequence[int]) -> str:
    """A pile or row of cards, space-separated."""
    return " ".join(card(c) for c in cards)


def _placement(p: Placement, names: Sequence[str]) -> str:
    who = names[p.seat]
    row = p.row + 1
    if p.chosen:
        return f"{p.card} ({who}) is too low: takes row {row} [{cards(p.taken)}] for {p.bullheads}"
    if p.taken:
        taken = f"[{cards(p.taken)}] for {p.bullheads}"
        return f"{p.card} ({who}) is the 6th card of row {row}: takes {taken}"
    return f"{p.card} ({who}) -> row {row}"


def _round_lines(
    index: int, round_: RoundRecord, names: Sequence[str], totals: Sequence[int]
) -> Iterator[str]:
    yield f"Round {index + 1}"
    if round_.picks:
        yield f"  draft, {names[round_.first_picker]} first: {' '.join(map(str, round_.picks))}"
    yield "  rows:  " + "  ".join(f"[{cards(row)}]" for row in round_.rows)
    for seat, hand in enumerate(round_.hands):
        yield f"  {names[seat]:>12} holds {cards(hand)}"
    rows = [list(row) for row in round_.rows]
    for number, turn in enumerate(round_.turns, start=1):
        played = ", ".join(f"{names[s]} {c}" for s, c in enumerate(turn.cards))
        yield f"  turn {number:>2}: {played}"
        for p in turn.placements:
            yield f"           {_placement(p, names)}"
            rows[p.row] = [p.card] if p.taken or p.chosen else [*rows[p.row], p.card]
        yield "           rows: " + "  ".join(f"[{cards(r)}]" for r in rows)
    scores = ", ".join(
        f"{names[s]} {pen} (total {tot})"
        for s, (pen, tot) in enumerate(zip(round_.penalties, totals, strict=True))
    )
    yield f"  bullheads this round: {scores}"


def render_game(record: GameRecord, names: Sequence[str]) -> str:
    """The whole game, round by round and turn by turn, ending with the winners."""
    s = record.settings
    lines = [f"{s.players} players, {s.variant}, game ends at {s.end_score} bullheads"]
    totals = [0] * s.players
    for index, round_ in enumerate(record.rounds):
        totals = [t + p for t, p in zip(totals, round_.penalties, strict=True)]
        lines.append("")
        lines.extend(_round_lines(index, round_, names, totals))
    lines.append("")
    lines.append("Final: " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(record.totals)))
    won = " and ".join(names[s] for s in record.winners)
    lines.append(f"Winner{'s' if len(record.winners) > 1 else ''}: {won}")
    return "\n".join(lines)
