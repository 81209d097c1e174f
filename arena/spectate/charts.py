"""The report's charts as inline SVG and HTML: drawn here, so they need no script and no network.

Every bot-controlled string goes through `html.escape`; numbers are formatted here.

A chart reads on any screen, a phone's included. An SVG scaled by its viewBox scales its text
with it, so each chart is drawn at a width that fits its own labels (measured from them, not
fixed), is shown between `SMALLEST_TEXT`'s width and half again its own, following its box, and
below that width scrolls inside its box (`.chart-box`) rather than shrink its text or widen the
page. Legends are HTML captions, which wrap, not SVG text, which cannot.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from arena.tournament import Standings
from arena.tournament.timing import BotTimes

PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
"""One colour per bot in rank order (Tableau 10), the same in every chart and in the viewer."""

_NAME_CHARS = 22
"""A bot's name is cut to this in chart labels (the whole name is in the tooltip)."""

SMALLEST_TEXT = 10.0
"""CSS pixels: no chart text is ever rendered smaller, whatever the screen."""

TICK_FONT, TEXT_FONT = 11, 12
"""The font sizes of a chart's texts, in its own units: its axes' numbers, and its names and
values. Written on each text (presentation attributes, which no content security policy
blocks), so that a chart's sizes are its own, whatever page shows it: the smaller, with
`SMALLEST_TEXT`, sets how far a chart may shrink."""

_GROWTH = 1.5
"""How much larger than drawn a chart may be shown on a wide screen (its text then 16 px)."""

_NARROW, _WIDE = frozenset(" .,:;'!|()[]-ijlt"), frozenset("mwMW@%")
"""Characters far narrower than the rest (a third of an em) and far wider (over an em)."""

_EM = {False: 0.65, True: 0.68}
"""The other characters' width in ems, regular and bold: a little over DejaVu Sans's digits
(the widest of the usual sans-serif faces), so that a label measured is never wider than its
place."""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _label(name: str) -> str:
    return _e(name if len(name) <= _NAME_CHARS else name[: _NAME_CHARS - 1] + "…")


def bot_colours(bots: Sequence[str]) -> dict[str, str]:
    """Each bot's colour, by rank: the palette's ten, then colours of their own for the rest
    (`extra_colour`), so that no two bots share one however many there are."""
    return {
        bot: PALETTE[index] if index < len(PALETTE) else extra_colour(index - len(PALETTE))
        for index, bot in enumerate(bots)
    }


_GOLDEN_ANGLE = 137.50776405
"""Degrees between successive hues: each new hue falls in the widest gap left by the others."""


def extra_colour(index: int) -> str:
    """The colour of the bot `index` places past the palette: hues a golden angle apart, in
    three bands of lightness and saturation that take turns, so that neighbours differ in more
    than hue; distinct for any index (the hue alone never repeats, being irrational steps)."""
    hue = (index * _GOLDEN_ANGLE + 17) % 360
    saturation, lightness = ((62, 44), (48, 60), (70, 34))[index % 3]
    return f"hsl({hue:.2f} {saturation}% {lightness}%)"


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """About `count` round numbers (1, 2 or 5 times a power of ten apart) covering low..high.

    The ticks are counted, not looped for until they pass `high`: a step too small to add to
    the numbers at their size (a bot's ratings equal but for their last bits, 1 and 1 + 1e-15)
    once made that loop add nothing forever, holding the page's server and growing its memory
    without bound. So a span that rounding alone could make (none, or under `_FLAT` of the
    numbers' size) is drawn one unit wide (`_flat_span`), as an empty span always was.
    """
    if not high - low > _FLAT * max(abs(low), abs(high), 1e-300):
        high = low + _flat_span(low)
    exponent = math.floor(math.log10((high - low) / count))
    power = 10.0**exponent
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= (high - low) / count)
    digits = 1 - exponent  # each tick is a whole number of steps: rounded there, it prints short
    first, last = math.floor(low / step + _NEAR), math.ceil(high / step - _NEAR)
    return [round(k * step, digits) for k in range(first, last + 1)]


