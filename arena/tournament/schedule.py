"""Tournament schedules: which bots play together, which deals each seating plays, and their seeds.

A seating is the bots of one table of the game, in seat order (`Seating`; its index in the
schedule is `GameSpec.seating`, stored as `table` and in game ids as `tNNN`, as it always was).
The code calls it a seating so that "table" names only the draft's face-up cards (`View.table`),
text tables and TOML tables; the messages for people still say "table", as players do.

Pure: no I/O, no clock, no global random state. A schedule depends only on the *set* of bots
(their names are sorted first), the settings, the number of deals, the tournament seed and the
sample size, so the same tournament gives the same games in any process, whatever order the bots
were entered in and whatever order the games are played in.

The bots' own random choices have seeds too, one per game (`bot_seed`), from which every view
of the game takes its decision's seed: keyed with the tournament seed, so that they reveal
nothing of it, nor of the deals.

Duplicate deals: each seating plays each deal once per seat rotation. With rotation r, seat s holds
the hand dealt to seat (s + r) mod players (see `arena.rules.deal`), so across the rotations of a
deal every bot of the seating holds every hand, against the same opponents.

The professional-draft variant deals nothing: every card lies face up and the players draft
their hands (docs/rules.md: its set-up has no chance). Every deal of a seating would be the same
game, so a seating plays its draft once per seat rotation (each bot picks first once in every
round of the set) and no more: more than one deal is refused.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from math import comb, gcd
from typing import NamedTuple

from arena.rules import Settings, Variant
from arena.tournament.errors import ScheduleError
from arena.tournament.outcome import GameSpec

SEED_SCHEME = "arena.deal/1"
"""Names the seed derivation; changing how seeds are derived must change it."""

BOT_SEED_SCHEME = b"arena.bots/1"
"""BLAKE2b's personalization of the games' bot seeds; changing how they derive must change it."""

_SEARCH_STEPS = 100_000
"""Budget of the balanced sample's local search: about a second for a few hundred seatings."""

_STALL_STEPS = 20_000
"""The search also stops after this many steps without progress: the sample is likely stuck."""

_DUPLICATE_COST = 1_000_000
"""Weight of a repeated seating in the search's cost: far above any pair-balance gain."""

Seating = tuple[str, ...]


class ScheduleSize(NamedTuple):
    """How big a schedule is."""

    seatings: int
    """Seatings (combinations of bots)."""
    games: int
    """Games in all: seatings x deals x rotations."""
    games_per_bot: int
    """Games each bot plays."""


def round_robin_size(bots: int, players: int, deals: int) -> ScheduleSize:
    """The size of the full round-robin, without building it: to decide whether to sample."""
    seatings = comb(bots, players)
    return ScheduleSize(
        seatings, seatings * deals * players, comb(bots - 1, players - 1) * deals * players
    )


def sample_size(bots: int, players: int, seatings: int, deals: int) -> ScheduleSize:
    """The size of a balanced sample of `seatings` seatings."""
    seated = seatings * players // bots  # seatings each bot sits at
    return ScheduleSize(seatings, seatings * deals * players, seated * deals * players)


def round_robin(bots: Sequence[str], players: int) -> list[Seating]:
    """Every combination of `players` bots, in `itertools.combinations` order of `bots`."""
    _check_bots(bots, players)
    return list(combinations(bots, players))


