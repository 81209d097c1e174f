"""A strong reference bot: flat Monte Carlo search within the request's deadline.

For each card it could play (or each row it could take, when its card is too low), it deals the
cards it has not seen to the other hands at random, plays the rest of the round out with a fast
policy for every seat, and keeps the option that cost it the fewest bullheads on average. All
options are tried on the same deals and the same random draws (common random numbers): what
differs between their results is the option, not the luck, so few deals already rank them well.

It searches until the request's deadline less a safety margin (`--margin`), or until its own cap
(`--think`, `--simulations`) if that comes first. Run it like any SDK bot; its own flags:

    --think SECONDS     cap on the time per decision (default: none, the deadline decides)
    --margin SECONDS    stop this long before the deadline (default 0.3)
    --simulations N     cap on deals per decision (default: none)
    --seed N            mixed into the arena's seed of each decision's draws (default 0: none)
    --timing            log each decision's budget, time used and deals, for measurements

Drafting (the professional-draft variant) keeps the SDK's default: the lowest card.
"""

import argparse
import asyncio
import math
import random
import sys
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.rules import ROW_COUNT, ROW_LIMIT, penalty
from arena.sdk import BULLHEADS, Bot, Variant, View, run, time_left

EXPLORE = 0.25
"""Share of rollout decisions made at random rather than by the greedy rule. The bot meets
players it knows nothing about, from random to careful: a mix of both models them all a little,
and keeps the rollouts varied where the hands are public (the draft variant)."""

MARGIN = 0.3
"""Seconds to stop before the deadline. The deadline counts from when the arena sent the
request, and a busy machine can leave the bot unscheduled for a while: on 2 shared cores at a
load average of 9, a search overran its budget by 0.32 s once in 180 decisions (p99: 0.07 s)."""

UNKNOWN_DEADLINE = 1.0
"""Seconds assumed when no deadline is known (called outside a request): the arena's default."""

TOO_LOW = 128
"""Greedy rule: what a card too low for every row adds to its cost, beyond the row it takes,
so that a safe card is preferred to taking even a one-bullhead row."""

SIXTH = 256
"""Greedy rule: the weight of a bullhead the card would take, above any distance to a row end."""

Table = tuple[list[int], list[int], list[int]]
"""The rows as the simulator keeps them: each row's end card, size and bullheads, row 0 first.
Those three numbers are all that placing a card needs, and copying three short lists of ints is
what makes thousands of rollouts per second possible in pure Python."""


def table(rows: Sequence[Sequence[int]]) -> Table:
    """The simulator's form of the rows."""
    return [row[-1] for row in rows], [len(row) for row in rows], [penalty(row) for row in rows]


def resolve(
    ends: list[int],
    sizes: list[int],
    heads: list[int],
    plays: Sequence[tuple[int, int]],
    penalties: list[int],
) -> None:
    """Place one turn's cards, `plays` as (card, seat) sorted lowest first, adding what each seat
    takes to `penalties`. A seat whose card is too low takes the cheapest row (lowest index on
    ties), as `arena.sdk.cheapest_row` chooses.

    The rules are `arena.rules.Round`'s, on the lean table: `row_for` inlined, no records, no
    checks. It exists for speed alone, and a test holds it to the engine's results.
    """
    for card, seat in plays:
        row = -1
        best = 0
        for index, end in enumerate(ends):
            if best < end < card:
                row, best = index, end
        if row < 0:
            taken = min(heads)
            row = heads.index(taken)
        elif sizes[row] == ROW_LIMIT:
            taken = heads[row]
        else:
            ends[row] = card
            sizes[row] += 1
            heads[row] += BULLHEADS[card]
            continue
        penalties[seat] += taken
        ends[row] = card
        sizes[row] = 1
        heads[row] = BULLHEADS[card]


