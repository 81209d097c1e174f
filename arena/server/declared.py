"""A declared setting: what its values are, the bound they keep to, and how a refusal reads.

`BotOptions` (`arena.server.options`), `TournamentConfig` (`arena.tournament.config`) and
`arena compare`'s own settings (`arena.tournament.compare`) declare their settings as dataclass
fields; `declared_values` reads what a field says of itself, and `Declared` holds it: its type,
its default, its help and its bound (a `Range` of finite numbers, or the `Form` of a text). The
value check is `Declared.refusal` (or `convert`, for a value as TOML or a flag gives it), and
each edge names a refused value in its own terms: the command line by its flag (`arena.cli.options`
builds a click type of each declaration), a tournament file by its key (`arena.tournament.config.
load`), and so will the ladder's settings file. `--deadline nan`, `deadline = nan` in a file and
`TournamentConfig(deadline=nan).check()` are refused by one rule, each naming where it came from.
A file of settings is read by `read_toml`, one rule for a tournament file and a ladder's settings.

Imports nothing that loads gRPC, so the command line builds its options from it freely.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, fields
from enum import Enum
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from arena.errors import ArenaError
from arena.rules import MAX_PLAYERS, MIN_PLAYERS

MAX_SECONDS = 4_294_967
"""The longest time a setting takes, in seconds (about 49 days): the protocol sends a deadline
and a time bank as whole milliseconds in 32 bits (`Request.deadline_ms`, `bank_ms`)."""
MAX_WHOLE = 2**31 - 1
"""The largest count a setting takes (games, rounds, an end score, MiB): the protocol's and the
results' signed 32-bit numbers (a game's `totals`, a `round`) hold every such count."""
MAX_SEED = 2**63 - 1
"""The largest seed: a drawn one is below 2**63 (`arena.tournament.seed`), as SQLite's integers
are."""


class OptionError(ArenaError, ValueError):
    """A value a declared setting cannot take (a deadline of 0 or nan, a negative time bank),
    with the setting's name, the value and what it would take; each edge names the setting its
    own way (a flag, a key). A ValueError too, as bad values are."""

    def __init__(self, name: str, value: object, accepted: str) -> None:
        super().__init__(f"{name} is {shown_value(value)}, not {accepted}")
        self.name = name
        self.value = value
        self.accepted = accepted


def shown_value(value: object) -> str:
    """A value as a refusal shows it: as TOML writes it (`true`, `'text'`, `1e+308`, `nan`), and
    a table or an array by its kind, never as a Python dict or list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return repr(str(value.value))
    if isinstance(value, str | Path):
        return repr(str(value))
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "an array"
    return str(value)


def number(value: float) -> str:
    """A bound as a sentence shows it: 4294967, not 4.29497e+06; 0.5 as 0.5."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True, slots=True)
class Range:
    """The numbers a numeric setting takes: finite, from `low` (or `above` it) up to `high` (or
    `below` it). Every numeric setting has one, so no nan, inf or number past what the protocol,
    the results and the operating system can hold ever gets in."""

    low: float
    high: float
    above: bool = False
    """Whether `low` itself is refused."""
    below: bool = False
    """Whether `high` itself is refused."""
    unit: str = ""
    """What a number of it counts, for the sentence ("seconds", "MiB"); empty for none."""

    def holds(self, value: Any) -> bool:
        """Whether `value` (a number) lies in this range."""
        if isinstance(value, float) and not math.isfinite(value):
            return False  # a whole number of any size is finite, and compares exactly
        low = value > self.low if self.above else value >= self.low
        high = value < self.high if self.below else value <= self.high
        return bool(low and high)

    def describe(self, kind: type) -> str:
        """What the range takes, in a sentence: "a whole number from 2 to 10", "a number of
        seconds above 0 and at most 4294967"."""
        noun = "a whole number" if kind is int else "a number"
        if self.unit:
            noun += f" of {self.unit}"
        low, high = number(self.low), number(self.high)
        if not (self.above or self.below):
            return f"{noun} from {low} to {high}"
        lower = f"above {low}" if self.above else f"at least {low}"
        upper = f"below {high}" if self.below else f"at most {high}"
        return f"{noun} {lower} and {upper}"

    @property
    def shown(self) -> str:
        """The range as --help shows it: 0<x<=4294967."""
        low = "<" if self.above else "<="
        high = "<" if self.below else "<="
        return f"{number(self.low)}{low}x{high}{number(self.high)}"


