"""Invariants of the engine over random seeds, 2 to 10 players and every variant."""

from __future__ import annotations

import random
from itertools import chain

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import (
    HAND_SIZE,
    ROW_COUNT,
    ROW_LIMIT,
    Game,
    GameRecord,
    Phase,
    Settings,
    Variant,
    penalty,
    replay,
)
from tests import strategies
from tests.rules.helpers import random_game


def check_table(game: Game) -> None:
    """Every card in exactly one place; rows ascending and never over five cards."""
    round_ = game.round
    hands = [round_.view(seat).hand for seat in range(game.settings.players)]
    taken = [p.taken for turn in round_.turns for p in turn.placements]
    table = round_.view(0).table
    places = list(chain(*hands, *round_.rows, *taken, table))
    assert len(places) == len(set(places)), "a card is in two places"
    if game.phase is not Phase.ROW:  # mid-turn, some revealed cards are still on their way
        assert len(places) == game.settings.players * HAND_SIZE + ROW_COUNT, "a card went missing"
        if game.settings.variant is not Variant.STANDARD:
            assert sorted(places) == list(range(1, game.settings.deck_size + 1))
    for row in round_.rows:
        assert 1 <= len(row) <= ROW_LIMIT
        assert list(row) == sorted(row)


def check_views(game: Game) -> None:
    """A view holds one's own hand and nothing of another's, outside the public draft."""
    players = game.settings.players
    hands = [set(game.round.view(seat).hand) for seat in range(players)]
    for seat in game.deciders:
        view = game.view(seat)
        assert set(view.hand) == hands[seat]
        if game.settings.variant is Variant.PROFESSIONAL_DRAFT:
            assert [set(h) for h in view.hands] == hands
            continue
        assert view.hands == ()
        shown = set(chain(view.hand, *view.rows, *view.played, view.revealed, view.table))
        others = set().union(*(hands[s] for s in range(players) if s != seat))
        assert not shown & others, "a view shows another player's secret card"


def check_scores(record: GameRecord) -> None:
    """Each penalty is the bullheads of the cards taken; the game ends at the first round end
    where someone reaches the end score, or at the round cap."""
    settings_ = record.settings
    totals = [0] * settings_.players
    for index, round_ in enumerate(record.rounds):
        for seat in range(settings_.players):
            taken = [
                c
                for turn in round_.turns
                for p in turn.placements
                if p.seat == seat
                for c in p.taken
            ]
            assert round_.penalties[seat] == penalty(taken)
        totals = [t + p for t, p in zip(totals, round_.penalties, strict=True)]
        last = index == len(record.rounds) - 1
        capped = settings_.max_rounds is not None and index + 1 >= settings_.max_rounds
        assert (max(totals) >= settings_.end_score or capped) == last
    assert list(record.totals) == totals
    assert record.winners == tuple(s for s, t in enumerate(totals) if t == min(totals))


@settings(max_examples=150, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_invariants_hold_at_every_step(game_settings: Settings, seed: int) -> None:
    def check(game: Game) -> None:
        check_table(game)
        check_views(game)

    record = random_game(game_settings, seed, check)
    check_scores(record)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), strategies.seeds)
def test_the_draft(players: int, seed: int) -> None:
    record = random_game(Settings(players, Variant.PROFESSIONAL_DRAFT, max_rounds=3), seed)
    for index, round_ in enumerate(record.rounds):
        assert round_.first_picker == index % players, "the first chooser rotates"
        assert len(round_.picks) == HAND_SIZE * players
        for seat in range(players):
            picked = round_.picks[(seat - round_.first_picker) % players :: players]
            assert sorted(picked) == list(round_.hands[seat])
        left = set(range(1, 10 * players + 5)) - set(round_.picks)
        assert sorted(left) == sorted(row[0] for row in round_.rows)


@settings(max_examples=40, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_a_record_replays_to_itself_and_survives_json(game_settings: Settings, seed: int) -> None:
    record = random_game(game_settings, seed)
    assert replay(record) == record
    assert GameRecord.from_json(record.to_json()) == record


@settings(max_examples=20, deadline=None)
@given(strategies.settings(), strategies.seeds)
def test_same_seed_same_game_byte_for_byte(game_settings: Settings, seed: int) -> None:
    assert random_game(game_settings, seed).to_json() == random_game(game_settings, seed).to_json()


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 10), strategies.seeds)
def test_rotation_deals_the_same_hands_one_seat_on(players: int, seed: int) -> None:
    game_settings = Settings(players)
    hands = [Game(game_settings, random.Random(seed), r).round.view for r in range(players)]
    for rotation in range(players):
        for seat in range(players):
            assert hands[rotation](seat).hand == hands[0]((seat + rotation) % players).hand


def test_a_tampered_record_does_not_replay() -> None:
    record = random_game(Settings(4), 3)
    rounds = list(record.rounds)
    rounds.pop()
    short = GameRecord(
        record.settings, record.rotation, tuple(rounds), record.totals, record.winners
    )
    try:
        replay(short)
    except ValueError as error:
        assert "ends before the game does" in str(error)
    else:
        raise AssertionError("a record missing its last round replayed")
