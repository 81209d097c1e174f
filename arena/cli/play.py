"""`arena play`: one seeded game, of built-in strategies or of bots; or a stored game played again
(`--game ID OUTPUT_FOLDER`), saying whether it came out the same."""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from arena.cli.exits import EXIT_DIFFERENT, EXIT_OK, one_line
from arena.cli.group import bot_specs, main
from arena.cli.options import AbsolutePath, bot_options, declared_option
from arena.players import BUILTIN, Fault, GameResult, LocalPlayer, play_game
from arena.rules import DEFAULT_END_SCORE, MAX_PLAYERS, MIN_PLAYERS, GameRecord, Settings, Variant
from arena.server.declared import END_SCORE, PLAYERS, ROUNDS, SEED, declarations, declare, whole
from arena.server.options import BotOptions
from arena.spectate import SpectateError, open_games
from arena.spectate.display import fault_line, render_game

if TYPE_CHECKING:  # these load gRPC: the commands that need them import them
    from arena.server.lobby import BotSpec


@dataclass(frozen=True)
class PlaySettings:
    """`arena play`'s settings of its game, declared as a tournament's are (`arena.server.declared`)
    and with the same ranges (a seed, an end score, a round cap as `arena run` takes them), so
    that each value is checked as its option is parsed, naming the flag."""

    players: int | None = field(
        default=None,
        metadata=declare("Seats at the table.", shown="one per --bot, else 4", bound=PLAYERS),
    )
    seed: int = field(default=0, metadata=declare("Seed of the deal.", bound=SEED))
    variant: Variant = field(
        default=Variant.STANDARD, metadata=declare("How each round's cards are set up.")
    )
    end_score: int = field(
        default=DEFAULT_END_SCORE,
        metadata=declare("Bullheads that end a game.", bound=END_SCORE),
    )
    max_rounds: int | None = field(default=None, metadata=declare("Cap on rounds.", bound=ROUNDS))
    rotation: int = field(
        default=0,
        metadata=declare(
            "Seat rotation of the deal, a shift: seat s holds the hand dealt to seat s + "
            "ROTATION (0: as dealt).",
            bound=whole(0, MAX_PLAYERS - 1),
        ),
    )


_Command = TypeVar("_Command", bound=Callable[..., Any])
_SETTINGS = {declared.name: declared for declared in declarations(PlaySettings)}


def _setting(name: str) -> Callable[[_Command], _Command]:
    """The option of one of play's settings, as `PlaySettings` declares it."""
    declared = _SETTINGS[name]
    return declared_option(declared, "--" + name.replace("_", "-"), declared.default)


