"""What every browser test checks of a page, in one place: the report's tests and the ladder's.

Chromium is Debian's (`make test` installs it; another build can be named in ARENA_CHROMIUM),
driven by Playwright's Python package; Playwright's own browser downloads are never used. No
browser is no pass: `launch` fails, saying what is missing, rather than skip, because a page
nobody opened in a browser is not known to work. The `browser` fixture (tests/conftest.py) is
one Chromium per test module, launched here.

The checks take a Playwright page (typed `Any`: Playwright is a test dependency, not the
arena's) and read it in one evaluation each, so that a page that changes under them is read at
one moment.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))
"""Debian's chromium; another build can be named in ARENA_CHROMIUM."""

ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Without the background-networking switches Chromium tries to reach Google at start-up, which a
closed network refuses; the rest make a quiet, sandbox-free headless run as root in CI."""

PHONE = 420
"""CSS pixels: the narrowest screen every page must fit (a phone held upright)."""

SMALLEST_TEXT = 10.0
"""CSS pixels: no chart text may render smaller (arena.spectate.charts.SMALLEST_TEXT)."""


@contextmanager
def launch() -> Iterator[Any]:
    """Chromium under Playwright, closed on leaving, or a test failure that says what is missing
    and how to get it."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.fail("Playwright is missing: `make test` installs it (pip install -e '.[dev]')")
    if not CHROMIUM.is_file():
        pytest.fail(
            f"no browser at {CHROMIUM}: `make test` installs it (apt-get install chromium), "
            "or name one in ARENA_CHROMIUM"
        )
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(ARGS))
        except Error as error:
            pytest.fail(f"{CHROMIUM} does not start: {error}")
        try:
            yield chromium
        finally:
            chromium.close()


