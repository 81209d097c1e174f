"""Comparisons simulated in-process, to measure `arena compare`'s design and test quickly.

Pure: games through `play_local`, no I/O, no clock. The games are those `arena compare` plays
(the same deals, rotations and seats: `pairs.candidate_seat`), with in-process strategies in
place of bot processes, so thousands of comparisons take seconds rather than hours. Each game's
strategies are made afresh from a seed that depends only on the deal, the rotation and the seat:
NEW's game and OLD's game of one deal and rotation give every seat (the field's and the
candidate's) the same random generator, as the issue's paired design asks. They also share their
bot seed (`schedule.bot_seed`), so that every view carries the seed `arena compare` sends at
that decision: a strategy that draws from `View.random`, as the random sample bot does, draws as
it would there.

`Noisy` is the "clearly weaker twin" the checks use: a strategy that plays some of its cards at
random.

Each rotation's pair also says when its two games parted (`DealResult.parted`): how well NEW's
game and OLD's pair up depends above all on how long they play alike, since until the first card
that differs the two games are one, and after it they are two.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean

from arena.players import Strategy, play_local
from arena.rules import GameRecord, Settings, View
from arena.tournament.schedule import bot_seed
from arena.tournament.stats.pairs import candidate_seat

Maker = Callable[[str], Strategy]
"""Makes a strategy for one game from a seed string (deal, rotation and seat)."""


class Noisy(Strategy):
    """`base`, except that each card is, with probability `share`, one of the hand at random.

    Two draws per card whatever happens, so that the generator's stream does not depend on what
    was drawn: twins seeded alike draw alike.
    """

    def __init__(self, base: Strategy, share: float, seed: str) -> None:
        if not 0 <= share <= 1:
            raise ValueError(f"share must be 0 to 1, not {share!r}")
        self.base = base
        self.share = share
        self.rng = random.Random(seed)

    def choose_card(self, view: View) -> int:
        chance, pick = self.rng.random(), self.rng.random()
        if chance < self.share:
            return view.hand[int(pick * len(view.hand))]
        return self.base.choose_card(view)

    def choose_row(self, view: View) -> int:
        return self.base.choose_row(view)

    def choose_draft(self, view: View) -> int:
        return self.base.choose_draft(view)


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal played in every rotation by NEW and by OLD, against the same field."""

    new: tuple[int, ...]
    """NEW's bullheads in each rotation."""
    old: tuple[int, ...]
    """OLD's bullheads in each rotation, in the same seat, seed and rotation."""
    parted: tuple[int | None, ...]
    """In each rotation, the turn (from 0, counted over the whole game) at which NEW's game and
    OLD's first differ (`parting_turn`); None where they never do."""

    @property
    def difference(self) -> float:
        """The compare statistic: NEW minus OLD per game, averaged over the rotations."""
        return fmean(self.new) - fmean(self.old)


def parting_turn(first: GameRecord, second: GameRecord) -> int | None:
    """The first turn (from 0, over the whole game) at which two games of one deal differ in a
    card played or a row taken; None where every turn both played is alike (one game can end
    rounds before the other only once they have parted: the turns decide the scores)."""
    first_turns = [turn for played in first.rounds for turn in played.turns]
    second_turns = [turn for played in second.rounds for turn in played.turns]
    for index, (one, other) in enumerate(zip(first_turns, second_turns, strict=False)):
        if one != other:
            return index
    return None


def play_deal(
    settings: Settings, new: Maker, old: Maker, field: Sequence[Maker], deal: int, seed: int
) -> DealResult:
    """Deal number `deal`, of seed `seed`, played in every rotation, the candidate (NEW, then
    OLD) in its seat for that deal."""
    players = settings.players
    seat = candidate_seat(deal, players)
    if len(field) != players - 1:
        raise ValueError(f"{players} seats need {players - 1} field strategies, not {len(field)}")
    results: dict[str, list[int]] = {"new": [], "old": []}
    parted = []
    for rotation in range(players):
        bots = bot_seed(seed, seed, rotation)  # as a comparison of tournament seed `seed`
        records = []
        for name, candidate in (("new", new), ("old", old)):
            makers = [*field[:seat], candidate, *field[seat:]]
            strategies = [make(f"{seed}:{rotation}:{index}") for index, make in enumerate(makers)]
            result = play_local(settings, strategies, random.Random(seed), rotation, bot_seed=bots)
            results[name].append(result.record.totals[seat])
            records.append(result.record)
        parted.append(parting_turn(*records))
    return DealResult(tuple(results["new"]), tuple(results["old"]), tuple(parted))
