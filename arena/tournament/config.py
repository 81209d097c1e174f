"""A tournament's configuration, declared once: from a TOML file, then overridden by the command
line.

Every setting is a field of `TournamentConfig` made with `setting(...)`: its type is the field's
annotation, and the declaration holds its default, its help text and how `--help` shows that
default. `SETTINGS` reads them back, and the rest comes from it: what `[tournament]` in a
tournament file may hold and of which TOML type (read by `arena.tournament.tournament_file`: an
unknown key or a wrong type is an error), the `arena run` options (`arena.cli.options` makes one
per setting, `--end-score` for `end_score`, each showing its default), and the defaults
themselves.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from math import gcd
from pathlib import Path
from typing import Any, get_type_hints

from arena.rules import DEFAULT_END_SCORE, InvalidSettingsError, Settings, Variant
from arena.server.declared import (
    END_SCORE,
    PLAYERS,
    ROUNDS,
    SEED,
    Bound,
    Declared,
    Form,
    absolute_path,
    declared_values,
    seconds,
    whole,
)
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.sandbox import SandboxMode
from arena.server.listen import (
    LISTEN_ADDRESS,
    Listener,
    ListenError,
    check_certificate,
    check_key_pair,
    is_host_port,
    is_loopback,
)
from arena.server.lobby import BotSpec
from arena.server.options import OPTIONS_BY_NAME, BotOptions
from arena.tournament.errors import ConfigError
from arena.tournament.schedule import check_sample, round_robin_size, sample_size

__all__ = [
    "MAX_PLANNED_GAMES",
    "MAX_ROUND_ROBIN_GAMES",
    "SETTINGS",
    "SETTINGS_BY_NAME",
    "ConfigError",
    "Setting",
    "TournamentConfig",
    "absolute_path",
    "setting",
]

MAX_ROUND_ROBIN_GAMES = 100_000
"""Above this many games the full round-robin needs an explicit choice: a sample, or fewer bots."""
MAX_PLANNED_GAMES = 1_000_000
"""The most games one tournament plans (a sample's, or a comparison's cap): every run makes its
schedule whole, and a million games take about 30 s and 250 MiB to plan; more ran out of memory
with a traceback (--games 2000000000 --sample 1)."""
MAX_WORKERS = 1024
"""The most worker processes `--workers` starts on this machine: far more than its cores, and a
bound on what one command forks."""


def _is_scheduler(address: str) -> bool:
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    return scheme in ("tcp", "tls") and is_host_port(rest)


SCHEDULER = Form("a scheduler's address: tcp://HOST:PORT or tls://HOST:PORT", _is_scheduler)
"""What `--cluster` takes."""


def setting(
    help: str,
    *,
    shown: str | None = None,
    folder: bool = False,
    in_file: bool = True,
    bound: Bound | None = None,
) -> dict[str, Any]:
    """The metadata that makes a field of TournamentConfig a setting: a key of `[tournament]` and
    an option of `arena run`, of the field's annotated type, with the field's default.

    `help` says what it does; `shown` is how `--help` shows the default (else the default itself,
    "none" for None); `folder`: the setting is a path that names a folder, not a file;
    `in_file=False`: an action of one run (`--replace`), refused in a tournament file; `bound`:
    the range a number keeps to (every number has one), or the form of a text.
    """
    return {"help": help, "shown": shown, "folder": folder, "in_file": in_file, "bound": bound}


def bot_setting(name: str) -> Any:
    """The field of TournamentConfig for the bot option `name`, whose default, help and bound
    are the ones `BotOptions` declares (`arena.server.options`): a setting like the others."""
    declared = OPTIONS_BY_NAME[name]
    meta = setting(declared.help, shown=declared.shown, bound=declared.bound)
    return field(default=declared.default, metadata=meta)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament run needs; what decides the games is also what a resume checks.

    Every field but `bots`, `fingerprints` and `left_out` (what `--submissions` found) is a
    setting, declared with its help text (see the module's note).
    """

    bots: tuple[BotSpec, ...] = ()
    """The entered bots (`--bot` options and `[[bot]]` tables): not a setting."""
    players: int | None = field(
        default=None,
        metadata=setting("Seats per table.", shown="all bots, up to 10", bound=PLAYERS),
    )
    games: int | None = field(
        default=None,
        metadata=setting(
            "Games per table: a multiple of the seats (each deal is played once per seat "
            "rotation); in the professional-draft variant, whose set-up has no chance, one set.",
            shown="one deal per table",
            bound=whole(1, unit="games"),
        ),
    )
    variant: Variant = field(
        default=Variant.STANDARD, metadata=setting("How each round's cards are set up.")
    )
    end_score: int = field(
        default=DEFAULT_END_SCORE, metadata=setting("Bullheads that end a game.", bound=END_SCORE)
    )
    max_rounds: int | None = field(
        default=None, metadata=setting("Cap on rounds per game.", bound=ROUNDS)
    )
    seed: int | None = field(
        default=None,
        metadata=setting(
            "Tournament seed: every game's deal derives from it. A chosen one reveals every deal "
            "to anyone who knows it.",
            shown="a secret random one, stored with the results (a resume keeps it)",
            bound=SEED,
        ),
    )
    sample: int | None = field(
        default=None,
        metadata=setting(
            "Play a balanced sample of this many tables instead of the full round-robin.",
            shown="the full round-robin",
            bound=whole(1, unit="tables"),
        ),
    )
    deadline: float = bot_setting("deadline")
    first_deadline: float = bot_setting("first_deadline")
    time_bank: float = bot_setting("time_bank")
    cpu: CpuMode = bot_setting("cpu")
    concurrency: int = field(
        default_factory=lambda: os.cpu_count() or 1,
        metadata=setting(
            "Games played at once (fair CPU: at most one per core).",
            shown="the machine's cores",
            bound=whole(1, unit="games"),
        ),
    )
    core_processes: bool = field(
        default=True,
        metadata=setting(
            "Fair CPU with two games or more at once: play each core's games in an arena "
            "process of its own, pinned to that core with their bots (no bot started by hand)."
        ),
    )
    max_faults: int = bot_setting("max_faults")
    restart: bool = bot_setting("restart")
    startup_timeout: float = bot_setting("startup_timeout")
    memory_mb: int | None = bot_setting("memory_mb")
    pids: int | None = bot_setting("pids")
    sandbox: SandboxMode = bot_setting("sandbox")
    reuse_processes: bool = bot_setting("reuse_processes")
    cpu_seconds: int | None = bot_setting("cpu_seconds")
    listen: str | None = field(
        default=None,
        metadata=setting(
            "Also listen here for external bots, e.g. 0.0.0.0:7000.", bound=LISTEN_ADDRESS
        ),
    )
    tls_cert: Path | None = field(
        default=None, metadata=setting("TLS certificate (PEM) for --listen.")
    )
    tls_key: Path | None = field(
        default=None, metadata=setting("TLS private key (PEM) for --listen.")
    )
    insecure: bool = field(
        default=False,
        metadata=setting("Listen beyond loopback, or reach a cluster beyond it, without TLS."),
    )
    cluster: str | None = field(
        default=None,
        metadata=setting(
            "Play the games on this Dask cluster: its scheduler, tcp://HOST:PORT or "
            "tls://HOST:PORT (see `dask scheduler` and `dask worker`).",
            shown="this machine",
            bound=SCHEDULER,
        ),
    )
    workers: int | None = field(
        default=None,
        metadata=setting(
            "Play the games on a Dask cluster of this many worker processes on this machine "
            "(the same path as --cluster), sharing --concurrency.",
            bound=whole(1, MAX_WORKERS),
        ),
    )
    bots_dir: Path | None = field(
        default=None,
        metadata=setting(
            "A folder every --cluster worker sees at the same path (a shared file system): the "
            "bots' archives are put there instead of sent through the cluster.",
            folder=True,
            shown="send them through the cluster",
        ),
    )
    cluster_ca: Path | None = field(
        default=None, metadata=setting("For a tls:// --cluster: the CA certificate (PEM).")
    )
    cluster_cert: Path | None = field(
        default=None,
        metadata=setting("For a tls:// --cluster: the organizer's certificate (PEM)."),
    )
    cluster_key: Path | None = field(
        default=None, metadata=setting("For a tls:// --cluster: its private key (PEM).")
    )
    output: Path = field(
        default_factory=lambda: absolute_path("arena-out"),
        metadata=setting(
            "The folder for results, standings, replays and logs.",
            folder=True,
            shown="arena-out, in the current folder",
        ),
    )
    gauntlet: str | None = field(
        default=None,
        metadata=setting(
            "Play only the tables that include this bot (a new entry against the field), with "
            "the same duplicate deals.",
            shown="every table",
        ),
    )
    replace: str | None = field(
        default=None,
        metadata=setting(
            "Drop this bot's stored games and play them again (after changing it).",
            in_file=False,
        ),
    )
    allow_faults: bool = field(
        default=False,
        metadata=setting(
            "Exit 0 even when a bot was disqualified, never connected or was left out "
            "(otherwise: exit status 3)."
        ),
    )
    standings_every: int = field(
        default=10,
        metadata=setting(
            "Rewrite standings.json and standings.csv every this many games (and at the end); "
            "0 for only at the end.",
            bound=whole(0, unit="games"),
        ),
    )
    build_timeout: float = field(
        default=600.0,
        metadata=setting(
            "Seconds a submission's build may take before it is left out.", bound=seconds()
        ),
    )
    fingerprints: tuple[tuple[str, str], ...] = ()
    """Bots whose fingerprint is not their command's (submissions: their folder's), by name: not
    a setting."""
    left_out: tuple[tuple[str, str], ...] = ()
    """Submissions left out of this run, as (folder, reason): not a setting."""

    def with_settings(
        self, values: Mapping[str, Any], base: Path | None = None
    ) -> TournamentConfig:
        """This config with the settings in `values` changed, each checked by its declaration:
        ConfigError for an unknown one, OptionError (naming it, the value and what it would
        take) for a value it cannot take. Paths are relative to `base` when it is given (the
        folder of a tournament file)."""
        changes = {}
        for key, value in values.items():
            declared = SETTINGS_BY_NAME.get(key)
            if declared is None:
                raise ConfigError(f"unknown setting {key!r} (known: {', '.join(SETTINGS_BY_NAME)})")
            changes[key] = declared.convert(value, base)
        return replace(self, **changes)

    def bot_options(self) -> BotOptions:
        """How the lobby treats this tournament's bots: its settings of the bot options."""
        return BotOptions.of({name: getattr(self, name) for name in OPTIONS_BY_NAME})

    @property
    def distributed(self) -> bool:
        """Whether the games run on a Dask cluster (`--cluster` or `--workers`)."""
        return self.cluster is not None or self.workers is not None

    def check_cluster(self) -> None:
        """Raise ConfigError for cluster settings that cannot be used: both --cluster and
        --workers, an address of another kind, tls:// without its files, tcp:// beyond loopback
        without --insecure, bots that cannot be shipped (external ones), --listen."""
        if not self.distributed:
            return
        if self.cluster is not None and self.workers is not None:
            raise ConfigError("give --cluster (a running cluster) or --workers N, not both")
        external = [bot.name for bot in self.bots if bot.argv is None]
        if external:
            raise ConfigError(
                f"bot {external[0]!r} is external (started by hand): a cluster's workers launch "
                "their own bots; play it without --cluster or --workers"
            )
        if self.listen is not None:
            raise ConfigError("--listen is for external bots, which a cluster cannot seat")
        if self.cluster is None:
            return
        scheme, sep, rest = self.cluster.partition("://")
        if not sep:
            scheme, rest = "tcp", self.cluster
        files = {
            "--cluster-ca": self.cluster_ca,
            "--cluster-cert": self.cluster_cert,
            "--cluster-key": self.cluster_key,
        }
        if scheme == "tls":
            missing = [option for option, path in files.items() if path is None]
            if missing:
                needed = ", ".join(missing)
                raise ConfigError(f"a tls:// cluster needs the organizer's certificates: {needed}")
            for option, path in files.items():
                if path is not None and not path.is_file():
                    raise ConfigError(f"{option}: no such file {str(path)!r}")
            assert self.cluster_ca and self.cluster_cert and self.cluster_key
            try:
                check_certificate(self.cluster_ca, "--cluster-ca")
                check_key_pair(
                    self.cluster_cert, self.cluster_key, "--cluster-cert", "--cluster-key"
                )
            except ListenError as error:
                raise ConfigError(str(error)) from None
        elif not self.insecure and not is_loopback(rest):
            raise ConfigError(
                f"--cluster {self.cluster} reaches beyond this machine in the clear: use tls:// "
                "with --cluster-ca, --cluster-cert and --cluster-key, or give --insecure to send "
                "the bots and games unencrypted"
            )

    def check_settings(self) -> None:
        """The part of `check` that needs no bots: every value by its declaration, the cluster's
        settings, settings this run would ignore, and where external bots connect (the port
        free, the certificate one). `arena run` calls it before it builds any submission or
        reaches any cluster: a setting that cannot be used costs nothing."""
        for declared in SETTINGS:
            declared.check(getattr(self, declared.name))
        self.check_cluster()
        self.check_unused()
        public = self.public()
        if public is not None:
            try:
                public.check_free()
            except ListenError as error:
                raise ConfigError(str(error)) from None

    def check_unused(self) -> None:
        """Raise ConfigError for a setting given that this run would ignore: TLS files without
        --listen, --insecure with nothing that reaches beyond this machine, --bots-dir without a
        cluster, a cluster's certificates without a tls:// one. An option that does nothing is
        most often a mistake (the --listen forgotten), and says so rather than going unseen."""
        for option, path in (("--tls-cert", self.tls_cert), ("--tls-key", self.tls_key)):
            if path is not None and self.listen is None:
                raise ConfigError(
                    f"{option} is the TLS of --listen, which is not given: add --listen "
                    f"HOST:PORT for external bots, or leave {option} out"
                )
        if self.insecure and self.listen is None and self.cluster is None:
            raise ConfigError(
                "--insecure is for --listen or --cluster beyond this machine, and neither is "
                "given: leave --insecure out"
            )
        if self.bots_dir is not None and not self.distributed:
            raise ConfigError(
                "--bots-dir is for the workers of --cluster or --workers, and neither is given: "
                "leave --bots-dir out"
            )
        tls = self.cluster is not None and self.cluster.startswith("tls://")
        files = {
            "--cluster-ca": self.cluster_ca,
            "--cluster-cert": self.cluster_cert,
            "--cluster-key": self.cluster_key,
        }
        for option, path in files.items():
            if path is not None and not tls:
                raise ConfigError(
                    f"{option} is for a tls:// --cluster, and none is given: give --cluster "
                    f"tls://HOST:PORT, or leave {option} out"
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

    def rules(self) -> dict[str, Any]:
        """What must never change in a tournament that grows: the game settings (in their own
        dict form, `Settings.to_dict`), the seed, the sample, the deadlines (and the time bank,
        when there is one) and the fault limit. Deals, bots and the gauntlet may change from run
        to run (see `arena.tournament.store`)."""
        return {
            **self.settings().to_dict(),
            "seed": self.seed,
            "sample": self.sample,
            **self.bot_options().rules(),
        }

    def check(self) -> None:
        """Raise ConfigError (OptionError for a value a setting cannot take, as its declaration
        says) naming the first problem, so bad input fails before anything runs."""
        self.check_settings()
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
                f"of each deal), not {self.games!r}: "
                f"try --games {seats * max(1, round((self.games or 0) / seats))}"
            )
        if self.variant is Variant.PROFESSIONAL_DRAFT and self.deals > 1:
            raise ConfigError(
                f"--games {self.games}: the professional-draft variant deals nothing at random, "
                f"so every deal of a table is the same game; a table plays one set of {seats} "
                f"games (one per seat rotation): use --games {seats} or leave --games out"
            )
        for option, named in (("--gauntlet", self.gauntlet), ("--replace", self.replace)):
            if named is not None and named not in names:
                raise ConfigError(
                    f"{option} {named!r} is not an entered bot (entered: {', '.join(names)})"
                )
        if self.sample is not None:
            check_sample(len(names), seats, self.sample)
            sampled = sample_size(len(names), seats, self.sample, self.deals)
            if sampled.games > MAX_PLANNED_GAMES:
                raise ConfigError(
                    f"--games {self.games} at each of --sample {self.sample} tables is "
                    f"{sampled.games} games: more than a tournament plans "
                    f"({MAX_PLANNED_GAMES}); give fewer --games or a smaller --sample"
                )
        size = round_robin_size(len(names), seats, self.deals)
        if self.sample is None and size.games > MAX_ROUND_ROBIN_GAMES:
            suggestion = _suggest(len(names), seats)
            raise ConfigError(
                f"the full round-robin is {size.seatings} tables, {size.games} games: too many; "
                f"play a balanced sample with --sample TABLES (e.g. --sample {suggestion})"
            )


