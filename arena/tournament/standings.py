"""Standings: per-bot totals, means with bootstrap confidence intervals, wins, faults, pairings,
and a fitted strength that accounts for whom each bot met (`fit`), with how likely each place
is to be right.

Computed in one pass over a stream of outcomes, keeping a few numbers per bot and per duplicate
set, never the records. Everything is deterministic: the same outcomes give the same standings.
An interval is shown only where a bot played at least two whole deals (every rotation of a deal
at its table): from one, every bootstrap resample is that deal, and the interval a point.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Any

from tabulate import tabulate

from arena.players import FaultKind
from arena.tournament.outcome import Disqualification, GameOutcome
from arena.tournament.stats.fit import MIN_WHOLE_DEALS, Fit, FitData
from arena.tournament.stats.fit import RESAMPLES as FIT_RESAMPLES
from arena.tournament.timing import BotTimes, TimeTally

RESAMPLES = 2000
"""Bootstrap resamples behind each confidence interval."""

_QUANTILES = 40
"""Cut the bootstrap distribution in 40ths: the first and last cuts bound the middle 95%."""


@dataclass(frozen=True, slots=True)
class BotStanding:
    """One bot's line in the standings."""

    rank: int
    """1 for the fewest bullheads per game; the disqualified last (see `compute_standings`)."""
    bot: str
    """The bot's name."""
    games: int
    """Games played."""
    bullheads: int
    """Bullheads taken over all its games."""
    mean: float
    """Bullheads per game."""
    ci: tuple[float, float]
    """95% confidence interval of `mean`, bootstrapped over duplicate sets: a point from one
    deal; `interval` is what is shown."""
    wins: float
    """Games won, a game won by k tied bots counting 1/k for each."""
    faults: int
    """Faults committed."""
    faults_by_kind: Mapping[FaultKind, int]
    """Faults by kind, for the kinds committed."""
    disqualified: bool
    """Whether the bot was disqualified by the end of its last game."""
    disqualified_in: str = ""
    """The game in which it was disqualified, when it was and the game is known."""
    absent: int = 0
    """Games in which it never connected (a not-connected fault)."""
    whole_deals: int = 0
    """Whole deals it played: every rotation of a deal at its table. Intervals need two."""
    strength: float | None = None
    """Its fitted strength (`fit`): the bullheads per game expected of it against the whole field,
    accounting for whom it met; its mean per game when every bot met every other equally. None
    without a fit (bots that never met, even through others)."""
    strength_ci: tuple[float, float] | None = None
    """95% bootstrap interval of `strength`, over whole deals; None from fewer than two."""
    los: float | None = None
    """The likelihood that it is really stronger than the bot placed next below it (as Ordo
    reports it): the share of the fit's resamples in which it is; None for the last place, a
    disqualified bot, or where either has fewer than two whole deals."""

    @property
    def interval(self) -> tuple[float, float] | None:
        """`ci` where it says something: from at least two whole deals; else None."""
        return self.ci if self.games and self.whole_deals >= MIN_WHOLE_DEALS else None

    @property
    def why_no_interval(self) -> str:
        """Why `interval` is None (empty when it is not)."""
        if not self.games:
            return "no game yet"
        if self.whole_deals < MIN_WHOLE_DEALS:
            deals = "no whole deal" if not self.whole_deals else "one whole deal"
            return f"{deals}: an interval needs {MIN_WHOLE_DEALS} (every rotation of a deal)"
        return ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; a bot with no game yet has no mean and no interval (null)."""
        played = self.games > 0
        interval, fitted = self.interval, self.strength_ci
        return {
            "rank": self.rank,
            "bot": self.bot,
            "games": self.games,
            "bullheads": self.bullheads,
            "mean": self.mean if played else None,
            "ci_low": interval[0] if interval else None,
            "ci_high": interval[1] if interval else None,
            "no_interval": self.why_no_interval or None,
            "whole_deals": self.whole_deals,
            "strength": self.strength,
            "strength_ci_low": fitted[0] if fitted else None,
            "strength_ci_high": fitted[1] if fitted else None,
            "los": self.los,
            "wins": self.wins,
            "faults": self.faults,
            "faults_by_kind": {kind.value: count for kind, count in self.faults_by_kind.items()},
            "disqualified": self.disqualified,
            "disqualified_in": self.disqualified_in or None,
        }


@dataclass(frozen=True, slots=True)
class Pairing:
    """How one bot fared against another in the games they played at the same table."""

    bot: str
    """The bot the difference is for."""
    opponent: str
    """The other bot."""
    games: int
    """Games the two played at the same table."""
    difference: float
    """Mean over those games of the bot's bullheads minus the opponent's: negative is better."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "bot": self.bot,
            "opponent": self.opponent,
            "games": self.games,
            "difference": self.difference,
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """The standings of a tournament (or of the part of it played so far)."""

    bots: tuple[BotStanding, ...]
    """Every bot that played, best first."""
    pairings: tuple[Pairing, ...]
    """Every ordered pair of bots that met, in rank order of `bot`, then of `opponent`."""
    fit_note: str = ""
    """Why the fitted strengths (or their intervals) are missing; empty when they are there."""
    times: tuple[BotTimes, ...] = ()
    """Each bot's answer times (median, 99th percentile, bank used), in rank order."""

    def pairing(self, bot: str, opponent: str) -> Pairing | None:
        """How `bot` fared against `opponent`; None if they never met."""
        for pairing in self.pairings:
            if (pairing.bot, pairing.opponent) == (bot, opponent):
                return pairing
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "standings": [standing.to_dict() for standing in self.bots],
            "pairwise": [pairing.to_dict() for pairing in self.pairings],
            "fit_note": self.fit_note or None,
            "times": [line.to_dict() for line in self.times],
        }