@main.command()
@_setting("players")
@_setting("seed")
@_setting("variant")
@_setting("end_score")
@_setting("max_rounds")
@click.option(
    "--strategy",
    "strategies",
    type=click.Choice(sorted(BUILTIN)),
    multiple=True,
    help="Built-in strategy for the next seat (repeatable); default: random, lowest, highest.",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    callback=bot_specs,
    metavar="[NAME=]COMMAND",
    help="A bot for the next seat (repeatable): a gRPC program, NAME=stdio:COMMAND for a "
    "line-protocol one, or NAME=external for one you start yourself.",
)
@bot_options("deadline")
@click.option(
    "--logs",
    type=AbsolutePath(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the bots' logs (default: a temporary one).",
)
@_setting("rotation")
@click.option(
    "--game",
    metavar="ID|NUMBER",
    help="Play this game of OUTPUT_FOLDER's tournament again, with its bots, seed, seats and "
    "rotation, and say whether it came out the same (exit 0 if so, 4 if not).",
)
@click.argument(
    "results",
    required=False,
    metavar="[OUTPUT_FOLDER]",
    type=AbsolutePath(exists=True, file_okay=False, path_type=Path),
)
def play(
    players: int | None,
    seed: int,
    variant: Variant,
    end_score: int,
    max_rounds: int | None,
    strategies: tuple[str, ...],
    bots: list[BotSpec],
    deadline: float,
    logs: Path | None,
    rotation: int,
    game: str | None,
    results: Path | None,
) -> None:
    """Play one seeded game and print it turn by turn; or, with --game ID OUTPUT_FOLDER, play a
    game of a tournament again."""
    if (game is None) != (results is None):
        raise click.UsageError(
            "--game ID and an OUTPUT_FOLDER go together: arena play --game ID OUT"
        )
    given = _given(click.get_current_context())
    if game is not None and results is not None:
        if bots or strategies:
            seated = "--bot" if bots else "--strategy"
            raise click.UsageError(f"--game plays the tournament's own bots: leave {seated} out")
        ignored = sorted(given & set(_OF_THE_GAME))
        if ignored:
            raise click.UsageError(
                f"--game plays the stored game with its own {_OF_THE_GAME[ignored[0]]}: leave "
                f"{_flag(ignored[0])} out"
            )
        with one_line("give --logs a folder you can write to"):
            same = asyncio.run(_play_again(results, game, logs))
        sys.exit(EXIT_OK if same else EXIT_DIFFERENT)
    if bots and strategies:
        raise click.UsageError("use either --bot or --strategy, not both")
    for_bots = sorted(given & {"deadline", "logs"})
    if for_bots and not bots:
        raise click.UsageError(
            f"{_flag(for_bots[0])} is for bots (--bot): the built-in strategies have no "
            f"{'deadline' if for_bots[0] == 'deadline' else 'logs'}; leave {_flag(for_bots[0])} out"
        )
    seats = players or len(bots) or 4
    if bots and len(bots) != seats:
        raise click.UsageError(f"--players {seats} needs {seats} --bot options, not {len(bots)}")
    if seats < MIN_PLAYERS:
        raise click.UsageError(
            f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players: give another --bot (or "
            "--players and no --bot, for the built-in strategies)"
        )
    if rotation >= seats:
        raise click.UsageError(f"--rotation must be below the {seats} players, not {rotation}")
    settings = Settings(seats, variant, end_score, max_rounds)
    if bots:
        names = [bot.name for bot in bots]
        if len(set(names)) != len(names):
            raise click.UsageError("two bots have the same name: name them with NAME=COMMAND")
        with one_line("give --logs a folder you can write to"):
            from arena.tournament.schedule import bot_seed

            options = BotOptions.of({"deadline": deadline})
            # The seeds of the bots' random choices, as a tournament of this seed derives them.
            seeds = bot_seed(seed, seed, rotation)
            result = asyncio.run(_play_bots(settings, bots, seed, options, logs, rotation, seeds))
    else:
        cycle = strategies or ("random", "lowest", "highest")
        chosen = [cycle[seat % len(cycle)] for seat in range(seats)]
        names = [f"{seat + 1}:{name}" for seat, name in enumerate(chosen)]  # seats from 1, as shown
        local = [LocalPlayer(BUILTIN[name](f"{seed}:{seat}")) for seat, name in enumerate(chosen)]
        rng = random.Random(seed)
        result = asyncio.run(play_game(settings, local, rng, rotation, names=names))
    click.echo(f"seed {seed}, " + render_game(result.record, names))
    for fault in result.faults:
        click.echo(fault_line(fault, names))


_OF_THE_GAME = {
    "players": "seats",
    "seed": "seed",
    "variant": "variant",
    "end_score": "end score",
    "max_rounds": "round cap",
    "rotation": "seat rotation",
    "deadline": "deadlines (its tournament's)",
}
"""What `--game` takes from the stored game, by the option that would set it otherwise."""


def _given(ctx: click.Context) -> set[str]:
    """The options given on the command line (or by environment), not left at their defaults."""
    sources = (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
    return {
        param.name
        for param in ctx.command.params
        if param.name is not None and ctx.get_parameter_source(param.name) in sources
    }


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


async def _play_bots(
    settings: Settings,
    bots: list[BotSpec],
    seed: int,
    options: BotOptions,
    logs: Path | None,
    rotation: int,
    bot_seed: int | None,
    game_id: str = "",
) -> GameResult:
    """The game of `bots`, dealt from `seed`; the seeds of their own random choices from
    `bot_seed` (None: none, as an older arena played its games)."""
    from arena.server.session import open_session

    with tempfile.TemporaryDirectory(prefix="arena-") as scratch:
        folder = logs or Path(scratch)
        external = [bot.name for bot in bots if bot.argv is None]
        if external:  # a person starts these: give them time to
            options = replace(options, startup_timeout=EXTERNAL_WAIT)
        async with open_session(bots, folder, options) as session:
            for name in external:
                token = session.lobby.external_token(name)
                click.echo(
                    f"start bot {name!r} yourself within {EXTERNAL_WAIT:g} s, with "
                    f"ARENA_ADDRESS={session.address} ARENA_TOKEN={token}",
                    err=True,
                )
            seats = [b.name for b in bots]
            return await session.play(
                game_id or f"play-{seed}", settings, seats, seed, rotation, bot_seed
            )


async def _play_again(results: Path, key: str, logs: Path | None) -> bool:
    """Play a stored game again as `arena run` played it, print it, and say whether its record
    came out the same; True if it did."""
    from arena.server.lobby import BotSpec
    from arena.tournament.fingerprint import bot_fingerprint

    with open_games(results) as games:
        outcome = games.outcome(key)
        entries = games.bots()
        rules = games.settings() or {}
    spec = outcome.spec
    missing = [name for name in spec.seats if name not in entries]
    if missing:
        raise SpectateError(
            f"{results} does not say how bot {missing[0]!r} was started (made by an older "
            "arena?): play the game by hand with arena play --bot ... --seed "
            f"{spec.seed} --rotation {spec.rotation}"
        )
    bots = []
    for name in spec.seats:
        entry = entries[name]
        cwd = Path(entry.cwd) if entry.cwd is not None else None
        bot = BotSpec(name, entry.argv, cwd)
        if entry.argv is not None and cwd is None and bot_fingerprint(bot) != entry.fingerprint:
            click.echo(f"note: bot {name!r} has changed since it played this game", err=True)
        bots.append(bot)
    options = BotOptions.from_rules(rules)
    click.echo(
        f"playing {spec.game_id} of {results} again: {', '.join(spec.seats)}, seed {spec.seed}, "
        f"seat rotation {spec.rotation}",
        err=True,
    )
    result = await _play_bots(
        spec.settings, bots, spec.seed, options, logs, spec.rotation, spec.bot_seed, spec.game_id
    )
    names = list(spec.seats)
    click.echo(f"seed {spec.seed}, " + render_game(result.record, names))
    for fault in result.faults:
        click.echo(fault_line(fault, names))
    difference = first_difference(outcome.record, result.record) or fault_difference(
        outcome.faults, result.faults, names
    )
    if difference is None:
        click.echo(f"\nthe same game: {spec.game_id}'s record is identical to the stored one")
        return True
    click.echo(f"\nnot the same game: {spec.game_id} differs from the stored record {difference}")
    return False


def fault_difference(
    stored: Sequence[Fault], played: Sequence[Fault], names: Sequence[str]
) -> str | None:
    """How the faults of a game played again differ from the stored ones (where and what, not
    the messages, which may name times); None if they do not. The same cards with other faults
    is another game: the fallback may have played what the bot would have."""

    def where(faults: Sequence[Fault]) -> list[tuple[int, str, str, int, int]]:
        return [(f.seat, f.kind.value, f.decision.value, f.round, f.turn) for f in faults]

    if where(stored) == where(played):
        return None
    shown = [
        ", ".join(f"{names[f.seat]} {f.kind} in round {f.round + 1}, turn {f.turn + 1}" for f in x)
        or "none"
        for x in (stored, played)
    ]
    return f"in its faults ({shown[0]} then; {shown[1]} now)"


def first_difference(stored: GameRecord, played: GameRecord) -> str | None:
    """Where a game played again first differs from its stored record; None if it does not."""
    if stored == played:
        return None
    for index, (old, new) in enumerate(zip(stored.rounds, played.rounds, strict=False)):
        for number, (was, now) in enumerate(zip(old.turns, new.turns, strict=False), start=1):
            if was != now:
                cards = f"cards {was.cards} then, {now.cards} now"
                return f"from round {index + 1}, turn {number} ({cards})"
        if old != new:
            return f"in round {index + 1}"
    if len(stored.rounds) != len(played.rounds):
        return f"in its length ({len(stored.rounds)} rounds then, {len(played.rounds)} now)"
    return f"in its totals ({stored.totals} then, {played.totals} now)"


EXTERNAL_WAIT = 300.0
"""Seconds `arena play` waits for an external bot (one a person starts by hand) to connect."""
