"""`arena compare NEW OLD`: is the new version of a bot better than the old one?

The games are the paired design of `pairs` (every deal in every rotation, once with NEW and once
with OLD in the same seat, against the same field with the same seeds), played by the tournament
runner itself (`run_tournament` with this plan): the same bot processes, limits, sandbox,
deadlines, fault handling, results database, resume and output files as `arena run`. After each
game the deals it completes go to the sequential test (`sprt`: the GSPRT and the always-valid
interval of `mixture` side by side), deal by deal in schedule order; at the first bound reached
the run stops, and the games still in progress are abandoned.

Resumable like a tournament: the results database holds every finished game, the comparison's
bots (by name and fingerprint: a changed bot is refused) and its rules; the same command again
reads the stored games first, in deal order, and plays on only if the test has not decided. The
test is recomputed from the stored deals each time, so the verdict never depends on how many
games were in progress when it came, nor on the concurrency; a larger `--max-games` carries an
undecided comparison on, and other hypotheses (`--margin`, `--alpha`, `--beta`) read the same
games again. A comparison stored by an earlier version of the arena is read the same way, by
today's test: the games are what is stored, the verdict is recomputed (a clear one may now come
at an earlier deal).

Its lines and its JSON count alike: `deals` the whole deals the test read, `games` the games of
those deals (what the verdict took), `stored` the games in the results database (a deal under
way when the verdict or the interruption came adds some), `played` this run's.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.server.declared import MAX_WHOLE, Declared, Range, declarations, declare, whole
from arena.server.lobby import BotSpec
from arena.server.specs import bot_spec
from arena.tournament.config import MAX_PLANNED_GAMES, ConfigError, TournamentConfig
from arena.tournament.errors import ScheduleError
from arena.tournament.observer import Observer
from arena.tournament.outcome import GameOutcome, GameSpec
from arena.tournament.problems import Problems
from arena.tournament.runner import QUIET, run_tournament
from arena.tournament.standings import Standings
from arena.tournament.stats.pairs import PairedDeals, paired_schedule
from arena.tournament.stats.sprt import (
    DecidedBy,
    Hypotheses,
    SequentialTest,
    SprtState,
    Verdict,
    final_verdict,
)
from arena.tournament.store import ResultStore

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots" / "python"
"""The sample bots, the default field."""
DEFAULT_FIELD = ("heuristic", "lowest", "random")
"""The sample bots of the default field: `sample_bots/python/NAME_bot.py`, named NAME."""
DEFAULT_MAX_GAMES = 10_000
"""Games at most (`CompareSettings.max_games`), NEW's and OLD's together: at a margin of 1
bullhead, two equally strong bots (not identical: the noisy twin against itself) took about
5,100 whole games on average to accept H0 in `scripts/measure_compare.py` (a deal's difference
varies by about 10 bullheads), a clearly better one about 600 to accept H1, so most comparisons
end with a verdict within it."""
NOT_SHARED = ("players", "games", "sample", "gauntlet", "replace", "allow_faults", "build_timeout")
"""Tournament settings that `arena compare` does not take: the table is the candidate and the
field, the games are decided by the test (`--max-games`), and the rest concern tournaments."""

SHARE = Range(0, 0.5, above=True, below=True)
"""An error rate of the test: above 0 and below a half."""


@dataclass(frozen=True)
class CompareSettings:
    """`arena compare`'s own settings beyond the tournament's, declared as those are: the
    hypotheses of the test and the cap on games; `arena compare`'s options are built from them
    (`COMPARE_SETTINGS`), and each value is checked by its declaration."""

    margin: float = dataclasses.field(
        default=1.0,
        metadata=declare(
            "H1: NEW takes at least this many fewer bullheads per game than OLD.",
            bound=Range(0, MAX_WHOLE, above=True, unit="bullheads"),
        ),
    )
    alpha: float = dataclasses.field(
        default=0.05,
        metadata=declare("The chance of accepting H1 when NEW is no better.", bound=SHARE),
    )
    beta: float = dataclasses.field(
        default=0.05,
        metadata=declare(
            "The chance of accepting H0 when NEW is better by the margin.", bound=SHARE
        ),
    )
    max_games: int = dataclasses.field(
        default=DEFAULT_MAX_GAMES,
        metadata=declare(
            "Stop undecided after this many games (NEW's and OLD's together).",
            bound=whole(1, MAX_PLANNED_GAMES, unit="games"),
        ),
    )

    def hypotheses(self) -> Hypotheses:
        """What the test decides between."""
        return Hypotheses(self.margin, self.alpha, self.beta)


COMPARE_SETTINGS: tuple[Declared, ...] = declarations(CompareSettings)
"""`arena compare`'s own settings, in their order."""

