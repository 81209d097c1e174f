"""A tournament's configuration: from a TOML file, then overridden by the command line."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from math import gcd
from pathlib import Path
from typing import Any

from arena.rules import InvalidSettingsError, Settings, Variant
from arena.server.listen import Listener, ListenError
from arena.server.lobby import BotOptions, BotSpec
from arena.server.process import Limits
from arena.server.specs import BadBotSpec, parse_bot
from arena.tournament.schedule import round_robin_size

MAX_ROUND_ROBIN_GAMES = 100_000
"""Above this many games the full round-robin needs an explicit choice: a sample, or fewer bots."""
_BOT_DEFAULTS = BotOptions()


class ConfigError(ValueError):
    """A configuration that cannot run, with what to change."""


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament run needs; what decides the games is also what a resume checks."""

    bots: tuple[BotSpec, ...] = ()
    """The entered bots."""
    players: int | None = None
    """Seats per table; None: all bots at one table when they are 10 or fewer."""
    games: int | None = None
    """Games per table, a multiple of the table size (one game per seat rotation of each deal);
    None for one duplicate set per table."""
    variant: Variant = Variant.STANDARD
    end_score: int = 66
    max_rounds: int | None = None
    seed: int = 0
    """The tournament seed; every game's deal derives from it and the game's place."""
    sample: int | None = None
    """Play a balanced sample of this many tables instead of the full round-robin."""
    deadline: float = 1.0
    """Seconds a bot has for each decision."""
    first_deadline: float = _BOT_DEFAULTS.first_deadline
    """Seconds for the first decision of each game, when a bot may still be warming up."""
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    """Games played at once."""
    max_faults: int = _BOT_DEFAULTS.max_faults
    """Faults after which a bot is disqualified; 0 for never."""
    restart: bool = _BOT_DEFAULTS.restart
    """Whether a bot that crashed is started again for its next game."""
    startup_timeout: float = _BOT_DEFAULTS.startup_timeout
    """Seconds a bot has to connect after it is started."""
    memory_mb: int | None = 2048
    """Memory limit of each bot process, in MiB (RLIMIT_DATA); None for none."""
    cpu_seconds: int | None = None
    """CPU-time limit of each bot process over its whole life (RLIMIT_CPU); None for none."""
    listen: str | None = None
    """An extra address where external bots may connect, e.g. `0.0.0.0:7000`."""
    tls_cert: Path | None = None
    """TLS certificate for `listen`."""
    tls_key: Path | None = None
    """TLS private key for `listen`."""
    insecure: bool = False
    """Allow `listen` beyond loopback without TLS."""
    output: Path = Path("arena-out")
    """The folder for results, standings, replays and logs."""

    def bot_options(self) -> BotOptions:
        """How the lobby treats this tournament's bots."""
        memory = None if self.memory_mb is None else self.memory_mb << 20
        return BotOptions(
            deadline=self.deadline,
            first_deadline=max(self.first_deadline, self.deadline),
            max_faults=self.max_faults,
            restart=self.restart,
            startup_timeout=self.startup_timeout,
            limits=Limits(memory_bytes=memory, cpu_seconds=self.cpu_seconds),
        )

    def public(self) -> Listener | None:
        """Where external bots connect, if anywhere beyond the arena's own loopback port."""
        if self.listen is None:
            return None
        return Listener(self.listen, self.tls_cert, self.tls_key, self.insecure)

    @property
    def table_size(self) -> int:
        """Seats per table, resolved."""
        return self.players if self.players is not None else min(len(self.bots), 10)

    @property
    def deals(self) -> int:
        """Duplicate sets (deals) per table."""
        return (self.games or self.table_size) // self.table_size

    def settings(self) -> Settings:
        """The game settings; raises ConfigError for ones the rules cannot play."""
        try:
            return Settings(self.table_size, self.variant, self.end_score, self.max_rounds)
        except InvalidSettingsError as error:
            raise ConfigError(str(error)) from None

    def identity(self) -> dict[str, Any]:
        """What decides the games: a resumed run must match it exactly."""
        return {
            "bots": sorted(bot.name for bot in self.bots),
            "players": self.table_size,
            "deals": self.deals,
            "variant": str(self.variant),
            "end_score": self.end_score,
            "max_rounds": self.max_rounds,
            "seed": self.seed,
            "sample": self.sample,
        }

    def check(self) -> None:
        """Raise ConfigError naming the first problem, so bad input fails before anything runs."""
        names = [bot.name for bot in self.bots]
        if len(names) < 2:
            raise ConfigError("enter at least 2 bots (--bot NAME=COMMAND, or [[bot]] in the file)")
        doubles = sorted({name for name in names if names.count(name) > 1})
        if doubles:
            raise ConfigError(f"two bots are named {doubles[0]!r}: give each a unique name")
        seats = self.table_size
        self.settings()
        if len(names) < seats:
            raise ConfigError(f"{len(names)} bots cannot fill tables of {seats}: lower --players")
        if self.games is not None and (self.games < 1 or self.games % seats):
            raise ConfigError(
                f"games per table must be a multiple of {seats} (one game per seat rotation "
                f"of each deal): try --games {seats * max(1, round((self.games or 0) / seats))}"
            )
        if self.deadline <= 0:
            raise ConfigError("the deadline must be more than 0 seconds")
        if self.concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        if self.max_faults < 0 or self.startup_timeout <= 0:
            raise ConfigError("max faults must be 0 or more and the start-up timeout above 0")
        if (self.memory_mb is not None and self.memory_mb < 16) or (
            self.cpu_seconds is not None and self.cpu_seconds < 1
        ):
            raise ConfigError("a bot needs at least 16 MiB of memory and 1 s of CPU time")
        public = self.public()
        if public is not None:
            try:
                public.check()
            except ListenError as error:
                raise ConfigError(str(error)) from None
        size = round_robin_size(len(names), seats, self.deals)
        if self.sample is None and size.games > MAX_ROUND_ROBIN_GAMES:
            suggestion = _suggest(len(names), seats)
            raise ConfigError(
                f"the full round-robin is {size.tables} tables, {size.games} games: too many; "
                f"play a balanced sample with --sample TABLES (e.g. --sample {suggestion})"
            )


