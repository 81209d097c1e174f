"""A strength per bot that accounts for whom it met, with bootstrap intervals over whole deals, and
how likely each bot is to be really better than another.

Pure: no I/O, no clock, no global random state (the bootstrap draws from its own seeded
generator). Fed one game at a time (`FitData.add`), so the standings compute it in the same pass
over the results as everything else.

The model. In 6 nimmt! the bullheads a table takes are set by the cards more than by the
players: every card played ends in a row, and every row but the last four is taken by someone.
Strong players do not make the total smaller so much as leave it to the others. So a bot's
expected bullheads in a game are

    E[bullheads of b] = L + theta_b - mean of theta over the bots at its table,

L the bullheads per seat of an average game, theta_b the bot's weakness (bullheads above average
it takes): the table's expected total is fixed, shared out by strength. Sitting with weak bots
(high theta) lowers a bot's expectation; with strong ones, raises it. The fit chooses theta so
that every bot's expected total over the games it played equals its actual total, the way Ordo
fits chess ratings (expected score equals actual score), which is also how the maximum-likelihood
Elo of a round-robin comes out. With the mean theta over the bots at 0, that is one linear
system, solved exactly (`solve`).

The strength shown is what the model expects the bot to take per game against the whole field:
seated with every other bot equally often, as in a full round-robin, L + theta_b (1 - 1/n) K /
(K - 1) for K bots at tables of n. When every bot played as many games and met every other in
as many (a complete round-robin, or one table of every bot), that is exactly its bullheads per
game: the fit ranks as the totals do there, and differs only where bots met different
opponents (a balanced sample, a grown tournament, a gauntlet).

Why not least squares with a term per deal: a term per deal soaks up the table's own level, so
the fit would rank a complete round-robin of smaller tables by each bot's bullheads relative to
its table-mates, a different order from the totals' whenever one bot's tables happened to be
bloodier; the issue asks for the totals' order there. Why not Plackett-Luce on table ranks: it
throws away the bullheads themselves (winning by 1 or by 30 counts the same), which are what the
standings rank by and what a bot author tries to lower.

Intervals: the bootstrap resamples whole deals (all the games dealt one seed: every rotation, at
every table that played it), so that the games which share cards stay together, and refits each
resample. A bot's interval is shown only when it played at least two whole deals (every rotation
of a deal at its table): from one deal, every resample is that deal, and the interval would be a
point that says nothing.

Likelihood of superiority (as Ordo and BayesElo report it): for two bots, the share of the
resamples in which the first has the lower (better) strength, ties counting half.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul

from arena.tournament.outcome import GameOutcome

RESAMPLES = 1000
"""Bootstrap resamples of the fit: each refits the whole tournament, so fewer than the 2,000 of
the per-bot intervals; the 2.5% and 97.5% cuts still have 25 resamples beyond each."""

WORK = 20_000_000
"""A resample costs about one step per (deal, bot) and per (deal, pair of table-mates): above
this many steps in all (about a second), a large tournament gets fewer resamples, down to
`FEWEST` (a 10-bot round-robin of 4-seat tables gets all 1,000; 20 bots, about 220)."""

FEWEST = 200

MIN_WHOLE_DEALS = 2
"""A bot's intervals need at least this many whole deals (see the module's note)."""

_QUANTILES = 40
"""Cut the bootstrap distribution in 40ths: the first and last cuts bound the middle 95%."""

_SINGULAR = 1e-9
"""A pivot this small (relative to the largest entry) means the system has no single solution."""

_MIN_VALID = 0.5
"""Below this share of usable resamples (every bot present and linked), no intervals at all."""


@dataclass(frozen=True, slots=True)
class FitLine:
    """One bot's fitted strength."""

    strength: float
    """Bullheads per game expected of it against the whole field (fewer is better)."""
    ci: tuple[float, float] | None
    """95% bootstrap interval; None when it played fewer than two whole deals, or too few
    resamples could be fitted."""


@dataclass(frozen=True, slots=True)
class Fit:
    """The fitted strengths, or why there are none."""

    lines: dict[str, FitLine]
    """By bot; empty when there is no fit."""
    whole_deals: dict[str, int]
    """Whole deals each bot played: every rotation of a deal at its table."""
    note: str
    """Why there is no fit (or no intervals); empty when all is there."""
    _draws: dict[str, list[float]] = field(default_factory=dict, repr=False)
    """Each bot's strength in every usable resample, in resample order."""

    def superiority(self, better: str, worse: str) -> float | None:
        """The likelihood that `better` is really stronger than `worse`: the share of resamples
        in which its strength is lower, ties half. None without intervals for both."""
        first, second = self._draws.get(better), self._draws.get(worse)
        if not first or not second:
            return None
        if min(self.whole_deals.get(better, 0), self.whole_deals.get(worse, 0)) < MIN_WHOLE_DEALS:
            return None
        pairs = zip(first, second, strict=True)
        return sum(1.0 if a < b else 0.5 if a == b else 0.0 for a, b in pairs) / len(first)