Progress = Callable[[SprtState, int], None]
"""Told the test's state and the games stored, after every deal the test reads."""


def default_field() -> tuple[BotSpec, ...]:
    """The sample bots heuristic, lowest and random."""
    return tuple(bot_spec(name, str(SAMPLE_BOTS / f"{name}_bot.py")) for name in DEFAULT_FIELD)


@dataclass(frozen=True)
class CompareConfig:
    """Everything a comparison needs."""

    new: BotSpec
    old: BotSpec
    field: tuple[BotSpec, ...]
    """The other seats of every table."""
    tournament: TournamentConfig
    """The settings shared with `arena run` (rules, seed, deadlines, limits, output...); its bots
    and table size are the comparison's (`runner_config`)."""
    hypotheses: Hypotheses = dataclasses.field(default_factory=Hypotheses)
    max_games: int = DEFAULT_MAX_GAMES

    @property
    def players(self) -> int:
        return 1 + len(self.field)

    @property
    def games_per_deal(self) -> int:
        """Every rotation, with NEW and with OLD."""
        return 2 * self.players

    @property
    def max_deals(self) -> int:
        return self.max_games // self.games_per_deal

    def runner_config(self) -> TournamentConfig:
        """The tournament configuration the runner plays the comparison with."""
        return replace(
            self.tournament,
            bots=(self.new, self.old, *self.field),
            players=self.players,
            games=None,
            sample=None,
            gauntlet=None,
            replace=None,
        )

    def identity(self) -> dict[str, Any]:
        """What the results database holds besides the tournament's rules: the comparison's
        candidates and field, so that no other comparison or tournament mixes with it."""
        return {
            "compare": {
                "new": self.new.name,
                "old": self.old.name,
                "field": sorted(bot.name for bot in self.field),
            }
        }

    def check(self) -> None:
        """ConfigError naming the first problem."""
        if not self.field:
            raise ConfigError("the field needs at least one bot: give --field BOT")
        names = [self.new.name, self.old.name, *(bot.name for bot in self.field)]
        doubles = sorted({name for name in names if names.count(name) > 1})
        if doubles:
            raise ConfigError(
                f"two bots are named {doubles[0]!r} (NEW, OLD and the field must all differ): "
                "name them with NAME=COMMAND"
            )
        if self.players > 10:
            raise ConfigError(
                f"a table holds at most 10 bots: the candidate and {len(self.field)} field "
                "bots are too many"
            )
        if self.max_deals < 1:
            raise ConfigError(
                f"--max-games {self.max_games} is less than one deal: each deal is "
                f"{self.games_per_deal} games (every rotation, with NEW and with OLD)"
            )
        self.runner_config().check()


