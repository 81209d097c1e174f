"""One round as a state machine: the draft (if any), then 10 simultaneous turns.

The round never asks anyone anything: it says which decision it waits for (`phase`, `deciders`),
shows each seat its `view`, and takes the answers. Drivers above it do the asking, so the same
round serves in-process strategies, remote bots and replays of a record.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from arena.rules.cards import BULLHEADS, HAND_SIZE, ROW_COUNT, ROW_LIMIT
from arena.rules.errors import (
    Decision,
    IllegalDecisionError,
    InvalidDealError,
    MisuseError,
    PhaseError,
)
from arena.rules.record import Placement, RoundRecord, TurnRecord, make_placement
from arena.rules.settings import Settings, Variant
from arena.rules.views import Rows, View, decision_seed, make_view


class Phase(Enum):
    """What a round (or game) waits for next."""

    DRAFT = Decision.DRAFT
    """One seat picks a face-up card."""
    CARDS = Decision.CARD
    """Every seat picks a card to play, all at once."""
    ROW = Decision.ROW
    """One seat, whose card is too low, picks a row to take."""
    OVER = None
    """Nothing: the round (or game) is over."""


def row_for(rows: Rows | Sequence[Sequence[int]], card: int) -> int | None:
    """Rules 1 and 2: the row a card must follow; None when it is below every row end (rule 4)."""
    best: int | None = None
    best_end = 0
    for index, row in enumerate(rows):
        end = row[-1]
        if best_end < end < card:
            best, best_end = index, end
    return best


def check_card(seat: int, hand: Sequence[int], card: object) -> int:
    """The card, if the seat may play it (it holds it); raises IllegalDecisionError otherwise."""
    if type(card) is not int or card not in hand:
        raise IllegalDecisionError(seat, Decision.CARD, card, f"not in the hand {tuple(hand)}")
    return card


def check_row(seat: int, row: object) -> int:
    """The row, if it exists; raises IllegalDecisionError otherwise."""
    if type(row) is not int or not 0 <= row < ROW_COUNT:
        raise IllegalDecisionError(
            seat, Decision.ROW, row, f"the protocol numbers rows 0 to {ROW_COUNT - 1}"
        )
    return row


def check_draft(seat: int, table: Sequence[int], card: object) -> int:
    """The card, if it lies face up on the draft table; raises IllegalDecisionError otherwise."""
    if type(card) is not int or card not in table:
        raise IllegalDecisionError(seat, Decision.DRAFT, card, f"not on the table {tuple(table)}")
    return card


def check_answer(decision: Decision, view: View, answer: object) -> int:
    """The answer, if it is legal for the seat `view` shows; raises IllegalDecisionError.

    The same checks the round applies, for those (the driver, check-bot) that hold only a view.
    """
    if decision is Decision.CARD:
        return check_card(view.seat, view.hand, answer)
    if decision is Decision.ROW:
        return check_row(view.seat, answer)
    return check_draft(view.seat, view.table, answer)


class Round:
    """One round of play. Build it with `dealt` or `drafted`."""

    def __init__(
        self,
        settings: Settings,
        index: int,
        totals: Sequence[int],
        rows: Sequence[Sequence[int]],
        hands: Sequence[Sequence[int]],
        table: Sequence[int] = (),
        first_picker: int = 0,
        names: Sequence[str] = (),
        key: bytes | None = None,
    ) -> None:
        """A round from any position: `rows` as they lie, each seat's `hand`, the draft `table`.

        `names` are the players' names by seat, shown in every view and otherwise ignored;
        "seat 0", "seat 1", ... when none are given. `key` (`views.seed_key`) gives every view
        its decision's seed (`views.decision_seed`); without it every view's seed is 0. `dealt`
        and `drafted` build the rounds of real games; this also sets up puzzles and tests.
        """
        players = settings.players
        self.settings = settings
        self.index = index
        # Everything a view shows is held in tuples and replaced, never changed, when play moves
        # on: a view then shares them instead of copying them, which makes it cheap enough to
        # build one per decision (most of the engine's time went into those copies).
        self._totals = tuple(totals)
        self._hands: list[tuple[int, ...]] = [tuple(sorted(hand)) for hand in hands]
        self._rows: list[tuple[int, ...]] = [tuple(row) for row in rows]
        self._rows_now: Rows | None = None
        """`rows` as last built; None once a row changed since."""
        self._table = tuple(sorted(table))
        self._public = settings.variant is Variant.PROFESSIONAL_DRAFT
        self._everyone = tuple(range(players))
        self._first_picker = first_picker
        self._picks: list[int] = []
        self._dealt: tuple[tuple[int, ...], ...] = ()
        self._start_rows = self.rows
        self._names = player_names(players, names)
        self._key = key
        self._penalties = (0,) * players
        self._taken: tuple[tuple[int, ...], ...] = ((),) * players
        """The cards each seat took this round, by seat: replaced, never changed, as above."""
        self._turns: list[TurnRecord] = []
        self._played: tuple[tuple[int, ...], ...] = ()
        # The turn being resolved: its cards by seat, what is still to place, what was placed.
        self._cards: tuple[int, ...] = ()
        self._queue: list[tuple[int, int]] = []
        self._placements: list[Placement] = []
        if self._table:
            self.phase = Phase.DRAFT
        else:
            self._start_play()

    @classmethod
    def dealt(
        cls,
        settings: Settings,
        index: int,
        totals: Sequence[int],
        rows: Sequence[int],
        hands: Sequence[Sequence[int]],
        names: Sequence[str] = (),
        key: bytes | None = None,
    ) -> Round:
        """A round whose hands and rows were dealt (the standard and professional variants)."""
        if len(rows) != ROW_COUNT or len(hands) != settings.players:
            raise InvalidDealError(
                f"a deal needs {ROW_COUNT} rows and {settings.players} hands, "
                f"not {len(rows)!r} and {len(hands)!r}"
            )
        if any(len(hand) != HAND_SIZE for hand in hands):
            sizes = [len(hand) for hand in hands]
            raise InvalidDealError(f"every hand is dealt {HAND_SIZE} cards, not {sizes!r}")
        return cls(settings, index, totals, [[card] for card in rows], hands, names=names, key=key)

    @classmethod
    def drafted(
        cls,
        settings: Settings,
        index: int,
        totals: Sequence[int],
        first_picker: int,
        names: Sequence[str] = (),
        key: bytes | None = None,
    ) -> Round:
        """A round of the professional draft: every card in play lies face up to be picked."""
        table = range(1, settings.deck_size + 1)
        hands: list[list[int]] = [[] for _ in range(settings.players)]
        return cls(settings, index, totals, (), hands, table, first_picker, names, key)

    # -- what the round waits for -------------------------------------------------------------

    @property
    def deciders(self) -> tuple[int, ...]:
        """The seats whose decision the round waits for (every seat for CARDS)."""
        if self.phase is Phase.CARDS:
            return self._everyone
        if self.phase is Phase.DRAFT:
            return ((self._first_picker + len(self._picks)) % self.settings.players,)
        if self.phase is Phase.ROW:
            return (self._queue[0][1],)
        return ()

    @property
    def turn(self) -> int:
        """The turn being played, from 0 (0 in the draft; 10 once the round is over)."""
        return len(self._turns)

    def view(self, seat: int) -> View:
        """What `seat` knows now; other hands only in the draft variant, where they are public."""
        turn, hand = len(self._turns), self._hands[seat]
        key = self._key
        seed = (
            0
            if key is None
            else decision_seed(key, seat, self.index, turn, self.phase.value, len(hand))
        )
        return make_view(
            self.settings,
            seat,
            self.index,
            turn,
            hand,
            self.rows,
            self._penalties,
            self._totals,
            self._played,
            self._cards if self.phase is Phase.ROW else (),
            self._table,
            tuple(self._hands) if self._public else (),
            self._start_rows,
            self._taken,
            self._names,
            seed,
        )

    # -- decisions ---------------------------------------------------------------------------------

    def draft(self, card: object) -> None:
        """The picking seat takes `card` from the table."""
        self._expect(Phase.DRAFT)
        seat = self.deciders[0]
        card = check_draft(seat, self._table, card)
        self._table = _without(self._table, card)
        self._hands[seat] = tuple(sorted((*self._hands[seat], card)))
        self._picks.append(card)
        if len(self._table) == ROW_COUNT:
            self._rows = [(card,) for card in self._table]
            self._rows_now = None
            self._start_rows = self.rows
            self._table = ()
            self._start_play()

    def play(self, cards: Sequence[object]) -> TurnRecord | None:
        """Every seat's card this turn, by seat: revealed together, then placed lowest first.

        Returns the finished turn, or None while a seat must still choose a row.
        """
        self._expect(Phase.CARDS)
        if len(cards) != self.settings.players:
            raise MisuseError(f"expected {self.settings.players} cards, got {len(cards)!r}")
        # Check every card before changing anything, so an illegal one leaves the round as it was.
        hands = self._hands
        checked = tuple([check_card(seat, hands[seat], card) for seat, card in enumerate(cards)])
        for seat, card in enumerate(checked):
            hands[seat] = _without(hands[seat], card)
        self._cards = checked
        self._queue = sorted(zip(checked, range(len(checked)), strict=True))  # (card, seat)
        self._placements = []
        return self._resolve()

    def choose_row(self, row: object) -> TurnRecord | None:
        """The seat whose card is too low takes `row`; the card starts that row anew (rule 4).

        Returns the finished turn, or None while another seat must still choose a row.
        """
        self._expect(Phase.ROW)
        card, seat = self._queue[0]
        row = check_row(seat, row)  # while the card still waits: an illegal row changes nothing
        del self._queue[0]
        self._take(seat, card, row, chosen=True)
        return self._resolve()

    # -- the result ------------------------------------------------------------------------------

    @property
    def penalties(self) -> tuple[int, ...]:
        """Bullheads each seat has taken so far this round."""
        return self._penalties

    @property
    def turns(self) -> tuple[TurnRecord, ...]:
        """The turns finished so far."""
        return tuple(self._turns)

    @property
    def rows(self) -> Rows:
        """The rows as they are now."""
        rows = self._rows_now
        if rows is None:  # built once per change, however many views share it
            rows = self._rows_now = tuple(self._rows)
        return rows

    def record(self) -> RoundRecord:
        """The finished round's record."""
        self._expect(Phase.OVER)
        return RoundRecord(
            rows=self._start_rows,
            hands=self._dealt,
            picks=tuple(self._picks),
            first_picker=self._first_picker,
            turns=tuple(self._turns),
            penalties=self._penalties,
        )

    # -- the rules of placing ----------------------------------------------------------------------

    def _start_play(self) -> None:
        self._dealt = tuple(self._hands)
        self.phase = Phase.CARDS

    def _resolve(self) -> TurnRecord | None:
        """Place the turn's cards lowest first, stopping at a card too low for every row."""
        queue = self._queue
        rows = self._rows
        placements = self._placements
        self._rows_now = None
        while queue:
            card, seat = queue[0]
            row = row_for(rows, card)
            if row is None:
                self.phase = Phase.ROW
                return None
            del queue[0]
            if len(rows[row]) == ROW_LIMIT:
                self._take(seat, card, row, chosen=False)
            else:
                rows[row] += (card,)
                placements.append(make_placement(seat, card, row, (), False))
        turn = TurnRecord(self._cards, tuple(placements))
        self._turns.append(turn)
        self._played += (self._cards,)
        self._cards = ()
        self.phase = Phase.CARDS if self._hands[0] else Phase.OVER
        return turn

    def _take(self, seat: int, card: int, row: int, chosen: bool) -> None:
        """The seat takes every card of `row`, and `card` becomes the row's only card."""
        taken = self._rows[row]
        self._rows[row] = (card,)
        self._rows_now = None
        penalties = list(self._penalties)
        penalties[seat] += sum(map(BULLHEADS.__getitem__, taken))
        self._penalties = tuple(penalties)
        took = list(self._taken)
        took[seat] += taken
        self._taken = tuple(took)
        self._placements.append(make_placement(seat, card, row, taken, chosen))

    def _expect(self, phase: Phase) -> None:
        if self.phase is not phase:
            raise PhaseError(f"the round waits for {self.phase.name}, not {phase.name}")


def player_names(players: int, names: Sequence[str] = ()) -> tuple[str, ...]:
    """The names views show, by seat: `names` as given, or "seat 0", "seat 1", ... if none.

    The rules never read them; MisuseError unless there is exactly one per seat.
    """
    if not names:
        return tuple([f"seat {seat}" for seat in range(players)])
    if len(names) != players or not all(isinstance(name, str) for name in names):
        raise MisuseError(f"expected {players} names (strings), got {tuple(names)!r}")
    return tuple(names)


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    """`cards` less one `card` (which it holds), order kept."""
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]
