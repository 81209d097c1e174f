"""Tournament folders for the spectator tests, and the engine as the oracle of the table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from arena.players import Fault
from arena.rules import GameRecord, Phase, Round, Rows, Settings, Variant
from arena.tournament import GameOutcome, ResultStore, schedule
from arena.tournament.store import DATABASE, PLANNED
from arena.tournament.writer import write_results
from tests.tournament.helpers import played

BOTS = ("ann", "bob", "cyd")


def identity(bots: Sequence[str], players: int, deals: int, seed: int) -> dict[str, object]:
    """The rules `arena run` stores for such a tournament (as TournamentConfig.rules); the bots
    and deals may grow, and are not in them."""
    return {
        "players": players,
        "variant": "standard",
        "end_score": 66,
        "max_rounds": None,
        "seed": seed,
        "sample": None,
        "deadline": 1.0,
        "first_deadline": 5.0,
        "max_faults": 20,
    }


def tournament(
    folder: Path,
    bots: Sequence[str] = BOTS,
    players: int = 3,
    deals: int = 2,
    seed: int = 5,
    faults: dict[int, Sequence[Fault]] | None = None,
    games: int | None = None,
    variant: Variant = Variant.STANDARD,
) -> list[GameOutcome]:
    """An output folder as `arena run` leaves it, from games played in-process (no bot processes).

    `faults` adds faults to the games at those indexes; `games` stores only the first few, as a
    tournament still running would have.
    """
    specs = schedule(bots, Settings(players, variant), deals, seed)
    outcomes = [played(spec, (faults or {}).get(i, ())) for i, spec in enumerate(specs)]
    folder.mkdir(parents=True, exist_ok=True)
    settings = identity(bots, players, deals, seed) | {"variant": str(variant)}
    with ResultStore(folder / DATABASE, settings) as store:
        store.enter((), {PLANNED: len(specs)})
        for outcome in outcomes[:games]:
            store.save(outcome)
        if games is None:
            write_results(store, folder)
    return outcomes[:games]


def engine_rows(record: GameRecord) -> Iterator[tuple[int, int, Rows]]:
    """(round from 1, turn from 1, the rows after it) for every turn, replayed by the engine.

    An oracle independent of the display code: the rules' own state machine, fed the record.
    """
    totals = [0] * record.settings.players
    for index, round_ in enumerate(record.rounds):
        table = Round(record.settings, index, totals, round_.rows, round_.hands)
        for number, turn in enumerate(round_.turns, start=1):
            table.play(turn.cards)
            chosen = iter(p.row for p in turn.placements if p.chosen)
            while table.phase is Phase.ROW:
                table.choose_row(next(chosen))
            yield index + 1, number, table.rows
        totals = [t + p for t, p in zip(totals, round_.penalties, strict=True)]