class Greedy:
    """The rollout policy for one table position: a fast guess at what a sensible player plays.

    A card that would take a row costs that row's bullheads; a safe card costs its distance to
    its row end (a close card leaves the others little room to fill the row first). With
    probability EXPLORE it plays a random card instead. Built once per turn and shared by every
    seat, so each card costs one bisect.
    """

    __slots__ = ("cheapest", "ends", "heads", "sixth")

    def __init__(self, ends: list[int], sizes: list[int], heads: list[int]) -> None:
        order = sorted(range(ROW_COUNT), key=ends.__getitem__)  # rows by their ends, to bisect
        self.ends = [ends[row] for row in order]
        self.sixth = [sizes[row] == ROW_LIMIT for row in order]
        self.heads = [heads[row] for row in order]
        self.cheapest = min(heads) * SIXTH + TOO_LOW

    def choose(self, hand: Sequence[int], u: float) -> int:
        """The index in `hand` of the card to play; `u` is a uniform draw from [0, 1)."""
        if u < EXPLORE:
            return int(u / EXPLORE * len(hand))
        ends, sixth, heads = self.ends, self.sixth, self.heads
        choice, lowest = 0, math.inf
        for index, card in enumerate(hand):
            below = bisect_left(ends, card) - 1
            if below < 0:
                cost = self.cheapest
            elif sixth[below]:
                cost = heads[below] * SIXTH
            else:
                cost = card - ends[below]
            if cost < lowest:
                choice, lowest = index, cost
        return choice


def rollout(
    ends: list[int],
    sizes: list[int],
    heads: list[int],
    hands: list[list[int]],
    noise: Sequence[float],
    at: int,
    penalties: list[int],
) -> None:
    """Play the rest of the round: every seat plays from its hand by the greedy policy, drawing
    its randomness from `noise` starting at index `at`. Empties `hands`."""
    for _ in range(len(hands[0])):
        policy = Greedy(ends, sizes, heads)
        plays = []
        for seat, hand in enumerate(hands):
            plays.append((hand.pop(policy.choose(hand, noise[at])), seat))
            at += 1
        plays.sort()
        resolve(ends, sizes, heads, plays, penalties)


@dataclass(frozen=True, slots=True)
class Position:
    """What the searching seat knows of every hand, to deal the hidden ones from."""

    seat: int
    """The searching seat."""
    hand: tuple[int, ...]
    """Its own hand; every other hand holds as many cards (all play one a turn)."""
    known: tuple[tuple[int, ...], ...] | None
    """Every seat's hand when all are public (the draft variant); None when they are secret."""
    unseen: tuple[int, ...]
    """The cards that may be in the other hands when they are secret."""
    players: int
    """Seats at the table."""

    def deal(self, rng: random.Random) -> list[list[int]] | None:
        """Every seat's hand, the others' drawn at random from the unseen cards; None when there
        are too few unseen cards to fill them (a view the bot cannot make sense of)."""
        if self.known is not None:
            return [list(hand) for hand in self.known]
        size = len(self.hand)
        needed = size * (self.players - 1)
        if needed > len(self.unseen):
            return None
        drawn = rng.sample(self.unseen, needed)
        hands = []
        for seat in range(self.players):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                hands.append(drawn[:size])
                del drawn[:size]
        return hands


Trial = Callable[[list[list[int]], list[float]], list[int]]
"""One deal and its random draws in; the bullheads each option cost on them out."""


