"""How long the bots took: each bot's answer times over a tournament, for the standings.

Pure, and computed in the standings' one pass over the outcomes (`TimeTally.add`), keeping a
count per distinct time (to a tenth of a millisecond) rather than every time, so that the
quantiles are exact at that resolution and the memory stays small however many games there are.
An answer time is what the deadline judged: from when the request was written to the bot's
stream to when its answer was read, less the arena's own stalls (`DecisionTime.seconds`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from arena.tournament.outcome import GameOutcome

RESOLUTION = 1e-4
"""Seconds: times are counted to a tenth of a millisecond."""


@dataclass(frozen=True, slots=True)
class BotTimes:
    """One bot's answer times over the games it played."""

    bot: str
    decisions: int
    """Decisions timed (those it was asked, not those the fallback took for it unasked)."""
    median: float | None
    """Median answer time, seconds; None with no decision timed."""
    p99: float | None
    """99th percentile (nearest rank), seconds."""
    slowest: float | None
    """The slowest answer, seconds (a timeout counts as its whole allowance)."""
    cpu_median: float | None
    """Median CPU seconds its processes used per decision; None where not measured."""
    bank_used: float
    """Seconds of time bank it drew on, over all its games."""
    bank_games: int
    """Games in which it drew on its time bank at all."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, times in milliseconds."""
        return {
            "bot": self.bot,
            "decisions": self.decisions,
            "median_ms": _ms(self.median),
            "p99_ms": _ms(self.p99),
            "slowest_ms": _ms(self.slowest),
            "cpu_median_ms": _ms(self.cpu_median),
            "bank_used_s": round(self.bank_used, 4),
            "bank_games": self.bank_games,
        }


@dataclass
class _Times:
    seconds: Counter[int] = field(default_factory=Counter)
    cpu: Counter[int] = field(default_factory=Counter)
    bank: float = 0.0
    bank_games: int = 0


@dataclass
class TimeTally:
    """Answer times kept per bot while the outcomes stream by."""

    _bots: dict[str, _Times] = field(default_factory=dict)

    def add(self, outcome: GameOutcome) -> None:
        """Count one game's decision times."""
        seats = outcome.spec.seats
        drew: set[str] = set()
        for time in outcome.times:
            bot = seats[time.seat]
            kept = self._bots.setdefault(bot, _Times())
            kept.seconds[_tick(time.seconds)] += 1
            if time.cpu is not None:
                kept.cpu[_tick(time.cpu)] += 1
            if time.bank > 0:
                kept.bank += time.bank
                drew.add(bot)
        for bot in drew:
            self._bots[bot].bank_games += 1

    def result(self, order: Iterable[str]) -> tuple[BotTimes, ...]:
        """Each bot's times, in `order` (the standings' ranks); bots with no time are left out."""
        lines = []
        for bot in order:
            kept = self._bots.get(bot)
            if kept is None:
                continue
            lines.append(
                BotTimes(
                    bot=bot,
                    decisions=kept.seconds.total(),
                    median=quantile(kept.seconds, 0.5),
                    p99=quantile(kept.seconds, 0.99),
                    slowest=quantile(kept.seconds, 1.0),
                    cpu_median=quantile(kept.cpu, 0.5),
                    bank_used=kept.bank,
                    bank_games=kept.bank_games,
                )
            )
        return tuple(lines)


def quantile(counts: Counter[int], fraction: float) -> float | None:
    """The nearest-rank `fraction` quantile of times counted in ticks, in seconds; None when
    there are none."""
    total = counts.total()
    if not total:
        return None
    rank = max(1, math.ceil(fraction * total))
    seen = 0
    for tick in sorted(counts):
        seen += counts[tick]
        if seen >= rank:
            return tick * RESOLUTION
    raise AssertionError("unreachable: the ranks add up to the total")


def times_table(times: Iterable[BotTimes]) -> str:
    """The answer times as a text table: median, 99th percentile and slowest (ms), CPU, bank."""
    rows = [
        [
            line.bot,
            line.decisions,
            _shown(line.median),
            _shown(line.p99),
            _shown(line.slowest),
            _shown(line.cpu_median),
            f"{line.bank_used:.2f} s in {line.bank_games}" if line.bank_games else "",
        ]
        for line in times
    ]
    headers = ["bot", "decisions", "median ms", "p99 ms", "slowest ms", "CPU ms", "bank used"]
    return tabulate(rows, headers=headers, disable_numparse=True)


def _tick(seconds: float) -> int:
    return round(seconds / RESOLUTION)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def _shown(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1000:.1f}"
