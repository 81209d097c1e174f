"""The paired design of `arena compare`: its games, and the statistic its test reads from them.

Pure: no I/O, no clock, no global random state. Every deal is played in every seat rotation
twice: once with NEW and once with OLD in the candidate's seat, the same field in the other
seats, the same seed, and the same seeds for the bots' own random choices (`GameSpec.bot_seed`:
a randomized field bot draws alike in both games at every decision, even once they part). The
two games of a pair differ in the candidate alone, so whatever the cards do to a seat cancels
in NEW's bullheads minus OLD's, not only the luck of the hands (as the duplicate rotations of a
tournament cancel it) but the luck of the deal as a whole, and of the field's random choices.

The statistic is per deal: the mean over its rotations of NEW's bullheads minus OLD's in the same
seat and rotation. Per pair would count the rotations of one deal as independent observations,
and they are not: they share the deal's cards (all four rows and every hand), so their
differences are correlated, and a test that took them one by one would think it knew more than
it does. The deals are independent (each has its own seed), and a deal's mean over its rotations
is what every bot holds, hand for hand: the unit the tournament's intervals resample too.

The candidate's seat moves with the deal (deal d puts it at seat d mod players), so that a
seat's advantage, if the rules give one (who drafts first), is shared evenly over the deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.rules import Settings
from arena.tournament.errors import ScheduleError
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.schedule import bot_seed, deal_seed, game_id

NEW_SEATING = 0
"""The `seating` of NEW's games in the specs (their ids start `t000-`)."""
OLD_SEATING = 1
"""The `seating` of OLD's games (`t001-`): the two games of a pair share deal and rotation."""
SEED_KEY = "compare:candidate"
"""Stands for the candidate in the deals' seed key: not a bot name (bot names have no ':'), and
the same for NEW and OLD, so that both get the same cards."""


def candidate_seat(deal: int, players: int) -> int:
    """Where the candidate sits in deal `deal`."""
    return deal % players


def paired_schedule(
    new: str, old: str, field: Sequence[str], settings: Settings, seed: int, deals: int
) -> list[GameSpec]:
    """The comparison's games, deal by deal, each rotation's NEW game followed by its OLD game:
    played in this order, the deals complete one after another and the test can read each as
    soon as it is done. The field is sorted, so its order on the command line does not matter."""
    names = sorted(field)
    players = settings.players
    if len(names) != players - 1:
        raise ScheduleError(
            f"a table of {players} holds the candidate and {players - 1} field bots, "
            f"not {len(names)}"
        )
    if len({new, old, *names}) != players + 1:
        raise ScheduleError("NEW, OLD and the field bots must all have different names")
    if deals < 1:
        raise ScheduleError(f"a comparison needs at least 1 deal, not {deals!r}")
    specs = []
    for deal in range(deals):
        seat = candidate_seat(deal, players)
        deal_key = deal_seed(seed, [SEED_KEY, *names], deal)
        for rotation in range(players):
            bots = bot_seed(seed, deal_key, rotation)  # the field draws alike in both games
            for seating, candidate in ((NEW_SEATING, new), (OLD_SEATING, old)):
                seats = (*names[:seat], candidate, *names[seat:])
                specs.append(
                    GameSpec(
                        game_id(seating, deal, rotation),
                        seating,
                        deal,
                        rotation,
                        seats,
                        deal_key,
                        settings,
                        bots,
                    )
                )
    return specs


@dataclass
class PairedDeals:
    """Collects a comparison's games as they finish, in any order, and hands out each deal's
    difference as soon as it and every deal before it are complete: the test then reads the
    deals in schedule order whatever order the games finished in, and a comparison gives the
    same verdict at any concurrency, interrupted or not."""

    new: str
    old: str
    players: int
    next_deal: int = 0
    """The first deal not yet handed out."""
    _games: dict[int, dict[tuple[int, int], int]] = field(default_factory=dict)
    """The candidate's bullheads by (seating, rotation), for each deal not yet handed out."""

    def add(self, outcome: GameOutcome) -> list[float]:
        """Take one finished game; the differences of the deals it completes (often none)."""
        spec = outcome.spec
        if spec.deal < self.next_deal:
            return []  # a deal already handed out: a game stored twice
        candidate = self.new if spec.seating == NEW_SEATING else self.old
        games = self._games.setdefault(spec.deal, {})
        games[spec.seating, spec.rotation] = outcome.bullheads_of(candidate)
        ready = []
        while len(self._games.get(self.next_deal, ())) == 2 * self.players:
            games = self._games.pop(self.next_deal)
            rotations = range(self.players)
            total = sum(games[NEW_SEATING, r] - games[OLD_SEATING, r] for r in rotations)
            ready.append(total / self.players)
            self.next_deal += 1
        return ready
