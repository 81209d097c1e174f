"""The round as a state machine, driven by Hypothesis's stateful testing: any sequence of legal
and illegal decisions, in any variant and at any table size, keeps the table sound.

Legal decisions move the round on; illegal ones (a card not in the hand, a row that does not
exist, a decision the round is not waiting for, a turn short of a card) raise the engine's
error and change nothing. After every step the invariants below are checked against the engine's
public face alone: its phase, deciders, views, penalties and finished turns.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import chain

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from arena.rules import (
    HAND_SIZE,
    ROW_COUNT,
    ROW_LIMIT,
    Phase,
    Round,
    RulesError,
    Settings,
    Variant,
    View,
    deal,
    penalty,
)
from tests import strategies

Snapshot = tuple[object, ...]


def advance(round_: Round, rng: random.Random) -> None:
    """One legal decision, chosen by `rng`: how a round is brought to a position mid-way."""
    if round_.phase is Phase.CARDS:
        views = [round_.view(seat) for seat in round_.deciders]
        round_.play([rng.choice(view.hand) for view in views])
    elif round_.phase is Phase.ROW:
        round_.choose_row(rng.randrange(ROW_COUNT))
    else:
        round_.draft(rng.choice(round_.view(round_.deciders[0]).table))


class RoundMachine(RuleBasedStateMachine):
    """One round from its deal (or its draft) to its end, with illegal attempts on the way."""

    round: Round
    in_play: frozenset[int]
    """Every card the round was dealt from: the hands and rows, or the whole draft table."""
    totals: tuple[int, ...]
    """The seats' totals from earlier rounds, as the round was given them."""
    first_picker: int
    """The seat that picked first in the draft (0 where there is none)."""

    # -- set-up -----------------------------------------------------------------------------------

    @initialize(
        players=strategies.players,
        variant=strategies.variants,
        seed=strategies.seeds,
        data=st.data(),
    )
    def deal_a_round(self, players: int, variant: Variant, seed: int, data: st.DataObject) -> None:
        """A round dealt from `seed` (or a draft), brought forward by some legal decisions so
        that the steps reach every part of it, its end included."""
        game_settings = Settings(players, variant)
        totals = data.draw(st.lists(st.integers(0, 65), min_size=players, max_size=players))
        rng = random.Random(seed)
        picks = 0
        if variant is Variant.PROFESSIONAL_DRAFT:
            first = data.draw(st.integers(0, players - 1), label="first picker")
            self.round = Round.drafted(game_settings, 0, totals, first)
            self.first_picker = first
            # Half the time past the draft, which is longer than the steps can cover.
            whole = players * HAND_SIZE
            picks = data.draw(st.just(whole) | st.integers(0, whole), label="picks made ahead")
        else:
            rows, hands = deal(game_settings, rng)
            self.round = Round.dealt(game_settings, 0, totals, rows, hands)
            self.first_picker = 0
        self.in_play = frozenset(self._everywhere())
        self.totals = tuple(totals)
        for _ in range(picks):
            advance(self.round, rng)
        if self.round.phase is not Phase.DRAFT:
            turns = data.draw(st.integers(0, HAND_SIZE), label="turns played ahead")
            while self.round.turn < turns and self.round.phase is not Phase.OVER:
                advance(self.round, rng)

    # -- legal decisions --------------------------------------------------------------------------

    @precondition(lambda self: self.round.phase is Phase.CARDS)
    @rule(data=st.data())
    def play_a_card_per_seat(self, data: st.DataObject) -> None:
        cards = [
            data.draw(st.sampled_from(self.round.view(seat).hand), label=f"seat {seat}")
            for seat in self.round.deciders
        ]
        turn = self.round.turn
        finished = self.round.play(cards)
        if self.round.phase is Phase.ROW:
            assert finished is None
            assert self.round.turn == turn
        else:
            assert finished is not None and finished.cards == tuple(cards)
            assert self.round.turns[-1] == finished

    @precondition(lambda self: self.round.phase is Phase.ROW)
    @rule(row=st.integers(0, ROW_COUNT - 1))
    def choose_a_row(self, row: int) -> None:
        (seat,) = self.round.deciders
        taken = penalty(self.round.rows[row])
        before = self.round.penalties
        finished = self.round.choose_row(row)
        assert finished is not None and finished == self.round.turns[-1]  # one choice per turn
        # The seat took that row and nothing else this turn: it played one card.
        assert self.round.penalties[seat] == before[seat] + taken
        chosen = [p for p in finished.placements if p.chosen]
        assert [(p.seat, p.row) for p in chosen] == [(seat, row)]

    @precondition(lambda self: self.round.phase is Phase.DRAFT)
    @rule(data=st.data())
    def draft_a_card(self, data: st.DataObject) -> None:
        (seat,) = self.round.deciders
        table = self.round.view(seat).table
        card = data.draw(st.sampled_from(table))
        self.round.draft(card)
        assert card in self.round.view(seat).hand
        assert card not in self.round.view(seat).table

    # -- illegal decisions: the engine's error, and nothing changed --------------------------------

    @precondition(lambda self: self.round.phase is Phase.CARDS)
    @rule(data=st.data())
    def play_a_card_not_in_the_hand(self, data: st.DataObject) -> None:
        seats = self.round.deciders
        cheat = data.draw(st.sampled_from(seats), label="the seat that cheats")
        cards: list[object] = [self.round.view(seat).hand[0] for seat in seats]
        cards[cheat] = data.draw(strategies.cards_outside(self.round.view(cheat).hand))
        self._refused(lambda: self.round.play(cards))

    @precondition(lambda self: self.round.phase is Phase.CARDS)
    @rule(short=st.booleans())
    def play_a_card_too_few_or_too_many(self, short: bool) -> None:
        cards = [self.round.view(seat).hand[0] for seat in self.round.deciders]
        wrong = cards[:-1] if short else [*cards, cards[0]]
        self._refused(lambda: self.round.play(wrong))

    @precondition(lambda self: self.round.phase is Phase.ROW)
    @rule(row=strategies.rows_that_do_not_exist)
    def choose_a_row_that_does_not_exist(self, row: object) -> None:
        self._refused(lambda: self.round.choose_row(row))

    @precondition(lambda self: self.round.phase is Phase.DRAFT)
    @rule(data=st.data())
    def draft_a_card_not_on_the_table(self, data: st.DataObject) -> None:
        table = self.round.view(self.round.deciders[0]).table
        card = data.draw(strategies.cards_outside(table))
        self._refused(lambda: self.round.draft(card))

    @rule(data=st.data())
    def decide_out_of_turn(self, data: st.DataObject) -> None:
        """A decision the round is not waiting for, or the record of a round still going."""
        phase = self.round.phase
        hands = [self.round.view(seat).hand for seat in range(self.round.settings.players)]
        wrong = {
            Phase.CARDS: lambda: self.round.play([hand[0] if hand else 1 for hand in hands]),
            Phase.ROW: lambda: self.round.choose_row(0),
            Phase.DRAFT: lambda: self.round.draft(1),
            Phase.OVER: self.round.record,
        }
        attempt = data.draw(st.sampled_from([kind for kind in wrong if kind is not phase]))
        self._refused(wrong[attempt])

    def _refused(self, attempt: Callable[[], object]) -> None:
        """`attempt` raises the engine's error and leaves the round exactly as it was."""
        before = self._snapshot()
        with pytest.raises(RulesError):
            attempt()
        assert self._snapshot() == before

    # -- invariants -------------------------------------------------------------------------------

    @invariant()
    def every_card_is_in_exactly_one_place(self) -> None:
        places = Counter(self._everywhere())
        assert not [card for card, count in places.items() if count > 1], "a card in two places"
        assert set(places) == self.in_play, "a card went missing or came from nowhere"

    @invariant()
    def rows_ascend_and_hold_at_most_five_cards(self) -> None:
        rows = self.round.rows
        if self.round.phase is Phase.DRAFT:
            assert rows == ()
            return
        assert len(rows) == ROW_COUNT
        for row in rows:
            assert 1 <= len(row) <= ROW_LIMIT
            assert list(row) == sorted(set(row))

    @invariant()
    def penalties_are_the_bullheads_taken(self) -> None:
        for seat, points in enumerate(self.round.penalties):
            assert points == penalty(self._taken(seat))

    @invariant()
    def a_view_shows_only_what_its_seat_may_know(self) -> None:
        round_ = self.round
        players = round_.settings.players
        views = [round_.view(seat) for seat in range(players)]
        hands = [view.hand for view in views]
        played = tuple(turn.cards for turn in round_.turns)
        for seat, view in enumerate(views):
            assert (view.seat, view.round, view.turn) == (seat, 0, round_.turn)
            assert view.rows == round_.rows and view.played == played
            assert view.penalties == round_.penalties and view.totals == self.totals
            assert list(view.hand) == sorted(view.hand)
            if round_.settings.variant is Variant.PROFESSIONAL_DRAFT:
                assert view.hands == tuple(hands)  # the draft is public: every hand is known
                continue
            assert view.hands == ()
            shown = set(chain(view.hand, *view.rows, *view.played, view.revealed, view.table))
            others = set(chain(*(hands[s] for s in range(players) if s != seat)))
            assert not shown & others, "a view shows another seat's secret card"

    @invariant()
    def phase_and_deciders_agree(self) -> None:
        round_ = self.round
        players = round_.settings.players
        views = [round_.view(seat) for seat in range(players)]
        sizes = [len(view.hand) for view in views]
        turn = round_.turn
        assert turn == len(round_.turns)
        if round_.phase is Phase.DRAFT:
            table = views[0].table
            picks = sum(sizes)  # every card picked went to a hand
            assert len(table) > ROW_COUNT and turn == 0
            assert round_.deciders == ((self.first_picker + picks) % players,)
            assert max(sizes) - min(sizes) <= 1
            return
        assert all(view.table == () for view in views)
        if round_.phase is Phase.CARDS:
            assert round_.deciders == tuple(range(players))
            assert sizes == [HAND_SIZE - turn] * players and turn < HAND_SIZE
            assert all(view.revealed == () for view in views)
        elif round_.phase is Phase.ROW:
            (seat,) = round_.deciders
            revealed = views[seat].revealed
            assert sizes == [HAND_SIZE - turn - 1] * players
            assert len(revealed) == players and all(view.revealed == revealed for view in views)
            # The seat asked is the one whose card is the lowest, and too low for every row.
            assert revealed[seat] == min(revealed) < min(row[-1] for row in round_.rows)
        else:
            assert round_.phase is Phase.OVER
            assert round_.deciders == () and turn == HAND_SIZE and sizes == [0] * players
            record = round_.record()
            assert record.turns == round_.turns and record.penalties == round_.penalties

    # -- reading the table ------------------------------------------------------------------------

    def _taken(self, seat: int) -> list[int]:
        """The cards `seat` took in the finished turns (none is taken mid-turn: see below)."""
        return [
            c for t in self.round.turns for p in t.placements if p.seat == seat for c in p.taken
        ]

    def _everywhere(self) -> list[int]:
        """Every card of the round, wherever it is, as often as it is there.

        At a row choice the turn's revealed cards are all still to place: the card that is too
        low is the turn's lowest, so no card of the turn was placed before it.
        """
        round_ = self.round
        views = [round_.view(seat) for seat in range(round_.settings.players)]
        taken = [card for seat in range(len(views)) for card in self._taken(seat)]
        revealed = views[0].revealed if round_.phase is Phase.ROW else ()
        hands = [view.hand for view in views]
        return list(chain(*hands, *round_.rows, taken, revealed, views[0].table))

    def _snapshot(self) -> Snapshot:
        round_ = self.round
        views: list[View] = [round_.view(seat) for seat in range(round_.settings.players)]
        return (round_.phase, round_.deciders, round_.turns, round_.penalties, *views)


RoundMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)
TestRound = RoundMachine.TestCase