@dataclass
class _Unit:
    """The games of one deal (one seed): each table that played it, with its games and each of
    its bots' bullheads, by bot index."""

    seatings: dict[tuple[int, ...], list[float]] = field(default_factory=dict)
    """Seating (its bots' indexes, sorted) -> [games, bullheads of its first bot, second, ...]."""


class FitData:
    """What the fit keeps of the games as they stream by: per deal and table, the games played
    and each bot's bullheads. A few numbers per table and deal, never the records."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._units: dict[int, _Unit] = {}
        self._rotations: Counter[tuple[str, int, int]] = Counter()
        """Games of each (bot, table, deal): a whole deal has every rotation."""
        self._players: dict[tuple[int, int], int] = {}
        self._seeds: dict[tuple[int, int], int] = {}

    def add(self, outcome: GameOutcome) -> None:
        """Take in one finished game."""
        spec = outcome.spec
        seated = sorted(
            (self._index.setdefault(bot, len(self._index)), total)
            for bot, total in zip(spec.seats, outcome.totals, strict=True)
        )
        key = tuple(index for index, _ in seated)
        unit = self._units.setdefault(spec.seed, _Unit())
        row = unit.seatings.setdefault(key, [0.0] * (len(key) + 1))
        row[0] += 1
        for place, (_, total) in enumerate(seated, start=1):
            row[place] += total
        for bot in spec.seats:
            self._rotations[bot, spec.seating, spec.deal] += 1
        self._players[spec.seating, spec.deal] = spec.settings.players
        self._seeds[spec.seating, spec.deal] = spec.seed

    def whole_deals(self) -> dict[str, int]:
        """Whole deals each bot played: the deals (seeds: the same cards at two tables, as in
        `arena compare`, are one deal) of which it played every rotation at some table."""
        whole: dict[str, set[int]] = {bot: set() for bot in self._index}
        for (bot, seating, deal), games in self._rotations.items():
            if games >= self._players[seating, deal]:
                whole[bot].add(self._seeds[seating, deal])
        return {bot: len(seeds) for bot, seeds in whole.items()}

    def fit(self, resamples: int = RESAMPLES, seed: int = 0) -> Fit:
        """The strengths, their intervals and what the likelihoods of superiority need."""
        names = sorted(self._index, key=self._index.__getitem__)
        whole = self.whole_deals()
        if len(names) < 2:
            return Fit({}, whole, "no fit: it needs at least two bots")
        units = list(self._units.values())
        if not _linked(len(names), units):
            return Fit(
                {},
                whole,
                "no fit: some bots never met the others, even through third bots, so their "
                "strengths cannot be put on one scale",
            )
        design = _Design(len(names), units)
        point = _strengths(design, [1] * len(units))
        assert point is not None  # linked, with every bot present: the system is regular
        resamples = min(resamples, max(FEWEST, WORK // design.steps))
        rng = random.Random(f"fit/{seed}")
        draws: list[list[float]] = [[] for _ in names]
        for _ in range(resamples):
            picks = Counter(rng.choices(range(len(units)), k=len(units)))
            counts = [picks.get(index, 0) for index in range(len(units))]
            strengths = _strengths(design, counts)
            if strengths is None:  # a bot missing from the resample, or the bots unlinked
                continue
            for bot, strength in enumerate(strengths):
                draws[bot].append(strength)
        usable = len(draws[0]) >= max(2, _MIN_VALID * resamples) and len(units) >= 2
        note = "" if usable else "no intervals: too few deals link the bots for a bootstrap"
        lines = {}
        for bot, name in enumerate(names):
            ci = None
            if usable and whole[name] >= MIN_WHOLE_DEALS:
                cuts = statistics.quantiles(draws[bot], n=_QUANTILES, method="inclusive")
                ci = (cuts[0], cuts[-1])
            lines[name] = FitLine(point[bot], ci)
        kept = {name: draws[bot] for bot, name in enumerate(names)} if usable else {}
        return Fit(lines, whole, note, kept)


def _linked(bots: int, units: Sequence[_Unit]) -> bool:
    """Whether every bot is linked to every other by tables shared, directly or through others."""
    parent = list(range(bots))

    def root(bot: int) -> int:
        while parent[bot] != bot:
            parent[bot] = parent[parent[bot]]
            bot = parent[bot]
        return bot

    for unit in units:
        for seating in unit.seatings:
            for other in seating[1:]:
                parent[root(other)] = root(seating[0])
    return len({root(bot) for bot in range(bots)}) == 1


Terms = tuple[list[int], list[float]]
"""A sum over the deals as (deal indexes, each one's value): weighted by the deals' counts in a
resample, it is one `sum(map(...))`, a loop in C, instead of one in Python per deal."""


class _Design:
    """The sums the fit needs (games, bullheads and meetings of each bot), as sums over deals."""

    def __init__(self, bots: int, units: Sequence[_Unit]) -> None:
        self.bots = bots
        games: list[dict[int, float]] = [{} for _ in range(bots)]
        taken: list[dict[int, float]] = [{} for _ in range(bots)]
        meets: dict[tuple[int, int], dict[int, float]] = {}
        seat_games: dict[int, float] = {}
        seats: dict[int, float] = {}
        for index, unit in enumerate(units):
            for seating, row in unit.seatings.items():
                played, size = row[0], len(seating)
                seat_games[index] = seat_games.get(index, 0.0) + played
                seats[index] = seats.get(index, 0.0) + played * size
                for place, bot in enumerate(seating, start=1):
                    games[bot][index] = games[bot].get(index, 0.0) + played
                    taken[bot][index] = taken[bot].get(index, 0.0) + row[place]
                for a in seating:
                    for b in seating:
                        if a <= b:
                            meet = meets.setdefault((a, b), {})
                            meet[index] = meet.get(index, 0.0) + played / size
        self.games = [_terms(terms) for terms in games]
        self.taken = [_terms(terms) for terms in taken]
        self.meets = {pair: _terms(terms) for pair, terms in meets.items()}
        self.seat_games = _terms(seat_games)
        self.seats = _terms(seats)
        sums = [*self.games, *self.taken, *self.meets.values()]
        self.steps = sum(len(indexes) for indexes, _ in sums) + bots**3 // 3 + 1
        """What one resample costs, in steps of a sum (and of the solver)."""


def _terms(values: dict[int, float]) -> Terms:
    return list(values), list(values.values())


def _total(terms: Terms, counts: Sequence[int]) -> float:
    indexes, values = terms
    total: float = sum(map(mul, map(counts.__getitem__, indexes), values))
    return total


def _strengths(design: _Design, counts: Sequence[int]) -> list[float] | None:
    """The fitted strengths with each deal counted `counts` times; None when that leaves a bot
    without games or the bots unlinked (the system then has no single solution)."""
    bots = design.bots
    games = [_total(terms, counts) for terms in design.games]  # G_b: games played
    if min(games) == 0:
        return None
    taken = [_total(terms, counts) for terms in design.taken]  # Y_b: bullheads taken
    meets = [[0.0] * bots for _ in range(bots)]  # P_bc: games together, each over its table size
    for (a, b), terms in design.meets.items():
        meets[a][b] = meets[b][a] = _total(terms, counts)
    level = sum(taken) / sum(games)  # L: bullheads per seat of an average game
    # A theta = mean - L, A_bc = [b = c] - P_bc / G_b; A is singular along the constant vector,
    # so theta is fixed by mean(theta) = 0: solve (A + J / K) theta = mean - L instead.
    matrix = [
        [(1.0 if b == c else 0.0) - meets[b][c] / games[b] + 1.0 / bots for c in range(bots)]
        for b in range(bots)
    ]
    theta = solve(matrix, [taken[b] / games[b] - level for b in range(bots)])
    if theta is None:
        return None
    inverse = _total(design.seat_games, counts) / _total(design.seats, counts)  # 1/n, per seat
    scale = (1 - inverse) * bots / (bots - 1)  # against every other bot equally often
    return [level + scale * value for value in theta]


def solve(matrix: list[list[float]], right: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None for a singular matrix. Public for
    scripts/measure_compare.py's least squares: one solver for the project."""
    size = len(right)
    rows = [[*matrix[i], right[i]] for i in range(size)]
    largest = max(abs(value) for row in matrix for value in row) or 1.0
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < _SINGULAR * largest:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / head[col]
            if factor:
                row = rows[r]
                for c in range(col, size + 1):
                    row[c] -= factor * head[c]
    solution = [0.0] * size
    for r in range(size - 1, -1, -1):
        row = rows[r]
        solution[r] = (row[size] - sum(row[c] * solution[c] for c in range(r + 1, size))) / row[r]
    return solution