def watch(page: Any, *, allowed: tuple[str, ...] = ("file:", "data:")) -> list[str]:
    """The page's problems as they happen: its script errors, console errors, and every request
    to an address not starting with one of `allowed` (a report reaches no network; a ladder's
    page only its own server). The list fills while the test goes on: assert it empty at the end."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            problems.append(f"console: {message.text}") if message.type == "error" else None
        ),
    )
    page.on(
        "request",
        lambda request: (
            None
            if request.url.startswith(allowed)
            else problems.append(f"request to {request.url}")
        ),
    )
    return problems


_STICKING_OUT = """() => {
  const clipped = (node) => {
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  };
  const right = (node) => {  // its box's edge, or its content's where that overflows the box
    const box = node.getBoundingClientRect();
    return Math.max(box.right, box.left + node.scrollWidth);
  };
  const out = (node) => right(node) > window.innerWidth + 0.5;
  const outermost = (node) => node.parentElement === document.body || !out(node.parentElement);
  return [...document.body.querySelectorAll("*")]
    .filter((node) => out(node) && !clipped(node) && outermost(node))
    .slice(0, 5)
    .map((node) => {
      const name = node.tagName.toLowerCase() + (node.id ? "#" + node.id : "");
      const kind = typeof node.className === "string" && node.className.trim()
        ? "." + node.className.trim().split(/\\s+/).join(".") : "";
      return `${name}${kind} (to ${Math.round(right(node))} px)`;
    });
}"""


def assert_fits(page: Any, width: int = PHONE) -> None:
    """The page fits a window `width` px wide: the document is exactly as wide as the window, so
    nothing scrolls the page sideways (a wide table or chart scrolls inside its own box).
    The page must already be shown at that width; a failure names what sticks out."""
    shown = page.evaluate("window.innerWidth")
    assert shown == width, f"the page is shown {shown} px wide, not {width}: set its viewport"
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll != width:
        out = page.evaluate(_STICKING_OUT)
        pytest.fail(
            f"the page is {scroll} px wide in a {width} px window; sticking out: "
            f"{', '.join(out) or 'nothing the body holds'}",
            pytrace=False,
        )


# Each text's size is its computed font size times the scale from its own units to the screen's
# (its getScreenCTM, which holds the viewBox's scaling, any transform, and the page's zoom; the
# smaller of its two axes, should a chart be stretched). Not getBoundingClientRect: a box's height
# is the font's line (ascent plus descent), not its size, and it varies with the glyphs drawn.
# Texts not drawn (display none, in <defs> or <symbol>, empty) have no CTM or no box, and are
# left out.
_CHART_TEXT = """() => [...document.querySelectorAll("svg text, svg tspan")]
  .filter((node) => node.textContent.trim() && node.getClientRects().length)
  .map((node) => {
    const ctm = node.getScreenCTM();
    if (!ctm) return null;
    const scale = Math.min(Math.hypot(ctm.a, ctm.b), Math.hypot(ctm.c, ctm.d));
    const svg = node.ownerSVGElement;
    return {
      size: parseFloat(getComputedStyle(node).fontSize) * scale,
      text: node.textContent.trim().slice(0, 40),
      chart: svg.id || svg.getAttribute("aria-label") || "an svg",
    };
  })
  .filter(Boolean)"""


def chart_texts(page: Any) -> list[dict[str, Any]]:
    """Every text drawn in an SVG on the page: its rendered size in CSS px, its words, its chart."""
    texts: list[dict[str, Any]] = page.evaluate(_CHART_TEXT)
    return texts


def smallest_chart_text(page: Any) -> float:
    """The smallest rendered font size, in CSS px, of any text drawn in an SVG on the page (see
    `_CHART_TEXT` for how it is measured); a page with no chart text fails the test, since a
    check of nothing would pass whatever the page did."""
    texts = chart_texts(page)
    assert texts, "the page draws no text in any SVG: there is no chart to measure"
    return min(text["size"] for text in texts)


def assert_chart_text_readable(page: Any, at_least: float = SMALLEST_TEXT) -> None:
    """No chart text renders below `at_least` px; on failure, the smallest few and where."""
    texts = sorted(chart_texts(page), key=lambda text: text["size"])
    assert texts, "the page draws no text in any SVG: there is no chart to measure"
    small = [t for t in texts if t["size"] < at_least - 1e-6]
    assert not small, "chart text below {:g} px: {}".format(
        at_least,
        "; ".join(f"{t['size']:.1f} px {t['text']!r} in {t['chart']}" for t in small[:5]),
    )


_CLIPPED = """() => [...document.querySelectorAll("svg.chart text")]
  .filter((node) => node.textContent.trim() && node.getClientRects().length)
  .filter((node) => {
    const text = node.getBoundingClientRect();
    const svg = node.ownerSVGElement.getBoundingClientRect();
    return text.left < svg.left - 0.5 || text.right > svg.right + 0.5;
  })
  .map((node) => node.textContent.trim().slice(0, 40))"""


def clipped_chart_text(page: Any) -> list[str]:
    """The chart texts (`svg.chart`) that run past their chart's left or right edge, which
    clips them: a label laid out narrower than it renders."""
    clipped: list[str] = page.evaluate(_CLIPPED)
    return clipped


def count_scripts(page: Any) -> int:
    """How many script elements the document holds (inline or not, wherever they are): a page
    showing hostile names and logs must hold exactly the scripts it was written with."""
    count: int = page.evaluate("document.scripts.length")
    return count


_HANDLERS = """() => [...document.querySelectorAll("*")].flatMap((node) =>
  [...node.attributes]
    .filter((a) => /^on/i.test(a.name) || (/^(href|src|action|formaction|xlink:href)$/i
      .test(a.name) && /^\\s*javascript:/i.test(a.value)))
    .map((a) => `${node.tagName.toLowerCase()} ${a.name}=${JSON.stringify(a.value)}`))"""


def script_attributes(page: Any) -> list[str]:
    """Every other way markup runs script: event-handler attributes (`onerror=`, ...) and
    `javascript:` addresses. A page whose own code sets none must show an empty list."""
    found: list[str] = page.evaluate(_HANDLERS)
    return found


def broken_names(page: Any, selector: str) -> dict[str, int]:
    """Each element matching `selector` whose name (its first text of its own, else all its text)
    renders on more than one line, with its count of lines: a name never breaks, anywhere."""
    lines: list[list[Any]] = page.locator(selector).evaluate_all(
        """(nodes) => nodes.map((node) => {
          const range = document.createRange();
          const text = [...node.childNodes]
            .find((c) => c.nodeType === Node.TEXT_NODE && c.textContent.trim());
          range.selectNodeContents(text || node);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          return [(text || node).textContent.trim(), tops.size];
        })"""
    )
    return {name: count for name, count in lines if count > 1}
