"""`arena` options built from declarations: one `arena run` (and `arena compare`) option per
tournament setting, as `TournamentConfig` declares it; and the bot options of `arena check-bot`
and `arena play`, as `BotOptions` declares them (`arena.server.options`, which loads no gRPC).

A tournament's settings for bots are declared by `BotOptions` too (`config.bot_setting`), so
every command's deadline, time bank and limits have one help text, one default and one bound."""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from arena.server.options import OPTIONS_BY_NAME, show_default

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


class ShownOption(click.Option):
    """An option whose help shows its default as its declaration says (`1`, not `1.0`; `the
    machine's cores`, not a number)."""

    def __init__(self, *args: Any, shown: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown = shown

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = self.shown
        return extra


class SettingOption(ShownOption):
    """A tournament setting's option: None unless given, so that it overrides a tournament file
    only then, with the setting's own default shown in its help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, default=None, **kwargs)


def setting_option(setting: Setting) -> click.Option:
    """The option of one setting, named, typed and explained by its declaration."""
    common: dict[str, Any] = {"help": setting.help, "shown": setting.shown}
    if setting.kind is bool:  # a setting that is on by default is turned off with --no-NAME
        flag = setting.option
        declared = f"{flag}/--no-{flag[2:]}" if setting.default else flag
        return SettingOption([declared], is_flag=True, **common)
    kind: click.ParamType[Any, Any] = click.STRING
    metavar = None
    if setting.choices:  # checked by the config, which names the choices when it refuses one
        metavar = "[" + "|".join(setting.choices) + "]"
    elif setting.kind is Path:
        kind = AbsolutePath(file_okay=not setting.folder, dir_okay=setting.folder, path_type=Path)
    elif setting.kind is int:
        kind = click.INT
    elif setting.kind is float:
        kind = click.FLOAT
    return SettingOption([setting.option], type=kind, metavar=metavar, **common)


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
    common: dict[str, Any] = {
        "help": declared.help,
        "cls": ShownOption,
        "shown": show_default(default),
    }
    if declared.kind is bool:
        return click.option(f"{flag}/--no-{flag[2:]}", default=default, **common)
    kind: click.ParamType[Any, Any]
    if issubclass(declared.kind, Enum):
        kind = click.Choice([str(member.value) for member in declared.kind])
        common["callback"] = lambda ctx, param, value: declared.kind(value)
        default = str(default.value)
    else:
        bound = declared.at_least if declared.above is None else declared.above
        opened = declared.above is not None
        if declared.kind is float:
            kind = click.FloatRange(min=bound, min_open=opened)
        else:
            kind = click.IntRange(min=None if bound is None else int(bound), min_open=opened)
    return click.option(flag, type=kind, default=default, **common)