_TYPES: dict[str, type | tuple[type, ...]] = {
    "players": int,
    "games": int,
    "variant": str,
    "end_score": int,
    "max_rounds": int,
    "seed": int,
    "sample": int,
    "deadline": (int, float),
    "first_deadline": (int, float),
    "concurrency": int,
    "output": str,
    "max_faults": int,
    "restart": bool,
    "startup_timeout": (int, float),
    "memory_mb": int,
    "cpu_seconds": int,
    "listen": str,
    "tls_cert": str,
    "tls_key": str,
    "insecure": bool,
}
"""The settings a tournament file may hold in [tournament], and their TOML types."""


def load(path: Path) -> TournamentConfig:
    """Read a tournament file; paths in it are relative to the file's folder."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ConfigError(f"cannot read {str(path)!r}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{str(path)!r} is not valid TOML: {error}") from None
    table = data.get("tournament", {})
    for key, value in table.items():
        if key not in _TYPES:
            known = ", ".join(_TYPES)
            raise ConfigError(f"{str(path)!r}: unknown setting {key!r} (known: {known})")
        wanted = _TYPES[key]
        if not isinstance(value, wanted) or (isinstance(value, bool) and wanted is not bool):
            raise ConfigError(f"{str(path)!r}: {key} cannot be {value!r}")
    base = path.parent
    bots = []
    for entry in data.get("bot", []):
        if not isinstance(entry, dict) or "command" not in entry:
            raise ConfigError(f"{str(path)!r}: every [[bot]] needs a command")
        command = str(entry["command"])
        name = entry.get("name")
        try:
            bots.append(parse_bot(f"{name}={command}" if name else command, base))
        except BadBotSpec as error:
            raise ConfigError(f"{str(path)!r}: {error}") from None
    values: dict[str, Any] = dict(table)
    if "variant" in values:
        values["variant"] = variant(values["variant"])
    for key in ("output", "tls_cert", "tls_key"):  # paths in the file are relative to it
        if key in values:
            values[key] = Path(os.path.normpath(base / values[key]))
    try:
        return replace(TournamentConfig(bots=tuple(bots)), **values)
    except TypeError as error:
        raise ConfigError(f"{str(path)!r}: {error}") from None


def variant(value: object) -> Variant:
    """A Variant from its name; ConfigError naming the choices otherwise."""
    try:
        return Variant(str(value))
    except ValueError:
        choices = ", ".join(v.value for v in Variant)
        raise ConfigError(f"unknown variant {value!r}: choose one of {choices}") from None


def _suggest(bots: int, players: int) -> int:
    """A sample size that seats every bot equally often: about 100 tables per bot, rounded."""
    step = bots // gcd(bots, players)  # tables must make tables*players a multiple of bots
    return max(step, (bots * 25 // players) // step * step)