def whole(low: int, high: int = MAX_WHOLE, unit: str = "") -> Range:
    """The range of a count: whole numbers from `low` to `high`."""
    return Range(low, high, unit=unit)


def seconds(low: float = 0, *, above: bool = True) -> Range:
    """The range of a time in seconds: above `low` (or from it), up to `MAX_SECONDS`."""
    return Range(low, MAX_SECONDS, above=above, unit="seconds")


PLAYERS = whole(MIN_PLAYERS, MAX_PLAYERS)
"""Seats at a table: what the rules can play."""
END_SCORE = whole(1, unit="bullheads")
ROUNDS = whole(1)
SEED = whole(0, MAX_SEED)


@dataclass(frozen=True, slots=True)
class Form:
    """The text a text setting takes beyond being text (an address, a bot's name): `holds`
    says whether a text is one, `described` says what one is, in a sentence."""

    described: str
    holds: Callable[[str], bool]

    def describe(self, kind: type) -> str:
        return self.described


Bound = Range | Form
"""What a declared value keeps to beyond its type."""


@dataclass(frozen=True)
class Declared:
    """What a declared field says of itself: a bot option (`arena.server.options`), a tournament
    setting (`arena.tournament.config`) or a setting of `arena compare`, each read from its
    dataclass's fields (`declared_values`)."""

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
    bound: Bound | None
    """What a value keeps to beyond its type: every number a `Range`; a text may have a `Form`."""

    @property
    def choices(self) -> tuple[str, ...]:
        """The values an enum setting takes; empty for the others."""
        if issubclass(self.kind, Enum):
            return tuple(str(member.value) for member in self.kind)
        return ()

    def accepted(self) -> str:
        """What a value of it is, in a sentence: "a whole number from 2 to 10", "one of auto,
        on, off"; what a refusal says would be accepted."""
        if self.bound is not None:
            return self.bound.describe(self.kind)
        if self.kind is bool:
            return "true or false"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is int:
            return "a whole number"
        if self.kind is float:
            return "a number"
        if self.kind is Path:
            return "a path"
        return "a string"

    def refusal(self, value: object) -> str | None:
        """What a value would have to be, if `value` (as the dataclass holds it) is not one of
        this setting's: of another type, out of its range, or not finite; None if it is one."""
        if value is None and self.optional:
            return None
        if not self._holds_kind(value):
            return self.accepted()
        if self.bound is not None and not self.bound.holds(value):  # type: ignore[arg-type]
            return self.accepted()
        return None

    def _holds_kind(self, value: object) -> bool:
        if self.kind is bool or isinstance(value, bool):
            return self.kind is bool and isinstance(value, bool)
        if self.kind is float:
            return isinstance(value, int | float)
        return isinstance(value, self.kind)

    def check(self, value: object) -> None:
        """Raise OptionError if `value` (as the dataclass holds it) is not one of this
        setting's."""
        accepted = self.refusal(value)
        if accepted is not None:
            raise OptionError(self.name, value, accepted)

    def accepts(self, value: object) -> bool:
        """Whether `value` is of this setting's type as TOML or the command line gives it (an
        enum by its value, a path as text)."""
        if self.kind is bool:
            return isinstance(value, bool)
        if isinstance(value, bool):
            return False
        if self.kind is int:
            return isinstance(value, int)
        if self.kind is float:
            return isinstance(value, int | float)
        if self.kind is Path:
            return isinstance(value, str | Path)
        return isinstance(value, str)  # a string, or an enum by a member's value

    def convert(self, value: object, base: Path | None = None) -> Any:
        """`value`, as TOML or the command line gives it, as the dataclass holds it (a float, an
        enum member, a path relative to `base` when given), checked: OptionError naming the
        setting, the value and what it would take if it is not one of its values."""
        if not self.accepts(value):
            raise OptionError(self.name, value, self.accepted())
        converted: Any = value
        if issubclass(self.kind, Enum):
            if value not in self.choices:
                raise OptionError(self.name, value, self.accepted())
            converted = self.kind(value)
        elif self.kind is float:
            assert isinstance(value, int | float)
            try:
                converted = float(value)
            except OverflowError:  # a whole number past any float
                raise OptionError(self.name, value, self.accepted()) from None
        elif self.kind is Path:
            assert isinstance(value, str | Path)
            if not str(value):
                empty = f"{self.accepted()}: an empty one would be the current folder"
                raise OptionError(self.name, value, empty)
            converted = absolute_path(value, base)
        accepted = self.refusal(converted)
        if accepted is not None:  # named as given: 0, not the 0.0 it became
            raise OptionError(self.name, value, accepted)
        return converted


