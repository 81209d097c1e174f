"""The series chart (a bot's rating set by set): one dot per point, one mark per stretch, every
point inside the drawing, and any text, however hostile, kept text (the SVG stays well formed
and holds only the elements the chart draws)."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from arena.spectate.series import HEIGHT, WIDTH, SeriesPoint, series_chart

DRAWN = {"figure", "div", "svg", "line", "text", "g", "polyline", "circle", "title", "a"}
"""Every element the chart draws (in its box): a hostile text that became markup would add one."""

texts = st.text(min_size=1, max_size=12) | st.sampled_from(
    ["<script>alert(1)</script>", "</textarea>", "&amp;", "\"'><img src=x onerror=1>"]
)
points = st.lists(
    st.builds(
        SeriesPoint,
        value=st.floats(-1e4, 1e4, allow_nan=False),
        stretch=texts,
        tooltip=texts,
        link=st.none() | st.just("/sets/1"),
        key=st.integers(1, 10**6).map(str),
    ),
    min_size=1,
    max_size=40,
)


class Read(HTMLParser):
    """The chart as a browser's parser reads it: each element with its attributes, and the
    text of each tooltip."""

    def __init__(self, chart: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.titles: list[str] = []
        self.in_title = False
        self.feed(chart)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self.in_title = tag == "title"
        if self.in_title:
            self.titles.append("")

    def handle_endtag(self, tag: str) -> None:
        self.in_title = False

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.titles[-1] += data


@given(points)
def test_one_dot_a_point_one_mark_a_stretch_all_inside(found: list[SeriesPoint]) -> None:
    read = Read(series_chart(found, "rating", "none"))
    dots = [attrs for tag, attrs in read.elements if tag == "circle"]
    assert [dot["data-key"] for dot in dots] == [point.key for point in found]
    starts = [p.stretch for i, p in enumerate(found) if i == 0 or found[i - 1].stretch != p.stretch]
    assert [attrs["data-stretch"] for tag, attrs in read.elements if tag == "g"] == starts
    assert read.titles == [point.tooltip for point in found]  # text, as it was given
    for dot in dots:
        assert 0 <= float(dot["cx"] or -1) <= WIDTH and 0 <= float(dot["cy"] or -1) <= HEIGHT
    assert {tag for tag, _ in read.elements} <= DRAWN
    assert not [name for _, attrs in read.elements for name in attrs if name.startswith("on")]


def test_no_point_is_a_sentence() -> None:
    assert series_chart([], "rating", "No set <played> yet.") == (
        '<p class="quiet">No set &lt;played&gt; yet.</p>'
    )
