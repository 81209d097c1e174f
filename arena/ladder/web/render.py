"""One Jinja2 environment for every page, and the filters they share.

Autoescape is on for every template whatever its name (not Jinja2's `select_autoescape`, which
goes by the file's extension): a bot's or an author's name, a log line or a build log is text
wherever a page shows it, and only `Markup` built here from numbers is markup. `StrictUndefined`
turns a name a template uses but a page forgot to pass into an error in the tests, not an empty
cell in production.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from arena.ladder.rating import Rating

STATIC = "/static"
"""Where the site's stylesheet, scripts and the replay viewer's assets are served."""
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""Every page's headers. Scripts only from the site's own files: were a name ever to slip
through as markup, no inline script of it would run (the pages' data for scripts is JSON in
`<script type="application/json">`, which is not run); styles may be inline (the charts' and the
viewer's swatches); no page may be framed by another site."""


def utc(when: dt.datetime | None) -> str:
    """A time as every page shows it: UTC, to the minute; a dash for none."""
    if when is None:
        return "\N{EM DASH}"
    return when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def rating(mu: float | None, sigma: float | None) -> Markup:
    """A rating as the leaderboard ranks it, mu - 3 sigma, with mu and sigma beside it (a new
    version's low rating is its uncertainty, and the reader should see which)."""
    if mu is None or sigma is None:
        return Markup("\N{EM DASH}")
    shown = Rating(mu, sigma).ordinal
    return Markup(
        '<span class="rating">{:.1f}</span> <span class="musigma">\N{GREEK SMALL LETTER MU} '
        "{:.1f} \N{GREEK SMALL LETTER SIGMA} {:.1f}</span>"
    ).format(shown, mu, sigma)


def signed(value: float | None) -> str:
    """A change, with its sign: +1.2, -0.4, 0.0."""
    if value is None:
        return "\N{EM DASH}"
    return f"{value:+.1f}"


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("arena.ladder.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(utc=utc, rating=rating, signed=signed)
    environment.globals.update(static=STATIC)
    return environment


ENVIRONMENT = _environment()


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """The template `name` rendered with `context`, as a page. Every page gets `request` and
    `me`: the signed-in author's name for the nav, None for a visitor (the sign-in pages put
    theirs in `request.state.me`)."""
    context.setdefault("me", getattr(request.state, "me", None))
    html = ENVIRONMENT.get_template(name).render(request=request, **context)
    return HTMLResponse(html, status_code=status_code, headers=HEADERS)
