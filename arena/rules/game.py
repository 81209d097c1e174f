"""A game: rounds dealt from a seeded generator until someone reaches the end score."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.rules.cards import HAND_SIZE, ROW_COUNT
from arena.rules.errors import PhaseError, RecordError
from arena.rules.record import GameRecord, RoundRecord, TurnRecord
from arena.rules.round import Phase, Round, player_names
from arena.rules.settings import Settings, Variant
from arena.rules.views import View, seed_key


def deal(
    settings: Settings, rng: random.Random, rotation: int = 0
) -> tuple[list[int], list[list[int]]]:
    """Shuffle the cards in play and deal a round: the 4 row cards and each seat's hand.

    With `rotation` r, seat s gets the hand dealt to seat (s + r) mod players: the same seed with
    every rotation lets each player hold each hand against the same opponents (duplicate deals).
    """
    cards = list(range(1, settings.deck_size + 1))
    rng.shuffle(cards)
    players = settings.players
    hands = [cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE] for seat in range(players)]
    rows = cards[players * HAND_SIZE : players * HAND_SIZE + ROW_COUNT]
    return rows, [hands[(seat + rotation) % players] for seat in range(players)]


def winners(totals: Sequence[int]) -> tuple[int, ...]:
    """The seats with the fewest bullheads; all of them win a tie."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


class Game:
    """A game in progress, as a state machine: see `Round` for how decisions reach it.

    `rng` is used for dealing and nothing else, so games with the same seed get the same deals
    whatever the players do. `names` are the players' names by seat, which the views show and
    the rules never read ("seat 0", "seat 1", ... when none are given). `bot_seed` (0 to
    2**64 - 1) is the key of the seeds of the players' own random choices, one per decision in
    every view (`View.seed`, `views.decision_seed`); None gives every view the seed 0. The rules
    never read it either: it lets a randomized player replay exactly, and two games share it.
    """

    def __init__(
        self,
        settings: Settings,
        rng: random.Random,
        rotation: int = 0,
        deals: Sequence[RoundRecord] = (),
        names: Sequence[str] = (),
        bot_seed: int | None = None,
    ) -> None:
        self.settings = settings
        self.rotation = rotation % settings.players
        self.names = player_names(settings.players, names)
        self._key = None if bot_seed is None else seed_key(bot_seed)
        self._rng = rng
        self._deals = deals
        self._rounds: list[RoundRecord] = []
        self._totals = [0] * settings.players
        self.round = self._new_round()

    @property
    def phase(self) -> Phase:
        """What the game waits for; OVER once the last round has ended."""
        return self.round.phase

    @property
    def deciders(self) -> tuple[int, ...]:
        """The seats whose decision the game waits for."""
        return self.round.deciders

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's bullheads in the rounds finished so far."""
        return tuple(self._totals)

    def view(self, seat: int) -> View:
        """What `seat` knows now."""
        return self.round.view(seat)

    @property
    def rounds(self) -> tuple[RoundRecord, ...]:
        """The records of the rounds finished so far."""
        return tuple(self._rounds)

    def play(self, cards: Sequence[object]) -> TurnRecord | None:
        """Every seat's card for this turn, by seat; returns the turn once its cards are placed."""
        return self._after_decision(self.round.play(cards))

    def choose_row(self, row: object) -> TurnRecord | None:
        """The row taken by the seat whose card is too low; returns the turn if that finished it."""
        return self._after_decision(self.round.choose_row(row))

    def draft(self, card: object) -> None:
        """The card picked by the seat whose turn it is to draft."""
        self.round.draft(card)

    def record(self) -> GameRecord:
        """The finished game's record."""
        if self.phase is not Phase.OVER:
            raise PhaseError(f"the game is not over: it waits for {self.phase.name}")
        return GameRecord(
            settings=self.settings,
            rotation=self.rotation,
            rounds=tuple(self._rounds),
            totals=self.totals,
            winners=winners(self._totals),
        )

    def _new_round(self) -> Round:
        index = len(self._rounds)
        settings = self.settings
        if self._deals and index >= len(self._deals):
            raise RecordError(
                f"the record ends before the game does: it has {len(self._deals)!r} rounds"
            )
        if settings.variant is Variant.PROFESSIONAL_DRAFT:
            # docs/rules.md: seat (round mod players) picks first. A duplicate rotation shifts the
            # first pick with the seats, so each bot in turn gets each position in the draft.
            first = (index + self.rotation) % settings.players
            return Round.drafted(settings, index, self._totals, first, self.names, self._key)
        if self._deals:
            dealt = self._deals[index]
            return Round(
                settings,
                index,
                self._totals,
                dealt.rows,
                dealt.hands,
                names=self.names,
                key=self._key,
            )
        rows, hands = deal(settings, self._rng, self.rotation)
        return Round.dealt(settings, index, self._totals, rows, hands, self.names, self._key)

    def _after_decision(self, turn: TurnRecord | None) -> TurnRecord | None:
        if self.round.phase is Phase.OVER:
            self._rounds.append(self.round.record())
            self._totals = [t + p for t, p in zip(self._totals, self.round.penalties, strict=True)]
            if not self._ended():
                self.round = self._new_round()
        return turn

    def _ended(self) -> bool:
        """The game ends only at a round's end: someone reached the end score, or the round cap."""
        cap = self.settings.max_rounds
        return max(self._totals) >= self.settings.end_score or (
            cap is not None and len(self._rounds) >= cap
        )


def replay(record: GameRecord) -> GameRecord:
    """Play a recorded game again from its deals and decisions alone.

    The result equals `record` exactly when the record is sound; an illegal decision in it raises
    IllegalDecisionError, and a record that stops too early or goes on too long raises RecordError.
    """
    game = Game(record.settings, random.Random(), record.rotation, deals=record.rounds)
    for recorded in record.rounds:
        if game.phase is Phase.OVER:
            raise RecordError(
                f"the record has rounds after the game ended: {len(record.rounds)!r} rounds, "
                f"the game ended after {len(game.record().rounds)!r}"
            )
        for card in recorded.picks:
            game.draft(card)
        for turn in recorded.turns:
            game.play(turn.cards)
            choices = iter(p.row for p in turn.placements if p.chosen)
            while game.phase is Phase.ROW:
                game.choose_row(next(choices, None))
    return game.record()
