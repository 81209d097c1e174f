"""The `arena` command group, and what its commands share: options built on first use (they
import what loads gRPC) and the callbacks that parse bot entries."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from arena.server.errors import BotError

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.server.lobby import BotSpec


def bot_specs(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[BotSpec]:
    if not values:
        return []
    from arena.server.specs import parse_bot

    try:
        return [parse_bot(value) for value in values]
    except BotError as error:
        raise click.BadParameter(str(error), ctx, param) from None


class LazyOptions(click.Command):
    """A command some of whose options are built when it first parses or shows its help, since
    building them imports modules that load gRPC; they go after the parameter named `after`."""

    def __init__(
        self, *args: Any, build: Callable[[], list[click.Parameter]], after: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._build: Callable[[], list[click.Parameter]] | None = build
        self._after = after

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if self._build is not None:
            built, self._build = self._build(), None
            names = [param.name for param in self.params]
            at = names.index(self._after) + 1
            self.params[at:at] = built
        return super().get_params(ctx)


@click.group()
@click.version_option(package_name="arena")
def main() -> None:
    """Run 6 nimmt! bot games and tournaments."""
