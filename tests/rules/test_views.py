"""A view holds every card its seat has seen this round, and nothing else.

Recorded games are replayed decision by decision; at every decision the view the engine shows
is compared with what a player at a real table has seen by then, worked out from the record
alone: its own dealt hand, the rows as dealt, every card revealed so far (this turn's too at a
row choice), and in the draft variant every card, all face up. The view's other fields are
checked against the record too: the starting rows, what each seat took, the names.

The records are games of in-process strategies (every variant, 2 to 10 players) and the golden
tournament of real bot processes (tests/golden).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.players import BUILTIN, play_local
from arena.rules import (
    BULLHEADS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Decision,
    Game,
    GameRecord,
    MisuseError,
    Phase,
    RoundRecord,
    Settings,
    Variant,
    View,
)

GOLDEN = Path(__file__).parents[1] / "golden" / "replays.jsonl"


def recorded(variant: Variant, players: int, seed: int) -> GameRecord:
    """A whole game of built-in strategies (random, lowest and highest in turn)."""
    kinds = ("random", "lowest", "highest")
    strategies = [BUILTIN[kinds[s % 3]](f"{seed}:{s}") for s in range(players)]
    settings = Settings(players, variant, end_score=40)
    return play_local(settings, strategies, random.Random(seed), rotation=seed % players).record


def cards_in(view: View) -> set[int]:
    """Every card a view shows, in any field."""
    shown = set(view.hand) | set(view.revealed) | set(view.table)
    for group in (view.rows, view.start_rows, view.played, view.taken, view.hands):
        for cards in group:
            shown.update(cards)
    return shown


def seen(
    record: GameRecord, round_: RoundRecord, seat: int, turn: int, drafting: bool, row: bool
) -> set[int]:
    """What `seat` has seen of round `round_` at `turn`, from the record: at a real table."""
    if record.settings.variant is Variant.PROFESSIONAL_DRAFT:
        return set(range(1, record.settings.deck_size + 1))  # laid face up, then drafted openly
    assert not drafting
    cards = set(round_.hands[seat]) | {row[0] for row in round_.rows}
    for earlier in round_.turns[: turn + 1 if row else turn]:
        cards.update(earlier.cards)
    return cards


def check(
    record: GameRecord,
    index: int,
    view: View,
    names: tuple[str, ...],
    row_at: int | None = None,
) -> None:
    """`view` is what its seat knows in round `index`; `row_at`: the placement being chosen."""
    round_ = record.rounds[index]
    seat, turn = view.seat, view.turn
    drafting = bool(view.table)
    row = row_at is not None
    assert view.round == index and view.names == names
    assert cards_in(view) == seen(record, round_, seat, turn, drafting, row)
    assert view.start_rows == (() if drafting else round_.rows)
    placed = [p for t in round_.turns[:turn] for p in t.placements]
    if row_at is not None:
        placed += round_.turns[turn].placements[:row_at]
    taken = [[c for p in placed if p.seat == s for c in p.taken] for s in range(len(names))]
    assert [list(cards) for cards in view.taken] == taken
    assert view.penalties == tuple(sum(BULLHEADS[c] for c in cards) for cards in taken)
    if not drafting:
        gone = {t.cards[seat] for t in round_.turns[: turn + 1 if row else turn]}
        assert view.hand == tuple(c for c in round_.hands[seat] if c not in gone)


def replay_views(record: GameRecord, names: tuple[str, ...]) -> Iterator[Decision]:
    """Replay `record` through the engine, checking every view asked; yields each decision."""
    game = Game(record.settings, random.Random(), record.rotation, record.rounds, names)
    for index, round_ in enumerate(record.rounds):
        for card in round_.picks:
            assert game.phase is Phase.DRAFT
            check(record, index, game.view(game.deciders[0]), names)
            yield Decision.DRAFT
            game.draft(card)
        for number, turn in enumerate(round_.turns):
            assert game.phase is Phase.CARDS and game.round.turn == number
            for seat in game.deciders:
                check(record, index, game.view(seat), names)
                yield Decision.CARD
            game.play(turn.cards)
            for at, placement in enumerate(turn.placements):
                if placement.chosen:
                    assert game.phase is Phase.ROW and game.deciders == (placement.seat,)
                    check(record, index, game.view(placement.seat), names, row_at=at)
                    yield Decision.ROW
                    game.choose_row(placement.row)
    assert game.phase is Phase.OVER and game.record() == record


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_every_view_of_a_recorded_game_holds_what_its_seat_saw(
    variant: Variant, players: int
) -> None:
    asked = set()
    for seed in range(2):
        record = recorded(variant, players, seed)
        names = tuple(f"bot-{seed}-{seat}" for seat in range(players))
        asked.update(replay_views(record, names))
    expected = {Decision.CARD, Decision.ROW}
    if variant is Variant.PROFESSIONAL_DRAFT:
        expected.add(Decision.DRAFT)
    assert expected <= asked, "the games hold every kind of decision"


def test_the_views_of_the_golden_tournament_hold_what_each_seat_saw() -> None:
    games = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    assert games
    for game in games:
        record = GameRecord.from_dict(game["record"])
        for _ in replay_views(record, tuple(game["spec"]["seats"])):
            pass


def test_a_starting_card_that_was_taken_shows_in_start_rows_and_taken_only() -> None:
    """The card the view lacked before: it started a row and was taken, so no row holds it."""
    for seed in range(20):
        record = recorded(Variant.STANDARD, 4, seed)
        game = Game(record.settings, random.Random(), record.rotation, record.rounds)
        round_ = record.rounds[0]
        for turn in round_.turns:
            game.play(turn.cards)
            for placement in turn.placements:
                if placement.chosen:
                    game.choose_row(placement.row)
            if game.phase is not Phase.CARDS:
                break
            view = game.view(0)
            starters = {row[0] for row in round_.rows}
            on_rows = {c for row in view.rows for c in row}
            lost = starters - on_rows
            if lost:
                taken = {c for cards in view.taken for c in cards}
                assert lost <= taken and lost <= {row[0] for row in view.start_rows}
                assert not lost & {c for t in view.played for c in t}
                return
    raise AssertionError("no game had a starting card taken early: widen the search")


def test_names_are_one_per_seat_and_default_to_the_seat_numbers() -> None:
    game = Game(Settings(3), random.Random(1))
    assert game.view(2).names == ("seat 0", "seat 1", "seat 2")
    named = Game(Settings(3), random.Random(1), names=["a", "b", "c"])
    assert named.view(0).names == ("a", "b", "c")
    with pytest.raises(MisuseError):
        Game(Settings(3), random.Random(1), names=["a", "b"])
