"""How the arena treats bots, declared once: `BotOptions`.

Every option an organizer may set is a field of `BotOptions` made with `option(...)`: its type is
the field's annotation, its default the field's, and the declaration holds its help text, the
range a number keeps to (`arena.server.declared`) and whether it is one of a tournament's
rules. `OPTIONS` reads them back, and the rest comes from it: a tournament's
settings for bots (`arena.tournament.config`, so `arena run`'s options and a tournament file's
keys), the options of `arena check-bot` and `arena play` (`arena.cli.options`), the check of a
value (`BotOptions.check`), and the options of a stored tournament rebuilt from its rules
(`BotOptions.from_rules`, for `arena play --game`).

Imports nothing that loads gRPC (only the isolation's modes, which load none), so the command
line builds its options from it without starting anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, get_type_hints

from arena.server.declared import Declared, Range, declared_values, seconds, whole
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.sandbox import SandboxMode

if TYPE_CHECKING:  # the process module loads gRPC (the protocol's names): `limits` imports it
    from arena.server.isolation.process import Limits

PIDS = 256
"""Processes and threads a bot process may run at once, its own included (the cgroup's
`pids.max`): a fork bomb stops there."""


MIN_MEMORY_MB = 128
"""The least memory a bot may be given, in MiB: below it no runtime the arena starts gets going
(measured with the sample bots: at 32 MiB a Python bot dies at start with SIGSEGV, at 16 with
SIGKILL, and Python, Node.js and the C bot behind the line-protocol bridge all play from 96)."""
MAX_PIDS = 4_194_304
"""The most processes a bot may run at once: Linux's own bound on process ids (PID_MAX_LIMIT)."""


def option(default: Any, help: str, *, bound: Range | None = None, rule: bool = False) -> Any:
    """A field of BotOptions that is an option an organizer sets, with its `default`.

    `help` says what it does; `bound` is the range a number keeps to (every number has one; None,
    when the option may be None, is always allowed); `rule`: it is one of a tournament's rules,
    which a tournament that grows must keep (`BotOptions.rules`).
    """
    return field(default=default, metadata={"help": help, "bound": bound, "rule": rule})


@dataclass(frozen=True, slots=True)
class BotOptions:
    """How the arena treats bots; the same for all of a session's bots."""

    deadline: float = option(
        1.0, "Seconds a bot has for each decision.", bound=seconds(), rule=True
    )
    first_deadline: float = option(
        5.0,
        "Seconds for a bot's first decision of each game, while it may still be warming up "
        "(never less than the deadline).",
        bound=seconds(),
        rule=True,
    )
    startup_timeout: float = option(
        10.0, "Seconds a bot has to connect after it is started.", bound=seconds()
    )
    max_faults: int = option(
        20,
        "Faults after which a bot is disqualified; 0 for never.",
        bound=whole(0, unit="faults"),
        rule=True,
    )
    restart: bool = option(True, "Start a crashed bot again for its next game.")
    log_cap: int = 1 << 20
    """Bytes of a bot's output kept in its log (not an organizer's option)."""
    memory_mb: int | None = option(
        2048,
        "Memory limit per bot process in MiB (RLIMIT_DATA).",
        bound=whole(MIN_MEMORY_MB, unit="MiB"),
    )
    pids: int | None = option(
        PIDS,
        "Processes and threads per bot process at once, its children included (its cgroup).",
        bound=whole(8, MAX_PIDS),
    )
    cpu_seconds: int | None = option(
        None,
        "CPU-time limit per bot process over its whole life, in seconds (RLIMIT_CPU).",
        bound=whole(1, unit="seconds"),
    )
    sandbox: SandboxMode = option(
        SandboxMode.AUTO,
        "Seal every bot process and build step (bubblewrap): on, off, or auto (where the "
        "machine can; otherwise say so).",
    )
    reuse_processes: bool = option(
        False,
        "Let one bot process play every seat rotation of a deal (faster, for trusted bots: "
        "it may remember the hands of one rotation in the next).",
    )
    time_bank: float = option(
        0.0,
        "Seconds each bot has per game beyond its deadlines: a decision that runs past its "
        "deadline draws the excess from it (Kaggle's overage time); 0 for none.",
        bound=seconds(0, above=False),
        rule=True,
    )
    cpu: CpuMode = option(
        CpuMode.AUTO,
        "How bots share the CPU: fair (a core per game, its bots frozen but for their own "
        "decisions, asked one at a time; at most one game per core at once), shared (every "
        "seat asked at once, on every core), or auto (fair where the machine can; otherwise "
        "shared, and say so).",
    )

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> BotOptions:
        """The options `values` gives (by option name; the rest keep their defaults), with the
        first deadline never less than the deadline: what every command hands the lobby."""
        options = cls(**values)
        if options.first_deadline >= options.deadline:
            return options
        return cls(**{**values, "first_deadline": options.deadline})

    @classmethod
    def from_rules(cls, rules: Mapping[str, Any]) -> BotOptions:
        """The options of a stored tournament, from its rules (`rules()`, as the results hold
        them): its deadlines, time bank and fault limit; the rest are the defaults."""
        return cls.of({name: rules[name] for name in RULES if name in rules})

    def rules(self) -> dict[str, Any]:
        """The options that are a tournament's rules, which a tournament that grows must keep:
        the deadlines, the fault limit, and the time bank when there is one (kept out when none,
        so that older tournaments, stored before there was a bank, still match)."""
        rules = {name: getattr(self, name) for name in RULES}
        if not self.time_bank:
            del rules["time_bank"]
        return rules

    def check(self) -> None:
        """Raise OptionError for the first value that is not one of its option's (of another
        type, out of its range, not finite)."""
        for declared in OPTIONS:
            declared.check(getattr(self, declared.name))

    @property
    def limits(self) -> Limits:
        """The resource limits of each bot process, as the process module applies them."""
        from arena.server.isolation.process import Limits

        memory = None if self.memory_mb is None else self.memory_mb << 20
        return Limits(memory_bytes=memory, cpu_seconds=self.cpu_seconds, pids=self.pids)


@dataclass(frozen=True)
class Option(Declared):
    """One option of BotOptions, as its field declares it (see `option`)."""

    rule: bool
    """Whether it is one of a tournament's rules."""


def _declared() -> tuple[Option, ...]:
    """The options, read from BotOptions' fields in their order."""
    hints = get_type_hints(BotOptions)
    return tuple(
        Option(
            **declared_values(each, hints[each.name]),
            rule=each.metadata["rule"],
        )
        for each in fields(BotOptions)
        if "help" in each.metadata
    )


OPTIONS: tuple[Option, ...] = _declared()
"""Every option an organizer sets for the bots, in the order BotOptions declares them."""
OPTIONS_BY_NAME: dict[str, Option] = {declared.name: declared for declared in OPTIONS}
RULES: tuple[str, ...] = tuple(declared.name for declared in OPTIONS if declared.rule)
"""The options that are a tournament's rules, in their stored order."""
