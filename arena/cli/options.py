"""`arena` options built from declarations: one `arena run` (and `arena compare`) option per
tournament setting, as `TournamentConfig` declares it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.tournament.config import Setting


def setting_options() -> list[click.Parameter]:
    """One `arena run` option per tournament setting, as `TournamentConfig` declares it."""
    from arena.tournament.config import SETTINGS

    return [setting_option(setting) for setting in SETTINGS]


class SettingOption(click.Option):
    """A tournament setting's option: None unless given, so that it overrides a tournament file
    only then, with the setting's own default shown in its help."""

    def __init__(self, *args: Any, shown: str, **kwargs: Any) -> None:
        super().__init__(*args, default=None, **kwargs)
        self.shown = shown

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = self.shown
        return extra


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
        kind = click.Path(file_okay=not setting.folder, dir_okay=setting.folder, path_type=Path)
    elif setting.kind is int:
        kind = click.INT
    elif setting.kind is float:
        kind = click.FLOAT
    return SettingOption([setting.option], type=kind, metavar=metavar, **common)