_FLAT = 1e-9
"""Numbers closer than this share of their size are drawn as one (a flat line)."""

_NEAR = 1e-9
"""A bound this close to a whole number of steps (in steps) is on it: 0.3 is 3 steps of 0.1,
though 0.3 / 0.1 is 2.9999999999999996."""


def _flat_span(value: float) -> float:
    """How wide a flat line's chart is: one unit, or where one unit is lost in rounding at the
    value's size, a millionth of the value."""
    return max(1.0, abs(value) * 1e-6)


def _grid(
    ticks: Sequence[float], x: Callable[[float], float], top: float, height: float
) -> list[str]:
    """A chart's vertical grid: a line and a label at each tick, `x` placing them."""
    return [
        f"<line class=grid x1={x(tick):.1f} x2={x(tick):.1f} y1={top - 10} y2={height - 6} />"
        f"<text class=tick font-size={TICK_FONT} x={x(tick):.1f} y={top - 14} "
        "text-anchor=middle>"
        f"{_number(tick)}</text>"
        for tick in ticks
    ]


def _number(value: float) -> str:
    return f"{value:g}"


def text_width(text: str, size: float, bold: bool = False) -> float:
    """About how wide `text` renders at `size` px: enough to lay a chart out around its labels
    (a label is escaped markup's text, so an entity counts as one character)."""
    plain = html.unescape(text)
    wide = sum(char in _WIDE for char in plain)
    narrow = sum(char in _NARROW for char in plain)
    ems = (len(plain) - wide - narrow) * _EM[bold] + wide * 1.1 + narrow * 0.36
    return ems * size


def svg_open(
    width: float, height: float, label: str, *, chart_id: str = "", extra: str = ""
) -> str:
    """A chart's opening tag: drawn `width` by `height` units, shown at its box's width, but never
    so narrow that its smallest text renders below `SMALLEST_TEXT` (its box then scrolls) nor
    wider than `_GROWTH` times its drawing. Its `width` attribute is that narrowest size, which
    a page without the styles shows."""
    narrowest = math.ceil(width * SMALLEST_TEXT / min(TICK_FONT, TEXT_FONT))
    widest = math.ceil(width * _GROWTH)
    shown_height = math.ceil(height * narrowest / width)
    ident = f"id={chart_id} " if chart_id else ""
    return (
        f"<svg {ident}class=chart viewBox='0 0 {width:g} {height:g}' width={narrowest} "
        f"height={shown_height} style='min-width:{narrowest}px;max-width:{widest}px' role=img "
        f"aria-label='{_e(label)}'{extra}>"
    )


def chart_box(svg: str, legend: str = "") -> str:
    """A chart in its own box, which scrolls sideways when the screen is narrower than the chart
    may shrink (the page itself never does), under its legend (HTML, so that it wraps)."""
    caption = f"<figcaption class=legend>{legend}</figcaption>" if legend else ""
    return f"<figure class=chart-box>{caption}<div class=chart-scroll>{svg}</div></figure>"


def _margins(names: Sequence[str], values: Sequence[str]) -> tuple[float, float]:
    """The room a row chart leaves left of its plot for the names (bold, right-aligned to the
    plot) and right of it for the values (12 px), measured from the labels themselves."""
    left = max((text_width(name, TEXT_FONT, bold=True) for name in names), default=0.0) + 14
    right = max((text_width(value, TEXT_FONT) for value in values), default=0.0) + 14
    return math.ceil(left), math.ceil(right)


_PLOT = 220
"""The width a row chart's plot is drawn at: with a typical name and value beside it, narrow
enough that the chart shows whole at 10 px text on a 420 px phone."""


