"""How the arena treats bots, declared once: `BotOptions`.

Every option an organizer may set is a field of `BotOptions` made with `option(...)`: its type is
the field's annotation, its default the field's, and the declaration holds its help text, its
name in a sentence, the bound a value must keep to and whether it is one of a tournament's
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
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import Enum
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

from arena.errors import ArenaError
from arena.server.isolation.fairness import CpuMode
from arena.server.isolation.sandbox import SandboxMode

if TYPE_CHECKING:  # the process module loads gRPC (the protocol's names): `limits` imports it
    from arena.server.isolation.process import Limits

PIDS = 256
"""Processes and threads a bot process may run at once, its own included (the cgroup's
`pids.max`): a fork bomb stops there."""


class OptionError(ArenaError, ValueError):
    """A value an option cannot take (a deadline of 0, a negative time bank), naming the option,
    its bound and the value (a ValueError too, as bad values are)."""


def option(
    default: Any,
    help: str,
    *,
    what: str,
    unit: str = "",
    above: float | None = None,
    at_least: float | None = None,
    rule: bool = False,
) -> Any:
    """A field of BotOptions that is an option an organizer sets, with its `default`.

    `help` says what it does; `what` names it in a sentence ("the deadline") and `unit` follows
    a number of it (" s"); a value must be `above` a bound or `at_least` one (None, when the
    option may be None, is always allowed); `rule`: it is one of a tournament's rules, which a
    tournament that grows must keep (`BotOptions.rules`).
    """
    meta = {"help": help, "what": what, "unit": unit, "above": above, "at_least": at_least}
    return field(default=default, metadata={**meta, "rule": rule})


@dataclass(frozen=True, slots=True)
class BotOptions:
    """How the arena treats bots; the same for all of a session's bots."""

    deadline: float = option(
        1.0,
        "Seconds a bot has for each decision.",
        what="the deadline",
        unit=" s",
        above=0,
        rule=True,
    )
    first_deadline: float = option(
        5.0,
        "Seconds for a bot's first decision of each game, while it may still be warming up "
        "(never less than the deadline).",
        what="the first deadline",
        unit=" s",
        above=0,
        rule=True,
    )
    startup_timeout: float = option(
        10.0,
        "Seconds a bot has to connect after it is started.",
        what="the start-up timeout",
        unit=" s",
        above=0,
    )
    max_faults: int = option(
        20,
        "Faults after which a bot is disqualified; 0 for never.",
        what="max faults",
        at_least=0,
        rule=True,
    )
    restart: bool = option(True, "Start a crashed bot again for its next game.", what="restart")
    log_cap: int = 1 << 20
    """Bytes of a bot's output kept in its log (not an organizer's option)."""
    memory_mb: int | None = option(
        2048,
        "Memory limit per bot process in MiB (RLIMIT_DATA).",
        what="a bot's memory",
        unit=" MiB",
        at_least=16,
    )
    pids: int | None = option(
        PIDS,
        "Processes and threads per bot process at once, its children included (its cgroup).",
        what="a bot's processes and threads",
        at_least=8,
    )
    cpu_seconds: int | None = option(
        None,
        "CPU-time limit per bot process over its whole life, in seconds (RLIMIT_CPU).",
        what="a bot's CPU time",
        unit=" s",
        at_least=1,
    )
    sandbox: SandboxMode = option(
        SandboxMode.AUTO,
        "Seal every bot process and build step (bubblewrap): on, off, or auto (where the "
        "machine can; otherwise say so).",
        what="the sandbox",
    )
    reuse_processes: bool = option(
        False,
        "Let one bot process play every seat rotation of a deal (faster, for trusted bots: "
        "it may remember the hands of one rotation in the next).",
        what="reuse processes",
    )
    time_bank: float = option(
        0.0,
        "Seconds each bot has per game beyond its deadlines: a decision that runs past its "
        "deadline draws the excess from it (Kaggle's overage time); 0 for none.",
        what="the time bank",
        unit=" s",
        at_least=0,
        rule=True,
    )
    cpu: CpuMode = option(
        CpuMode.AUTO,
        "How bots share the CPU: fair (a core per game, its bots frozen but for their own "
        "decisions, asked one at a time; at most one game per core at once), shared (every "
        "seat asked at once, on every core), or auto (fair where the machine can; otherwise "
        "shared, and say so).",
        what="the CPU mode",
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
        """Raise OptionError for the first value out of its option's bound."""
        for declared in OPTIONS:
            declared.check(getattr(self, declared.name))

    @property
    def limits(self) -> Limits:
        """The resource limits of each bot process, as the process module applies them."""
        from arena.server.isolation.process import Limits

        memory = None if self.memory_mb is None else self.memory_mb << 20
        return Limits(memory_bytes=memory, cpu_seconds=self.cpu_seconds, pids=self.pids)


@dataclass(frozen=True)
class Declared:
    """What a declared field says of itself: a bot option here, a tournament setting in
    `arena.tournament.config`, each read from its dataclass's fields (`declared_values`)."""

    name: str
    """The field's name: `--end-score` on the command line for `end_score`, the same in a file."""
    kind: type
    """What a value is: int, float, str, bool, Path, or an enum (given by a member's value)."""
    optional: bool
    """Whether None is one of its values (no cap, no limit, not given)."""
    default: object
    """Its default (for a default made per instance, as made for the first)."""
    help: str
    """What it does, for --help."""
    shown: str
    """Its default as --help shows it."""


@dataclass(frozen=True)
class Option(Declared):
    """One option of BotOptions, as its field declares it (see `option`)."""

    what: str
    """Its name in a sentence."""
    unit: str
    above: float | None
    at_least: float | None
    rule: bool
    """Whether it is one of a tournament's rules."""

    def check(self, value: Any) -> None:
        """Raise OptionError if `value` is out of this option's bound."""
        if value is None or isinstance(value, bool | Enum):
            return
        if self.above is not None and not value > self.above:
            bound = f"more than {self.above:g}{self.unit}"
        elif self.at_least is not None and not value >= self.at_least:
            bound = f"at least {self.at_least:g}{self.unit}"
        else:
            return
        raise OptionError(f"{self.what} must be {bound}, not {value!r}")


def show_default(default: object) -> str:
    """A default as --help shows it."""
    if default is None:
        return "none"
    if isinstance(default, bool):
        return "on" if default else "off"
    if isinstance(default, Enum):
        return str(default.value)
    if isinstance(default, float):
        return f"{default:g}"
    return str(default)


def declared_values(declaration: Field[Any], hint: Any) -> dict[str, Any]:
    """What every declared field says of itself (`Declared`'s values), from the field and its
    type hint: one type, with None or without; its default; its metadata's help and `shown`."""
    optional = False
    if get_origin(hint) in (Union, UnionType):
        kinds = [arg for arg in get_args(hint) if arg is not NoneType]
        optional = len(kinds) < len(get_args(hint))
        (hint,) = kinds  # a declared field has one type, with None or without
    assert isinstance(hint, type), f"{declaration.name!r} is not of one type: {hint!r}"
    factory = declaration.default_factory
    default = declaration.default if factory is MISSING else factory()
    shown = declaration.metadata.get("shown")
    return {
        "name": declaration.name,
        "kind": hint,
        "optional": optional,
        "default": default,
        "help": declaration.metadata["help"],
        "shown": show_default(default) if shown is None else shown,
    }


def _declared() -> tuple[Option, ...]:
    """The options, read from BotOptions' fields in their order."""
    hints = get_type_hints(BotOptions)
    return tuple(
        Option(
            **declared_values(each, hints[each.name]),
            **{key: each.metadata[key] for key in ("what", "unit", "above", "at_least", "rule")},
        )
        for each in fields(BotOptions)
        if "help" in each.metadata
    )


OPTIONS: tuple[Option, ...] = _declared()
"""Every option an organizer sets for the bots, in the order BotOptions declares them."""
OPTIONS_BY_NAME: dict[str, Option] = {declared.name: declared for declared in OPTIONS}
RULES: tuple[str, ...] = tuple(declared.name for declared in OPTIONS if declared.rule)
"""The options that are a tournament's rules, in their stored order."""