def deal_seed(seed: int, seating: Iterable[str], deal: int) -> int:
    """The seed of deal `deal` at the seating of these bots: a 64-bit hash, the same in any process.

    It depends on the tournament seed, the seating's bots (as a set: seat order does not matter) and
    the deal index, and on nothing else, so it never depends on the order games are played in.
    """
    key = json.dumps([SEED_SCHEME, seed, sorted(seating), deal], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def bot_seed(seed: int, deal_seed: int, rotation: int) -> int:
    """The key of the seeds of the bots' own random choices in one game (`GameSpec.bot_seed`):
    a 64-bit BLAKE2b of the game's deal seed and rotation, keyed with the tournament seed.

    Keyed, because a bot sees seeds derived from it: without the tournament seed they tell
    nothing of it, and so nothing of any deal, nor of the other seats' seeds or of another
    game's. The same for every game of one deal seed and rotation, which in a tournament is
    one game, and in `arena compare` NEW's game and OLD's (their deal seed leaves the candidate
    out), so that the field draws alike in both; different for every other seating, deal,
    rotation and tournament seed.
    """
    digest = hashlib.blake2b(
        f"{deal_seed}:{rotation}".encode(),
        digest_size=8,
        key=str(seed).encode(),
        person=BOT_SEED_SCHEME,
    ).digest()
    return int.from_bytes(digest, "big")


def game_id(seating: int, deal: int, rotation: int) -> str:
    """The readable id of a game from its place in the schedule, e.g. "t003-d01-r2"."""
    return f"t{seating:03d}-d{deal:02d}-r{rotation}"


def schedule(
    bots: Iterable[str], settings: Settings, deals: int, seed: int, seatings: int | None = None
) -> list[GameSpec]:
    """Every game of a tournament, in order: seating, then deal, then rotation.

    The full round-robin when `seatings` is None, otherwise a balanced sample of that many seatings.
    """
    names = sorted(bots)
    players = settings.players
    if deals < 1:
        raise ScheduleError(f"each table must play at least 1 deal, not {deals!r}")
    if settings.variant is Variant.PROFESSIONAL_DRAFT and deals > 1:
        raise ScheduleError(
            f"{deals} deals: the professional-draft variant deals nothing at random, so a table "
            f"plays its draft once per seat rotation ({players} games) and no more"
        )
    chosen = (
        round_robin(names, players)
        if seatings is None
        else balanced_sample(names, players, seatings, seed)
    )
    specs: list[GameSpec] = []
    for index, seating in enumerate(chosen):
        for deal in range(deals):
            dealt = deal_seed(seed, seating, deal)
            specs.extend(
                GameSpec(
                    game_id=game_id(index, deal, rotation),
                    seating=index,
                    deal=deal,
                    rotation=rotation,
                    seats=seating,
                    seed=dealt,
                    settings=settings,
                    bot_seed=bot_seed(seed, dealt, rotation),
                )
                for rotation in range(players)
            )
    return specs


def keep_seatings(specs: Iterable[GameSpec], known: Mapping[Seating, int]) -> list[GameSpec]:
    """The games with every seating numbered as `known` numbers it (by its bots in seat order), and
    each seating not in it numbered after the highest known index, in the order of `specs`.

    A grown tournament keeps the ids of its stored games this way: a new bot's name may sort
    before the others and shift the round-robin's order, but a seating that played keeps its
    number, and so its games' ids. Seeds depend on the seating's bots, never on its number.
    """
    numbers = dict(known)
    after = max(numbers.values(), default=-1) + 1
    kept = []
    for spec in specs:
        number = numbers.get(spec.seats)
        if number is None:
            number = numbers[spec.seats] = after
            after += 1
        if number != spec.seating:
            spec = replace(spec, seating=number, game_id=game_id(number, spec.deal, spec.rotation))
        kept.append(spec)
    return kept


def balanced_sample(bots: Sequence[str], players: int, seatings: int, seed: int) -> list[Seating]:
    """Some of the round-robin's seatings, chosen so that every bot is in as many as every other.

    Guarantees: every bot is in exactly seatings x players / len(bots) seatings; no two seatings
    hold the same bots (RuntimeError if the search fails to, which no tested case does); seats and
    seatings follow the order of `bots`, as in `round_robin`; the same arguments give the same
    sample. Pairs of bots meet as evenly as a bounded local search seeded by `seed` achieves: it
    stops early once the meeting counts differ by at most 1, which it reaches on the small cases
    tested, block designs included, and is within 2 or 3 on samples of hundreds of seatings.
    """
    _check_bots(bots, players)
    check_sample(len(bots), players, seatings)
    full = comb(len(bots), players)
    # A sample's complement in the round-robin is balanced too (every bot, every pair, meets
    # equally often in the round-robin), and a smaller search finds distinct seatings more easily.
    complement = 2 * seatings > full
    size = full - seatings if complement else seatings
    found = [tuple(sorted(t)) for t in _search(len(bots), players, size, random.Random(seed))]
    if complement:
        taken = set(found)
        found = [
            seating for seating in combinations(range(len(bots)), players) if seating not in taken
        ]
    # Sorted index tuples come in `combinations` order.
    return [tuple(bots[i] for i in seating) for seating in sorted(found)]


def _check_bots(bots: Sequence[str], players: int) -> None:
    doubles = sorted(name for name, count in Counter(bots).items() if count > 1)
    if doubles:
        raise ScheduleError(f"bot {doubles[0]!r} is entered twice: give each bot a unique name")
    if len(bots) < players:
        raise ScheduleError(
            f"{len(bots)} bots cannot fill a table of {players}: enter more bots or seat fewer"
        )


def check_sample(bots: int, players: int, seatings: int) -> None:
    """ScheduleError unless a balanced sample of `seatings` tables of `players` can be drawn
    for `bots` bots: checked with the rest of a run's input, before anything is written."""
    full = comb(bots, players)
    step = bots // gcd(bots, players)  # seating counts that seat every bot equally: its multiples
    if seatings < 1 or seatings > full:
        raise ScheduleError(
            f"a sample must have 1 to {full} tables (the full round-robin), not {seatings!r}"
        )
    if seatings % step:
        lower, upper = seatings - seatings % step, seatings - seatings % step + step
        choices = " or ".join(str(n) for n in (lower, upper) if 0 < n <= full)
        raise ScheduleError(
            f"{seatings} tables of {players} cannot seat {bots} bots equally often "
            f"(tables x {players} must be a multiple of {bots}): use {choices} tables"
        )


def _search(bots: int, players: int, seatings: int, rng: random.Random) -> list[list[int]]:
    """Seatings of bot indices with equal appearances, improved towards even pair meetings."""
    sample = _Sample(_seat_evenly(bots, players, seatings, rng), bots, players)
    best, progress = sample.badness, 0
    for step in range(_SEARCH_STEPS):
        if sample.is_best() or step - progress > _STALL_STEPS:
            break
        sample.try_swap(rng)
        if sample.badness < best:
            best, progress = sample.badness, step
    if sample.repeats:
        raise RuntimeError(f"found no {seatings} distinct tables of {players} for {bots} bots")
    return sample.seatings


def _seat_evenly(bots: int, players: int, seatings: int, rng: random.Random) -> list[list[int]]:
    """Fill each seating with the bots owed the most seats: every bot ends with the same count.

    Taking the `players` bots with the most seats still owed keeps every count at most the number
    of seatings left, so the last seating always takes exactly the bots still owed one seat.
    """
    owed = [seatings * players // bots] * bots
    result = []
    for _ in range(seatings):
        order = list(range(bots))
        rng.shuffle(order)  # breaks ties at random: the sort below is stable
        order.sort(key=lambda bot: -owed[bot])
        seating = order[:players]
        for bot in seating:
            owed[bot] -= 1
        result.append(seating)
    return result


class _Sample:
    """A sample under local search: swaps of two bots between seatings keep every bot's count.

    Its cost is the sum over pairs of the squared meeting count, plus a heavy cost per repeated
    seating. The total of the meeting counts is fixed, so the sum of squares is least exactly when
    the counts differ by at most 1, when such a sample exists.
    """

    def __init__(self, seatings: list[list[int]], bots: int, players: int) -> None:
        self.seatings = seatings
        self.meet = [[0] * bots for _ in range(bots)]
        for seating in seatings:
            for a, b in combinations(seating, 2):
                self._add(a, b, 1)
        self.keys = Counter(frozenset(seating) for seating in seatings)
        self.repeats = len(seatings) - len(self.keys)
        self.cost = sum(self.meet[a][b] ** 2 for a, b in combinations(range(bots), 2))
        pairs, meetings = comb(bots, 2), len(seatings) * comb(players, 2)
        even, extra = divmod(meetings, pairs)
        self.least_cost = (pairs - extra) * even**2 + extra * (even + 1) ** 2

    @property
    def badness(self) -> int:
        """The search's cost: the pairs' cost, and far more for each repeated seating."""
        return self.cost + _DUPLICATE_COST * self.repeats

    def is_best(self) -> bool:
        """No repeated seating, and pair meetings as even as they can be."""
        return self.repeats == 0 and self.cost == self.least_cost

    def try_swap(self, rng: random.Random) -> None:
        """Swap two bots between two random seatings unless that makes the sample worse."""
        first = self.seatings[rng.randrange(len(self.seatings))]
        second = self.seatings[rng.randrange(len(self.seatings))]
        # Move the bot that meets its seating-mates most: it holds the most over-met pairs.
        x = max(first, key=lambda bot: (self._load(bot, first), rng.random()))
        y = second[rng.randrange(len(second))]
        if y in first or x in second:  # also when both are one seating
            return
        # Bots at both seatings meet x and y before and after: only the others' pairs change.
        mates_x = [z for z in first if z != x and z not in second]
        mates_y = [z for z in second if z != y and z not in first]
        cost = self._move_cost(x, y, mates_x) + self._move_cost(y, x, mates_y)
        if cost > 0 and not self.repeats:
            return  # saves building the seatings' keys when the swap cannot help
        old = [frozenset(first), frozenset(second)]
        new = [old[0] - {x} | {y}, old[1] - {y} | {x}]
        repeats = self._repeats_after(old, new)
        if cost + _DUPLICATE_COST * (repeats - self.repeats) > 0:
            return
        for z in mates_x:
            self._add(x, z, -1)
            self._add(y, z, 1)
        for z in mates_y:
            self._add(y, z, -1)
            self._add(x, z, 1)
        self.keys.subtract(old)
        self.keys.update(new)
        self.cost += cost
        self.repeats = repeats
        first[first.index(x)] = y
        second[second.index(y)] = x

    def _load(self, bot: int, seating: list[int]) -> int:
        """How over-met `bot` is at `seating`: the squares of its meeting counts there."""
        row = self.meet[bot]
        return sum(row[z] ** 2 for z in seating)

    def _move_cost(self, leaving: int, coming: int, mates: list[int]) -> int:
        """The change of cost when `coming` takes `leaving`'s seat next to `mates`.

        Each mate meets `leaving` once less, c*c becoming (c-1)*(c-1), and `coming` once more.
        """
        out, into = self.meet[leaving], self.meet[coming]
        return sum(2 * (into[z] - out[z]) + 2 for z in mates)

    def _repeats_after(self, old: list[frozenset[int]], new: list[frozenset[int]]) -> int:
        """How many seatings would repeat another after replacing the `old` ones by the `new`."""
        delta = Counter(new)
        delta.subtract(old)
        held_before = sum(1 for key in delta if self.keys[key] > 0)
        held_after = sum(1 for key in delta if self.keys[key] + delta[key] > 0)
        return self.repeats + held_before - held_after

    def _add(self, a: int, b: int, delta: int) -> None:
        self.meet[a][b] += delta
        self.meet[b][a] += delta