def interval_chart(standings: Standings, colours: Mapping[str, str]) -> str:
    """Each bot's bullheads per game as a dot on its 95% interval, best at the top; a bot with no
    interval (fewer than two whole deals) has the dot alone, and the fitted strength, where it
    differs from the mean, is a ring. The numbers are in the table beside it and each row's
    tooltip; the chart shows the mean's alone, so that it fits a phone."""
    bots = standings.bots
    played = [line for line in bots if line.games]
    names = [f"{line.rank}. {_label(line.bot)}" for line in bots]
    left, right = _margins(names, [f"{line.mean:.1f}" for line in played])
    row, top = 30, 30
    width = left + _PLOT + right
    values = [v for b in played for v in (*(b.interval or ()), b.mean)]
    values += [b.strength for b in played if b.strength is not None]
    ticks = nice_ticks(min(values, default=0.0), max(values, default=1.0), 4)
    low, high = ticks[0], ticks[-1]

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * _PLOT

    height = top + row * len(bots) + 10
    parts = [
        svg_open(
            width,
            height,
            "Bullheads per game with 95% intervals, best first",
            chart_id="standings-chart",
        )
    ]
    parts.extend(_grid(ticks, x, top, height))
    for index, (line, name) in enumerate(zip(bots, names, strict=True)):
        y = top + row * index + row / 2
        colour = colours[line.bot]
        label = (
            f"<text class=name font-size={TEXT_FONT} font-weight=600 x={left - 10} "
            f"y={y + 4:.1f} text-anchor=end>{name}</text>"
        )
        if not line.games:
            parts.append(f"<g><title>{_e(line.bot)}: no game yet</title>{label}</g>")
            continue
        interval = line.interval
        spread = (
            f"95% interval {interval[0]:.2f} to {interval[1]:.2f}"
            if interval
            else f"no interval: {line.why_no_interval}"
        )
        fitted = "" if line.strength is None else f", fitted {line.strength:.2f}"
        parts.append(
            f"<g><title>{_e(line.bot)}: {line.mean:.2f} per game, {_e(spread)}{fitted}, "
            f"{line.games} games</title>{label}"
        )
        if interval:
            parts.append(
                f"<line x1={x(interval[0]):.1f} x2={x(interval[1]):.1f} y1={y:.1f} y2={y:.1f} "
                f"stroke='{colour}' stroke-width=6 stroke-linecap=round opacity=0.45 />"
            )
        if line.strength is not None and abs(line.strength - line.mean) >= 0.005:
            parts.append(
                f"<circle class=fitted cx={x(line.strength):.1f} cy={y:.1f} r=8 fill=none "
                f"stroke='{colour}' stroke-width=2 />"
            )
        parts.append(
            f"<circle cx={x(line.mean):.1f} cy={y:.1f} r=6 fill='{colour}' stroke=#222 />"
            f"<text class=value font-size={TEXT_FONT} x={x(high) + 8:.1f} y={y + 4:.1f}>"
            f"{line.mean:.1f}</text></g>"
        )
    parts.append("</svg>")
    legend = (
        "Bullheads per game (dot), its 95% interval (bar), fitted (ring); fewer is better, "
        "to the left."
    )
    if any(line.games and not line.interval for line in bots):
        legend += " A dot alone: no interval (the note below says why)."
    return chart_box("".join(parts), legend)


