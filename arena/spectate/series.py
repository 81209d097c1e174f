"""A value over time as inline SVG: one point per step, a mark where each stretch begins (a
bot's rating set by set, a mark at each version's first set).

Opened and boxed as the report's charts are (`charts.svg_open`, `charts.chart_box`): shown at
its box's width but never so narrow that its smallest text (11 units) renders under 10 px, its
box scrolling below that, never the page. Drawn 420 units wide, it fits a phone's 420 px window
whole. Every label comes through `html.escape`; a point may link to a page of its own (its set).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from arena.spectate.charts import chart_box, nice_ticks, svg_open, text_width

WIDTH, HEIGHT = 420, 230
_TICK, _TEXT = 11, 12
"""The ticks' and the other texts' sizes, in the chart's units (as report.css sizes them)."""
_RIGHT, _TOP, _BOTTOM = 12, 30, 30


@dataclass(frozen=True)
class SeriesPoint:
    """One step: its value, the stretch it belongs to (a version's name), what hovering shows
    and where a click goes."""

    value: float
    stretch: str
    tooltip: str
    link: str | None = None
    key: str = ""
    """What the point is, for a script or a test (`data-key`): a set's id."""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def series_chart(
    points: Sequence[SeriesPoint], label: str, empty: str, chart_id: str = "", legend: str = ""
) -> str:
    """The points left to right, joined by a line, each a dot; a dashed mark and the stretch's
    name where each stretch begins; `label` names the value (under the x axis and for screen
    readers); `empty` is said as a paragraph when there is no point."""
    if not points:
        return f'<p class="quiet">{_e(empty)}</p>'
    values = [point.value for point in points]
    ticks = nice_ticks(min(values), max(values), 5)
    low, high = ticks[0], ticks[-1]
    left = max(text_width(f"{tick:g}", _TICK) for tick in ticks) + 10
    span = max(len(points) - 1, 1)
    inner_w, inner_h = WIDTH - left - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def x(index: int) -> float:
        return left + (inner_w * index / span if len(points) > 1 else inner_w / 2)

    def y(value: float) -> float:
        return _TOP + inner_h * (high - value) / ((high - low) or 1)

    parts = [svg_open(WIDTH, HEIGHT, label, chart_id=chart_id)]
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{left:.1f}" x2="{WIDTH - _RIGHT}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}" stroke="#e8ebf0"/>'
            f'<text class="tick" x="{left - 5:.1f}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'font-size="{_TICK}">{tick:g}</text>'
        )
    parts.append(
        f'<text class="tick" x="{left:.1f}" y="{HEIGHT - 8}" font-size="{_TICK}">'
        f"{_e(label)}, one point per set \N{RIGHTWARDS ARROW}</text>"
    )
    previous = None
    for index, point in enumerate(points):
        if point.stretch == previous:
            continue
        previous, at = point.stretch, x(index)
        name = _e(point.stretch)
        room = text_width(name, _TEXT, bold=True)
        anchor, shift = ("end", -4) if at + 4 + room > WIDTH else ("start", 4)
        parts.append(
            f'<g class="mark" data-stretch="{name}">'
            f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{_TOP - 8}" y2="{HEIGHT - _BOTTOM}" '
            f'stroke="#98a2b3" stroke-dasharray="4 4"/>'
            f'<text class="name" x="{at + shift:.1f}" y="{_TOP - 12}" text-anchor="{anchor}" '
            f'font-size="{_TEXT}" font-weight="600">{name}</text></g>'
        )
    line = " ".join(f"{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(points))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#4e79a7" stroke-width="2"/>')
    for index, point in enumerate(points):
        dot = (
            f'<circle class="point" data-key="{_e(point.key)}" '
            f'data-stretch="{_e(point.stretch)}" cx="{x(index):.1f}" cy="{y(point.value):.1f}" '
            f'r="4" fill="#4e79a7"><title>{_e(point.tooltip)}</title></circle>'
        )
        parts.append(f'<a href="{_e(point.link)}">{dot}</a>' if point.link else dot)
    parts.append("</svg>")
    return chart_box("".join(parts), legend)