@dataclass
class _Tally:
    """What is kept of one bot while the outcomes stream by."""

    games: int = 0
    bullheads: int = 0
    wins: Fraction = Fraction(0)  # exact, so the sum does not depend on the order of games
    faults: Counter[FaultKind] = field(default_factory=Counter)
    out: Disqualification | None = None
    """The first game (in the order read) that lists the bot as disqualified."""
    absent: int = 0
    sets: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    """Bullheads and games in each duplicate set (table, deal) the bot played."""


def compute_standings(
    outcomes: Iterable[GameOutcome],
    resamples: int = RESAMPLES,
    seed: int = 0,
    *,
    entered: Iterable[str] = (),
    disqualified: Mapping[str, Disqualification] | None = None,
) -> Standings:
    """Standings from finished games, read once (`StandingsTally`, which says how they rank)."""
    tally = StandingsTally().extend(outcomes)
    return tally.standings(resamples, seed, entered=entered, disqualified=disqualified)


class StandingsTally:
    """What standings keep of finished games, counted as they come: standings can be taken at
    any moment, and a running tournament's live standings count each game once, as it is saved,
    instead of reading every game again for each write (`runner._Live`)."""

    def __init__(self) -> None:
        self._tallies: dict[str, _Tally] = {}
        self._meetings: dict[tuple[str, str], list[int]] = {}
        self._fit = FitData()
        self._times = TimeTally()
        self._read = 0

    def add(self, outcome: GameOutcome) -> None:
        """Count one more finished game."""
        self._read += 1
        _count(outcome, self._tallies, self._read)
        _count_meetings(outcome, self._meetings)
        self._fit.add(outcome)
        self._times.add(outcome)

    def extend(self, outcomes: Iterable[GameOutcome]) -> StandingsTally:
        """Count more finished games; the tally itself."""
        for outcome in outcomes:
            self.add(outcome)
        return self

    def standings(
        self,
        resamples: int = RESAMPLES,
        seed: int = 0,
        *,
        entered: Iterable[str] = (),
        disqualified: Mapping[str, Disqualification] | None = None,
    ) -> Standings:
        """The standings of the games counted so far.

        Ranked by bullheads per game, fewest first (in a complete round-robin every bot plays
        as many games, and this is the order of the totals); ties go to the lower total, then to
        the name in alphabetical order, so that ranks are always distinct. Bots `entered` but
        without a game yet come after those with games. Disqualified bots come last, in the
        order they were put out: the first one out ranks last. `disqualified` says who is out
        and when (the results database's record, the authority when given); without it, a bot
        is out from the first game counted that lists it as disqualified. The intervals'
        resamples follow the order the games were counted in: the same games counted in
        another order give intervals as valid, not the same digits.
        """
        if resamples < 2:
            raise ValueError(f"a bootstrap needs at least 2 resamples, not {resamples!r}")
        tallies = {bot: _Tally() for bot in entered} | self._tallies
        if disqualified is not None:
            tallies = {bot: replace(t, out=disqualified.get(bot)) for bot, t in tallies.items()}

        def key(bot: str) -> tuple[Any, ...]:
            tally = tallies[bot]
            if tally.out is not None:
                return (2, -tally.out.order, bot)
            if not tally.games:
                return (1, 0.0, 0, bot)
            return (0, _mean(tally), tally.bullheads, bot)

        order = sorted(tallies, key=key)
        fit = self._fit.fit(min(resamples, FIT_RESAMPLES), seed)
        bots = tuple(
            _with_fit(_standing(rank, bot, tallies[bot], resamples, seed), fit, order, tallies)
            for rank, bot in enumerate(order, start=1)
        )
        pairings = _pairings(order, self._meetings)
        return Standings(bots, pairings, fit.note, self._times.result(order))