def distributions(
    standings: Standings, per_game: Mapping[str, Counter[int]], colours: Mapping[str, str]
) -> str:
    """Each bot's games by bullheads as a histogram, all on one scale, with the mean marked."""
    highest = max(max(counts) for counts in per_game.values())
    ticks = nice_ticks(0, highest, 5)
    end = ticks[-1]
    bin_width = max(1, int(nice_ticks(0, end, 24)[1]))
    bins = math.ceil((end + 1) / bin_width)
    width, height, left, bottom, top = 300, 120, 30, 20, 8
    plot_w, plot_h = width - left - 8, height - bottom - top
    cards = []
    for line in standings.bots:
        counts = per_game.get(line.bot, Counter())
        binned = [0] * bins
        for value, count in counts.items():
            binned[min(value // bin_width, bins - 1)] += count
        tallest = max(binned) or 1
        bar_w = plot_w / bins
        bars = []
        for index, count in enumerate(binned):
            if not count:
                continue
            h = count / tallest * plot_h
            start = index * bin_width
            bars.append(
                f"<rect x={left + index * bar_w:.1f} y={top + plot_h - h:.1f} "
                f"width={max(bar_w - 1, 1):.1f} height={h:.1f} fill='{colours[line.bot]}'>"
                f"<title>{count} games with {start}&ndash;{start + bin_width - 1} bullheads</title>"
                "</rect>"
            )
        axis = "".join(
            f"<text class=tick font-size={TICK_FONT} "
            f"x={left + t / (bins * bin_width) * plot_w:.1f} y={height - 5} "
            f"text-anchor=middle>{_number(t)}</text>"
            for t in ticks
        )
        mean_x = left + line.mean / (bins * bin_width) * plot_w
        cards.append(
            f"<figure class=dist data-bot='{_e(line.bot)}'><figcaption>"
            f"<b class=name>{line.rank}. {_label(line.bot)}</b> "
            f"<span class=quiet>{line.games} games, mean {line.mean:.1f}</span></figcaption>"
            f"{svg_open(width, height, f'{line.bot}: games by bullheads')}"
            f"<line class=base x1={left} x2={width - 8} y1={top + plot_h} y2={top + plot_h} />"
            f"{''.join(bars)}{axis}"
            f"<line class=mean x1={mean_x:.1f} x2={mean_x:.1f} y1={top - 4} y2={top + plot_h} />"
            f"<text class=tick font-size={TICK_FONT} x={left - 4} y={top + 8} "
            f"text-anchor=end>{tallest}</text>"
            "</svg></figure>"
        )
    return f"<div class=dists>{''.join(cards)}</div>"


def _heat(difference: float, scale: float) -> str:
    """Green for better (fewer bullheads than the opponent), red for worse, pale near zero."""
    share = min(abs(difference) / scale, 1.0) if scale else 0.0
    hue = 140 if difference < 0 else 4
    return f"hsl({hue} 62% {96 - 46 * share:.0f}%)"


def heat_map(standings: Standings) -> str:
    """The pairwise table as a heat map: row bot's bullheads per game minus the column bot's."""
    names = [line.bot for line in standings.bots]
    cells = {(p.bot, p.opponent): p for p in standings.pairings}
    scale = max((abs(p.difference) for p in standings.pairings), default=0.0)
    head = "".join(f"<th class=col title='{_e(n)}'>{_label(n)}</th>" for n in names)
    rows = []
    for bot in names:
        tds = []
        for opponent in names:
            pairing = cells.get((bot, opponent))
            if bot == opponent:
                tds.append("<td class=self></td>")
            elif pairing is None:
                tds.append("<td class=none title='never met'>·</td>")
            else:
                d = pairing.difference
                dark = scale and abs(d) / scale > 0.65
                tip = (
                    f"{bot} vs {opponent}: {d:+.2f} bullheads per game over {pairing.games} "
                    "games at the same table"
                )
                tds.append(
                    f"<td class='num{' dark' if dark else ''}' "
                    f"style='background:{_heat(d, scale)}' title='{_e(tip)}'>{d:+.1f}</td>"
                )
        rows.append(f"<tr><th class=row title='{_e(bot)}'>{_label(bot)}</th>{''.join(tds)}</tr>")
    return (
        f"<table id=heatmap><thead><tr><th></th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _log_ticks(low: float, high: float) -> list[float]:
    """Ticks 1, 2 and 5 times the powers of ten from below `low` to above `high` (ms)."""
    ticks: list[float] = []
    power = 10 ** math.floor(math.log10(max(low, 1e-3)))
    while not ticks or ticks[-1] < high:
        for m in (1, 2, 5):
            value = m * power
            if value >= low / 5 or not ticks:
                ticks.append(value)
            if value >= high:
                break
        power *= 10
    if len(ticks) > 8:  # a wide range: the powers of ten and their halves are enough
        ticks = [t for t in ticks if f"{t:g}".lstrip("0.")[0] in "15"]
    return ticks


def _ms(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def times_chart(standings: Standings, colours: Mapping[str, str]) -> str:
    """Each bot's answer times on a log scale, in rank order: its median (dot), 99th
    percentile (bar end) and slowest answer (tick), with the time bank it drew on; empty when
    no time was recorded (games stored before times were kept, a replay file)."""
    lines = [line for line in standings.times if line.median is not None]
    if not lines:
        return ""
    shown_values = [_times_shown(line) for line in lines]
    left, right = _margins([_label(line.bot) for line in lines], shown_values)
    row, top = 30, 30
    width = left + _PLOT + right
    values = [v * 1000 for line in lines for v in (line.median, line.slowest) if v is not None]
    ticks = _log_ticks(max(min(values), 0.05), max(values))
    low, high = math.log10(ticks[0]), math.log10(ticks[-1])

    def x(ms: float) -> float:
        return left + (math.log10(max(ms, ticks[0])) - low) / ((high - low) or 1) * _PLOT

    height = top + row * len(lines) + 10
    parts = [
        svg_open(
            width,
            height,
            "Answer times per bot: median, 99th percentile, slowest",
            chart_id="times-chart",
        )
    ]
    parts.extend(_grid(ticks, x, top, height))
    for index, (line, shown) in enumerate(zip(lines, shown_values, strict=True)):
        assert line.median is not None and line.p99 is not None and line.slowest is not None
        y = top + row * index + row / 2
        colour = colours.get(line.bot, "#888")
        median, p99, slowest = line.median * 1000, line.p99 * 1000, line.slowest * 1000
        cpu = "" if line.cpu_median is None else f", CPU {_ms(line.cpu_median * 1000)} ms"
        bank = f", {line.bank_used:.2f} s of time bank in {line.bank_games} games"
        bank = bank if line.bank_games else ""
        tip = (
            f"{line.bot}: median {_ms(median)} ms, 99th percentile {_ms(p99)} ms, slowest "
            f"{_ms(slowest)} ms over {line.decisions} decisions{cpu}{bank}"
        )
        parts.append(
            f"<g><title>{_e(tip)}</title>"
            f"<text class=name font-size={TEXT_FONT} font-weight=600 x={left - 10} "
            f"y={y + 4:.1f} text-anchor=end>"
            f"{_label(line.bot)}</text>"
            f"<line x1={x(median):.1f} x2={x(p99):.1f} y1={y:.1f} y2={y:.1f} stroke='{colour}' "
            "stroke-width=6 stroke-linecap=round opacity=0.45 />"
            f"<line x1={x(slowest):.1f} x2={x(slowest):.1f} y1={y - 7:.1f} y2={y + 7:.1f} "
            f"stroke='{colour}' stroke-width=2 />"
            f"<circle cx={x(median):.1f} cy={y:.1f} r=6 fill='{colour}' stroke=#222 />"
            f"<text class=value font-size={TEXT_FONT} x={left + _PLOT + 10:.1f} "
            f"y={y + 4:.1f}>{_e(shown)}</text></g>"
        )
    parts.append("</svg>")
    legend = (
        "Milliseconds per decision, on a log scale: the median (dot), the 99th percentile "
        "(bar's end), the slowest (tick)."
    )
    return chart_box("".join(parts), legend)


def _times_shown(line: BotTimes) -> str:
    """The figures written beside a bot's answer times: median and 99th percentile, and the
    time bank it drew on, if any."""
    assert line.median is not None and line.p99 is not None
    bank = f" · bank {line.bank_used:.1f} s" if line.bank_games else ""
    return f"{_ms(line.median * 1000)} / {_ms(line.p99 * 1000)} ms{bank}"