@dataclass(frozen=True)
class CompareResult:
    """How a comparison stands at the end of a run."""

    config: CompareConfig
    state: SprtState
    """The test over the deals read (up to its verdict's)."""
    played: int
    """Games this run played."""
    stored: int
    """Games in the results database."""
    interrupted: bool
    """Stopped (Ctrl-C, SIGTERM) before a verdict or the cap."""
    problems: Problems
    standings: Standings
    """Of every stored game: NEW, OLD and the field, with the fit (NEW and OLD never meet)."""

    @property
    def verdict(self) -> Verdict:
        return final_verdict(self.state)

    @property
    def games(self) -> int:
        """Games in the deals the test read: the games it took to its verdict."""
        return self.state.deals * self.config.games_per_deal

    def to_dict(self) -> dict[str, Any]:
        """What `--json` prints: the same words as the lines (`deals` read by the test, the
        `games` in them, the games `stored` and `played`)."""
        state, hypotheses = self.state, self.config.hypotheses
        ci = state.ci
        low, high = state.always_valid if state.deals else (None, None)
        return {
            "new": self.config.new.name,
            "old": self.config.old.name,
            "field": sorted(bot.name for bot in self.config.field),
            "verdict": self.verdict.value,
            "decided_by": state.decided_by.value if state.decided_by else None,
            "games": self.games,
            "deals": state.deals,
            "mean_difference": state.mean if state.deals else None,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "always_valid_low": low,
            "always_valid_high": high,
            "always_valid_confidence": state.always_valid_confidence,
            "llr": state.llr,
            "lower_bound": state.lower_bound,
            "upper_bound": state.upper_bound,
            "margin": hypotheses.margin,
            "alpha": hypotheses.alpha,
            "beta": hypotheses.beta,
            "interval_share": hypotheses.interval_share,
            "max_games": self.config.max_games,
            "played": self.played,
            "stored": self.stored,
            "interrupted": self.interrupted,
            "problems": self.problems.to_dict(),
        }