def _with_fit(
    line: BotStanding, fit: Fit, order: list[str], tallies: dict[str, _Tally]
) -> BotStanding:
    """The line with its whole deals, fitted strength and likelihood of superiority."""
    fitted = fit.lines.get(line.bot)
    below = order[line.rank] if line.rank < len(order) else None
    los = None
    if below is not None and not line.disqualified and tallies[below].out is None:
        los = fit.superiority(line.bot, below)
    return replace(
        line,
        whole_deals=fit.whole_deals.get(line.bot, 0),
        strength=fitted.strength if fitted else None,
        strength_ci=fitted.ci if fitted else None,
        los=los,
    )


def _count(outcome: GameOutcome, tallies: dict[str, _Tally], number: int) -> None:
    """Add one game (the `number`th read) to the tallies of the bots that played it."""
    winners = outcome.winners
    for seat, (bot, bullheads) in enumerate(zip(outcome.spec.seats, outcome.totals, strict=True)):
        tally = tallies.setdefault(bot, _Tally())
        tally.games += 1
        tally.bullheads += bullheads
        if bot in winners:
            tally.wins += Fraction(1, len(winners))
        kinds = [fault.kind for fault in outcome.faults if fault.seat == seat]
        tally.faults.update(kinds)
        if FaultKind.NOT_CONNECTED in kinds:
            tally.absent += 1
        if tally.out is None and bot in outcome.disqualified:
            tally.out = Disqualification(bot, "", outcome.game_id, number)
        duplicate = tally.sets.setdefault(outcome.spec.duplicate_set, [0, 0])
        duplicate[0] += bullheads
        duplicate[1] += 1


def _count_meetings(outcome: GameOutcome, meetings: dict[tuple[str, str], list[int]]) -> None:
    """Add one game's bullhead differences to every pair at its table, keyed in name order."""
    for (a, a_bullheads), (b, b_bullheads) in combinations(sorted(outcome.scores.items()), 2):
        meeting = meetings.setdefault((a, b), [0, 0])
        meeting[0] += a_bullheads - b_bullheads
        meeting[1] += 1


def _mean(tally: _Tally) -> float:
    return tally.bullheads / tally.games if tally.games else 0.0


def _standing(rank: int, bot: str, tally: _Tally, resamples: int, seed: int) -> BotStanding:
    # Each bot draws from its own generator, so its interval depends on its own games only.
    rng = random.Random(f"{seed}/{bot}")
    sets = list(tally.sets.values())
    return BotStanding(
        rank=rank,
        bot=bot,
        games=tally.games,
        bullheads=tally.bullheads,
        mean=_mean(tally),
        ci=_bootstrap_ci(sets, resamples, rng) if sets else (0.0, 0.0),
        wins=float(tally.wins),
        faults=tally.faults.total(),
        faults_by_kind={kind: tally.faults[kind] for kind in FaultKind if tally.faults[kind]},
        disqualified=tally.out is not None,
        disqualified_in=tally.out.game_id if tally.out is not None else "",
        absent=tally.absent,
    )