class MonteCarloBot(Bot):
    """Plays the card (and takes the row) with the fewest expected bullheads, by simulation.

    Each search runs in a worker thread, leaving the SDK's event loop free: with several games
    on one connection, every request is read (and its deadline started) as it arrives, and the
    searches share the CPU, each stopping at its own deadline. `best_card` and `best_row` are
    the searches themselves, synchronous, for tests and in-process play.
    """

    def __init__(
        self,
        think: float = math.inf,
        margin: float = MARGIN,
        simulations: int | None = None,
        seed: int = 0,
        timing: bool = False,
    ) -> None:
        self.think = think
        self.margin = margin
        self.simulations = simulations
        self.seed = seed
        self.timing = timing

    # -- decisions -------------------------------------------------------------------------------

    async def choose_card(self, view: View) -> int:
        # to_thread copies the context, so time_left() still sees this request's deadline.
        return await asyncio.to_thread(self.best_card, view)

    async def choose_row(self, view: View) -> int:
        return await asyncio.to_thread(self.best_row, view)

    def best_card(self, view: View) -> int:
        """The card to play, by searching until the budget is spent."""
        start = time.monotonic()
        position = self._position(view)
        me = view.seat
        players = view.settings.players
        ends, sizes, heads = table(view.rows)
        options = list(view.hand)

        def trial(hands: list[list[int]], noise: list[float]) -> list[int]:
            # The others choose without seeing this bot's card: the same cards for every option.
            policy = Greedy(ends, sizes, heads)
            theirs = [
                (hand.pop(policy.choose(hand, noise[seat])), seat)
                for seat, hand in enumerate(hands)
                if seat != me
            ]
            costs = []
            for card in options:
                penalties = [0] * players
                rows = ends[:], sizes[:], heads[:]
                resolve(*rows, sorted([*theirs, (card, me)]), penalties)
                left = [hand[:] for hand in hands]
                left[me].remove(card)
                rollout(*rows, left, noise, players, penalties)
                costs.append(penalties[me])
            return costs

        fallback = options[Greedy(ends, sizes, heads).choose(options, 1.0)]
        return self._search(view, position, options, trial, fallback, start)

    def best_row(self, view: View) -> int:
        """The row to take when this bot's card is too low, by searching likewise."""
        start = time.monotonic()
        position = self._position(view)
        me = view.seat
        players = view.settings.players
        ends, sizes, heads = table(view.rows)
        mine = view.revealed[me]
        # The cards still to place this turn: all above this bot's card, so none is too low.
        later = sorted((card, seat) for seat, card in enumerate(view.revealed) if card > mine)
        options = list(range(ROW_COUNT))

        def trial(hands: list[list[int]], noise: list[float]) -> list[int]:
            costs = []
            for row in options:
                penalties = [0] * players
                penalties[me] = heads[row]
                rows = ends[:], sizes[:], heads[:]
                rows[0][row], rows[1][row], rows[2][row] = mine, 1, BULLHEADS[mine]
                resolve(*rows, later, penalties)
                rollout(*rows, [hand[:] for hand in hands], noise, 0, penalties)
                costs.append(penalties[me])
            return costs

        fallback = heads.index(min(heads))
        return self._search(view, position, options, trial, fallback, start)

    # -- the search ------------------------------------------------------------------------------

    def _search(
        self,
        view: View,
        position: Position,
        options: list[int],
        trial: Trial,
        fallback: int,
        start: float,
    ) -> int:
        """The option with the lowest mean cost over as many deals as time allows; `fallback`
        when there is nothing to compare or no time to compare it in."""
        left = time_left()
        budget = min(self.think, (UNKNOWN_DEADLINE if math.isinf(left) else left) - self.margin)
        stop = start + budget
        cap = self.simulations if self.simulations is not None else sys.maxsize
        rng = view.random(self.seed)  # the arena's seed: a game replays, compare's games pair
        draws = view.settings.players * (len(view.hand) + 1)
        totals = [0] * len(options)
        deals = 0
        if len(options) > 1:
            while deals < cap and time.monotonic() < stop:
                hands = position.deal(rng)
                if hands is None:
                    break
                noise = [rng.random() for _ in range(draws)]
                for index, cost in enumerate(trial(hands, noise)):
                    totals[index] += cost
                deals += 1
        choice = options[totals.index(min(totals))] if deals else fallback
        if self.timing:
            used = time.monotonic() - start
            print(
                f"montecarlo: decision={'row' if view.revealed else 'card'} turn={view.turn} "
                f"budget={budget:.4f} used={used:.4f} deals={deals} left={time_left():.4f}",
                file=sys.stderr,
                flush=True,
            )
        return choice

    def _position(self, view: View) -> Position:
        """What the view says of every hand, with the unseen cards for the secret ones."""
        known = view.hands if view.settings.variant is Variant.PROFESSIONAL_DRAFT else None
        # The starting rows too: a starting card taken since is on no row, yet it is in no hand.
        seen = set(view.hand).union(*view.rows, *view.start_rows, *view.played, view.revealed)
        unseen = tuple(card for card in range(1, view.settings.deck_size + 1) if card not in seen)
        return Position(view.seat, view.hand, known or None, unseen, view.settings.players)


def main(argv: Sequence[str] | None = None) -> None:
    """Read this bot's flags (the SDK reads its own from the same command line) and run it."""
    parser = argparse.ArgumentParser(
        description="6 nimmt! Monte Carlo bot; the SDK's flags (--address, --token) apply too",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--think", type=float, default=math.inf, metavar="SECONDS", help="cap per decision"
    )
    parser.add_argument(
        "--margin", type=float, default=MARGIN, metavar="SECONDS", help="stop before the deadline"
    )
    parser.add_argument("--simulations", type=int, metavar="N", help="cap on deals per decision")
    parser.add_argument(
        "--seed", type=int, default=0, help="mixed into the arena's seed of each decision"
    )
    parser.add_argument("--timing", action="store_true", help="log each decision's timing")
    args, _ = parser.parse_known_args(argv)
    bot = MonteCarloBot(args.think, args.margin, args.simulations, args.seed, args.timing)
    run(bot, name="montecarlo", argv=argv)


if __name__ == "__main__":
    main()