class PairedDesign:
    """`arena compare`'s design, played by the tournament runner: the paired deals, read by the
    sequential test as their games are stored (the earlier runs' first, in deal order) until it
    decides or the cap is reached; then the run stops."""

    def __init__(self, config: CompareConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.deals = PairedDeals(config.new.name, config.old.name, config.players)
        self.test = SequentialTest(config.hypotheses)
        self._progress = progress
        self._stored = 0

    @property
    def decided(self) -> bool:
        """The test reached a bound, or read every deal `max_games` allows."""
        return self.test.verdict is not None or self.test.deals >= self.config.max_deals

    def identity(self) -> dict[str, Any]:
        """The comparison's candidates and field (`CompareConfig.identity`)."""
        return self.config.identity()

    def read(self, outcome: GameOutcome) -> bool:
        """Each deal the game completes goes to the test, until it decides; True once it has."""
        self._stored += 1
        for difference in self.deals.add(outcome):
            if not self.decided:
                self.test.add(difference)
                if self._progress is not None:
                    self._progress(self.test.state(), self._stored)
        return self.decided

    def plan(self, config: TournamentConfig, store: ResultStore) -> list[GameSpec]:
        """The games of the deals the test may still need: none once it has decided."""
        if self.decided:
            return []
        assert config.seed is not None, "the runner decides the seed before it plans"
        try:
            return paired_schedule(
                self.config.new.name,
                self.config.old.name,
                [bot.name for bot in self.config.field],
                config.settings(),
                config.seed,
                self.config.max_deals,
            )
        except ScheduleError as error:
            raise ConfigError(str(error)) from None

    def nothing_left(self, config: TournamentConfig, planned: int, observer: Observer) -> None:
        """A comparison its stored games decide says so in its verdict, not here."""

    def whole(self, config: TournamentConfig, store: ResultStore, planned: int) -> None:
        """Not known in advance: the comparison plays until its test decides (the plan holds
        every deal `max_games` allows, which it seldom needs)."""
        return None


async def run_compare(
    config: CompareConfig,
    progress: Progress | None = None,
    *,
    stop: asyncio.Event | None = None,
    announce: Callable[[str], None] | None = None,
) -> CompareResult:
    """Play the comparison until the test decides or `max_games` are stored; `stop` (Ctrl-C)
    ends it early as it ends a tournament: what finished is kept, a resume carries on."""
    config.check()
    design = PairedDesign(config, progress)
    observer = Observer(announce=announce) if announce is not None else QUIET
    summary = await run_tournament(
        config.runner_config(), observer=observer, design=design, stop=stop
    )
    return CompareResult(
        config,
        design.test.state(),
        summary.played,
        summary.stored,
        summary.interrupted and not design.decided,
        summary.problems,
        summary.standings,
    )


def counted(deals: int, games_per_deal: int) -> str:
    """The test's count, in the words of every line: `16 deals (128 games)`."""
    return f"{deals} deal{'' if deals == 1 else 's'} ({deals * games_per_deal} games)"


def _undecided(result: CompareResult) -> str:
    """Why no verdict came, and what carries the comparison on: the same command after an
    interruption, a larger --max-games once the cap is reached."""
    read = counted(result.state.deals, result.config.games_per_deal)
    cap = result.config.max_games
    if result.interrupted:
        return (
            f"undecided: interrupted after {read}, before a verdict or the --max-games {cap} "
            "cap; the same command goes on from there"
        )
    if result.state.deals >= result.config.max_deals:
        return (
            f"undecided: no verdict in {read}, the most --max-games {cap} allows; the same "
            "command with a larger --max-games goes on from there"
        )
    return f"undecided: no verdict in {read}"


def stored_line(result: CompareResult) -> str:
    """Where the games are, and how the games stored add up to those of the deals the test read:
    a deal counts once all its games are stored, so some may be stored beyond the last one."""
    folder = result.config.tournament.output
    line = f"{result.stored} games stored in {folder}/"
    extra = result.stored - result.games
    if extra <= 0:
        return line
    if result.interrupted:
        why = "of deals not read yet (a deal is read once it and every one before it are whole)"
    else:  # under way when the verdict came, or stored by an earlier run
        why = "of later deals, which the verdict did not need"
    deals = result.state.deals
    return f"{line}: the {result.games} of the {deals} deals read, and {extra} {why}"


def verdict_lines(result: CompareResult) -> list[str]:
    """The verdict for people: what it means and which test reached it, the mean difference with
    its intervals, the LLR."""
    state, h = result.state, result.config.hypotheses
    new, old = result.config.new.name, result.config.old.name
    margin = f"{h.margin:g} bullhead{'' if h.margin == 1 else 's'} a game"
    meaning = {
        Verdict.H1: f"H1: {new} is better than {old}, by at least {margin}",
        Verdict.H0: f"H0: {new} is no better than {old} (it does not take {margin} fewer)",
        Verdict.UNDECIDED: _undecided(result),
    }[result.verdict]
    by = {
        DecidedBy.SPRT: "; reached by the GSPRT",
        DecidedBy.INTERVAL: "; reached by the always-valid interval",
        None: "",
    }[state.decided_by]
    lines = [f"verdict {meaning} (alpha {h.alpha:g}, beta {h.beta:g}{by})"]
    if state.deals:
        ci = state.ci
        t = f"95% interval {ci[0]:+.2f} to {ci[1]:+.2f}" if ci else "no interval from one deal"
        lines.append(
            f"mean difference {state.mean:+.2f} bullheads a game, {new} minus {old} "
            f"(negative: {new} takes fewer; {t}, as if the deals had been fixed in advance)"
        )
        lines.append(always_valid_line(state))
    lines.append(
        f"LLR {state.llr:+.2f}, bounds {state.lower_bound:+.2f} (H0) and "
        f"{state.upper_bound:+.2f} (H1), after {counted(state.deals, result.config.games_per_deal)}"
    )
    return lines


def always_valid_line(state: SprtState) -> str:
    """The always-valid interval, and what each of its ends decides."""
    h = state.hypotheses
    confidence = f"{state.always_valid_confidence:.0%}, valid at every deal at once"
    return (
        f"always-valid interval {always_valid_ends(state)} ({confidence}): H1 once it is below "
        f"{h.mu0:g}, H0 once above {h.mu1:g}"
    )


def always_valid_ends(state: SprtState, digits: int = 2) -> str:
    """The always-valid interval's ends, `-12.30 to -3.10`; an end not yet reached is infinite."""
    low, high = state.always_valid
    return (
        f"{'-inf' if low is None else f'{low:+.{digits}f}'} to "
        f"{'+inf' if high is None else f'{high:+.{digits}f}'}"
    )