def _bootstrap_ci(sets: list[list[int]], resamples: int, rng: random.Random) -> tuple[float, float]:
    """95% percentile-bootstrap interval of bullheads per game, resampling duplicate sets.

    `sets` holds [bullheads, games] for each duplicate set: all the rotations of one deal, which
    share their cards, are one unit, since their games are not independent draws. Each resample
    draws as many sets as there are, with replacement, and takes bullheads per game over them
    (the mean of the sets' means when every set is complete, and still the right weighting when
    an interrupted run left one short).
    """
    count = len(sets)
    bullheads = [bullheads for bullheads, _ in sets]
    games = [games for _, games in sets]
    means = []
    for _ in range(resamples):
        picks = rng.choices(range(count), k=count)
        means.append(sum(map(bullheads.__getitem__, picks)) / sum(map(games.__getitem__, picks)))
    cuts = statistics.quantiles(means, n=_QUANTILES, method="inclusive")
    return cuts[0], cuts[-1]


def _pairings(order: list[str], meetings: dict[tuple[str, str], list[int]]) -> tuple[Pairing, ...]:
    result = []
    for bot in order:
        for opponent in order:
            if (bot, opponent) in meetings:
                difference, games = meetings[bot, opponent]
                result.append(Pairing(bot, opponent, games, difference / games))
            elif (opponent, bot) in meetings:
                difference, games = meetings[opponent, bot]
                result.append(Pairing(bot, opponent, games, -difference / games))
    return tuple(result)


def standings_table(standings: Standings) -> str:
    """The standings as a text table for people, best first, with a line under it for every
    interval or fit that is missing and why."""
    headers = [
        "rank",
        "bot",
        "games",
        "bullheads",
        "mean",
        "95% CI",
        "fitted (95% CI)",
        "LOS",
        "wins",
        "faults",
        "disqualified",
    ]
    rows = [
        [
            line.rank,
            line.bot,
            line.games,
            line.bullheads,
            f"{line.mean:.2f}" if line.games else "-",
            _interval_cell(line.interval),
            _strength_cell(line),
            f"{line.los:.0%}" if line.los is not None else "",
            f"{line.wins:.2f}",
            _faults_cell(line),
            _disqualified_cell(line),
        ]
        for line in standings.bots
    ]
    align = ("right", "left", "right", "right", "right", "center", "center", "right", "right")
    table = tabulate(rows, headers, colalign=(*align, "left", "left"), disable_numparse=True)
    return "\n".join([table, *standings_notes(standings)])


def standings_notes(standings: Standings) -> list[str]:
    """What the table's columns mean where it is not obvious, and why a value is missing."""
    notes = [
        "fitted: bullheads per game against the whole field, for whom each bot met (the mean "
        "when all met all equally); LOS: how likely it is really stronger than the next one"
    ]
    missing = [line for line in standings.bots if line.games and line.interval is None]
    if missing:
        names = ", ".join(line.bot for line in missing)
        notes.append(f"no interval for {names}: {missing[0].why_no_interval}")
    if standings.fit_note:
        notes.append(standings.fit_note)
    return notes


def _interval_cell(interval: tuple[float, float] | None) -> str:
    return f"{interval[0]:.2f}-{interval[1]:.2f}" if interval else "-"


def _strength_cell(line: BotStanding) -> str:
    if line.strength is None:
        return "-"
    if line.strength_ci is None:
        return f"{line.strength:.2f}"
    return f"{line.strength:.2f} ({_interval_cell(line.strength_ci)})"


def _disqualified_cell(line: BotStanding) -> str:
    if not line.disqualified:
        return ""
    return f"yes, in {line.disqualified_in}" if line.disqualified_in else "yes"


def _faults_cell(line: BotStanding) -> str:
    if not line.faults:
        return "0"
    kinds = ", ".join(f"{kind} {count}" for kind, count in line.faults_by_kind.items())
    return f"{line.faults} ({kinds})"


def pairwise_table(standings: Standings) -> str:
    """The pairwise table for people: mean bullheads of the row's bot minus the column's."""
    names = [line.bot for line in standings.bots]
    cells = {(p.bot, p.opponent): f"{p.difference:+.2f}" for p in standings.pairings}
    rows = [[bot] + [cells.get((bot, opponent), "") for opponent in names] for bot in names]
    caption = "Bullheads per game at the same table, row's bot minus column's: negative is better"
    align = ("left", *["right"] * len(names))
    table = tabulate(rows, ["", *names], colalign=align, disable_numparse=True)
    return f"{caption}\n{table}"
