"""The spectators' commands, which only read a tournament's results (also while it runs):
`arena replay`, `arena logs` and `arena report`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli.exits import one_line
from arena.cli.group import main
from arena.cli.options import AbsolutePath
from arena.spectate import (
    DEFAULT_MAX_GAMES,
    GameSource,
    SpectateError,
    game_list,
    open_games,
    show_game,
    step_through,
    terminal_paint,
    write_report,
)
from arena.spectate.botlogs import BotLines, listing
from arena.tournament import GameOutcome

_RESULTS = AbsolutePath(exists=True, path_type=Path)
"""An output folder of `arena run`, or its results.sqlite or replays.jsonl."""


@main.command()
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option(
    "--game", metavar="ID|NUMBER", help="The game to show, by id or listing number (from 1)."
)
@click.option(
    "--turn",
    metavar="R[.T]",
    help="Show only round R, or only its turn T (e.g. 2.7); both count from 1, as shown.",
)
@click.option("--step", is_flag=True, help="Step through the turns with the keys (a terminal).")
@click.option("--bot", metavar="NAME", help="Show what this bot wrote (its log) under each turn.")
@click.option("--color/--no-color", default=None, help="Colour the cards (default: on a terminal).")
def replay(
    results: Path,
    game: str | None,
    turn: str | None,
    step: bool,
    bot: str | None,
    color: bool | None,
) -> None:
    """Show a game of a tournament turn by turn; without --game, list the games.

    Works while the tournament still runs: the results are read, never written. Rounds, turns,
    rows and games count from 1 here, as everywhere the arena shows a game to people; the
    protocol and replays.jsonl count from 0.
    """
    given = {"--turn": turn is not None, "--step": step, "--bot": bot is not None}
    alone = next((option for option, on in given.items() if on), None)
    if game is None and alone is not None:
        raise click.UsageError(f"{alone} is for one game: give --game NUMBER (or ID) too")
    if step and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("--step needs a terminal: without it the game prints whole")
    with one_line("the results are only read: check the folder"):
        with open_games(results) as games:
            if game is None:
                click.echo(game_list(games.entries()))
                click.echo(f"\nShow one: arena replay {results} --game NUMBER (or ID)")
                return
            outcome = games.outcome(game)
            log = _bot_lines(games, outcome, bot) if bot is not None else None
            out_in = {
                name: entry.disqualified.game_id
                for name, entry in games.bots().items()
                if entry.disqualified is not None
            }
        if step:

            def screen(text: str) -> None:
                click.clear()
                click.echo(text, color=color)

            step_through(outcome, click.getchar, screen, turn, terminal_paint, out_in, log)
            return
        text = show_game(outcome, turn, terminal_paint, out_in, log)
    click.echo(text, color=color)


def _bot_lines(games: GameSource, outcome: GameOutcome, bot: str) -> BotLines:
    """What `bot` wrote in a game, for `arena replay --bot`; SpectateError if it did not play."""
    _check_played(outcome, bot, "--bot ")
    return BotLines(bot, tuple(games.bot_lines(bot, [outcome.game_id])))


def _check_played(outcome: GameOutcome, bot: str, option: str = "") -> None:
    """SpectateError unless `bot` (given as `option`) played the game `outcome`."""
    if bot not in outcome.spec.seats:
        raise SpectateError(
            f"{option}{bot!r} did not play game {outcome.game_id}: its seats are "
            f"{', '.join(outcome.spec.seats)}"
        )


@main.command()
@click.argument("name")
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option(
    "--game", metavar="ID|NUMBER", help="Only this game's lines, by id or listing number (from 1)."
)
def logs(name: str, results: Path, game: str | None) -> None:
    """Print what bot NAME wrote, line by line, each with its game and ROUND.TURN (from 1).

    The arena's own lines about the bot (started, connected, faults, exits) are marked [arena];
    lines written between games have no game. Works while the tournament still runs.
    """
    with one_line("the results are only read: check the folder"), open_games(results) as games:
        known = sorted(games.bots()) or sorted({s for e in games.entries() for s in e.seats})
        if name not in known:
            bots = f"its bots are {', '.join(known)}" if known else "it holds no games yet"
            raise SpectateError(f"no bot {name!r} in {results}: {bots}")
        ids = None
        if game is not None:
            outcome = games.outcome(game)
            _check_played(outcome, name)
            ids = [outcome.game_id]
        text = listing(games.bot_lines(name, ids))
    click.echo(text or f"no lines of {name!r} in {results}" + (f" for game {game}" if game else ""))


@main.command()
@click.argument("results", metavar="OUTPUT_FOLDER", type=_RESULTS)
@click.option(
    "-o",
    "--output",
    type=AbsolutePath(dir_okay=False, path_type=Path),
    help="The page to write (default: report.html in OUTPUT_FOLDER).",
)
@click.option(
    "--max-games",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_GAMES,
    show_default=True,
    help="Replays embedded at most (all when the tournament has fewer).",
)
@click.option("--include", multiple=True, metavar="ID", help="Embed this game too (repeatable).")
def report(results: Path, output: Path | None, max_games: int, include: tuple[str, ...]) -> None:
    """Write a tournament's standings, charts and replays as one self-contained HTML page."""
    with one_line("write the page elsewhere with -o FILE"):
        summary = write_report(results, output, max_games, include)
    click.echo(summary.describe())
