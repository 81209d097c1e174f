"""`arena report`: a tournament on one self-contained HTML page, for people to look at.

The page needs no network and no other file: its styles, script and data are inline. The charts
(standings with intervals, distributions, the pairwise heat map) are SVG and HTML drawn here, so
they show even with scripts off; only the replay viewer runs in the browser, on compact game
records embedded as JSON.

It stays fast with thousands of games because it reads the games twice as a stream and embeds the
replays of at most `max_games` of them: one pass computes the standings (exactly as `arena run`
does) and keeps a few numbers per game; the games worth embedding are then chosen from those
numbers and read again by id. Above the cap the page says which games it holds and how to get any
other one.

Everything a bot controls (its name, its fault messages) is escaped: for HTML with
`html.escape`, inside the JSON with `<`, `>` and `&` written as Unicode escapes so that no string
can close the script element, and in the browser it only ever reaches `textContent`.
"""

from __future__ import annotations

import contextlib
import html
import re
import shlex
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from arena.players import FaultKind
from arena.rules import GameRecord
from arena.rules.errors import told
from arena.spectate import charts
from arena.spectate.source import GameSource, SpectateError, open_games
from arena.spectate.viewer import (
    MESSAGE_CHARS,
    add_logs,
    compact,
    script_json,
    viewer_data,
    viewer_markup,
)
from arena.tournament import GameOutcome, Standings, compute_standings
from arena.tournament.outcome import Disqualification
from arena.tournament.problems import LeftOut, find_problems
from arena.tournament.store import LEFT_OUT, LOGS, PLANNED
from arena.tournament.writer import log_tail

DEFAULT_MAX_GAMES = 500
"""Replays embedded by default: about 1 MB of page, parsed in a few milliseconds."""

REPORT_NAME = "report.html"
"""The page's default name, in the output folder."""

MAX_FAULTS_LISTED = 200
"""Fault messages listed one by one; the counts by bot and kind always cover all of them."""

_NOTABLE = 8
"""Biggest single takes listed as links into the viewer."""


@dataclass(frozen=True, slots=True)
class Take:
    """The biggest pile one seat took at once in a game: the moments spectators look for."""

    bullheads: int
    seat: int
    round: int
    """Counting from 0."""
    turn: int
    """Counting from 1."""


@dataclass(frozen=True, slots=True)
class GameNote:
    """What the first pass keeps of every game: enough to choose the replays to embed."""

    number: int
    game_id: str
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    take: Take | None


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """What `write_report` wrote, for the command to tell."""

    path: Path
    bytes: int
    games: int
    """Games in the tournament's store."""
    embedded: int
    """Games whose replays the page holds."""

    def describe(self) -> str:
        """One line for the person who asked for the page."""
        size = f"{self.bytes / 1e6:.1f} MB" if self.bytes >= 1e6 else f"{self.bytes // 1000} kB"
        return f"wrote {self.path} ({size}, replays of {self.embedded:,} of {self.games:,} games)"


@dataclass
class _Tally:
    """One pass's worth of what the page shows beyond the standings."""

    notes: list[GameNote] = field(default_factory=list)
    per_game: dict[str, Counter[int]] = field(default_factory=dict)
    """Each bot's games by bullheads: the distributions."""
    faults: list[tuple[str, str, str, int, int, str]] = field(default_factory=list)
    """The first faults: game id, bot, kind, round, turn, message."""
    fault_count: int = 0

    def see(self, outcome: GameOutcome) -> None:
        """Keep what the page needs of one game."""
        seats = outcome.spec.seats
        for bot, total in zip(seats, outcome.totals, strict=True):
            self.per_game.setdefault(bot, Counter())[total] += 1
        for fault in outcome.faults:
            self.fault_count += 1
            if len(self.faults) < MAX_FAULTS_LISTED:
                message = told(fault.message)[:MESSAGE_CHARS]
                bot = seats[fault.seat]
                self.faults.append(
                    (outcome.game_id, bot, fault.kind, fault.round, fault.turn, message)
                )
        number = len(self.notes) + 1
        self.notes.append(
            GameNote(number, outcome.game_id, seats, outcome.totals, biggest_take(outcome.record))
        )


