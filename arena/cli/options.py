"""`arena` options built from declarations: one `arena run` (and `arena compare`) option per
tournament setting, as `TournamentConfig` declares it; and the bot options of `arena check-bot`
and `arena play`, as `BotOptions` declares them (`arena.server.options`, which loads no gRPC).

A tournament's settings for bots are declared by `BotOptions` too (`config.bot_setting`), so
every command's deadline, time bank and limits have one help text, one default and one bound.
Each value is checked as the option is parsed, by its declaration (`DeclaredType`): a value it
cannot take (nan, inf, 1e308, 10**30, a negative time) is one line naming the flag, the value
and what it would take, before anything runs or is written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from arena.server.declared import Declared, OptionError, Range, show_default
from arena.server.options import OPTIONS_BY_NAME

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.tournament.config import Setting


class AbsolutePath(click.Path):
    """A path option or argument, made absolute as it is read: every path a command is given
    is absolute from then on (relative to the folder the command was run in), so that a build in
    a sandbox or a bot in a folder of its own finds what the organizer named. An empty one is
    refused: it would silently mean the current folder."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value:
            self.fail("an empty path names no file or folder: give one", param, ctx)
        return Path(os.path.abspath(os.fsdecode(super().convert(value, param, ctx))))


def setting_options() -> list[click.Parameter]:
    """One `arena run` option per tournament setting, as `TournamentConfig` declares it."""
    from arena.tournament.config import SETTINGS

    return [setting_option(setting) for setting in SETTINGS]


class DeclaredType(click.ParamType):  # type: ignore[type-arg]
    """A click type of a declared setting: the text given read as its type (a number, an enum by
    its value, a text of its form), then held to its declaration (`Declared.convert`: its range,
    finiteness); click names the flag of a refusal, with the text given and what it would take:
    `Invalid value for '--deadline': nan is not a number of seconds above 0 and at most ...`."""

    def __init__(self, declared: Declared) -> None:
        self.declared = declared
        self.name = declared.kind.__name__

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        if self.declared.choices:
            return "[" + "|".join(self.declared.choices) + "]"
        return {int: "INTEGER", float: "FLOAT"}.get(self.declared.kind, "TEXT")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        shown = repr(str(value))
        if isinstance(value, str) and self.declared.kind in (int, float):
            try:
                number = self.declared.kind(value)
            except ValueError:
                self.fail(f"{shown} is not {self.declared.accepted()}", param, ctx)
            shown, value = value, number  # a number as it was given: nan, 1e308, 10**30
        try:
            return self.declared.convert(value)
        except OptionError as error:
            self.fail(f"{shown} is not {error.accepted}", param, ctx)


class ShownOption(click.Option):
    """An option whose help shows its default as its declaration says (`1`, not `1.0`; `the
    machine's cores`, not a number), and the range of a number (`0<x<=4294967`)."""

    def __init__(self, *args: Any, shown: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown = shown

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = self.shown
        if isinstance(self.type, DeclaredType) and isinstance(self.type.declared.bound, Range):
            extra["range"] = self.type.declared.bound.shown
        return extra


class SettingOption(ShownOption):
    """A tournament setting's option: None unless given, so that it overrides a tournament file
    only then, with the setting's own default shown in its help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, default=None, **kwargs)


def setting_option(setting: Setting) -> click.Option:
    """The option of one setting, named, typed, bounded and explained by its declaration."""
    common: dict[str, Any] = {"help": setting.help, "shown": setting.shown}
    if setting.kind is bool:  # a setting that is on by default is turned off with --no-NAME
        flag = setting.option
        declared = f"{flag}/--no-{flag[2:]}" if setting.default else flag
        return SettingOption([declared], is_flag=True, **common)
    kind: click.ParamType[Any, Any] = DeclaredType(setting)
    if setting.kind is Path:
        kind = AbsolutePath(file_okay=not setting.folder, dir_okay=setting.folder, path_type=Path)
    return SettingOption([setting.option], type=kind, **common)


_Command = TypeVar("_Command", bound=Callable[..., Any])


def bot_options(*names: str, **defaults: Any) -> Callable[[_Command], _Command]:
    """The options of the bot options `names`, in that order, for a command that hands them to
    `BotOptions.of` by name: each named, typed, bounded and explained by its declaration, with
    the declared default unless `defaults` gives the command's own (which must say why)."""

    def decorate(command: _Command) -> _Command:
        for name in reversed(names):
            command = bot_option(name, defaults.get(name, OPTIONS_BY_NAME[name].default))(command)
        return command

    return decorate


def bot_option(name: str, default: Any) -> Callable[[_Command], _Command]:
    """The option of one bot option, with `default`."""
    declared = OPTIONS_BY_NAME[name]
    flag = "--" + name.replace("_", "-")
    return declared_option(declared, flag, default)


def declared_option(declared: Declared, flag: str, default: Any) -> Callable[[_Command], _Command]:
    """The option `flag` of a declared setting, with `default` (see `declared_parameter`)."""
    decls, attributes = _declared(declared, flag, default)
    return click.option(*decls, cls=ShownOption, **attributes)


def declared_parameter(declared: Declared, default: Any) -> click.Option:
    """The option of a declared setting, `--NAME` with `default`, for a command that builds its
    options when it first parses (`arena.cli.group.LazyOptions`)."""
    decls, attributes = _declared(declared, "--" + declared.name.replace("_", "-"), default)
    return ShownOption(decls, **attributes)


def _declared(declared: Declared, flag: str, default: Any) -> tuple[list[str], dict[str, Any]]:
    """An option's declarations and attributes: a flag for a bool (and --no-FLAG), else of the
    setting's `DeclaredType`."""
    shown = declared.shown if default == declared.default else show_default(default)
    attributes: dict[str, Any] = {"help": declared.help, "shown": shown, "default": default}
    if declared.kind is bool:
        return [f"{flag}/--no-{flag[2:]}"], attributes
    return [flag], {**attributes, "type": DeclaredType(declared)}