def absolute_path(value: str | Path, base: Path | None = None) -> Path:
    """`value`, relative to `base` (else to the current folder), as the absolute path every path
    of a config is: made so once, where it comes in (a tournament file, an option), so that what
    later runs elsewhere (a build in a sandbox, a bot in its own folder, `arena play --game`
    from another folder) finds the same file. Normalized, but not resolved: a link named stays
    that link."""
    return Path(os.path.abspath(base / value if base is not None else value))


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
    type hint: one type, with None or without; its default; its metadata's help, `shown` and
    `bound` (every number has one: a declaration without it is a bug, caught at import)."""
    optional = False
    if get_origin(hint) in (Union, UnionType):
        kinds = [arg for arg in get_args(hint) if arg is not NoneType]
        optional = len(kinds) < len(get_args(hint))
        (hint,) = kinds  # a declared field has one type, with None or without
    assert isinstance(hint, type), f"{declaration.name!r} is not of one type: {hint!r}"
    bound = declaration.metadata.get("bound")
    assert hint not in (int, float) or isinstance(bound, Range), (
        f"{declaration.name!r} is a number without a Range"
    )
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
        "bound": bound,
    }


def declare(help: str, *, shown: str | None = None, bound: Bound | None = None) -> dict[str, Any]:
    """The metadata that makes a dataclass field a declared setting (read by `declarations`):
    `help` says what it does, `shown` how --help shows its default (else the default itself),
    `bound` the range a number keeps to (every number has one) or the form of a text."""
    return {"help": help, "shown": shown, "bound": bound}


def declarations(cls: type) -> tuple[Declared, ...]:
    """The declared settings of the dataclass `cls` (its fields made with `declare`), in its
    order."""
    hints = get_type_hints(cls)
    return tuple(
        Declared(**declared_values(each, hints[each.name]))
        for each in fields(cls)
        if "help" in each.metadata
    )


def read_toml(path: Path, what: str, error: Callable[[str], Exception]) -> dict[str, Any]:
    """The TOML of the file `path`, which is `what` ("a tournament file"); `error(message)` for
    one that cannot be read (missing, not a regular file: a FIFO would never end), is not UTF-8
    text, or not TOML, each one line naming the file."""
    shown = repr(str(path))
    try:
        if path.exists() and not path.is_file():
            raise error(f"{shown} is not a file: give {what} (TOML)")
        raw = path.read_bytes()
    except OSError as problem:
        raise error(f"cannot read {shown}: {problem.strerror or problem}") from None
    try:
        text = raw.decode()
    except UnicodeDecodeError as problem:
        raise error(
            f"{shown} is not UTF-8 text (byte {problem.start} is 0x{raw[problem.start]:02x}): "
            f"{what} is TOML, saved as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{shown} is not valid TOML: {problem}") from None