def biggest_take(record: GameRecord) -> Take | None:
    """The biggest pile taken at once in the game (the first such on a tie); None if none."""
    best: Take | None = None
    for index, round_ in enumerate(record.rounds):
        for number, turn in enumerate(round_.turns, start=1):
            for p in turn.placements:
                if p.taken and (best is None or p.bullheads > best.bullheads):
                    best = Take(p.bullheads, p.seat, index, number)
    return best


def by_biggest_take(notes: Iterable[GameNote]) -> list[GameNote]:
    """The games with a take, biggest first (earliest first on a tie)."""
    return sorted(
        (note for note in notes if note.take),
        key=lambda note: (-note.take.bullheads if note.take else 0, note.number),
    )


def _tap(
    outcomes: Iterable[GameOutcome], see: Callable[[GameOutcome], None]
) -> Iterator[GameOutcome]:
    """The outcomes, unchanged, each shown to `see` on its way: one pass serves two readers."""
    for outcome in outcomes:
        see(outcome)
        yield outcome


def choose_games(
    notes: Sequence[GameNote], limit: int, include: Collection[str] = ()
) -> tuple[list[str], str]:
    """The ids of the games to embed, at most `limit` besides `include`, and how they were chosen.

    All of them when they fit. Otherwise, in this order: the games asked for, the biggest takes,
    each bot's best and worst game, then an even spread over the schedule, so that every part of
    the tournament is there and the games people talk about certainly are.
    """
    known = {note.game_id for note in notes}
    unknown = sorted(set(include) - known)
    if unknown:
        raise SpectateError(f"--include: there is no game {unknown[0]!r} in the results")
    if len(notes) <= limit:
        return [note.game_id for note in notes], f"all {len(notes):,} games"
    chosen: dict[str, None] = dict.fromkeys(include)
    budget = limit + len(chosen)

    def add(ids: Iterable[str], share: int) -> None:
        stop = min(budget, len(chosen) + share)
        for game_id in ids:
            if len(chosen) >= stop:
                return
            chosen.setdefault(game_id)

    add((note.game_id for note in by_biggest_take(notes)), limit // 4)
    best: dict[str, tuple[int, int, str]] = {}
    worst: dict[str, tuple[int, int, str]] = {}
    for note in notes:
        for bot, total in zip(note.seats, note.totals, strict=True):
            game = (total, note.number, note.game_id)
            best[bot] = min(best.get(bot, game), game)
            worst[bot] = max(worst.get(bot, game), game, key=lambda g: (g[0], -g[1]))
    add((game_id for bot in sorted(best) for _, _, game_id in (best[bot], worst[bot])), limit // 2)
    room = budget - len(chosen)
    if room > 0:
        step = len(notes) / room
        add((notes[int(i * step)].game_id for i in range(room)), room)
    add((note.game_id for note in notes), budget)  # room left by repeats: fill in schedule order
    how = (
        f"{len(chosen):,} of {len(notes):,} games: the biggest takes, each bot's best and worst "
        "game, and an even spread over the schedule"
    )
    if include:
        how += f", with the {len(include)} asked for"
    return list(chosen), how


def expected_games(settings: dict[str, Any] | None) -> int | None:
    """How many games the whole tournament has, as its latest run planned it; None if unknown."""
    planned = (settings or {}).get(PLANNED)
    return planned if isinstance(planned, int) else None


def _asset(name: str) -> str:
    return files("arena.spectate").joinpath("assets", name).read_text(encoding="utf-8")


_MARK = re.compile(r"\{\{(\w+)\}\}")


def _fill(template: str, parts: dict[str, str]) -> str:
    """Put each part in its `{{name}}` in one pass: text inside a part is never read as a mark."""
    return _MARK.sub(lambda match: parts[match[1]], template)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _header(
    title: str,
    settings: dict[str, Any] | None,
    stored: int,
    expected: int | None,
    standings: Standings,
    now: datetime,
) -> str:
    facts = []
    if expected is not None and stored < expected:
        facts.append(f"<b>in progress:</b> {stored:,} of {expected:,} games played")
    else:
        facts.append(f"{stored:,} games")
    facts.append(f"{len(standings.bots)} bots")
    if settings:
        facts.append(f"{_e(settings.get('players'))} per table")
        facts.append(_e(settings.get("variant")))
        facts.append(f"ends at {_e(settings.get('end_score'))} bullheads")
        facts.append(f"seed {_e(settings.get('seed'))}")
    facts.append(f"as of {now:%Y-%m-%d %H:%M}")
    return f"<h1>{_e(title)}</h1><p class=facts>{' · '.join(facts)}</p>"


def _points_note(standings: Standings) -> str:
    """Say why an interval or the fit is missing, rather than leave people wondering."""
    missing = [line for line in standings.bots if line.games and line.interval is None]
    notes = []
    if missing:
        names = ", ".join(_e(line.bot) for line in missing)
        notes.append(
            f"No interval for {names}: {_e(missing[0].why_no_interval)}; from a single deal "
            "every bootstrap resample is that deal, and the interval would be a point. Play more "
            "deals (<code>--games</code>) to see the uncertainty."
        )
    if standings.fit_note:
        notes.append(_e(standings.fit_note[:1].upper() + standings.fit_note[1:]) + ".")
    return "".join(f"<p class=quiet>{note}</p>" for note in notes)


def _game_link(game_id: str, embedded: Collection[str]) -> str:
    """A game's id, a link into the viewer when the page holds its replay."""
    if game_id in embedded:
        return f"<a href='#game={_e(game_id)}'>{_e(game_id)}</a>"
    return _e(game_id)


def _standings_table(
    standings: Standings, colours: dict[str, str], embedded: Collection[str] = ()
) -> str:
    rows = []
    for line in standings.bots:
        win_share = 100 * line.wins / line.games if line.games else 0.0
        flags = ""
        if line.disqualified:
            where = (
                f" in {_game_link(line.disqualified_in, embedded)}" if line.disqualified_in else ""
            )
            flags = f" <span class=dq>disqualified{where}</span>"
        rows.append(
            f"<tr data-bot='{_e(line.bot)}'><td class=num>{line.rank}</td>"
            f"<td class=bot><i class=swatch style='background:{colours[line.bot]}'></i>"
            f"{_e(line.bot)}{flags}</td>"
            f"<td class=num>{line.games:,}</td><td class=num>{line.bullheads:,}</td>"
            f"<td class='num mean'>{line.mean:.2f}</td>"
            f"{_interval_cell(line.interval, line.why_no_interval)}"
            f"<td class=num>{'' if line.strength is None else f'{line.strength:.2f}'}</td>"
            f"{_interval_cell(line.strength_ci, line.why_no_interval or standings.fit_note)}"
            f"<td class=num>{'' if line.los is None else f'{line.los:.0%}'}</td>"
            f"<td class=num>{line.wins:g}</td><td class=num>{win_share:.0f}%</td>"
            f"<td class=num>{line.faults or ''}</td></tr>"
        )
    head = (
        "<tr><th class=num>#</th><th>bot</th><th class=num>games</th><th class=num>bullheads</th>"
        "<th class=num>per game</th><th class=num>95% interval</th>"
        "<th class=num title='Bullheads per game expected against the whole field, accounting "
        "for whom the bot met: its mean when every bot met every other equally'>fitted</th>"
        "<th class=num>95% interval</th>"
        "<th class=num title='The likelihood that the bot is really stronger than the next one "
        "down (the share of bootstrap resamples of the fit in which it is)'>LOS</th>"
        "<th class=num>wins</th>"
        "<th class=num>win rate</th><th class=num>faults</th></tr>"
    )
    return f"<table id=standings-table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _interval_cell(interval: tuple[float, float] | None, why: str) -> str:
    """An interval's cell; a dash that says why where there is none."""
    if interval is None:
        return f"<td class='num quiet' title='{_e(why)}'>&ndash;</td>"
    return f"<td class=num>{interval[0]:.2f} &ndash; {interval[1]:.2f}</td>"


def _problems(source: GameSource, standings: Standings, out: Mapping[str, Disqualification]) -> str:
    """What the organizer must know beyond the faults: who was put out and why, who never
    connected (with the end of its log, when the log is beside the results), what was left out."""
    logs = source.shown / LOGS if source.shown.is_dir() else None
    tails = {
        line.bot: log_tail(logs / f"{line.bot}.log") if logs is not None else []
        for line in standings.bots
    }
    left = [LeftOut(folder, reason) for folder, reason in source.notes().get(LEFT_OUT, [])]
    problems = find_problems(standings, list(out.values()), left, tails)
    items = []
    for gone in problems.disqualified:
        where = f" in game {_e(gone.game_id)}" if gone.game_id else ""
        items.append(f"<li><b>{_e(gone.bot)}</b> disqualified{where}: {_e(gone.reason)}</li>")
    for absent in problems.never_connected:
        log = "".join(f"{_e(text)}\n" for text in absent.log_tail)
        tail = f"<pre class=log>{log}</pre>" if log else ""
        items.append(
            f"<li><b>{_e(absent.bot)}</b> never connected: the fallback played its "
            f"{absent.games} games{', its log ends:' if log else ''}{tail}</li>"
        )
    for left_out in problems.left_out:
        items.append(
            f"<li>submission <b>{_e(left_out.folder)}</b> left out: {_e(left_out.reason)}</li>"
        )
    return f"<ul id=problems>{''.join(items)}</ul>" if items else ""


def _faults_section(standings: Standings, tally: _Tally, embedded: set[str]) -> str:
    if not tally.fault_count:
        return "<p class=quiet>No faults: every bot answered every request in time, legally.</p>"
    kinds = [kind for kind in FaultKind if any(b.faults_by_kind.get(kind) for b in standings.bots)]
    head = "".join(f"<th>{_e(kind)}</th>" for kind in kinds)
    rows = []
    for line in standings.bots:
        if not line.faults and not line.disqualified:
            continue
        cells = "".join(
            f"<td class=num>{line.faults_by_kind.get(kind, 0) or ''}</td>" for kind in kinds
        )
        rows.append(
            f"<tr><td class=bot>{_e(line.bot)}</td>{cells}<td class=num>{line.faults}</td>"
            f"<td>{'yes' if line.disqualified else ''}</td></tr>"
        )
    table = (
        f"<table id=faults-table><thead><tr><th>bot</th>{head}<th>all</th><th>disqualified</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    items = []
    for game_id, bot, kind, round_, turn, message in tally.faults:
        where = f"{_e(game_id)} round {round_ + 1} turn {turn + 1}"
        if game_id in embedded:
            link = f"#game={_e(game_id)}&turn={round_ + 1}.{turn + 1}"
            where = f"<a href='{link}'>{where}</a>"
        items.append(
            f"<tr><td>{where}</td><td class=bot>{_e(bot)}</td><td>{_e(kind)}</td>"
            f"<td class=message>{_e(message)}</td></tr>"
        )
    shown = len(tally.faults)
    more = f" (the first {shown} of {tally.fault_count})" if shown < tally.fault_count else ""
    listing = (
        f"<details><summary>Fault messages{more}</summary><table id=fault-list><thead><tr>"
        "<th>where</th><th>bot</th><th>kind</th><th>message</th></tr></thead>"
        f"<tbody>{''.join(items)}</tbody></table></details>"
    )
    return table + listing


def _notable(tally: _Tally, embedded: set[str]) -> str:
    takes = [note for note in by_biggest_take(tally.notes) if note.game_id in embedded][:_NOTABLE]
    items = []
    for note in takes:
        take = note.take
        assert take is not None
        spot = f"{take.round + 1}.{take.turn}"
        items.append(
            f"<li><a href='#game={_e(note.game_id)}&turn={spot}'><b>{take.bullheads}</b> "
            f"bullheads at once: <span class=bot title='{_e(note.seats[take.seat])}'>"
            f"{_e(note.seats[take.seat])}</span>, "
            f"{_e(note.game_id)} round {take.round + 1} turn {take.turn}</a></li>"
        )
    return f"<ol class=notable>{''.join(items)}</ol>" if items else ""


def build_report(
    source: GameSource,
    title: str,
    max_games: int = DEFAULT_MAX_GAMES,
    include: Collection[str] = (),
    now: datetime | None = None,
) -> tuple[str, int, int]:
    """The page's HTML, the games in the source, and the games whose replays it embeds."""
    tally = _Tally()
    entries = source.bots()
    out = {name: entry.disqualified for name, entry in entries.items() if entry.disqualified}
    standings = compute_standings(
        _tap(source.outcomes(), tally.see), disqualified=out if entries else None
    )
    if not tally.notes:
        raise SpectateError(f"{source.shown} holds no finished game yet: nothing to report")
    ids, how = choose_games(tally.notes, max_games, include)
    bots = {line.bot: index for index, line in enumerate(standings.bots)}
    numbers = {note.game_id: note.number for note in tally.notes}
    out_in = {name: game.game_id for name, game in out.items()}
    games = [compact(o, numbers[o.game_id], bots, out_in) for o in source.outcomes(ids)]
    embedded = {game["id"] for game in games}
    add_logs(games, source, ids, bots)
    colours = charts.bot_colours([line.bot for line in standings.bots])
    settings = source.settings()
    data = viewer_data([line.bot for line in standings.bots], colours, games)
    stored = len(tally.notes)
    if len(games) < stored:
        shown = _e(shlex.quote(str(source.shown)))
        embedded_note = (
            f"To stay quick to open, this page holds the replays of {how}. Any game can be "
            f"watched in the terminal with <code>arena replay {shown} --game ID</code>, or added "
            f"here with <code>arena report {shown} --include ID</code>."
        )
    else:
        embedded_note = f"This page holds the replays of {how}."
    parts = {
        "title": _e(title),
        "css": _asset("report.css"),
        "script": _asset("report.js"),
        "header": _header(
            title, settings, stored, expected_games(settings), standings, now or datetime.now()
        ),
        "standings_chart": charts.interval_chart(standings, colours) + _points_note(standings),
        "standings_table": _standings_table(standings, colours, embedded),
        "distributions": charts.distributions(standings, tally.per_game, colours),
        "times_chart": charts.times_chart(standings, colours)
        or "<p class=quiet>No answer times were recorded for these games.</p>",
        "heatmap": charts.heat_map(standings),
        "faults": _problems(source, standings, out) + _faults_section(standings, tally, embedded),
        "notable": _notable(tally, embedded),
        "embedded_note": embedded_note,
        "viewer": viewer_markup(),
        "data": script_json(data),
    }
    return _fill(_asset("report.html"), parts), stored, len(games)


def write_report(
    path: Path | str,
    output: Path | None = None,
    max_games: int = DEFAULT_MAX_GAMES,
    include: Collection[str] = (),
) -> ReportSummary:
    """Write the report of the games at `path` (an output folder or a replay file) to `output`.

    By default the page goes into the output folder (beside a replay file) as `report.html`.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    target = output or folder / REPORT_NAME
    with open_games(path) as source:
        page, stored, embedded = build_report(
            source, f"6 nimmt! tournament: {folder.resolve().name}", max_games, include
        )
    data = page.encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written aside, then renamed: a browser reloading the page never reads half of it.
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.write_bytes(data)
        partial.replace(target)
    except OSError as error:  # named after the page asked for, not the file written aside
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(target)) from None
    return ReportSummary(target, len(data), stored, embedded)