@dataclass(frozen=True)
class Setting(Declared):
    """One tournament setting, as TournamentConfig declares it; its name is its key in
    `[tournament]`, `option` its `arena run` option."""

    folder: bool = False
    """For a path: whether it names a folder rather than a file."""
    in_file: bool = True
    """Whether a tournament file may hold it (else it is an option of `arena run` only)."""

    @property
    def option(self) -> str:
        """Its `arena run` option: `--end-score` for `end_score`."""
        return "--" + self.name.replace("_", "-")

    def accepted(self) -> str:
        """What a value of it is: a path names a folder or a file."""
        if self.kind is Path:
            return "the path of a folder" if self.folder else "the path of a file"
        return super().accepted()


def _declared() -> tuple[Setting, ...]:
    """The settings, read from TournamentConfig's fields in their order."""
    hints = get_type_hints(TournamentConfig)
    return tuple(
        Setting(
            **declared_values(each, hints[each.name]),
            folder=each.metadata["folder"],
            in_file=each.metadata["in_file"],
        )
        for each in fields(TournamentConfig)
        if "help" in each.metadata
    )


SETTINGS: tuple[Setting, ...] = _declared()
"""Every setting of a tournament, in the order TournamentConfig declares them."""
SETTINGS_BY_NAME = {declared.name: declared for declared in SETTINGS}
"""Each setting under its name (its key in `[tournament]`)."""


def _suggest(bots: int, players: int) -> int:
    """A sample size that seats every bot equally often: about 100 tables per bot, rounded."""
    step = bots // gcd(bots, players)  # tables must make tables*players a multiple of bots
    return max(step, (bots * 25 // players) // step * step)
